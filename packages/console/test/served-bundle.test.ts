import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createConsoleAssets, defaultConsoleRoot } from "../../server/src/http/console-assets.js";
import { buildFiles, unfitForServing } from "./support/production-build.js";

// What `parley serve` sends to an operator's browser: every file of the build, fetched through the
// server's own static handler, must be a production build without a path of the machine that
// built it. The installed build is what users get; the test build is what the browser tests run.

/** The most the console's first load may weigh, gzip (it is about 29 KiB: docs/benchmarks.md, Console). */
const FIRST_LOAD_BUDGET_GZIP = 32 * 1024;

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves a build folder as `parley serve` does and fetches each of its files at `/console/…`. */
async function servedFiles(root: string): Promise<{ path: string; status: number; text: string }[]> {
  const serve = createConsoleAssets({ root });
  server = createServer((request, response) => void serve(request, response, new URL(request.url ?? "/", "http://x").pathname, {}));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const paths = ["/console/", ...buildFiles(root).filter((name) => name !== "index.html").map((name) => `/console/${name}`)];
  return Promise.all(
    paths.map(async (path) => {
      const response = await fetch(`${origin}${path}`, { headers: { "accept-encoding": "identity" } });
      return { path, status: response.status, text: await response.text() };
    }),
  );
}

describe("the console bundle the server serves", () => {
  it.each([
    ["the installed build, which parley serve serves by default", () => defaultConsoleRoot()],
    ["the production build the browser tests serve", () => inject("consoleBuild")],
  ])("%s: a production build with no path of the machine that built it", async (_name, rootOf) => {
    const root = rootOf();
    expect(root !== undefined && existsSync(`${root}/index.html`), `no console build at ${root} (npm run build makes it)`).toBe(true);
    const files = await servedFiles(root!);
    expect(files.map(({ path, status }) => ({ path, status }))).toEqual(files.map(({ path }) => ({ path, status: 200 })));
    // The page, its script and style, and the chunk loaded with the Usage screen at least.
    expect(files.filter(({ path }) => path.endsWith(".js")).length).toBeGreaterThanOrEqual(2);
    expect(files.flatMap(({ path, text }) => unfitForServing(path, text))).toEqual([]);
  });

  it("keeps the first load within its budget, the Widget section, the chart and the Markdown renderer out of it", () => {
    const root = inject("consoleBuild");
    const page = readFileSync(`${root}/index.html`, "utf8");
    // What a first visit fetches: the page and the assets it names (docs/benchmarks.md, Console).
    const named = [...page.matchAll(/(?:src|href)="\/console\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
    const gzipped = ["index.html", ...named].reduce((total, name) => total + gzipSync(readFileSync(`${root}/${name}`), { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(FIRST_LOAD_BUDGET_GZIP);
    // The chunks loaded with their screens exist, and the page names neither.
    const files = buildFiles(root);
    for (const chunk of [/^assets\/widget-section-[\w-]+\.js$/, /^assets\/uPlot\.esm-[\w-]+\.js$/, /^assets\/markdown-[\w-]+\.js$/]) {
      const file = files.find((name) => chunk.test(name));
      expect(file, `no chunk ${chunk} in the build`).toBeDefined();
      expect(named).not.toContain(file);
    }
  });

  it("recognises a development build and a build machine's paths", () => {
    const development = 'jsx("p",{children:n},void 0,!1,{fileName:"/home/ada/parley/packages/console/src/app.tsx",lineNumber:29,columnNumber:5},this)';
    expect(unfitForServing("index.js", development)).toEqual([
      'index.js: a development build (2 debug entries such as "lineNumber:")',
      "index.js: an absolute source path /home/ada/parley/packages/console/src/app.tsx",
    ]);
    expect(unfitForServing("index.js", 'import("./uPlot.esm-BScb58at.js");var a=`/console/assets/x.js`;')).toEqual([]);
  });
});
