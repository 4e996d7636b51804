import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// Shared by every package whose browser bundle the server serves (the console, the widget): the
// tests build the production bundle into a folder of their own and point the server at it, so
// they exercise what users get and never replace the installed build.

/** The repository's root folder: a path the bundles must never contain. */
export const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url)).replace(/\/$/, "");

/**
 * Builds a Vite project for production into `outDir`, as its `npm run build` does, in a child
 * process: Vitest sets NODE_ENV=test, under which Vite would emit a development build (JSX with
 * the source files' absolute paths and line numbers, debug checks).
 */
export async function buildForProduction(options: { configFile: string; outDir: string; keepOutDir?: boolean }): Promise<void> {
  const vite = join(dirname(createRequire(import.meta.url).resolve("vite/package.json")), "bin", "vite.js");
  const child = spawn(process.execPath, [vite, "build", "--config", options.configFile, "--outDir", options.outDir, ...(options.keepOutDir ? [] : ["--emptyOutDir"]), "--logLevel", "warn"], {
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => child.once("error", reject).once("close", resolve));
  if (code !== 0) throw new Error(`vite build of ${options.configFile} exited with ${code}:\n${stderr}`);
}

/** Every file of a build folder, by its path inside the folder (`index.html`, `assets/…`). */
export function buildFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * What makes a built file unfit to serve, one line each (none when fit): the traces of a
 * development build (the JSX source records `lineNumber`/`columnNumber`, `jsxDEV`) and absolute
 * paths of the machine that built it (the repository's root, any quoted path of a source file).
 */
export function unfitForServing(name: string, text: string): string[] {
  const faults: string[] = [];
  const development = text.match(/\blineNumber:|\bcolumnNumber:|\bjsxDEV\b/g);
  if (development) faults.push(`${name}: a development build (${development.length} debug entries such as "${development[0]}")`);
  if (text.includes(REPOSITORY_ROOT)) faults.push(`${name}: the build machine's path ${REPOSITORY_ROOT}`);
  const source = /["'`](\/[^"'`\s]+\.(?:tsx?|jsx))["'`]/.exec(text);
  if (source) faults.push(`${name}: an absolute source path ${source[1]}`);
  return faults;
}

/** {@link unfitForServing} for every file of a build folder read from disk. */
export function unfitFilesIn(folder: string): string[] {
  return buildFiles(folder).flatMap((name) => unfitForServing(name, readFileSync(join(folder, name), "utf8")));
}
