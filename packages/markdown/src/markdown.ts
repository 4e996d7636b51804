// A small Markdown renderer for the bot's replies (docs/design.md §14): the CommonMark and GFM
// that language models write — paragraphs and line breaks, headings, bullet and numbered lists
// (nested, and loose: items apart by blank lines stay one list and keep their numbers), block
// quotes, rules, fenced code, tables, and inline code, bold, italic, strikethrough, backslash
// escapes and links. It allows NO raw HTML: the text is parsed into a tree of a few known tags
// and plain strings, and the tree becomes DOM nodes through createElement/createTextNode only,
// so `<img onerror>` or `<script>` in a reply is shown as the characters it is. Links keep only
// http(s) and mailto targets, and open in a new tab with rel="noopener noreferrer"; any other
// target stays text. An agent's reply is no Markdown: `linkedText` keeps it as typed and makes
// only its bare web addresses links, by the same rule.

/** A node of the rendered tree: text, or one of the allowed elements. */
export type MdNode = string | MdElement;
export interface MdElement {
  tag: "p" | "br" | "strong" | "em" | "del" | "code" | "pre" | "ul" | "ol" | "li" | "a" | "h3" | "h4" | "blockquote" | "hr" | "table" | "thead" | "tbody" | "tr" | "th" | "td";
  children: MdNode[];
  /** Links only: an http(s) or mailto URL. */
  href?: string;
  /** Numbered lists only: the first item's number, when it is not 1. */
  start?: number;
  /** Table cells only: the column's alignment, when its delimiter row gives one. */
  align?: "left" | "center" | "right";
}

const el = (tag: MdElement["tag"], children: MdNode[] = [], extra: Omit<MdElement, "tag" | "children"> = {}): MdElement => ({ tag, children, ...extra });

/** The link targets allowed: absolute http(s) and mailto URLs; anything else is refused. */
export function safeHref(raw: string): string | undefined {
  const text = raw.trim();
  if (!/^(https?:\/\/|mailto:)/i.test(text)) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Containers (list items, quotes) nest at most this deep; deeper markers are text. */
const MAX_DEPTH = 8;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*)$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const DELIMITER_CELL = /^:?-+:?$/;

interface ListMarker {
  indent: number;
  ordered: boolean;
  number: number;
  /** Where the item's text starts: continuation lines are stripped of up to this many spaces. */
  contentIndent: number;
  text: string;
}

/** The list marker a line starts with (`-`, `*`, `+`, `1.`, `1)`), if any. */
function listMarker(line: string): ListMarker | undefined {
  const match = /^( *)([-*+]|(\d{1,9})[.)])( +)(?=\S)/.exec(line);
  if (!match) return undefined;
  const indent = match[1]!.length;
  const spaces = match[4]!.length > 4 ? 1 : match[4]!.length;
  return {
    indent,
    ordered: match[3] !== undefined,
    number: match[3] === undefined ? 1 : Number(match[3]),
    contentIndent: indent + match[2]!.length + spaces,
    text: line.slice(match[0].length),
  };
}

const indentOf = (line: string): number => /^ */.exec(line)![0].length;
const isBlank = (line: string | undefined): boolean => line === undefined || line.trim() === "";

/** A table row's cells: split on pipes that are not escaped, the outer pipes dropped. */
function splitCells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** Whether a table (a row of cells, then a delimiter row of as many) starts at `index`. */
function tableAt(lines: readonly string[], index: number): boolean {
  const header = lines[index]!;
  const delimiter = lines[index + 1];
  if (!header.includes("|") || delimiter === undefined || !delimiter.includes("|") || indentOf(header) > 3) return false;
  const cells = splitCells(delimiter);
  return cells.every((cell) => DELIMITER_CELL.test(cell)) && cells.length === splitCells(header).length;
}

/** Whether a line ends a paragraph above it by starting a block of its own. */
function interruptsParagraph(lines: readonly string[], index: number): boolean {
  const line = lines[index]!;
  if (FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || tableAt(lines, index)) return true;
  const marker = listMarker(line);
  // A numbered line interrupts a paragraph only from 1, so "… in\n2024. Then …" stays a paragraph.
  return marker !== undefined && (!marker.ordered || marker.number === 1);
}

/** Parses Markdown into the tree of allowed nodes. */
export function parseMarkdown(source: string): MdElement[] {
  return parseBlocks(source.replace(/\r\n?/g, "\n").replace(/\t/g, "    ").split("\n"), 0);
}

function parseBlocks(lines: readonly string[], depth: number): MdElement[] {
  const blocks: MdElement[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (isBlank(line)) {
      index += 1;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const opening = fence[1]!;
      const closing = new RegExp(`^ {0,3}${opening[0] === "`" ? "`" : "~"}{${opening.length},}[ \\t]*$`);
      const indent = new RegExp(`^ {0,${indentOf(line)}}`);
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !closing.test(lines[index]!)) body.push(lines[index++]!.replace(indent, ""));
      index += 1;
      blocks.push(el("pre", [el("code", [body.join("\n")])]));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push(el(heading[1]!.length <= 2 ? "h3" : "h4", parseInline(heading[2]!.replace(/[ \t]+#+[ \t]*$/, "").trim())));
      index += 1;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push(el("hr"));
      index += 1;
      continue;
    }
    if (QUOTE.test(line) && depth < MAX_DEPTH) {
      const inner: string[] = [];
      // A quote goes on over its `>` lines and the lines that lazily continue its paragraph.
      while (index < lines.length && (QUOTE.test(lines[index]!) || (inner.length > 0 && !isBlank(lines[index]) && !isBlank(inner[inner.length - 1]) && !interruptsParagraph(lines, index)))) {
        inner.push(lines[index]!.replace(QUOTE, ""));
        index += 1;
      }
      blocks.push(el("blockquote", parseBlocks(inner, depth + 1)));
      continue;
    }
    if (tableAt(lines, index)) {
      index = parseTable(lines, index, blocks);
      continue;
    }
    if (listMarker(line) && depth < MAX_DEPTH) {
      index = parseList(lines, index, blocks, depth);
      continue;
    }
    const paragraph = [line.trim()];
    index += 1;
    while (index < lines.length && !isBlank(lines[index]) && !interruptsParagraph(lines, index)) paragraph.push(lines[index++]!.trim());
    blocks.push(el("p", parseInline(paragraph.join("\n"))));
  }
  return blocks;
}

/** A list from `index`: its items, each parsed as blocks of its own; returns the next line. */
function parseList(lines: readonly string[], index: number, blocks: MdElement[], depth: number): number {
  const first = listMarker(lines[index]!)!;
  const items: MdElement[] = [];
  let marker: ListMarker | undefined = first;
  while (marker) {
    const content = [marker.text];
    index += 1;
    for (;;) {
      const line = lines[index];
      if (line === undefined) break;
      if (isBlank(line)) {
        // A blank line stays in the item when the next text is indented under the item.
        let next = index + 1;
        while (isBlank(lines[next]) && next < lines.length) next += 1;
        if (next >= lines.length || indentOf(lines[next]!) <= marker.indent) break;
        while (index < next) {
          content.push("");
          index += 1;
        }
        continue;
      }
      if (indentOf(line) > marker.indent) {
        content.push(line.slice(Math.min(indentOf(line), marker.contentIndent)));
      } else if (!isBlank(content[content.length - 1]) && !listMarker(line) && !interruptsParagraph(lines, index)) {
        content.push(line.trim()); // a lazy continuation of the item's paragraph
      } else break;
      index += 1;
    }
    const children = parseBlocks(content, depth + 1);
    // The item's first paragraph is its text; later blocks (more paragraphs, a nested list) follow it.
    items.push(el("li", children[0]?.tag === "p" ? [...children[0].children, ...children.slice(1)] : children));
    // The list goes on past blank lines to the next item of its kind.
    let next = index;
    while (next < lines.length && isBlank(lines[next])) next += 1;
    const following = next < lines.length ? listMarker(lines[next]!) : undefined;
    marker = following && following.ordered === first.ordered && following.indent <= first.indent + 3 ? following : undefined;
    if (marker) index = next;
  }
  blocks.push(first.ordered ? el("ol", items, first.number === 1 ? {} : { start: first.number }) : el("ul", items));
  return index;
}

/** A table from `index` (a header row, a delimiter row, body rows until a blank line); returns the next line. */
function parseTable(lines: readonly string[], index: number, blocks: MdElement[]): number {
  const aligns = splitCells(lines[index + 1]!).map((cell): MdElement["align"] => (cell.endsWith(":") ? (cell.startsWith(":") ? "center" : "right") : cell.startsWith(":") ? "left" : undefined));
  const row = (line: string, tag: "th" | "td"): MdElement => {
    const cells = splitCells(line);
    return el(
      "tr",
      aligns.map((align, column) => el(tag, parseInline(cells[column] ?? ""), align ? { align } : {})),
    );
  };
  const head = el("thead", [row(lines[index]!, "th")]);
  const body: MdElement[] = [];
  index += 2;
  while (index < lines.length && !isBlank(lines[index]) && lines[index]!.includes("|") && !FENCE.test(lines[index]!) && !QUOTE.test(lines[index]!)) body.push(row(lines[index++]!, "td"));
  blocks.push(el("table", body.length > 0 ? [head, el("tbody", body)] : [head]));
  return index;
}

/**
 * A bare web address: http(s), up to a space, `<`, `>` or a parenthesis, and not ending in the
 * punctuation that closes a sentence around it ("see https://example.com/faq.").
 */
const BARE_URLS = /https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"*_~]/g;
const BARE_URL_HERE = new RegExp(`^(?:${BARE_URLS.source})`);

/** A bare address as a link, or as its text when it is no valid URL. */
function bareLink(address: string): MdNode {
  const href = safeHref(address);
  return href ? el("a", [address], { href }) : address;
}

/** Inline Markdown: escapes, code spans, links, bold, italic, strikethrough, bare URLs and line breaks. */
export function parseInline(text: string): MdNode[] {
  const out: MdNode[] = [];
  let plain = "";
  const flush = () => {
    if (!plain) return;
    const parts = plain.split("\n");
    parts.forEach((part, i) => {
      if (i > 0) out.push(el("br"));
      if (part) out.push(part);
    });
    plain = "";
  };
  // `_` emphasis only at word edges, so snake_case and window.__x stay text. A span closes within
  // 1,000 characters, so a reply of unclosed `**` costs linear time, not quadratic, at each delta.
  const atWordEdges = (start: number, length: number) => !/\w/.test(text[start - 1] ?? "") && !/\w/.test(text[start + length] ?? "");
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let match: RegExpExecArray | null;
    if ((match = /^\\([!-/:-@[-`{-~])/.exec(rest))) {
      plain += match[1];
    } else if ((match = /^(`+)(?!`)([\s\S]{0,1000}?[^`])\1(?!`)/.exec(rest))) {
      flush();
      out.push(el("code", [match[2]!.length > 2 && match[2]!.startsWith(" ") && match[2]!.endsWith(" ") ? match[2]!.slice(1, -1) : match[2]!]));
    } else if ((match = /^\[([^\]\n]+)\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\))?[^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)/.exec(rest))) {
      flush();
      const href = safeHref(match[2]!);
      const label = parseInline(match[1]!);
      if (href) out.push(el("a", label, { href }));
      else out.push(...label);
    } else if ((match = /^(\*\*\*|___)(?=\S)([\s\S]{0,1000}?\S)\1(?![*_])/.exec(rest)) && (match[1] === "***" || atWordEdges(i, match[0].length))) {
      flush();
      out.push(el("strong", [el("em", parseInline(match[2]!))]));
    } else if ((match = /^(\*\*|__)(?=\S)([\s\S]{0,1000}?\S)\1/.exec(rest)) && (match[1] === "**" || atWordEdges(i, match[0].length))) {
      flush();
      out.push(el("strong", parseInline(match[2]!)));
    } else if ((match = /^(\*|_)(?=\S)([^*_\n]*?[^*_\s])\1(?![*_])/.exec(rest)) && (match[1] === "*" || atWordEdges(i, match[0].length))) {
      flush();
      out.push(el("em", parseInline(match[2]!)));
    } else if ((match = /^~~(?=\S)([\s\S]{0,1000}?\S)~~/.exec(rest))) {
      flush();
      out.push(el("del", parseInline(match[1]!)));
    } else if ((match = BARE_URL_HERE.exec(rest)) && !/\w/.test(text[i - 1] ?? "")) {
      flush();
      out.push(bareLink(match[0]));
    } else {
      plain += text[i];
      i += 1;
      continue;
    }
    i += match[0].length;
  }
  flush();
  return out;
}

/**
 * Text as typed, with only its bare web addresses made links (an agent's reply: no Markdown, so
 * `**` and `#` stay the characters they are). Line breaks stay in the strings; the element that
 * holds them keeps them with `white-space: pre-wrap`.
 */
export function linkedText(source: string): MdNode[] {
  const out: MdNode[] = [];
  let from = 0;
  for (const match of source.matchAll(BARE_URLS)) {
    if (/\w/.test(source[match.index - 1] ?? "")) continue;
    if (match.index > from) out.push(source.slice(from, match.index));
    out.push(bareLink(match[0]));
    from = match.index + match[0].length;
  }
  if (from < source.length) out.push(source.slice(from));
  return out;
}

/** Text as typed, with its bare web addresses as links opening in a new tab: text nodes and anchors only. */
export function renderLinkedText(source: string, document: Document): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(...renderNodes(linkedText(source), document));
  return fragment;
}

const INLINE = new Set<MdElement["tag"]>(["strong", "em", "del", "code", "a"]);

/** A reply's words without its Markdown, on one line: for a one-line preview of it. */
export function plainText(source: string): string {
  const words = (nodes: readonly MdNode[]): string =>
    nodes.map((node) => (typeof node === "string" ? node : INLINE.has(node.tag) ? words(node.children) : ` ${words(node.children)} `)).join("");
  return words(parseMarkdown(source)).replace(/\s+/g, " ").trim();
}

/** The DOM nodes of a tree: elements and text nodes only, never parsed HTML. */
export function renderNodes(nodes: readonly MdNode[], document: Document): Node[] {
  return nodes.map((node) => {
    if (typeof node === "string") return document.createTextNode(node);
    const element = document.createElement(node.tag);
    if (node.tag === "a" && node.href) {
      element.setAttribute("href", node.href);
      element.setAttribute("target", "_blank");
      element.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tag === "ol" && node.start !== undefined) element.setAttribute("start", String(node.start));
    if (node.align) element.className = `align-${node.align}`;
    element.append(...renderNodes(node.children, document));
    if (node.tag !== "table") return element;
    // A table wider than the bubble scrolls sideways in a region a keyboard can reach.
    const region = document.createElement("div");
    region.className = "table";
    region.setAttribute("role", "region");
    region.setAttribute("aria-label", "Table");
    region.setAttribute("tabindex", "0");
    region.append(element);
    return region;
  });
}

/**
 * Renders Markdown into a fragment of safe DOM nodes. Each top-level block but code takes its
 * direction from its own text (`dir="auto"`), so a reply may mix Arabic and English paragraphs;
 * what a block holds (list items, cells, a quote's paragraphs) follows its block.
 */
export function renderMarkdown(source: string, document: Document): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const tree = parseMarkdown(source);
  const blocks = renderNodes(tree, document) as Element[];
  tree.forEach((block, index) => block.tag !== "pre" && block.tag !== "hr" && blocks[index]!.setAttribute("dir", "auto"));
  fragment.append(...blocks);
  return fragment;
}
