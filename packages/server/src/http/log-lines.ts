import { createLineWriter, type LineWriter } from "./line-writer.js";
import type { Redactor } from "./redact.js";

/**
 * Where the server writes its JSON log lines. A sink that writes text may also take a line's
 * members already serialised (`"level":"info",…`, without braces or time): the access log's
 * path, which skips building, copying and walking an object per request.
 */
export type LogSink = ((line: Record<string, unknown>) => void) & { members?: (json: string) => void };

let stdout: LineWriter | undefined;

/** The process's stdout as a batched, non-blocking writer, made on first use (docs/operations.md, "Logs and shutdown"). */
function stdoutWriter(): LineWriter {
  return (stdout ??= createLineWriter(1));
}

let lastMs = Number.NaN;
let lastTime = "";

/** The ISO time of now, formatted once per millisecond (a busy server logs many lines in one). */
function isoTimeNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = new Date(now).toISOString();
  }
  return lastTime;
}

/**
 * A JSON-lines logger: access lines on stdout, warnings and faults on stderr (a CLI command's
 * stdout stays its JSON). Stdout lines go through a batched writer that never waits on its reader
 * and writes what it holds when the process exits, a crash included; stderr lines (rare) are
 * written at once.
 */
export const consoleLog: LogSink = Object.assign(
  (line: Record<string, unknown>) => {
    const text = `${JSON.stringify({ time: isoTimeNow(), ...line })}\n`;
    if (line.level === "error" || line.level === "warn") process.stderr.write(text);
    else stdoutWriter().write(text);
  },
  { members: (json: string) => stdoutWriter().write(`{"time":"${isoTimeNow()}",${json}}\n`) },
);

/** Writes the access line of one request: `level`, `msg`, `request_id`, `method`, `path`, `status`, `duration_ms`, `key_id`, every string redacted. */
export type AccessLog = (requestId: string, method: string | undefined, path: string, status: number, durationMs: number, keyId: string | null) => void;

/** The access log of a sink: serialised straight to text for a sink that takes text, else one object per line as before. */
export function createAccessLog(sink: LogSink, redact: Redactor): AccessLog {
  const members = sink.members;
  if (members === undefined) {
    return (requestId, method, path, status, durationMs, keyId) =>
      sink(redact({ level: "info", msg: "request", request_id: requestId, method, path, status, duration_ms: durationMs, key_id: keyId }));
  }
  const quoted = (text: string) => JSON.stringify(redact.text(text));
  return (requestId, method, path, status, durationMs, keyId) =>
    members(
      `"level":"info","msg":"request","request_id":${quoted(requestId)}${method === undefined ? "" : `,"method":${quoted(method)}`},"path":${quoted(path)},` +
        `"status":${status},"duration_ms":${durationMs},"key_id":${keyId === null ? "null" : quoted(keyId)}`,
    );
}
