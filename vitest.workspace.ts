import { defineConfig } from "vitest/config";

// Vitest 4 reads no workspace file: this root config declares every package as a project.
// The `source` condition makes workspace packages resolve to their TypeScript sources, so
// tests never need a build.
const packages = ["core", "sqlite", "providers", "server"];

export default defineConfig({
  test: {
    projects: packages.map((name) => ({
      extends: true,
      test: {
        name,
        root: `packages/${name}`,
        include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      },
    })),
  },
  resolve: {
    conditions: ["source"],
  },
  ssr: {
    resolve: {
      conditions: ["source"],
    },
  },
});
