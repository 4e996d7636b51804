import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";

/** One event of a text/event-stream. */
export interface StreamEvent {
  id: string;
  event: string;
  data: string;
}

/** A streamed answer read event by event: the events and comment lines so far, and a way to wait for one. */
export interface OpenStream {
  status: number;
  headers: IncomingMessage["headers"];
  /** The whole body, for answers that are not streams. */
  readonly body: string;
  readonly events: StreamEvent[];
  readonly comments: string[];
  /** Resolves with the first event (from the start) that matches. */
  next(predicate: (event: StreamEvent) => boolean): Promise<StreamEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Drops the connection, as a client that goes away (a visitor who closes the tab). */
  drop(): void;
}

/** Opens a text/event-stream request (any method, a JSON body); resolves once the head has arrived. */
export function openStream(url: string, options: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (payload !== undefined) headers["content-type"] = "application/json";
    const outgoing: ClientRequest = httpRequest(url, { method: options.method ?? (payload === undefined ? "GET" : "POST"), headers, agent: false }, (response) => {
      const events: StreamEvent[] = [];
      const comments: string[] = [];
      const waiters: Array<{ predicate: (event: StreamEvent) => boolean; resolve: (event: StreamEvent) => void }> = [];
      let body = "";
      let pending = "";
      response.setEncoding("utf8");
      const ended = new Promise<void>((done) => {
        response.on("end", done);
        response.on("close", done);
        response.on("error", () => done());
      });
      response.on("data", (chunk: string) => {
        body += chunk;
        pending += chunk;
        let boundary: number;
        while ((boundary = pending.indexOf("\n\n")) !== -1) {
          const block = pending.slice(0, boundary);
          pending = pending.slice(boundary + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line.slice(1).trim());
            else {
              const colon = line.indexOf(":");
              fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, "");
            }
          }
          if (fields.data === undefined) continue;
          const event = { id: fields.id ?? "", event: fields.event ?? "message", data: fields.data };
          events.push(event);
          for (const waiter of [...waiters]) {
            if (!waiter.predicate(event)) continue;
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      });
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        get body() {
          return body;
        },
        events,
        comments,
        next: (predicate) =>
          new Promise((found) => {
            const already = events.find(predicate);
            if (already) found(already);
            else waiters.push({ predicate, resolve: found });
          }),
        ended,
        drop: () => outgoing.destroy(),
      });
    });
    outgoing.on("error", reject);
    outgoing.end(payload);
  });
}

/** Opens `GET /v1/admin/events` with a key (and a `Last-Event-ID`); resolves once the answer's head has arrived. */
export function openEventStream(url: string, key: string, lastEventId?: string): Promise<OpenStream> {
  return openStream(`${url}/v1/admin/events`, { token: key, headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId } });
}
