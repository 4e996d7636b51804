import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The chat frame (docs/design.md §14): served by `parley serve` as /widget/{chatbot_id}, its
// assets under /widget/assets/ with hashed names the server caches for a year. No inline script
// or style (the frame has the console's strict CSP), nothing from another origin.
export default defineConfig({
  base: "/widget/",
  root: here("./src/frame"),
  publicDir: false,
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
