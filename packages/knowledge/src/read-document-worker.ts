// The entry of a document-reading worker thread (see `createDocumentReader`): it reads one
// document per message and answers with the document or a per-document error detail. The
// bootstrap that imports it has already lowered the thread's priority.
import { parentPort } from "node:worker_threads";
import { DocumentError } from "./document-error.js";
import { readDocument, type DocumentBytes } from "./read-document.js";
import type { ReadLimits } from "./read-limits.js";
import { TOO_COMPLEX, UNREADABLE } from "./reader-errors.js";

/** What the reader sends: one document and the limits it is read within. */
export interface WorkerRequest {
  input: DocumentBytes;
  limits: ReadLimits;
}

// Loaded: the reader starts a document's deadline from here, so start-up is not counted against it.
parentPort!.postMessage({ ready: true });
parentPort!.on("message", (request: WorkerRequest) => {
  readDocument(request.input, request.limits).then(
    (result) => parentPort!.postMessage({ result }),
    (error: unknown) => parentPort!.postMessage({ error: detailOf(error) }),
  );
});

/** Every error a parser can throw becomes a detail fit for the operator. */
function detailOf(error: unknown): string {
  if (error instanceof DocumentError) return error.message;
  // Deeply nested markup overflows a recursive parser's stack.
  if (error instanceof RangeError) return TOO_COMPLEX;
  return UNREADABLE;
}
