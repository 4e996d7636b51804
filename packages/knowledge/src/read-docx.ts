import type { Section } from "@parley/core";
import { parseHTML } from "linkedom";
import mammoth from "mammoth";
import { DocumentError } from "./document-error.js";
import { htmlToSections } from "./html-to-sections.js";
import { zipUnpackedSize } from "./zip-unpacked-size.js";

/** What a DOCX may unpack to: text-heavy documents of thousands of pages stay far below it. */
const MAX_UNPACKED_BYTES = 256 * 2 ** 20;

/**
 * A DOCX document's text through mammoth: paragraphs, lists and tables as text, in sections
 * labelled by the headings above them. A damaged file or one with no text is a DocumentError.
 */
export async function readDocx(bytes: Uint8Array): Promise<Section[]> {
  const unpacked = zipUnpackedSize(bytes);
  if (unpacked === null) throw new DocumentError("The DOCX file is damaged and could not be read.");
  if (unpacked > MAX_UNPACKED_BYTES) throw new DocumentError(`The DOCX file unpacks to more than ${MAX_UNPACKED_BYTES / 2 ** 20} MiB; it is refused.`);
  let html: string;
  try {
    // Images would come back as base64 data URLs; they carry no text, so they are dropped.
    const result = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { convertImage: mammoth.images.imgElement(async () => ({ src: "" })) });
    html = result.value;
  } catch {
    throw new DocumentError("The DOCX file is damaged and could not be read.");
  }
  const { document } = parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`);
  const sections = htmlToSections(document.body as never);
  if (sections.length === 0) throw new DocumentError("The DOCX file has no text.");
  return sections;
}
