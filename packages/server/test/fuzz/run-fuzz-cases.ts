// Runs fuzz cases against a target: each request on its own connection, then (when the server
// kept the connection) a health check on the same connection, to prove it was not broken.
import { connect } from "node:net";
import fc from "fast-check";
import { parseAnswer } from "../raw-http.js";
import { describeRequest, requestArbitrary, serialise, type FuzzRequest } from "./fuzz-requests.js";
import { judgeAnswer, judgeDatabase, judgeLogs, type FuzzTarget } from "./fuzz-target.js";

/** The outcome of a fuzz run. */
export interface FuzzReport {
  seed: number;
  runs: number;
  /** How many answers of each status the first requests got. */
  statuses: Record<string, number>;
  /** fast-check's account of the first failure (with its seed and path), or null. */
  failure: string | null;
  /** With `countAll`: how many cases broke a property, by the first words of the reason. */
  broken: Record<string, number>;
}

const CASE_TIMEOUT_MS = 8_000;

/** Sends one request (and a follow-up when the connection stays open) and reads everything back. */
function exchangeCase(port: number, bytes: Buffer, head: boolean, flipped: boolean): Promise<{ first: string; second: string | null; error: string | null }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    let text = "";
    let firstLength = -1;
    let followed = false;
    let error: string | null = null;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ first: firstLength === -1 ? text : text.slice(0, firstLength), second: followed ? text.slice(firstLength) : null, error });
    };
    const timer = setTimeout(() => {
      error ??= "no answer in time";
      finish();
    }, CASE_TIMEOUT_MS);
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (firstLength !== -1) return;
      const answer = parseAnswer(text, { head });
      if (answer.status === 0 || text.length < answer.length) return;
      firstLength = answer.length;
      if (flipped) return finish();
      // The server kept the connection: it must still serve the next request on it.
      if (answer.headers.connection !== "close") {
        followed = true;
        socket.write("GET /healthz HTTP/1.1\r\nHost: fuzz.test\r\nConnection: close\r\n\r\n");
      }
    });
    socket.on("error", (cause: NodeJS.ErrnoException) => {
      error ??= cause.code ?? cause.message;
      finish();
    });
    socket.on("end", finish);
    socket.write(bytes);
  });
}

/** Why one case breaks a property, or null. */
async function judgeCase(target: FuzzTarget, request: FuzzRequest, statuses: Record<string, number>): Promise<string | null> {
  const logged = target.logs.length;
  const head = request.method === "HEAD";
  const result = await exchangeCase(target.port, serialise(request), head, request.flip !== null);
  const first = { text: result.first, ...parseAnswer(result.first, { head }) };
  statuses[first.status] = (statuses[first.status] ?? 0) + 1;
  if (result.error !== null) return `connection: ${result.error} after ${JSON.stringify(result.first.slice(0, 120))}`;
  const verdict = judgeAnswer(first, target.secrets, head);
  if (verdict !== null) return verdict;
  if (result.second !== null) {
    const second = parseAnswer(result.second);
    if (second.status !== 200 || second.body !== '{"status":"ok"}') return `the connection was unusable after the answer: ${JSON.stringify(result.second.slice(0, 200))}`;
  }
  return judgeLogs(target.logs.slice(logged), target.secrets);
}

/** Runs `runs` fuzz cases from `seed`; the database checks run once at the end. */
export async function runFuzzCases(target: FuzzTarget, options: { runs: number; seed: number; countAll?: boolean; onCase?: (index: number) => void }): Promise<FuzzReport> {
  const statuses: Record<string, number> = {};
  const broken: Record<string, number> = {};
  let index = 0;
  const property = fc.asyncProperty(requestArbitrary(target.world), async (request) => {
    options.onCase?.((index += 1));
    const verdict = await judgeCase(target, request, statuses);
    if (verdict === null) return;
    // Counting every broken case (to measure a server, not to debug it) goes on past the first.
    if (options.countAll === true) return void (broken[verdict.slice(0, 60)] = (broken[verdict.slice(0, 60)] ?? 0) + 1);
    throw new Error(`${verdict}\n  request: ${describeRequest(request)}`);
  });
  const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, endOnFailure: false, markInterruptAsFailure: true });
  let failure: string | null = null;
  if (details.failed) {
    // Not fast-check's own report: it would print megabytes of body.
    const request = details.counterexample?.[0];
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    failure = `seed ${details.seed}, path "${details.counterexamplePath ?? ""}", after ${details.numRuns} cases (shrunk ${details.numShrinks} times)\n  ${request === undefined ? error : `${error.split("\n  request:")[0]}\n  request: ${describeRequest(request)}`}`;
  }
  const database = judgeDatabase(target.runtime);
  if (database !== null) failure = `${failure ?? ""}\nafter the run: ${database}`;
  return { seed: options.seed, runs: details.numRuns, statuses, failure, broken };
}
