import v8 from "node:v8";

/**
 * How far V8 lets the old generation grow past what its last full collection kept, in percent,
 * before the next one. V8's own rule (the flag at 0) scales with the machine's memory, up to four
 * times the live heap on a machine with memory to spare; a server's garbage is mostly requests'
 * objects that outlived two scavenges, so that headroom is resident memory spent on garbage
 * (docs/operations.md, "Memory").
 */
export const HEAP_GROWING_PERCENT = 50;

/** What `limitHeapGrowth` reads and calls: the process's node flags and V8's flag setter. */
export interface NodeFlags {
  execArgv: readonly string[];
  nodeOptions: string | undefined;
  setFlags: (flags: string) => void;
}

/**
 * Has `parley serve`'s process collect its garbage at `HEAP_GROWING_PERCENT` growth, unless its
 * node was given a growth of its own (`--heap-growing-percent`, on the command line or in
 * NODE_OPTIONS; 0 restores V8's rule). V8 reads the flag at each full collection, so it holds
 * from the next one. Returns the flag set, or undefined when the operator's stands.
 */
export function limitHeapGrowth(node: NodeFlags = { execArgv: process.execArgv, nodeOptions: process.env.NODE_OPTIONS, setFlags: (flags) => v8.setFlagsFromString(flags) }): string | undefined {
  const given = [...node.execArgv, ...(node.nodeOptions ?? "").split(/\s+/)].some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag));
  if (given) return undefined;
  const flag = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
  node.setFlags(flag);
  return flag;
}
