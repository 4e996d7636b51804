import { parseHTML } from "linkedom";
import { describe, expect, it } from "vitest";
import { linkedText, parseMarkdown, plainText, renderLinkedText, renderMarkdown, safeHref, type MdElement, type MdNode } from "./markdown.js";

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

  it("keeps a numbered list one list across blank lines, with its numbers", () => {
    const tree = parseMarkdown("To descale:\n\n1. **Empty** the kettle.\n\n2. Fill it with vinegar.\n   Wait an hour.\n\n3. Boil.\n\nThen rinse.");
    expect(tags(tree)).toEqual(["p", "ol", "li", "strong", "li", "br", "li", "p"]);
    expect(text(tree[1]!.children)).toBe("Empty the kettle.Fill it with vinegar.Wait an hour.Boil.");
    // A list that starts past 1 says so; a year at a line's start inside a paragraph is no list.
    expect(parseMarkdown("4. Four\n5. Five")[0]).toMatchObject({ tag: "ol", start: 4 });
    expect(tags(parseMarkdown("It was made in\n2024. Then it sold."))).toEqual(["p", "br"]);
    expect(tags(parseMarkdown("- a\n\n1. one"))).toEqual(["ul", "li", "ol", "li"]);
  });

  it("nests lists by indentation, under numbers and bullets alike", () => {
    const tree = parseMarkdown("1. Step one\n   - detail a\n   - detail b\n2. Step two\n  * under two\n    + deeper");
    expect(tags(tree)).toEqual(["ol", "li", "ul", "li", "li", "li", "ul", "li", "ul", "li"]);
    expect(text(tree)).toBe("Step onedetail adetail bStep twounder twodeeper");
  });

  it("renders tables with their header, alignment, inline text and escaped pipes", () => {
    const tree = parseMarkdown("Models:\n| Model | Capacity | Note |\n|:---|---:|:-:|\n| **K1** | 1.7 L | a \\| b |\n| K2 | 1.2 L |\n\nAfter.");
    expect(tags(tree)).toEqual(["p", "table", "thead", "tr", "th", "th", "th", "tbody", "tr", "td", "strong", "td", "td", "tr", "td", "td", "td", "p"]);
    const [head, body] = tree[1]!.children as MdElement[];
    expect((head!.children[0] as MdElement).children.map((cell) => (cell as MdElement).align)).toEqual(["left", "right", "center"]);
    expect(text(body!.children)).toBe("K11.7 La | bK21.2 L");
    // Pipes in a sentence without a delimiter row are text.
    expect(tags(parseMarkdown("a | b\nc | d"))).toEqual(["p", "br"]);
  });

  it("renders quotes, rules, bold italic, strikethrough and backslash escapes", () => {
    expect(tags(parseMarkdown("> **Note:** hot.\nStill the note.\n\n---\n\n***Very*** ~~old~~ new \\*not italic\\*"))).toEqual(["blockquote", "p", "strong", "br", "hr", "p", "strong", "em", "del"]);
    expect(text(parseMarkdown("\\*not italic\\* and \\[not a link](https://example.com)"))).toBe("*not italic* and [not a link](https://example.com)");
    expect(tags(parseMarkdown("use ``a `b` c`` here"))).toEqual(["p", "code"]);
  });

  it("renders a reply cut mid-stream: an open fence runs to the end, half a table is text", () => {
    expect(tags(parseMarkdown("Run:\n\n```sh\nparley serve"))).toEqual(["p", "pre", "code"]);
    expect(tags(parseMarkdown("| Model | Capacity |\n|---"))).toEqual(["p", "br"]);
  });

  it("caps nesting: a hostile reply of deep quotes or lists neither throws nor nests past 8", () => {
    const depth = (nodes: readonly MdNode[]): number => Math.max(0, ...nodes.map((node) => (typeof node === "string" ? 0 : 1 + depth(node.children))));
    for (const hostile of [">".repeat(50_000) + " x", Array.from({ length: 300 }, (_, i) => `${" ".repeat(i * 2)}- item`).join("\n"), "- ".repeat(20_000) + "x"]) {
      const tree = parseMarkdown(hostile);
      expect(depth(tree)).toBeLessThanOrEqual(2 * 8 + 2);
      expect(text(tree).length).toBeGreaterThan(0);
    }
    // A span closes within 1,000 characters, so unclosed `**` cost each delta linear time.
    expect(tags(parseMarkdown(`**${"a".repeat(998)}**`))).toEqual(["p", "strong"]);
    expect(tags(parseMarkdown(`**${"a".repeat(1_500)}**`))).toEqual(["p"]);
  });
});

describe("plainText", () => {
  it("gives a reply's words on one line, without its Markdown", () => {
    expect(plainText("To descale:\n\n1. **Empty** it.\n2. Boil it\nagain.\n\n| Model | Capacity |\n|---|---|\n| K1 | 1.7 L |\n\nSee [the manual](https://example.com).")).toBe("To descale: Empty it. Boil it again. Model Capacity K1 1.7 L See the manual.");
    expect(plainText('<img src=x onerror="alert(1)"> \\*a\\*')).toBe('<img src=x onerror="alert(1)"> *a*');
  });
});

describe("linkedText", () => {
  it("keeps an agent's text as typed, Markdown characters and line breaks included, and links its web addresses", () => {
    const typed = "**Hi** #1, see https://example.com/returns.\nOr (https://example.com/a_b) and xhttps://no.example, mailto:a@b.example.";
    const nodes = linkedText(typed);
    expect(text(nodes)).toBe(typed);
    expect(tags(nodes)).toEqual(["a", "a"]);
    expect(hrefs(nodes)).toEqual(["https://example.com/returns", "https://example.com/a_b"]);
    expect(nodes[0]).toBe("**Hi** #1, see ");
    expect(linkedText("no address here")).toEqual(["no address here"]);
    expect(linkedText("")).toEqual([]);
  });

  it("renders text nodes and anchors only: markup an agent types stays its characters", () => {
    const { document } = parseHTML("<!doctype html><html><body></body></html>");
    const host = document.createElement("p");
    host.append(renderLinkedText('<img src=x onerror="alert(1)"> javascript:alert(2) https://example.com/x?a=1&b=2', document as unknown as Document));
    expect(host.querySelectorAll("img").length).toBe(0);
    expect(host.textContent).toBe('<img src=x onerror="alert(1)"> javascript:alert(2) https://example.com/x?a=1&b=2');
    const links = [...host.querySelectorAll("a")];
    expect(links.map((link) => [link.getAttribute("href"), link.getAttribute("target"), link.getAttribute("rel")])).toEqual([["https://example.com/x?a=1&b=2", "_blank", "noopener noreferrer"]]);
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

  it("gives a table a region a keyboard can scroll, cells their alignment, a list its start", () => {
    const host = document.createElement("div");
    host.append(renderMarkdown("| a | b |\n|---|--:|\n| 1 | 2 |\n\n3. three", document as unknown as Document));
    const region = host.querySelector("div.table")!;
    expect([region.getAttribute("role"), region.getAttribute("aria-label"), region.getAttribute("tabindex")]).toEqual(["region", "Table", "0"]);
    expect(region.querySelector("table > thead > tr > th")?.textContent).toBe("a");
    expect([...region.querySelectorAll("th, td")].map((cell) => cell.className)).toEqual(["", "align-right", "", "align-right"]);
    expect(host.querySelector("ol")?.getAttribute("start")).toBe("3");
    // Top-level blocks take their direction from their own text (Arabic right to left), but code.
    host.append(renderMarkdown("```\ncode\n```\n\n---", document as unknown as Document));
    expect([...host.querySelectorAll("[dir]")].map((element) => `${element.tagName.toLowerCase()}:${element.getAttribute("dir")}`)).toEqual(["div:auto", "ol:auto"]);
  });
});
