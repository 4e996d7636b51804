import { DocumentError } from "./document-error.js";

/** The detail of a document that hit a reader's limit: its time, its memory or its stack. */
export const TOO_COMPLEX = "The document is too complex to read.";
/** The detail of a document a parser failed on in a way it did not explain. */
export const UNREADABLE = "The document could not be read.";

/**
 * The per-document detail of an error a reader's child process caught: a DocumentError's own
 * message, a RangeError (deeply nested markup overflowing a recursive parser's stack) as too
 * complex, anything else a parser threw (a TypeError of a damaged file) as unreadable.
 */
export function readerErrorDetail(error: unknown): string {
  if (error instanceof DocumentError) return error.message;
  if (error instanceof RangeError) return TOO_COMPLEX;
  return UNREADABLE;
}
