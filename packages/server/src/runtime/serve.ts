import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLimitedServer, DEFAULT_HTTP_LIMITS, type HttpLimits } from "../http/connection-limits.js";
import { createRequestHandler } from "../http/create-request-handler.js";
import { consoleLog, type LogSink } from "../http/log-lines.js";
import { createEventStreams } from "../http/event-stream.js";
import { createVisitorEventStreams } from "../http/visitor-event-stream.js";
import type { ParleyRuntime } from "./open-parley.js";

/** A running server. */
export interface RunningServer {
  server: Server;
  /** `http://host:port`, with the port actually bound (port 0 picks a free one). */
  url: string;
  /**
   * Graceful stop: refuses new connections, lets requests in flight finish (cutting them after
   * `graceMs`) while the webhook dispatcher finishes its attempts in flight, then closes the database.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Serves the Parley API on `host:port`, within the HTTP edge's limits (defaults: docs/configuration.md). */
export async function startServer(options: {
  runtime: ParleyRuntime;
  port: number;
  host: string;
  log?: LogSink;
  limits?: HttpLimits;
  shutdownGraceMs?: number;
  heartbeatMs?: number;
  /** How often open streams' keys are checked for revocations made elsewhere (default 1 s). */
  keyRecheckMs?: number;
  /** The console's build folder (`PARLEY_CONSOLE_DIR`); default: the installed `@parley/console`'s. */
  consoleRoot?: string;
  /** The chat widget's build folder (`PARLEY_WIDGET_DIR`); default: the installed `@parley/widget`'s. */
  widgetRoot?: string | undefined;
}): Promise<RunningServer> {
  const log = options.log ?? consoleLog;
  // One reader of the outbox feeds every live stream of this process (docs/api.md, "Live events").
  const feed = options.runtime.parley.createEventFeed();
  const streams = createEventStreams({
    feed,
    heartbeatMs: options.heartbeatMs,
    maxPerKey: options.runtime.maxStreamsPerKey,
    ...(options.keyRecheckMs === undefined ? {} : { recheckMs: options.keyRecheckMs }),
    authenticate: options.runtime.parley.authenticate,
  });
  // A key revoked through this process ends its streams at once; other processes' revocations
  // are found by the streams' once-a-second key check.
  const visitorStreams = createVisitorEventStreams({ feed, heartbeatMs: options.heartbeatMs });
  const stopRevocations = options.runtime.parley.onKeyRevoked(streams.endKey);
  const handler = createRequestHandler({
    parley: options.runtime.parley,
    log,
    secrets: options.runtime.secrets,
    streamEvents: streams.handler,
    streamVisitorEvents: visitorStreams.handler,
    trustProxy: options.runtime.trustProxy,
    uploads: options.runtime.uploads,
    ...(options.runtime.requestStarted === undefined ? {} : { requestStarted: options.runtime.requestStarted }),
    // Given only when set: the handler reads an explicit undefined as "no console".
    ...(options.consoleRoot === undefined ? {} : { consoleRoot: options.consoleRoot }),
    ...(options.widgetRoot === undefined ? {} : { widgetRoot: options.widgetRoot }),
  });
  const server = createLimitedServer(options.limits ?? DEFAULT_HTTP_LIMITS, handler, log);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Read the keyword postings ahead in idle slices, so the first questions after a restart do
  // not each pay their words' first read (docs/retrieval.md, "Warming up").
  const warming = new AbortController();
  options.runtime.warmUp({ signal: warming.signal }).then(
    ({ chatbots, words }) => log({ event: "search_warmed_up", chatbots, words }),
    (error: unknown) => log({ level: "error", event: "search_warm_up_failed", error: error instanceof Error ? error.message.split("\n")[0] : String(error) }),
  );
  // SQLite's checkpoints (a copy and two fsyncs every ~1,000 pages) leave the event loop, but for
  // a short last step once the WAL is 64 MB long (wal-checkpointer.ts).
  const stopMaintenance = options.runtime.startMaintenance?.(log);
  const address = server.address() as AddressInfo;
  if (!isLoopback(address.address)) {
    log({
      level: "warn",
      event: "listening_beyond_loopback",
      address: address.address,
      detail:
        'The server accepts connections from other machines, and API keys travel in request headers: put it behind a reverse proxy that terminates TLS (docs/configuration.md, "Behind TLS").',
    });
  }
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = options.shutdownGraceMs ?? 10_000) =>
    (stopping ??= new Promise<void>((resolve) => {
      // Idle keep-alive sockets would hold close() open; requests in flight finish first. Live
      // streams never finish by themselves: they end now, and their clients resume elsewhere.
      warming.abort();
      stopRevocations();
      streams.closeAll();
      visitorStreams.closeAll();
      feed.close();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => {
        server.closeAllConnections();
        // Past the grace, a reply still being generated is given up cleanly (nothing half-stored,
        // its conversation marked for an agent) rather than cut off by the database closing.
        options.runtime.parley.abortReplies(new Error("The server is shutting down."));
      }, graceMs);
      const drained = new Promise<void>((done) => server.close(() => done()));
      // A streamed reply whose reader has gone is still being generated: it is stored (within the
      // provider's deadline) before the database closes.
      const replies = drained.then(() => options.runtime.parley.whenRepliesSettled());
      void Promise.all([replies, options.runtime.dispatcher.stop(), options.runtime.ingestions.stop(), options.runtime.unanswered.stop()]).then(async () => {
        clearInterval(sweep);
        clearTimeout(deadline);
        await stopMaintenance?.();
        await options.runtime.close();
        resolve();
      });
      server.closeIdleConnections();
    }));
  return { server, url: `http://${host}:${address.port}`, stop };
}

/** Whether an address bound by the server is reachable only from this machine (127.0.0.0/8, ::1). */
function isLoopback(address: string): boolean {
  return address === "::1" || /^(::ffff:)?127\./.test(address);
}
