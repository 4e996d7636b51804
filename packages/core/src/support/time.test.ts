import { describe, expect, it } from "vitest";
import { formatTimestamp, monthOf, startOfNextMonth } from "./time.js";

describe("timestamps", () => {
  it("formats microseconds with six fractional digits and +00:00", () => {
    const micros = Date.parse("2026-03-04T05:06:07.089Z") * 1000 + 123;
    expect(formatTimestamp(micros)).toBe("2026-03-04T05:06:07.089123+00:00");
    expect(formatTimestamp(Date.parse("2026-03-04T05:06:07Z") * 1000)).toBe("2026-03-04T05:06:07.000000+00:00");
  });

  it("knows the UTC month and the start of the next one, across a year end", () => {
    const lastMicro = Date.parse("2026-12-31T23:59:59.999Z") * 1000 + 999;
    expect(monthOf(lastMicro)).toBe("2026-12");
    expect(formatTimestamp(startOfNextMonth(lastMicro))).toBe("2027-01-01T00:00:00.000000+00:00");
    expect(monthOf(lastMicro + 1)).toBe("2027-01");
  });
});
