// The server as users run it, built from the current sources: the HTTP benchmark measures this
// bundle by default. tsup compiles it as the package build does (esbuild, target node20, no
// `keepNames`); tsx's `keepNames` wraps every closure made per call in `Object.defineProperty`,
// which also makes those functions slower, and the installed dist (`--built`) is only as fresh as
// the last `npm run build`.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "tsup";

const REPOSITORY = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Bundles `entries` (name → TypeScript source) from the current sources into a folder of their
 * own under `.parley-bench/` (test files may run in threads of one process: the pid alone would
 * not keep their folders apart), as the package build compiles them. Native modules stay outside
 * the bundle, and so do busboy, pg and redis: CommonJS modules whose require() of Node's builtins
 * an ESM bundle cannot serve. Documents are read in child processes whose entry the bundle loads
 * from beside itself, so it is always bundled too. Returns the folder.
 */
export async function bundleFromSources(label: string, entries: Record<string, string>, options: { sourcemap?: boolean } = {}): Promise<string> {
  const folder = join(REPOSITORY, ".parley-bench", `${label}-${process.pid}-${randomUUID()}`);
  await build({
    entry: { ...entries, "read-document-worker": fileURLToPath(new URL("../../knowledge/src/read-document-worker.ts", import.meta.url)) },
    outDir: folder,
    format: ["esm"],
    platform: "node",
    target: "node20",
    silent: true,
    sourcemap: options.sourcemap ?? false,
    external: ["better-sqlite3", "sqlite-vec", "busboy", "pg", "redis"],
    esbuildOptions(options) {
      options.conditions = ["source"];
    },
  });
  return folder;
}

/**
 * Builds `parley` (the CLI) and the stub-core server; returns their paths. With `sourcemap`, each
 * bundle has its source map beside it (`cli.js.map`), which a profile's summary reads to name
 * each sample's source file (scripts/cpuprofile-steps.mjs).
 */
export async function buildServer(options: { sourcemap?: boolean } = {}): Promise<{ cli: string; stubCore: string; folder: string }> {
  const folder = await bundleFromSources(
    "http-bench",
    {
      cli: fileURLToPath(new URL("./serve-from-source.ts", import.meta.url)),
      "stub-core-server": fileURLToPath(new URL("./stub-core-server.ts", import.meta.url)),
    },
    options,
  );
  return { cli: join(folder, "cli.js"), stubCore: join(folder, "stub-core-server.js"), folder };
}
