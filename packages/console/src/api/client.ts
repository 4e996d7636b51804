import createClient, { type Middleware } from "openapi-fetch";
import { adminKey, signOut } from "../session/session.js";
import type { paths } from "./schema.js";

/** An answer of the API other than 2xx, with its `{"detail"}` text in words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = "ApiError";
  }
}

/** The words to show for any failure of a call. */
export function describeFailure(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  if (error instanceof TypeError) return "The server could not be reached. Check that Parley is running, then try again.";
  return error instanceof Error ? error.message : String(error);
}

/** The Authorization header of the signed-in key (never a URL parameter, docs/design.md §9). */
export function authorization(key = adminKey.value): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

/**
 * Sends the signed-in key unless the call brings its own (sign-in checks a candidate key), and
 * signs the console out when the signed-in key is refused (401: revoked or wrong).
 */
const session: Middleware = {
  onRequest({ request }) {
    if (!request.headers.has("authorization") && adminKey.value) request.headers.set("authorization", `Bearer ${adminKey.value}`);
    return request;
  },
  async onResponse({ request, response }) {
    if (response.status === 401 && adminKey.value && request.headers.get("authorization") === `Bearer ${adminKey.value}`) {
      signOut(await detailOf(response.clone()));
    }
    return response;
  },
};

/** The typed client of the operator API, generated from docs/openapi.json. */
export const api = createClient<paths>({ baseUrl: "", cache: "no-store" });
api.use(session);

async function detailOf(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === "string") return body.detail;
  } catch {
    // Not JSON: say the status instead.
  }
  return `The server answered ${response.status}.`;
}

/** The data of a typed call, or its refusal thrown as an ApiError with the API's words. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const detail = typeof (error as { detail?: unknown })?.detail === "string" ? (error as { detail: string }).detail : `The server answered ${response.status}.`;
  throw new ApiError(response.status, detail);
}

/**
 * A multipart upload, which the generated types do not describe (docs/design.md §12): plain
 * fetch with the same key and the same refusals.
 */
export async function postForm<T>(path: string, form: FormData): Promise<T> {
  const response = await fetch(path, { method: "POST", headers: { accept: "application/json", ...authorization() }, body: form, cache: "no-store" });
  if (!response.ok) {
    const detail = await detailOf(response);
    if (response.status === 401) signOut(detail);
    throw new ApiError(response.status, detail);
  }
  return (await response.json()) as T;
}
