import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Vitest global setup: builds the console once, so the browser tests never run a stale bundle. */
export default function buildConsole(): void {
  const vite = createRequire(import.meta.url).resolve("vite/bin/vite.js");
  execFileSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: fileURLToPath(new URL("../..", import.meta.url)), stdio: "inherit" });
}
