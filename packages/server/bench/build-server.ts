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

/** Builds `parley` (the CLI) and the stub-core server into a folder of their own under `.parley-bench/`; returns their paths. */
export async function buildServer(): Promise<{ cli: string; stubCore: string; folder: string }> {
  const folder = join(REPOSITORY, ".parley-bench", `http-bench-${process.pid}-${randomUUID()}`);
  await build({
    entry: {
      cli: fileURLToPath(new URL("./serve-from-source.ts", import.meta.url)),
      "stub-core-server": fileURLToPath(new URL("./stub-core-server.ts", import.meta.url)),
      // Documents are parsed in worker threads whose entry the bundle loads from beside itself.
      "read-document-worker": fileURLToPath(new URL("../../knowledge/src/read-document-worker.ts", import.meta.url)),
    },
    outDir: folder,
    format: ["esm"],
    platform: "node",
    target: "node20",
    silent: true,
    // As the crash test's build: native modules and the CommonJS modules that require() Node's builtins stay outside.
    external: ["better-sqlite3", "sqlite-vec", "busboy", "pg", "redis"],
    esbuildOptions(options) {
      options.conditions = ["source"];
    },
  });
  return { cli: join(folder, "cli.js"), stubCore: join(folder, "stub-core-server.js"), folder };
}
