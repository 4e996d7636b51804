import type { DocumentToIndex } from "../ports/search-index.js";

const TYPES_BY_EXTENSION: Record<string, string> = {
  pdf: "pdf",
  docx: "docx",
  html: "html",
  htm: "html",
  md: "markdown",
  markdown: "markdown",
  txt: "text",
};
const encoder = new TextEncoder();

/** A document's type from its source's extension when none was given; `text` when unknown. */
export function documentTypeOf(document: Pick<DocumentToIndex, "source" | "type">): string {
  if (document.type) return document.type;
  const path = document.source.split(/[?#]/)[0]!;
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? "";
  return TYPES_BY_EXTENSION[extension] ?? (/^https?:\/\//i.test(document.source) ? "html" : "text");
}

/** A document's size when none was given: the UTF-8 bytes of its chunks' text. */
export function documentBytesOf(document: Pick<DocumentToIndex, "chunks" | "bytes">): number {
  return document.bytes ?? document.chunks.reduce((sum, chunk) => sum + encoder.encode(chunk.text).length, 0);
}
