import type { DocumentInput } from "@parley/core";
import { textOfSections, type ReadDocument } from "./read-document.js";

/**
 * A read document as it crosses from a reader process to the server: one with sections leaves
 * its text out, since the text is the sections' texts joined (`textOfSections`) and the server
 * joins them again; a large PDF, DOCX or HTML document then crosses once, not twice.
 */
export interface DocumentMessage extends Omit<ReadDocument, "document"> {
  document: Omit<DocumentInput, "text"> & { text?: string };
}

/** The document as a reader process sends it. */
export function toDocumentMessage(read: ReadDocument): DocumentMessage {
  if (!read.document.sections) return read;
  const { text: _joined, ...document } = read.document;
  return { ...read, document };
}

/** The document as read, from what a reader process sent. */
export function fromDocumentMessage(message: DocumentMessage): ReadDocument {
  const { document } = message;
  return { ...message, document: { ...document, text: document.text ?? textOfSections(document.sections ?? []) } };
}
