import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { unfitFilesIn } from "../../../console/test/support/production-build.js";
import { buildWidget } from "./production-build.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of the widget's production build the tests serve (`PARLEY_WIDGET_DIR`). */
    widgetBuild: string;
  }
}

/**
 * Vitest global setup: builds the widget for production once, fresh, into a temporary folder the
 * tests' servers serve, and removes it after the run; the installed build is never touched.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const folder = mkdtempSync(join(tmpdir(), "parley-widget-build-"));
  await buildWidget(folder);
  const faults = unfitFilesIn(folder);
  if (faults.length > 0) throw new Error(`The widget's test build is not fit to serve:\n${faults.join("\n")}`);
  project.provide("widgetBuild", folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
