import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, limitHeapGrowth } from "./heap-growth.js";

/** The flags set through a recording setter, for node started with `execArgv`. */
function flagsSet(execArgv: string[]): { returned: string | undefined; set: string[] } {
  const set: string[] = [];
  const returned = limitHeapGrowth({ execArgv, setFlags: (flags) => set.push(flags) });
  return { returned, set };
}

describe("the server's heap growth", () => {
  it("sets V8's heap growth to 50 % when node was given none", () => {
    expect(HEAP_GROWING_PERCENT).toBe(50);
    expect(flagsSet([])).toEqual({ returned: "--heap-growing-percent=50", set: ["--heap-growing-percent=50"] });
    // Other heap flags (a budget) leave the growth to Parley.
    expect(flagsSet(["--max-old-space-size=160", "--enable-source-maps"]).set).toEqual(["--heap-growing-percent=50"]);
  });

  it("leaves the growth node was started with alone, in either spelling", () => {
    expect(flagsSet(["--heap-growing-percent=0"])).toEqual({ returned: undefined, set: [] });
    expect(flagsSet(["--max-old-space-size=160", "--heap_growing_percent=100"])).toEqual({ returned: undefined, set: [] });
    expect(flagsSet(["--heap-growing-percent", "25"]).set).toEqual([]);
    // A flag that only begins alike is not it.
    expect(flagsSet(["--heap-growing-percentage=5"]).set).toEqual(["--heap-growing-percent=50"]);
  });
});
