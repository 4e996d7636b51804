import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

/** The status an access-log line gives a request whose client disconnected before its body was read. */
export const CLIENT_CLOSED_REQUEST = 499;

/** The largest request body accepted (docs/design.md §4). */
export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new HttpError(413, "Request body must not exceed 1 MiB.", { connection: "close" });

/**
 * Reads a JSON request body: 415 unless the content type is `application/json`, 413 past
 * 1 MiB (from `Content-Length` before reading anything, else as soon as the bytes pass it),
 * 400 when the bytes are not JSON, and 499 (for the log) when the client disconnects, or the
 * request times out, before the body is whole.
 */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  if (mediaTypeOf(request) !== "application/json") throw new HttpError(415, "Content-Type must be application/json.");
  if (Number(request.headers["content-length"] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await readBody(request, MAX_BODY_BYTES);
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new HttpError(400, "Request body must be valid JSON.");
  }
}

/**
 * The body's bytes, refused past `limit`. It listens rather than iterating: leaving a `for await`
 * early destroys the request, and with it the socket the 413 must still be written on. Past the
 * limit the stream keeps flowing to nobody, so the rest is discarded while the answer goes out.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("close", onClose);
      request.off("error", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      request.resume();
      reject(tooLarge());
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    // The client hung up (or the request timed out) before its body was whole: its doing, not a
    // fault of ours, so it is logged with nginx's 499 "client closed request"; no one reads the answer.
    const onClose = () => {
      stop();
      reject(new HttpError(CLIENT_CLOSED_REQUEST, "Client closed the request."));
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("close", onClose);
    request.on("error", onClose);
  });
}

/** The request's media type, lower case, without parameters. */
function mediaTypeOf(request: IncomingMessage): string {
  return (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Whether the request carries `multipart/form-data` (uploaded files). */
export function isMultipart(request: IncomingMessage): boolean {
  return mediaTypeOf(request) === "multipart/form-data";
}
