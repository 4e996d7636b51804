import { request, startOperatorServer, type Answer, type Tenant } from "./admin-test-support.js";

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
