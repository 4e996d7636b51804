import { defineConfig } from "vitest/config";

// Vitest 4 reads no workspace file: this root config declares every package as a project.
// The `source` condition makes workspace packages resolve to their TypeScript sources, so
// tests never need a build.
const packages = ["core", "sqlite", "postgres", "redis", "providers", "knowledge", "sse-parser", "markdown", "console", "widget", "server"];

// The server's tests start the CLI and the server as child processes (about a second each on
// this 2-core machine, more under load), so they get a longer budget than unit tests.
// The console's browser tests drive Chromium against a served child process likewise; the
// PostgreSQL and Redis suites talk to database servers; the knowledge suite parses PDF and DOCX
// files in reader child processes (each a few seconds of CPU on a loaded machine).
const timeouts: Record<string, number> = { server: 60_000, console: 60_000, widget: 60_000, postgres: 30_000, redis: 15_000, knowledge: 30_000 };

export default defineConfig({
  test: {
    projects: packages.map((name) => ({
      extends: true,
      test: {
        name,
        root: `packages/${name}`,
        include: ["src/**/*.test.ts", "test/**/*.test.ts"],
        testTimeout: timeouts[name] ?? 5_000,
        hookTimeout: timeouts[name] ?? 10_000,
        // The console's browser tests need its bundle: built once, fresh, before they run.
        ...(name === "console" ? { globalSetup: ["test/support/build-console.ts"] } : {}),
        // The widget's likewise (loader and frame).
        ...(name === "widget" ? { globalSetup: ["test/support/build-widget.ts"] } : {}),
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
