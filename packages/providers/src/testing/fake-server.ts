import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { wordsOf, type FakeBehaviour, type FakeUsage } from "./fake-behaviours.js";

/** One request a fake received, as the SDK sent it. */
export interface RecordedRequest {
  method: string;
  /** The path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case; repeated headers joined by `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body, or `undefined` when it was not JSON. */
  body: unknown;
  rawBody: string;
}

/** A fixed behaviour, or one chosen from the request (e.g. to answer from the prompt). */
export type BehaviourSource = FakeBehaviour | ((request: RecordedRequest) => FakeBehaviour);

/** One endpoint of a fake, scriptable request by request. */
export interface FakeRoute {
  /** Requests to this endpoint in arrival order (empty in instant mode). */
  readonly requests: RecordedRequest[];
  /** How many requests this endpoint received, recorded or not. */
  readonly requestCount: number;
  /** Behaviours for the next requests, one each, first in first out. */
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** What to do once the queue is empty (by default: a successful answer). */
  respondWith(source: BehaviourSource): void;
}

/** How one endpoint streams, in its provider's wire format; each frame is written as it is made. */
export interface StreamWire {
  /** Whether the request asked for a streamed answer. */
  requested(request: RecordedRequest): boolean;
  contentType: string;
  /** The frames before the first delta; `usage` as scripted (some providers report input tokens first). */
  start(request: RecordedRequest, usage: FakeUsage | null | undefined): string[];
  /** The frame of one delta of text. */
  delta(text: string, request: RecordedRequest): string;
  /** The closing frames of a finished reply whose whole text was `text`; usage as `usageOf` says. */
  finish(request: RecordedRequest, text: string, usage: FakeUsage | null | undefined): string[];
  /** The frame of an error in the middle of a stream. */
  error(message: string): string;
}

/** How one endpoint speaks its provider's wire format. */
export interface RouteWire {
  path: string;
  defaultBehaviour: (request: RecordedRequest) => FakeBehaviour;
  /** The 200 body for a `reply` or `vectors` behaviour; throws if the endpoint has no such answer. */
  successBody: (behaviour: Extract<FakeBehaviour, { kind: "reply" | "vectors" }>, request: RecordedRequest) => unknown;
  /** For chat endpoints: how a streamed answer is written. */
  stream?: StreamWire;
}

/** A provider's endpoints, error body and authentication. */
export interface ProviderWire<RouteName extends string> {
  routes: Record<RouteName, RouteWire>;
  errorBody: (status: number, message: string) => unknown;
  carriesApiKey: (headers: Record<string, string>, apiKey: string) => boolean;
}

/** Options every fake takes. */
export interface FakeServerOptions {
  /** When set, requests without this key get the provider's 401 answer. */
  apiKey?: string;
  /** For load benchmarks: requests are counted but not recorded, and delays are skipped. */
  instant?: boolean;
}

/** A running fake on 127.0.0.1 and a free port. */
export interface FakeServer<RouteName extends string> {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every request in arrival order, whatever the endpoint (empty in instant mode). */
  readonly requests: RecordedRequest[];
  readonly requestCount: number;
  readonly routes: Record<RouteName, FakeRoute>;
  /** Stops the server, dropping open connections, including hanging requests. */
  close(): Promise<void>;
}

/** Starts a fake speaking `wire`. The provider modules wrap this with their own wire. */
export async function startFakeServer<RouteName extends string>(
  wire: ProviderWire<RouteName>,
  options: FakeServerOptions = {},
): Promise<FakeServer<RouteName>> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let requestCount = 0;
  const routes = {} as Record<RouteName, FakeRoute & { next(request: RecordedRequest): FakeBehaviour; count(): void }>;
  const routeByPath = new Map<string, RouteName>();
  for (const name of Object.keys(wire.routes) as RouteName[]) {
    routes[name] = createRoute(wire.routes[name]);
    routeByPath.set(wire.routes[name].path, name);
  }

  const server = createServer((request, response) => {
    void readBody(request).then((rawBody) => {
      requestCount += 1;
      const recorded = recordRequest(request, rawBody);
      const routeName = routeByPath.get(recorded.path);
      if (!options.instant) requests.push(recorded);
      if (routeName === undefined) return sendJson(response, 404, wire.errorBody(404, `No fake route for ${recorded.path}.`));
      const route = routes[routeName];
      route.count();
      if (!options.instant) route.requests.push(recorded);
      if (options.apiKey !== undefined && !wire.carriesApiKey(recorded.headers, options.apiKey)) {
        return sendJson(response, 401, wire.errorBody(401, "Incorrect API key provided."));
      }
      const behaviour = route.next(recorded);
      const delayMs = options.instant || behaviour.kind === "hang" ? 0 : (behaviour.delayMs ?? 0);
      const act = () => perform(behaviour, wire.routes[routeName], recorded, request, response, wire);
      if (behaviour.kind === "reply" && behaviour.until !== undefined && !options.instant) return void behaviour.until.then(act, act);
      if (delayMs <= 0) return act();
      const timer = setTimeout(() => {
        timers.delete(timer);
        act();
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get requestCount() {
      return requestCount;
    },
    routes,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // A hanging request would keep close() pending forever without this.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function createRoute(wire: RouteWire) {
  const queue: FakeBehaviour[] = [];
  let fallback: BehaviourSource = wire.defaultBehaviour;
  let requestCount = 0;
  return {
    requests: [] as RecordedRequest[],
    get requestCount() {
      return requestCount;
    },
    enqueue: (...behaviours: FakeBehaviour[]) => void queue.push(...behaviours),
    respondWith: (source: BehaviourSource) => void (fallback = source),
    next: (request: RecordedRequest) => queue.shift() ?? (typeof fallback === "function" ? fallback(request) : fallback),
    count: () => void (requestCount += 1),
  };
}

function perform(
  behaviour: FakeBehaviour,
  route: RouteWire,
  recorded: RecordedRequest,
  request: IncomingMessage,
  response: ServerResponse,
  wire: ProviderWire<string>,
): void {
  switch (behaviour.kind) {
    case "hang":
      return;
    case "reset":
      request.socket.destroy();
      return;
    case "malformed":
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"this is": not JSON');
      return;
    case "error":
      return sendJson(response, behaviour.status, wire.errorBody(behaviour.status, behaviour.message), behaviour.headers);
    case "stream":
      if (route.stream?.requested(recorded)) return streamAnswer(behaviour, route.stream, recorded, request, response);
      // A request that wants no stream gets the joined text as one answer.
      return perform(replyOf(behaviour), route, recorded, request, response, wire);
    case "reply":
      if (route.stream?.requested(recorded)) return streamAnswer(behaviour, route.stream, recorded, request, response);
      return sendSuccess(behaviour, route, recorded, response, wire);
    default:
      return sendSuccess(behaviour, route, recorded, response, wire);
  }
}

function sendSuccess(
  behaviour: Extract<FakeBehaviour, { kind: "reply" | "vectors" }>,
  route: RouteWire,
  recorded: RecordedRequest,
  response: ServerResponse,
  wire: ProviderWire<string>,
): void {
  try {
    return sendJson(response, 200, route.successBody(behaviour, recorded));
  } catch (error) {
    return sendJson(response, 500, wire.errorBody(500, `Fake misconfigured: ${(error as Error).message}`));
  }
}

function replyOf(behaviour: Extract<FakeBehaviour, { kind: "stream" }>): FakeBehaviour {
  const text = behaviour.parts.filter((part): part is string => typeof part === "string").join("");
  return { kind: "reply", text, ...(behaviour.usage === undefined ? {} : { usage: behaviour.usage }) };
}

function streamAnswer(...args: Parameters<typeof writeStream>): void {
  const request = args[3];
  // A pause that rejects ends the stream as a dropped connection.
  void writeStream(...args).catch(() => request.socket.destroy());
}

/** Writes a streamed answer frame by frame, waiting at each pause, and ends it as scripted. */
async function writeStream(
  behaviour: Extract<FakeBehaviour, { kind: "reply" | "stream" }>,
  wire: StreamWire,
  recorded: RecordedRequest,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const parts = behaviour.kind === "reply" ? wordsOf(behaviour.text) : behaviour.parts;
  const end = behaviour.kind === "reply" ? "finish" : behaviour.end;
  // Each frame is on the wire before the next step: a reset then cuts the stream after them, not before.
  const write = (frame: string) => new Promise<void>((resolve) => response.write(frame, () => resolve()));
  response.writeHead(200, { "content-type": wire.contentType, "cache-control": "no-cache" });
  for (const frame of wire.start(recorded, behaviour.usage)) await write(frame);
  let text = "";
  for (const part of parts) {
    if (typeof part === "string") {
      text += part;
      await write(wire.delta(part, recorded));
    } else {
      await part;
    }
    if (response.destroyed) return; // the client went away
  }
  if (end === "hang") return;
  if (end === "reset") return void request.socket.destroy();
  if (end === "error") return void response.end(wire.error("The fake provider failed in the middle of the stream."));
  for (const frame of wire.finish(recorded, text, behaviour.usage)) await write(frame);
  response.end();
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

function recordRequest(request: IncomingMessage, rawBody: string): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    body = undefined;
  }
  const path = new URL(request.url ?? "/", "http://fake").pathname;
  return { method: request.method ?? "GET", path, headers, body, rawBody };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", () => resolve(""));
  });
}
