import { extname } from "node:path";

/** The formats Parley reads. */
export type DocumentType = "pdf" | "docx" | "html" | "markdown" | "text";

/** Why a file's bytes could not be given a type: what they look like, for the error detail. */
export interface UnsupportedType {
  unsupported: string;
}

/**
 * A document's type from its first bytes, then (for text) its extension or HTTP content type,
 * never from its name alone: a `.pdf` that is really HTML is read as HTML, and an `.exe`
 * renamed `.txt` is refused.
 */
export function detectType(bytes: Uint8Array, name: string, contentType: string | null = null): DocumentType | UnsupportedType {
  const head = Buffer.from(bytes.subarray(0, 1024));
  if (head.includes("%PDF-")) return "pdf";
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    // A DOCX is a ZIP whose parts live under word/; its first entry names are within the head.
    return Buffer.from(bytes.subarray(0, 64 * 1024)).includes("word/") ? "docx" : { unsupported: "a ZIP archive that is not a DOCX document" };
  }
  if (head.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) return { unsupported: "a legacy Office file (.doc); save it as .docx or PDF" };
  if (!isText(bytes)) return { unsupported: "binary data that is not PDF or DOCX" };
  const extension = extname(name.split(/[?#]/)[0] ?? "").toLowerCase();
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml" || extension === ".html" || extension === ".htm") return "html";
  if (/^\s*(<!doctype html|<html[\s>])/i.test(head.toString("utf8").replace(/^\uFEFF/, ""))) return "html";
  if (mediaType === "text/markdown" || extension === ".md" || extension === ".markdown") return "markdown";
  return "text";
}

/**
 * Text in any single-byte or UTF-8 encoding: no NUL byte, and no more control characters than
 * a stray one (binary formats are full of both). The encoding is decided when decoding.
 */
function isText(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 64 * 1024);
  if (sample.includes(0)) return false;
  let controls = 0;
  for (const byte of sample) if (byte < 0x09 || (byte > 0x0d && byte < 0x20) || byte === 0x7f) controls += 1;
  return controls <= sample.length / 100;
}
