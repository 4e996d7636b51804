// A stand-in for a server that dies while its reader parses: reads a small page (so the reader
// process is loaded and kept), starts the deeply nested page with a deadline far away, prints
// the reader's pid, and waits to be killed (orphan-reader.test.ts).
import { readdirSync, readFileSync } from "node:fs";
import { createDocumentReader } from "../src/index.js";
import { deeplyNestedHtml } from "./hostile-documents.js";

const reader = createDocumentReader({ timeoutMs: 600_000 });
await reader.read({ bytes: Buffer.from("<p>Open nine to five.</p>"), name: "hours.html", source: "hours.html" });
void reader.read({ bytes: deeplyNestedHtml(), name: "deep.html", source: "deep.html" }).catch(() => undefined);
const children = readdirSync("/proc/self/task").flatMap((thread) => readFileSync(`/proc/self/task/${thread}/children`, "utf8").trim().split(" ").filter(Boolean));
// From the sources, tsx's esbuild service is a child too.
const readers = children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("read-document-worker"));
process.stdout.write(`${readers.join(" ")}\n`);
setInterval(() => undefined, 60_000);
