import { fileURLToPath } from "node:url";
import { buildForProduction } from "../../../console/test/support/production-build.js";

/**
 * Builds the widget for production into `outDir`, as its `npm run build` does: the frame (which
 * empties the folder), then the loader `widget.js` beside it.
 */
export async function buildWidget(outDir: string): Promise<void> {
  await buildForProduction({ configFile: fileURLToPath(new URL("../../vite.config.ts", import.meta.url)), outDir });
  await buildForProduction({ configFile: fileURLToPath(new URL("../../vite.loader.config.ts", import.meta.url)), outDir, keepOutDir: true });
}
