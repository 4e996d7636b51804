// A tiny Markdown renderer for the bot's replies (docs/design.md §14): paragraphs, line breaks,
// headings, bullet and numbered lists, fenced and inline code, bold, italic and links. It allows
// NO raw HTML: the text is parsed into a tree of a few known tags and plain strings, and the tree
// becomes DOM nodes through createElement/createTextNode only, so `<img onerror>` or `<script>`
// in a reply is shown as the characters it is. Links keep only http(s) and mailto targets, and
// open in a new tab with rel="noopener noreferrer"; any other target stays text.

/** A node of the rendered tree: text, or one of the allowed elements. */
export type MdNode = string | MdElement;
export interface MdElement {
  tag: "p" | "br" | "strong" | "em" | "code" | "pre" | "ul" | "ol" | "li" | "a" | "h3" | "h4";
  children: MdNode[];
  /** Links only: an http(s) or mailto URL. */
  href?: string;
}

const el = (tag: MdElement["tag"], children: MdNode[] = [], href?: string): MdElement => (href === undefined ? { tag, children } : { tag, children, href });

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

/** Parses Markdown into the tree of allowed nodes. */
export function parseMarkdown(source: string): MdElement[] {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const blocks: MdElement[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (line.trim() === "") {
      index += 1;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const body: string[] = [];
      index += 1;
      while (index < lines.length && !lines[index]!.trimStart().startsWith(fence[1]!)) body.push(lines[index++]!);
      index += 1;
      blocks.push(el("pre", [el("code", [body.join("\n")])]));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      blocks.push(el(heading[1]!.length <= 2 ? "h3" : "h4", parseInline(heading[2]!.replace(/\s+#+\s*$/, ""))));
      index += 1;
      continue;
    }
    const bullet = /^\s*[-*+]\s+/;
    const numbered = /^\s*\d{1,9}[.)]\s+/;
    if (bullet.test(line) || numbered.test(line)) {
      const marker = bullet.test(line) ? bullet : numbered;
      const items: MdElement[] = [];
      while (index < lines.length && marker.test(lines[index]!)) {
        let text = lines[index]!.replace(marker, "");
        index += 1;
        // Indented lines continue the item.
        while (index < lines.length && /^\s{2,}\S/.test(lines[index]!) && !marker.test(lines[index]!)) text += `\n${lines[index++]!.trim()}`;
        items.push(el("li", parseInline(text)));
      }
      blocks.push(el(marker === bullet ? "ul" : "ol", items));
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && lines[index]!.trim() !== "" && !/^\s*(```|~~~)/.test(lines[index]!) && !/^#{1,6}\s/.test(lines[index]!) && !(paragraph.length > 0 && (bullet.test(lines[index]!) || numbered.test(lines[index]!)))) {
      paragraph.push(lines[index++]!);
    }
    blocks.push(el("p", parseInline(paragraph.join("\n"))));
  }
  return blocks;
}

/** Inline Markdown: code spans, links, bold, italic, bare URLs and line breaks. */
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
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let match: RegExpExecArray | null;
    if ((match = /^`([^`]+)`/.exec(rest))) {
      flush();
      out.push(el("code", [match[1]!]));
    } else if ((match = /^\[([^\]\n]+)\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\))?[^()\s<>]*)>?(?:\s+"[^"]*")?\s*\)/.exec(rest))) {
      flush();
      const href = safeHref(match[2]!);
      const label = parseInline(match[1]!);
      if (href) out.push(el("a", label, href));
      else out.push(...label);
    } else if ((match = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest)) && (match[1] === "**" || (!/\w/.test(text[i - 1] ?? "") && !/\w/.test(text[i + match[0].length] ?? "")))) {
      flush();
      out.push(el("strong", parseInline(match[2]!)));
    } else if ((match = /^(\*|_)(?=\S)([^*_\n]*?\S)\1(?![*_])/.exec(rest)) && (match[1] === "*" || (!/\w/.test(text[i - 1] ?? "") && !/\w/.test(text[i + match[0].length] ?? "")))) {
      flush();
      out.push(el("em", parseInline(match[2]!)));
    } else if ((match = /^(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/.exec(rest)) && !/\w/.test(text[i - 1] ?? "")) {
      flush();
      const href = safeHref(match[1]!);
      out.push(href ? el("a", [match[1]!], href) : match[1]!);
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
    element.append(...renderNodes(node.children, document));
    return element;
  });
}

/** Renders Markdown into a fragment of safe DOM nodes. */
export function renderMarkdown(source: string, document: Document): DocumentFragment {
  const fragment = document.createDocumentFragment();
  fragment.append(...renderNodes(parseMarkdown(source), document));
  return fragment;
}
