import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import { parseMarkdown, renderMarkdown, safeHref, type MdNode } from "./markdown.js";

/** Every element tag of a tree, depth first. */
function tags(nodes: readonly MdNode[]): string[] {
  return nodes.flatMap((node) => (typeof node === "string" ? [] : [node.tag, ...tags(node.children)]));
}
/** Every text of a tree, joined. */
function text(nodes: readonly MdNode[]): string {
  return nodes.map((node) => (typeof node === "string" ? node : text(node.children))).join("");
}
/** Every link target of a tree. */
function hrefs(nodes: readonly MdNode[]): string[] {
  return nodes.flatMap((node) => (typeof node === "string" ? [] : [...(node.href ? [node.href] : []), ...hrefs(node.children)]));
}

describe("parseMarkdown", () => {
  it("renders the Markdown a reply uses: paragraphs, emphasis, code, lists, headings, links", () => {
    const tree = parseMarkdown("## Steps\n\nPress **Boil** then *wait*.\n\n- one `code`\n- two\n\n1. first\n2. second\n\n```\nx < y\n```\n\nSee [the manual](https://example.com/m) or https://example.com/faq.");
    expect(tags(tree)).toEqual(["h3", "p", "strong", "em", "ul", "li", "code", "li", "ol", "li", "li", "pre", "code", "p", "a", "a"]);
    expect(hrefs(tree)).toEqual(["https://example.com/m", "https://example.com/faq"]);
    expect(text(tree)).toContain("x < y");
  });

  it("leaves underscores inside words alone (snake_case, window.__x)", () => {
    expect(tags(parseMarkdown("set max_retry_count and window.__pwned=1 then __bold__ and _it_"))).toEqual(["p", "strong", "em"]);
  });

  it("keeps raw HTML as the characters it is: no element but the allowed ones ever comes out", () => {
    const hostile = '<img src=x onerror="alert(1)"> <script>alert(2)</script> <a href="javascript:alert(3)">x</a> <iframe src="https://evil.example"></iframe>';
    const tree = parseMarkdown(hostile);
    // The bare URL of the iframe's src is a link like any other bare URL: to an http(s) page, in a new tab.
    expect(tags(tree)).toEqual(["p", "a"]);
    expect(hrefs(tree)).toEqual(["https://evil.example/"]);
    expect(text(tree)).toBe(hostile);
  });

  it("refuses every link target but http(s) and mailto, keeping the label as text", () => {
    for (const target of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox", "/relative", "//evil.example/x", "file:///etc/passwd"]) {
      const tree = parseMarkdown(`[click me](${target})`);
      expect(hrefs(tree), target).toEqual([]);
      expect(text(tree), target).toContain("click me");
    }
    expect(hrefs(parseMarkdown("[mail](mailto:help@example.com)"))).toEqual(["mailto:help@example.com"]);
    expect(safeHref("https://example.com/a b")).toBe("https://example.com/a%20b");
    expect(safeHref("java\nscript:alert(1)")).toBeUndefined();
  });
});

describe("renderMarkdown", () => {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");

  it("builds elements and text nodes only: a hostile reply has no img, script or handler", () => {
    const host = document.createElement("div");
    host.append(renderMarkdown('Hi <img src=x onerror="alert(1)"><script>alert(2)</script> **[go](javascript:alert(3))** [ok](https://example.com)', document as unknown as Document));
    expect(host.querySelectorAll("img, script, iframe").length).toBe(0);
    expect(host.innerHTML).not.toMatch(/<img|<script|javascript:/i);
    const attributes = [...host.querySelectorAll("*")].flatMap((element) => [...element.attributes].map((attribute) => attribute.name));
    expect(attributes.filter((name) => name.startsWith("on"))).toEqual([]);
    expect(host.textContent).toContain('<img src=x onerror="alert(1)">');
    const links = [...host.querySelectorAll("a")];
    expect(links.map((link) => [link.getAttribute("href"), link.getAttribute("target"), link.getAttribute("rel")])).toEqual([["https://example.com/", "_blank", "noopener noreferrer"]]);
  });
});
