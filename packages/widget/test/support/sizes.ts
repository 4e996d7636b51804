import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** The widget's budgets (docs/design.md §14), in bytes of gzip. */
export const LOADER_BUDGET = 4 * 1024;
export const FRAME_BUDGET = 35 * 1024;

/**
 * The gzip bytes a browser downloads from a widget build, compressed as the server compresses
 * (gzip level 9): the loader alone, and the frame's first load (its page and every asset the page
 * names).
 */
export function widgetSizes(folder: string): { loader: number; frame: number; files: { name: string; bytes: number; gzip: number }[] } {
  const gzip = (name: string) => {
    const body = readFileSync(join(folder, name));
    return { name, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length };
  };
  const page = readFileSync(join(folder, "index.html"), "utf8");
  const assets = [...page.matchAll(/(?:src|href)="\/widget\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
  const files = [gzip("widget.js"), gzip("index.html"), ...assets.map(gzip)];
  return { loader: files[0]!.gzip, frame: files.slice(1).reduce((sum, file) => sum + file.gzip, 0), files };
}
