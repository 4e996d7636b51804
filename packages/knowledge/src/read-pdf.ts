import type { Section } from "@parley/core";
import { getDocumentProxy } from "unpdf";
import { DocumentError } from "./document-error.js";

/** The parts of a pdf.js text item this reader uses. */
interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

interface Line {
  y: number;
  text: string;
}

/**
 * The text of every page of a PDF, in the order pdf.js lays it out, one section per page
 * labelled "page N" (pages without text are left out). An encrypted, damaged or image-only PDF
 * is a DocumentError, never an empty document, and so is one of more than `maxPages` pages,
 * refused before any page is read (pages are read one after the other, each costing time).
 */
export async function readPdf(bytes: Uint8Array, maxPages: number): Promise<Section[]> {
  // pdf.js takes ownership of the buffer it is given, so it gets a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: false, verbosity: 0 }).catch((error: unknown) => {
    throw pdfError(error);
  });
  try {
    if (pdf.numPages > maxPages) {
      throw new DocumentError(`The PDF has ${pdf.numPages.toLocaleString("en-US")} pages, more than the ${maxPages.toLocaleString("en-US")} a document may have; split it and add the parts.`);
    }
    const sections: Section[] = [];
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber += 1) {
      const page = await pdf.getPage(pageNumber);
      const content = await page.getTextContent();
      const text = pageText(content.items.filter((item) => "str" in item) as TextItem[]);
      page.cleanup();
      if (text !== "") sections.push({ label: `page ${pageNumber}`, text });
    }
    if (sections.length === 0) {
      throw new DocumentError("The PDF has no text layer (scanned pages?); run it through OCR and add it again.");
    }
    return sections;
  } catch (error) {
    throw error instanceof DocumentError ? error : pdfError(error);
  } finally {
    await pdf.destroy();
  }
}

function pdfError(error: unknown): DocumentError {
  const name = (error as Error | undefined)?.name;
  if (name === "PasswordException") return new DocumentError("The PDF is encrypted with a password; add a copy without the password.");
  return new DocumentError("The PDF is damaged and could not be read.");
}

/**
 * A page's text: items on one baseline joined (with a space where there is a gap between them),
 * wrapped lines joined with a space, and a blank line where the gap between lines is clearly
 * wider than the page's tightest line spacing (a new paragraph).
 */
function pageText(items: TextItem[]): string {
  const lines: Line[] = [];
  let current: Line | null = null;
  let lastEnd = 0;
  for (const item of items) {
    const [, , , fontHeight = 0, x = 0, y = 0] = item.transform;
    const size = Math.abs(fontHeight) || item.height || 1;
    if (current === null || Math.abs(y - current.y) > size * 0.5) {
      current = { y, text: "" };
      lines.push(current);
    } else if (x - lastEnd > size * 0.15 && !current.text.endsWith(" ") && !item.str.startsWith(" ")) {
      current.text += " ";
    }
    current.text += item.str;
    lastEnd = x + item.width;
  }
  const kept = lines.map((line) => ({ y: line.y, text: line.text.replace(/\s+/g, " ").trim() })).filter((line) => line.text !== "");
  const gaps = kept.slice(1).map((line, index) => Math.abs(kept[index]!.y - line.y));
  // The tightest spacing on the page is that of wrapped lines inside a paragraph.
  const usual = Math.min(...gaps.filter((gap) => gap > 0.5));
  return kept.map((line, index) => (index === 0 ? "" : gaps[index - 1]! > usual * 1.3 ? "\n\n" : " ") + line.text).join("");
}
