import type { DocumentInput } from "@parley/core";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, extname, join, resolve } from "node:path";

/** The file types `parley ingest` reads. */
export const INGESTIBLE_EXTENSIONS = [".txt", ".md", ".html"] as const;

/**
 * Every document under the given paths: files as named (which must be .txt, .md or .html), and
 * folders recursively (other files in them are passed over), in a stable order. A document's
 * source is its absolute path, so ingesting it again replaces it.
 */
export async function readDocuments(paths: string[]): Promise<DocumentInput[]> {
  const files: string[] = [];
  for (const path of paths) {
    const absolute = resolve(path);
    const info = await stat(absolute).catch(() => null);
    if (!info) throw new Error(`No such file or folder: ${path}`);
    if (info.isDirectory()) files.push(...(await filesUnder(absolute)));
    else if (isIngestible(absolute)) files.push(absolute);
    else throw new Error(`Cannot ingest ${path}: only ${INGESTIBLE_EXTENSIONS.join(", ")} files are read.`);
  }
  const documents: DocumentInput[] = [];
  for (const file of [...new Set(files)]) documents.push(toDocument(file, await readFile(file, "utf8")));
  return documents;
}

function isIngestible(file: string): boolean {
  return (INGESTIBLE_EXTENSIONS as readonly string[]).includes(extname(file).toLowerCase());
}

/** The files under a folder that `accept` takes, recursively, hidden ones left out, in a stable order. */
export async function filesUnder(folder: string, accept: (path: string) => boolean = isIngestible): Promise<string[]> {
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path, accept)));
    else if (entry.isFile() && accept(path)) files.push(path);
  }
  return files;
}

/** A file's text and title: the first Markdown heading, the HTML title, or the file name. */
export function toDocument(path: string, content: string): DocumentInput {
  const extension = extname(path).toLowerCase();
  if (extension === ".html") {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(content)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(content)?.[1];
    return { source: path, title: cleanTitle(title, path), text: htmlToText(content) };
  }
  const heading = extension === ".md" ? /^#\s+(.+)$/m.exec(content)?.[1] : undefined;
  return { source: path, title: cleanTitle(heading, path), text: content };
}

function cleanTitle(title: string | undefined, path: string): string {
  const text = title === undefined ? "" : decodeEntities(title.replace(/<[^>]+>/g, "")).replace(/\s+/g, " ").trim();
  return text || basename(path);
}

/** Readable text of an HTML page: scripts, styles and tags removed, blocks kept as paragraphs. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/(p|div|section|article|li|h[1-6]|tr|table|ul|ol|blockquote|pre|header|footer)>/gi, "\n\n")
    .replace(/<[^>]+>/g, " ");
  return decodeEntities(text)
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
