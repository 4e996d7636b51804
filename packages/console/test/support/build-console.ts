import { fileURLToPath } from "node:url";
import { build } from "vite";

/** Vitest global setup: builds the console once, so the browser tests never run a stale bundle. */
export default async function buildConsole(): Promise<void> {
  await build({ configFile: fileURLToPath(new URL("../../vite.config.ts", import.meta.url)), logLevel: "warn" });
}
