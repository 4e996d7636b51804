import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";

/** One event of a text/event-stream. */
export interface StreamEvent {
  id: string;
  event: string;
  data: string;
}

/** A test client of `GET /v1/admin/events`: the events and comment lines received so far. */
export interface EventStreamClient {
  status: number;
  headers: IncomingMessage["headers"];
  /** The whole body, for answers that are not streams. */
  readonly body: string;
  readonly events: StreamEvent[];
  readonly comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** Drops the connection, as a client that goes away does. */
  drop(): void;
}

/** Opens the event stream with a key (and a `Last-Event-ID`); resolves once the answer's head has arrived. */
export function openEventStream(url: string, key: string, lastEventId?: string): Promise<EventStreamClient> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    const outgoing: ClientRequest = httpRequest(`${url}/v1/admin/events`, { headers, agent: false }, (response) => {
      const events: StreamEvent[] = [];
      const comments: string[] = [];
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
          if (fields.data !== undefined) events.push({ id: fields.id ?? "", event: fields.event ?? "message", data: fields.data });
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
        ended,
        drop: () => outgoing.destroy(),
      });
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}
