import type { Section } from "@parley/core";
import { parseHTML } from "linkedom";
import mammoth from "mammoth";
import { formatBytes } from "./create-fetcher.js";
import { DocumentError } from "./document-error.js";
import { htmlToSections } from "./html-to-sections.js";
import { checkZipUnpackedSize } from "./zip-unpacked-size.js";

/**
 * A DOCX document's text through mammoth: paragraphs, lists and tables as text, in sections
 * labelled by the headings above them. A damaged file, one with no text, or one that really
 * unpacks to more than `maxUnpackedBytes` (a "zip bomb") is a DocumentError.
 */
export async function readDocx(bytes: Uint8Array, maxUnpackedBytes: number): Promise<Section[]> {
  const unpacked = await checkZipUnpackedSize(bytes, maxUnpackedBytes);
  if (unpacked === "damaged") throw new DocumentError("The DOCX file is damaged and could not be read.");
  if (unpacked === "too large") throw new DocumentError(`The DOCX file unpacks to more than ${formatBytes(maxUnpackedBytes)}; it is refused.`);
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
