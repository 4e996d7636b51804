import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeBehaviour } from "./fake-behaviours.js";

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

/** How one endpoint speaks its provider's wire format. */
export interface RouteWire {
  path: string;
  defaultBehaviour: (request: RecordedRequest) => FakeBehaviour;
  /** The 200 body for a `reply` or `vectors` behaviour; throws if the endpoint has no such answer. */
  successBody: (behaviour: Extract<FakeBehaviour, { kind: "reply" | "vectors" }>, request: RecordedRequest) => unknown;
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
    default:
      try {
        return sendJson(response, 200, route.successBody(behaviour, recorded));
      } catch (error) {
        return sendJson(response, 500, wire.errorBody(500, `Fake misconfigured: ${(error as Error).message}`));
      }
  }
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
