// The entry of a document-reading worker thread (see `createDocumentReader`): it reads one
// document per message and answers with the document or a per-document error detail.
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
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

lowerThreadPriority();
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

/**
 * On Linux a thread has its own nice value: this one (found through /proc/thread-self) yields
 * the CPU to the server's event loop, so parsing on a busy machine slows documents, not requests.
 * Elsewhere the worker keeps the process's priority.
 */
function lowerThreadPriority(): void {
  try {
    const threadId = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isSafeInteger(threadId) && threadId > 0) setPriority(threadId, 19);
  } catch {
    // Not Linux, or not allowed: the limits still bound the document.
  }
}
