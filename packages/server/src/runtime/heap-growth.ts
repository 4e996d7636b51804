import v8 from "node:v8";

/**
 * How far V8 lets the old generation grow past what its last full collection kept, in percent,
 * before the next one. V8's own rule (the flag at 0) scales with the machine's memory, up to four
 * times the live heap on a machine with memory to spare; a server's garbage is mostly requests'
 * objects that outlived two scavenges, so that headroom is resident memory spent on garbage
 * (docs/operations.md, "Memory").
 */
export const HEAP_GROWING_PERCENT = 50;

/** What `limitHeapGrowth` reads and calls: the flags node was started with, and V8's flag setter. */
export interface NodeFlags {
  execArgv: readonly string[];
  setFlags: (flags: string) => void;
}

/**
 * Has `parley serve`'s process collect its garbage at `HEAP_GROWING_PERCENT` growth, unless its
 * node was started with a growth of its own (`node --heap-growing-percent=N …`; 0 restores V8's
 * rule; NODE_OPTIONS cannot carry this flag). V8 reads it at each full collection, so it holds
 * from the next one. Returns the flag set, or undefined when the operator's stands.
 */
export function limitHeapGrowth(node: NodeFlags = { execArgv: process.execArgv, setFlags: (flags) => v8.setFlagsFromString(flags) }): string | undefined {
  const given = node.execArgv.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag));
  if (given) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  node.setFlags(flag);
  return flag;
}
