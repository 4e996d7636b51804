import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The loader /widget.js (docs/design.md §14): one classic script, an IIFE so that none of its
// names reach the host page's global scope, at a stable URL (no hash: the snippet names it).
// Built after the frame into the same folder, which it must not empty.
export default defineConfig({
  publicDir: false,
  build: {
    outDir: here("./dist"),
    emptyOutDir: false,
    target: "es2020",
    reportCompressedSize: false,
    lib: { entry: here("./src/loader/loader.ts"), formats: ["iife"], name: "ParleyWidgetLoader", fileName: () => "widget.js" },
  },
});
