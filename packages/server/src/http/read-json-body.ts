import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/** The status an access-log line gives a request whose client disconnected before its body was read. */
export const CLIENT_CLOSED_REQUEST = 499;

/** The largest request body accepted (docs/design.md §4). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a JSON request body: 415 unless the content type is `application/json`, 413 past
 * 1 MiB (without reading further), 400 when the bytes are not JSON, and 499 (for the log)
 * when the client disconnects before the body is whole.
 */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const mediaType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") throw new HttpError(415, "Content-Type must be application/json.");
  const tooLarge = () => new HttpError(413, "Request body must not exceed 1 MiB.", { connection: "close" });
  if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    // The client hung up before its body was whole ("aborted"): its doing, not a fault of ours,
    // so it is logged with nginx's 499 "client closed request" and no one reads the answer.
    if (!(error instanceof HttpError) && request.destroyed && !request.complete) throw new HttpError(CLIENT_CLOSED_REQUEST, "Client closed the request.");
    throw error;
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "Request body must be valid JSON.");
  }
}
