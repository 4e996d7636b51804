import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { buildForProduction, unfitFilesIn } from "./production-build.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of the console's production build the browser tests serve (`PARLEY_CONSOLE_DIR`). */
    consoleBuild: string;
  }
}

/**
 * Vitest global setup: builds the console for production once, fresh, into a temporary folder the
 * browser tests' server serves, and removes it after the run. The installed build
 * (`packages/console/dist`, what `parley serve` serves by default) is never touched.
 */
export default async function buildConsole(project: TestProject): Promise<() => void> {
  const folder = mkdtempSync(join(tmpdir(), "parley-console-build-"));
  await buildForProduction({ configFile: fileURLToPath(new URL("../../vite.config.ts", import.meta.url)), outDir: folder });
  const faults = unfitFilesIn(folder);
  if (faults.length > 0) throw new Error(`The console's test build is not fit to serve:\n${faults.join("\n")}`);
  project.provide("consoleBuild", folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
