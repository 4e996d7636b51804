import { adminKey, signOut } from "../session/session.js";

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

type Query = Record<string, string | number | undefined | null>;

/** `/v1/admin/...` with the query's defined values. */
export function adminPath(path: string, query: Query = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  const text = search.toString();
  return `/v1/admin${path}${text ? `?${text}` : ""}`;
}

/** The Authorization header of the signed-in key (never a URL parameter, docs/design.md §9). */
export function authorization(key = adminKey.value): Record<string, string> {
  return key ? { authorization: `Bearer ${key}` } : {};
}

/**
 * One call to the operator API: JSON in and out (or FormData for uploads). A 401 signs the
 * console out, since the key was revoked or is wrong; every other refusal is thrown with its detail.
 */
export async function request<T>(method: string, path: string, body?: unknown, options: { key?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...authorization(options.key) };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload, cache: "no-store" });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const detail = typeof (parsed as { detail?: unknown })?.detail === "string" ? (parsed as { detail: string }).detail : `The server answered ${response.status}.`;
    if (response.status === 401 && options.key === undefined) signOut(detail);
    throw new ApiError(response.status, detail);
  }
  return parsed as T;
}

/** GET on an admin route. */
export const get = <T>(path: string, query?: Query) => request<T>("GET", adminPath(path, query));
/** POST on an admin route. */
export const post = <T>(path: string, body?: unknown) => request<T>("POST", adminPath(path), body);
/** PATCH on an admin route. */
export const patch = <T>(path: string, body: unknown) => request<T>("PATCH", adminPath(path), body);
/** DELETE on an admin route. */
export const remove = <T = void>(path: string) => request<T>("DELETE", adminPath(path));
