// The console's transfer size on a first load (docs/benchmarks.md): builds the console, serves
// it with the server's own static handler on 127.0.0.1, fetches the page and every asset the page
// names, as a browser would on an empty cache, and prints the bytes on the wire per encoding.
// Run: npm run bench:console
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildForProduction } from "@parley/console/production-build";
import { createConsoleAssets } from "../src/http/console-assets.js";

// A production build of the sources as they are, in a folder of its own: the installed build stays as it is.
const buildFolder = mkdtempSync(join(tmpdir(), "parley-console-size-"));
await buildForProduction({ configFile: fileURLToPath(import.meta.resolve("@parley/console/vite.config.ts")), outDir: buildFolder });
const serve = createConsoleAssets({ root: buildFolder });
const server = createServer((request, response) => void serve(request, response, new URL(request.url ?? "/", "http://x").pathname, {}));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Bytes on the wire (the body as sent, compressed or not) of one GET. */
async function transfer(path: string, encoding: string): Promise<{ bytes: number; text: string; type: string }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    request(`${origin}${path}`, { headers: { "accept-encoding": encoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ bytes: body.length, text: body.toString("latin1"), type: String(response.headers["content-type"]) });
      });
    })
      .on("error", reject)
      .end();
  });
}

const page = await transfer("/console/", "identity");
const assets = [...page.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!);
const rows: string[][] = [];
const totals: Record<string, number> = { identity: 0, gzip: 0, br: 0 };
for (const path of ["/console/", ...assets]) {
  const row = [path];
  for (const encoding of Object.keys(totals)) {
    const { bytes } = await transfer(path, encoding);
    totals[encoding]! += bytes;
    row.push(String(bytes));
  }
  rows.push(row);
}
server.close();
rmSync(buildFolder, { recursive: true, force: true });

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(`Machine: ${cpus()[0]?.model ?? "unknown CPU"} x ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log("First load of /console (empty cache): bytes on the wire");
console.log(["file", "identity", "gzip", "br"].join("\t"));
for (const row of rows) console.log(row.join("\t"));
console.log(["total", ...Object.values(totals).map(String)].join("\t"));
console.log(`total: ${kib(totals.identity!)} uncompressed, ${kib(totals.gzip!)} gzip, ${kib(totals.br!)} brotli, in ${rows.length} requests`);
