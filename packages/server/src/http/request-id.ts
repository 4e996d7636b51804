import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** An `x-request-id` the server echoes; any other value is replaced by a fresh UUID. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the client's `x-request-id` when it has the pattern's shape, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const offered = request.headers["x-request-id"];
  return typeof offered === "string" && REQUEST_ID_PATTERN.test(offered) ? offered : randomUUID();
}
