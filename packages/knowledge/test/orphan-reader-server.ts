// A stand-in for a server that dies while its reader parses: reads a small page (so the reader
// process is loaded and kept), starts the deeply nested page with a deadline far away, prints
// the reader's pid, and waits to be killed (orphan-reader.test.ts).
import { createDocumentReader } from "../src/index.js";
import { deeplyNestedHtml } from "./hostile-documents.js";
import { readerProcesses } from "./reader-processes.js";

const reader = createDocumentReader({ timeoutMs: 600_000 });
await reader.read({ bytes: Buffer.from("<p>Open nine to five.</p>"), name: "hours.html", source: "hours.html" });
void reader.read({ bytes: deeplyNestedHtml(), name: "deep.html", source: "deep.html" }).catch(() => undefined);
process.stdout.write(`${readerProcesses().join(" ")}\n`);
setInterval(() => undefined, 60_000);
