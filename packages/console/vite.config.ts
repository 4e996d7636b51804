import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The console is served by `parley serve` under /console (docs/design.md §11), so every asset
// URL carries that base. Hashed names let the server cache them for a year; no inline script
// or style is emitted (the strict CSP forbids them), and nothing comes from another origin.
export default defineConfig({
  base: "/console/",
  root: here("./src"),
  publicDir: false,
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  resolve: { alias: [{ find: /^react(-dom)?$/, replacement: "preact/compat" }] },
  build: {
    outDir: here("./dist"),
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
    reportCompressedSize: false,
  },
});
