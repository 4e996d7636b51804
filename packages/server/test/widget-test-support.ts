import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { request, startOperatorServer, type Answer, type Tenant } from "./admin-test-support.js";
import type { StreamEvent } from "./sse-client.js";

/** The master key of the widget tests' servers: a test can sign tokens as the server does. */
export const SECRET_KEY = "widget-tests-master-key-0123456789abcdef";

/** A server for the widget's routes: the operator server's tenants, and helpers to act as a visitor. */
export async function startWidgetServer(env: Record<string, string> = {}) {
  const server = await startOperatorServer({ env: { PARLEY_SECRET_KEY: SECRET_KEY, ...env } });
  const { url, api } = server;

  /** Turns a tenant's chatbot's widget on (and sets any other widget field) through the admin API. */
  const enableWidget = async (tenant: Tenant, widget: Record<string, unknown> = {}, botId = tenant.botId) => {
    const answer = await api(tenant.adminKey, "PATCH", `/v1/admin/chatbots/${botId}`, { widget: { enabled: true, ...widget } });
    if (answer.status !== 200) throw new Error(`PATCH widget answered ${answer.status}: ${answer.text}`);
    return answer.json;
  };

  /** A visitor's call: no key; a token, an Origin and other headers when given. */
  const visit = async (method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers["content-type"] = "application/json";
    }
    const response = await fetch(`${url}${path}`, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };

  /** A new anonymous (or identified) session, asserted to be created. */
  const newSession = async (botId: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<{ session_id: string; token: string }> => {
    const answer = await visit("POST", `/v1/widget/${botId}/sessions`, { body, headers });
    if (answer.status !== 201) throw new Error(`sessions answered ${answer.status}: ${answer.text}`);
    return answer.json;
  };

  return { ...server, enableWidget, visit, newSession, request };
}

export type WidgetServer = Awaited<ReturnType<typeof startWidgetServer>>;

/** A streamed answer read event by event: the events so far, and a way to wait for one. */
export interface OpenStream {
  status: number;
  headers: IncomingMessage["headers"];
  readonly body: string;
  readonly events: StreamEvent[];
  readonly comments: string[];
  /** Resolves with the first event (from the start) that matches. */
  next(predicate: (event: StreamEvent) => boolean): Promise<StreamEvent>;
  ended: Promise<void>;
  /** Drops the connection, as a visitor who closes the tab. */
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
