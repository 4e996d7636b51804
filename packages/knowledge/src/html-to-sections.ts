import type { Section } from "@parley/core";

/** The DOM surface the walker needs; linkedom's nodes provide it. */
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

const BLOCKS = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BODY", "DD", "DETAILS", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE",
  "FOOTER", "FORM", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "UL",
]);
/** Never text a reader would see, or boilerplate around the content. */
const SKIPPED = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "CANVAS", "IFRAME", "OBJECT", "HEAD", "TITLE", "BUTTON", "SELECT"]);
const HEADING = /^H([1-6])$/;

/**
 * Readable text of a DOM tree in sections: each heading starts a section labelled with the
 * heading's text; paragraphs are separated by blank lines, list items start with "- " (or
 * "1. "), table rows are their cells joined by " | ", one row a line. Text before the first
 * heading is a section without a label.
 */
export function htmlToSections(root: DomNode): Section[] {
  const sections: Section[] = [];
  let label: string | undefined;
  let blocks: string[] = [];
  let inline = "";

  const endBlock = () => {
    const text = inline.replace(/[ \t\f\v\u00a0]+/g, " ").replace(/ ?\n ?/g, "\n").trim();
    if (text !== "") blocks.push(text);
    inline = "";
  };
  const endSection = () => {
    endBlock();
    const text = blocks.join("\n\n");
    if (text !== "") sections.push(label === undefined ? { text } : { label, text });
    blocks = [];
  };

  const walk = (node: DomNode, listPrefix?: () => string) => {
    if (node.nodeType === 3) {
      inline += (node.textContent ?? "").replace(/\s+/g, " ");
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (SKIPPED.has(name)) return;
    if (HEADING.test(name)) {
      endSection();
      label = inlineText(node) || undefined;
      return;
    }
    if (name === "BR") {
      inline += "\n";
      return;
    }
    if (name === "TABLE") {
      endBlock();
      const rows = rowsOf(node).map((row) => row.join(" | ")).filter((row) => row.replace(/[| ]/g, "") !== "");
      if (rows.length > 0) blocks.push(rows.join("\n"));
      return;
    }
    if (name === "UL" || name === "OL") {
      endBlock();
      let counter = 0;
      const prefix = name === "OL" ? () => `${(counter += 1)}. ` : () => "- ";
      for (const child of Array.from(node.childNodes)) walk(child, prefix);
      endBlock();
      return;
    }
    const isBlock = BLOCKS.has(name);
    if (isBlock) endBlock();
    if (name === "LI") inline += listPrefix?.() ?? "- ";
    for (const child of Array.from(node.childNodes)) walk(child, listPrefix);
    if (isBlock) endBlock();
  };

  walk(root);
  endSection();
  // List items are their own blocks; put each list back together as one paragraph.
  return sections.map((section) => ({ ...section, text: section.text.replace(/\n\n(?=(- |\d+\. ))/g, "\n") }));
}

/** The text of an element on one line (for headings and table cells). */
function inlineText(node: DomNode): string {
  return (node.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** The table's rows, each a list of cell texts, nested tables flattened into their cell. */
function rowsOf(table: DomNode): string[][] {
  const rows: string[][] = [];
  const visit = (node: DomNode) => {
    for (const child of Array.from(node.childNodes)) {
      const name = child.nodeName.toUpperCase();
      if (name === "TR") rows.push(Array.from(child.childNodes).filter((cell) => /^T[DH]$/i.test(cell.nodeName)).map(inlineText));
      else if (name === "THEAD" || name === "TBODY" || name === "TFOOT") visit(child);
    }
  };
  visit(table);
  return rows;
}
