import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { FRAME_BUDGET, LOADER_BUDGET, widgetSizes } from "./support/sizes.js";

// The widget's size budgets (docs/design.md §14) on the production build of this run.
describe("the widget's budgets", () => {
  const sizes = widgetSizes(inject("widgetBuild"));

  it("keeps the loader at most 4 KiB gzip", () => {
    expect(sizes.loader).toBeGreaterThan(500);
    expect(sizes.loader).toBeLessThanOrEqual(LOADER_BUDGET);
  });

  it("keeps the frame's first load (page, script, styles) at most 35 KiB gzip", () => {
    expect(sizes.files.map((file) => file.name.replace(/-[\w-]{8}\./, "-HASH."))).toEqual(["widget.js", "index.html", "assets/index-HASH.js", "assets/style-HASH.css"]);
    expect(sizes.frame).toBeLessThanOrEqual(FRAME_BUDGET);
  });
});
