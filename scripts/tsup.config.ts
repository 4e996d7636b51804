import { defineConfig } from "tsup";

// Builds the eval and bench scripts into .parley-bench/build so plain `node` runs them (Node 20
// cannot run TypeScript). Workspace packages are bundled from their TypeScript sources (the
// `source` export condition); the native modules stay external.
export default defineConfig({
  entry: { eval: "scripts/eval.ts", bench: "scripts/bench.ts" },
  outDir: ".parley-bench/build",
  format: ["esm"],
  platform: "node",
  target: "node20",
  clean: true,
  dts: false,
  sourcemap: false,
  splitting: true,
  silent: true,
  external: ["better-sqlite3", "sqlite-vec", "pg", /^@electric-sql\//],
  esbuildOptions(options) {
    options.conditions = ["source"];
  },
});
