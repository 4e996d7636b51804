import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpError } from "./http-error.js";
import { readUploadedFiles } from "./read-uploaded-files.js";

const directory = mkdtempSync(join(tmpdir(), "parley-upload-test-"));
let server: Server;
let url = "";

beforeAll(async () => {
  // Answers with what was uploaded (names, sizes, contents), or the refusal's status and detail.
  server = createServer((request, response) => {
    readUploadedFiles(request, { maxFileBytes: 1024, directory }).then(
      ({ files, folder }) => {
        const body = files.map((file) => ({ name: file.name, bytes: file.bytes, text: readFileSync(file.path, "utf8") }));
        rmSync(folder, { recursive: true });
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      },
      (error: HttpError) => response.writeHead(error.status, { "content-type": "application/json", ...error.headers }).end(JSON.stringify({ detail: error.detail })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

const form = (...files: [string, string][]) => {
  const body = new FormData();
  for (const [name, text] of files) body.append("files", new Blob([text]), name);
  return body;
};
const send = async (body: FormData | string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { method: "POST", body, headers });
  return { status: response.status, body: (await response.json()) as unknown };
};

describe("readUploadedFiles", () => {
  it("streams each file to disk with its name, keeping only the last segment of a path", async () => {
    const result = await send(form(["Manual.pdf", "%PDF-1.7 page text"], ["../../etc/notes.txt", "notes"]));
    expect(result).toEqual({ status: 200, body: [{ name: "Manual.pdf", bytes: 18, text: "%PDF-1.7 page text" }, { name: "notes.txt", bytes: 5, text: "notes" }] });
    expect(readdirSync(directory)).toEqual([]);
  });

  it("takes a file of exactly the limit, answers 413 for one byte more, and leaves nothing on disk", async () => {
    const exactly = await send(form(["limit.txt", "x".repeat(1024)]));
    expect(exactly.status).toBe(200);
    const result = await send(form(["small.txt", "ok"], ["big.txt", "x".repeat(1025)]));
    expect(result).toEqual({ status: 413, body: { detail: "Each uploaded file must not exceed 1024 bytes." } });
    expect(readdirSync(directory)).toEqual([]);
  });

  it("refuses a body that is not multipart, and a form without a file", async () => {
    expect(await send("{}", { "content-type": "application/json" })).toEqual({ status: 400, body: { detail: "Request body must be multipart/form-data with a boundary." } });
    const fields = new FormData();
    fields.append("title", "no file here");
    expect(await send(fields)).toEqual({ status: 422, body: { detail: "files: the form must carry at least one file." } });
    expect(readdirSync(directory)).toEqual([]);
  });
});
