import busboy from "busboy";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { HttpError } from "./http-error.js";
import { CLIENT_CLOSED_REQUEST } from "./read-json-body.js";

/** Files of one upload, written to a temporary folder of their own. */
export interface UploadedFiles {
  files: { name: string; path: string; bytes: number }[];
  /** The folder the files are in; remove it when they have been read. */
  folder: string;
}

/** Files per upload at most: each becomes a document of one ingestion. */
export const MAX_UPLOAD_FILES = 100;
/** All the files of one upload together, by default (`PARLEY_MAX_UPLOAD_REQUEST_BYTES`): four files at the per-file limit. */
export const DEFAULT_MAX_UPLOAD_REQUEST_BYTES = 100 * 1024 * 1024;

/**
 * Streams the files of a `multipart/form-data` request to a new temporary folder, never holding
 * a file in memory: 413 as soon as one file passes `maxFileBytes`, or all of them together pass
 * `maxRequestBytes` (the connection is closed, nothing more is read, and the folder is removed),
 * 400 for a body that is not valid multipart, 422 when it carries no file. A file keeps only the
 * last segment of its name.
 */
export async function readUploadedFiles(
  request: IncomingMessage,
  options: { maxFileBytes: number; maxRequestBytes?: number | undefined; directory?: string },
): Promise<UploadedFiles> {
  const folder = await mkdtemp(join(options.directory ?? tmpdir(), "parley-upload-"));
  try {
    const files = await streamFiles(request, folder, options.maxFileBytes, options.maxRequestBytes ?? DEFAULT_MAX_UPLOAD_REQUEST_BYTES);
    if (files.length === 0) throw new HttpError(422, "files: the form must carry at least one file.");
    return { files, folder };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

function streamFiles(request: IncomingMessage, folder: string, maxFileBytes: number, maxRequestBytes: number): Promise<UploadedFiles["files"]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // busboy signals its limit when a file reaches it, so one byte more lets a file of exactly the limit through.
      parser = busboy({ headers: request.headers, limits: { fileSize: maxFileBytes + 1, files: MAX_UPLOAD_FILES, fields: 20, fieldSize: 64 * 1024 } });
    } catch {
      return reject(new HttpError(400, "Request body must be multipart/form-data with a boundary."));
    }
    const files: UploadedFiles["files"] = [];
    const writes: Promise<void>[] = [];
    let total = 0;
    let failure: HttpError | null = null;
    const fail = (error: HttpError) => {
      if (failure) return;
      failure = error;
      request.unpipe(parser);
      // Nothing more of this body is read: the client learns at once, and the rest never arrives.
      request.resume();
      reject(error);
    };
    parser.on("file", (_field, stream, info) => {
      const name = cleanName(info.filename);
      const path = join(folder, `${String(files.length).padStart(3, "0")}.upload`);
      const file = { name, path, bytes: 0 };
      files.push(file);
      stream.on("data", (chunk: Buffer) => {
        file.bytes += chunk.length;
        total += chunk.length;
        // One tenant's request of 40 files at the per-file limit (1 GB) is refused as it streams.
        if (total > maxRequestBytes) fail(new HttpError(413, `An upload's files together must not exceed ${formatLimit(maxRequestBytes)}.`, { connection: "close" }));
      });
      stream.on("limit", () => fail(tooLarge(maxFileBytes)));
      writes.push(pipeline(stream, createWriteStream(path)).catch(() => undefined));
    });
    parser.on("filesLimit", () => fail(new HttpError(422, `files: at most ${MAX_UPLOAD_FILES} files per upload.`)));
    parser.on("error", () => fail(new HttpError(400, "Request body must be valid multipart/form-data.")));
    parser.on("close", () => {
      void Promise.all(writes).then(() => {
        if (failure) return;
        const unnamed = files.find((file) => file.name === "");
        if (unnamed) return reject(new HttpError(422, "files: every file needs a file name."));
        resolve(files);
      });
    });
    request.on("aborted", () => fail(new HttpError(CLIENT_CLOSED_REQUEST, "Client closed the request.")));
    request.pipe(parser);
  });
}

function tooLarge(maxFileBytes: number): HttpError {
  return new HttpError(413, `Each uploaded file must not exceed ${formatLimit(maxFileBytes)}.`, { connection: "close" });
}

function formatLimit(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  return Number.isInteger(mebibytes) ? `${mebibytes} MiB` : `${bytes} bytes`;
}

/** The file name a browser or curl sent, without any folder part or control characters. */
function cleanName(filename: string | undefined): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return basename((filename ?? "").replace(/\\/g, "/")).replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 255);
}
