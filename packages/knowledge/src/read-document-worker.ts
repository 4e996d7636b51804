// The entry of a document-reading child process (see `createDocumentReader`): it reads one
// document per message and answers with the document or a per-document error detail. The
// bootstrap that imports it has already lowered the process's priority.
import { Worker } from "node:worker_threads";
import { toDocumentMessage, type DocumentMessage } from "./document-message.js";
import { readDocument, type DocumentBytes } from "./read-document.js";
import type { ReadLimits } from "./read-limits.js";
import { readerErrorDetail } from "./reader-errors.js";

/** What the reader sends: one document and the limits it is read within. */
export interface WorkerRequest {
  input: DocumentBytes;
  limits: ReadLimits;
}

/** What the process answers: the document (its text left to the server to join), or the detail of why it failed. */
export type WorkerAnswer = { ready: true } | { result: DocumentMessage } | { error: string };

/** How often the reader checks that the server that started it still runs. */
const PARENT_CHECK_MS = 1_000;

const answer = (message: WorkerAnswer) => process.send!(message, undefined, {}, () => undefined);

// The server went away (ended, or killed): nothing is left to read for.
process.on("disconnect", () => process.exit(0));
// One document at a time, so an error nothing caught is the current document's; the process
// ends after saying so, as it may be left in any state.
process.on("uncaughtException", (error) => process.send!({ error: readerErrorDetail(error) } satisfies WorkerAnswer, undefined, {}, () => process.exit(1)));
process.on("message", (request: WorkerRequest) => {
  readDocument(request.input, request.limits).then(
    (result) => answer({ result: toDocumentMessage(result) }),
    (error: unknown) => answer({ error: readerErrorDetail(error) }),
  );
});
// Loaded: the reader starts a document's deadline from here, so start-up is not counted against it.
answer({ ready: true });
// The server went away while a document is being parsed: the process hears of the channel's
// close only once the parse is done, minutes later for a hostile document, and the server that
// kept its deadline may have been killed (kill -9, a crash). A thread of its own, free while
// the main one parses, ends the process once its parent is gone (docs/design.md, "Untrusted
// documents"); a worker reads `process.ppid` afresh. It starts after `ready`, so the reader's
// start does not wait for it; should it fail, the reader goes on without it.
new Worker(
  `const { workerData: parent } = require("node:worker_threads");
  setInterval(() => process.ppid !== parent && process.kill(process.pid, "SIGKILL"), ${PARENT_CHECK_MS});`,
  { eval: true, workerData: process.ppid, resourceLimits: { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 } },
)
  .on("error", () => undefined)
  .unref();

