import type { DocumentInput, Section } from "@parley/core";
import { detectType, type DocumentType } from "./detect-type.js";
import { DocumentError } from "./document-error.js";
import { formatBytes } from "./create-fetcher.js";
import { DEFAULT_READ_LIMITS, type ReadLimits } from "./read-limits.js";

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

/**
 * Reads bytes of any supported type into a document; an unreadable one, or one past `limits`,
 * is a DocumentError. Runs the parsers on the calling thread: the server calls it inside a
 * reader process (`createDocumentReader`), never on its event loop.
 */
export async function readDocument(input: DocumentBytes, limits: ReadLimits = DEFAULT_READ_LIMITS): Promise<ReadDocument> {
  const type = detectType(input.bytes, input.name, input.contentType ?? null);
  if (typeof type !== "string") {
    throw new DocumentError(`Unsupported file type: ${type.unsupported}. Parley reads PDF, DOCX, HTML, Markdown and plain text.`);
  }
  const fileName = nameOf(input.name);
  let read: { title: string; source: string; sections?: Section[]; text?: string; links?: string[] };
  // Each parser is loaded on first use: pdf.js alone takes half a second to load, and every
  // `parley` command (most of which never read a document) would pay it at start.
  if (type === "pdf") read = { title: fileName, source: input.source, sections: await (await import("./read-pdf.js")).readPdf(input.bytes, limits.maxPdfPages) };
  else if (type === "docx") read = { title: fileName, source: input.source, sections: await (await import("./read-docx.js")).readDocx(input.bytes, limits.maxDocxUnpackedBytes) };
  else if (type === "html") {
    if (input.bytes.length > limits.maxHtmlBytes) throw new DocumentError(`The HTML page is larger than ${formatBytes(limits.maxHtmlBytes)}; it is refused.`);
    const { readHtml } = await import("./read-html.js");
    const page = readHtml(decode(input.bytes, input.contentType ?? null), input.url ?? null);
    read = { title: page.title ?? fileName, source: page.canonicalUrl ?? input.source, sections: page.sections, links: page.links };
  } else {
    const text = decode(input.bytes, input.contentType ?? null).replace(/\r\n?/g, "\n").trim();
    const heading = type === "markdown" ? /^#\s+(.+)$/m.exec(text)?.[1]?.trim() : undefined;
    read = { title: heading || fileName, source: input.source, text };
  }
  const text = read.text ?? textOfSections(read.sections ?? []);
  if (text.trim() === "") throw new DocumentError("The document has no text.");
  const document: DocumentInput = { source: read.source, title: read.title, text, type, ...(read.sections ? { sections: read.sections } : {}) };
  return { document, type, links: read.links ?? [] };
}

/** A sectioned document's text: its sections' texts, a blank line between them. */
export const textOfSections = (sections: readonly Section[]): string => sections.map((section) => section.text).join("\n\n");

/**
 * Text in the encoding a byte-order mark, the HTTP content type or an HTML `<meta charset>`
 * names, else UTF-8 when the bytes are valid UTF-8, else Windows-1252 (what browsers assume).
 */
function decode(bytes: Uint8Array, contentType: string | null): string {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1");
  const declared = /charset=["']?([\w.:-]+)/i.exec(contentType ?? "")?.[1] ?? /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(head)?.[1];
  const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  for (const label of hasBom ? ["utf-8"] : [declared, "utf-8"]) {
    if (!label) continue;
    try {
      const decoder = new TextDecoder(label, { fatal: label === "utf-8" && !hasBom });
      const text = decoder.decode(bytes).replace(/^\uFEFF/, "");
      return decoder.encoding === "windows-1252" ? windows1252(text) : text;
    } catch {
      // An unknown label, or bytes that are not UTF-8: try the next guess.
    }
  }
  return windows1252(new TextDecoder("latin1").decode(bytes));
}

/** Windows-1252's printable characters at 0x80–0x9F, where Latin-1 has control codes. */
const WINDOWS_1252 = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

/**
 * Node 20's TextDecoder decodes "windows-1252" as Latin-1 (control codes at 0x80–0x9F), unlike
 * the WHATWG Encoding standard and browsers, so those 32 code points are mapped here.
 */
function windows1252(latin1: string): string {
  return latin1.replace(/[\u0080-\u009f]/g, (character) => WINDOWS_1252[character.charCodeAt(0) - 0x80]!);
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
