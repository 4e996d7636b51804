import type { DocumentInput, Section } from "@parley/core";
import { detectType, type DocumentType } from "./detect-type.js";
import { DocumentError } from "./document-error.js";
import { readDocx } from "./read-docx.js";
import { readHtml } from "./read-html.js";
import { readPdf } from "./read-pdf.js";

/** Bytes to read, with what is known of where they came from. */
export interface DocumentBytes {
  bytes: Uint8Array;
  /** A file name or URL path: the title when the content has none, and a hint for text types. */
  name: string;
  /** The document's source: a file name, or the URL it was fetched from. */
  source: string;
  /** The HTTP content type, when fetched. */
  contentType?: string | null;
  /** The address the bytes came from, for links and canonical URLs; null for files. */
  url?: string | null;
}

/** A document read from bytes, its type, and the links it holds (HTML only). */
export interface ReadDocument {
  document: DocumentInput;
  type: DocumentType;
  links: string[];
}

/** Reads bytes of any supported type into a document; an unreadable one is a DocumentError. */
export async function readDocument(input: DocumentBytes): Promise<ReadDocument> {
  const type = detectType(input.bytes, input.name, input.contentType ?? null);
  if (typeof type !== "string") {
    throw new DocumentError(`Unsupported file type: ${type.unsupported}. Parley reads PDF, DOCX, HTML, Markdown and plain text.`);
  }
  const fileName = nameOf(input.name);
  let read: { title: string; source: string; sections?: Section[]; text?: string; links?: string[] };
  if (type === "pdf") read = { title: fileName, source: input.source, sections: await readPdf(input.bytes) };
  else if (type === "docx") read = { title: fileName, source: input.source, sections: await readDocx(input.bytes) };
  else if (type === "html") {
    const page = readHtml(decode(input.bytes), input.url ?? null);
    read = { title: page.title ?? fileName, source: page.canonicalUrl ?? input.source, sections: page.sections, links: page.links };
  } else {
    const text = decode(input.bytes).replace(/\r\n?/g, "\n").trim();
    const heading = type === "markdown" ? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() : undefined;
    read = { title: heading || fileName, source: input.source, text };
  }
  const text = read.text ?? (read.sections ?? []).map((section) => section.text).join("\n\n");
  if (text.trim() === "") throw new DocumentError("The document has no text.");
  const document: DocumentInput = { source: read.source, title: read.title, text, ...(read.sections ? { sections: read.sections } : {}) };
  return { document, type, links: read.links ?? [] };
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder("utf-8").decode(bytes).replace(/^\uFEFF/, "");
}

/** The last segment of a path or URL path, decoded: "Manual.pdf" for ".../files/Manual%2Epdf". */
function nameOf(name: string): string {
  const path = name.split(/[?#]/)[0] ?? name;
  const last = path.split(/[\\/]/).filter(Boolean).pop() ?? name;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
