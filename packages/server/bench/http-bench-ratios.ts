// The HTTP benchmark's regression guard: each route's efficiency as a share of bare node:http's in
// the same run — bare's server CPU per request ÷ the route's — recorded in http-bench-ratios.json
// and checked by `npm run bench:http -- --check`. CPU per request, not requests/s: on a shared
// machine the requests/s of a run swing with the neighbours' load (one run under a load average
// of 16 gave the list route 185 % of bare's requests/s, bare having had little CPU), while the
// CPU each request costs moves far less. Requests/s shares are printed beside it. The shares
// still differ between processors (bare node:http cost 20–26 µs a request on the AMD EPYC host
// of 2026-11-27 morning and 10 µs on the Intel Xeon host of its afternoon, the list route 44–64
// and 42 µs), so the file keeps one record per processor, and a check compares with this
// machine's. A processor is its model name with its family and model numbers (report.ts,
// `processorName`): the name alone, "AMD EPYC", stood for hosts of families 25 and 26 whose list
// route's share differed by more than the tolerance.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { processorName, type Measured } from "./report.js";

/** The committed record the check compares with. */
export const RECORDED_FILE = fileURLToPath(new URL("./http-bench-ratios.json", import.meta.url));

/** A route may fall this far below its recorded share before the check fails. */
const TOLERANCE = 0.2;

/** The routes guarded. */
const ROUTES = ["list", "chat"] as const;
type Route = (typeof ROUTES)[number];

/** What http-bench-ratios.json holds: a record per processor (`processorName()`). */
interface RecordFile {
  about: string;
  records: Record<string, Recorded>;
}

/** One processor's record. */
export interface Recorded {
  /** Server CPU per request of bare node:http ÷ that of the route, in one run. */
  shares: Record<Route, number>;
  connections: number;
  chunks: number;
  /** How the server ran: "bundle" (from the sources, by tsup), "built" (the installed dist) or "tsx". */
  server: "bundle" | "built" | "tsx";
  machine: string;
  loadAverage: string;
  date: string;
  command: string;
}

const ABOUT =
  "Each route's efficiency as a share of bare node:http's in the same `npm run bench:http` run: bare's server CPU per request divided by the route's, one record per processor (model name, family and model). `npm run bench:http -- --check` fails when a share falls more than 20 % below this machine's record; `--record` writes this machine's (docs/benchmarks.md, \"Close to the machine (#27)\").";

const readFile = (): RecordFile => (existsSync(RECORDED_FILE) ? (JSON.parse(readFileSync(RECORDED_FILE, "utf8")) as RecordFile) : { about: ABOUT, records: {} });

/** This machine's record, or undefined when none was taken on its processor. */
export function readRecorded(): Recorded | undefined {
  return readFile().records[processorName()];
}

/** The shares of a run that measured bare node:http, the list route and the chat route; else undefined. */
export function ratiosOf(runs: { bare?: Measured; list?: Measured; chat?: Measured }): { shares: Record<Route, number>; text: string } | undefined {
  const { bare, list, chat } = runs;
  if (bare === undefined || list === undefined || chat === undefined) return undefined;
  const rps = (run: Measured) => run.result.requests.average;
  const cpu = (run: Measured) => (run.serverCpu === undefined ? Number.NaN : run.serverCpu / run.result.requests.total);
  const shares = { list: cpu(bare) / cpu(list), chat: cpu(bare) / cpu(chat) };
  const line = (route: Route, run: Measured) => `${route} ${percent(shares[route])} by CPU per request (${percent(rps(run) / rps(bare))} of its requests/s)`;
  return { shares, text: `Share of bare node:http in this run: ${line("list", list)}; ${line("chat", chat)}.` };
}

/** Each share against the recorded one: ok unless it falls more than 20 % below. */
export function checkRatios(shares: Record<Route, number>, recorded: Recorded): { ok: boolean; text: string } {
  const verdicts = ROUTES.map((route) => {
    const floor = recorded.shares[route] * (1 - TOLERANCE);
    const ok = shares[route] >= floor;
    return { ok, text: `${route} ${percent(shares[route])} (recorded ${percent(recorded.shares[route])}, floor ${percent(floor)}): ${ok ? "ok" : "SLOWER"}` };
  });
  const ok = verdicts.every((verdict) => verdict.ok);
  return {
    ok,
    text: `Check against this processor's record of ${recorded.date} (${RECORDED_FILE.replace(/.*\/packages\//, "packages/")}): ${verdicts.map((verdict) => verdict.text).join("; ")}. ${ok ? "Passed." : "FAILED: a route is more than 20 % slower, relative to bare node:http, than recorded."}`,
  };
}

/** Writes this run's shares as the new record. */
export function recordRatios(run: { shares: Record<Route, number>; connections: number; chunks: number; server: Recorded["server"]; machine: string; command: string }): void {
  const record: Recorded = {
    shares: { list: round(run.shares.list), chat: round(run.shares.chat) },
    connections: run.connections,
    chunks: run.chunks,
    server: run.server,
    machine: run.machine,
    loadAverage: loadavg().map((value) => value.toFixed(2)).join(" "),
    date: new Date().toISOString().slice(0, 10),
    command: run.command,
  };
  const file = readFile();
  writeFileSync(RECORDED_FILE, `${JSON.stringify({ about: ABOUT, records: { ...file.records, [processorName()]: record } }, null, 2)}\n`);
}

const round = (share: number) => Number(share.toPrecision(3));
const percent = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 2 : 1)} %`;
