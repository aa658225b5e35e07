import { describe, expect, it } from "vitest";
import { noSuchDayNote, parseDateTime } from "../../src/lib/dateTime.js";

describe("parseDateTime", () => {
  it("refuses a day the month does not have, which Date.parse rolls into the next month (a config trial)", () => {
    // Date.parse("2025-02-30T00:00:00Z") is March 2: `simulate --from 2025-02-30` ran from March 2.
    expect(Date.parse("2025-02-30T00:00:00Z")).toBe(Date.UTC(2025, 2, 2));
    for (const bad of ["2025-02-30T00:00:00Z", "2025-04-31", "2025-02-29T12:00Z", "2025-13-01", "2025-00-10"])
      expect(parseDateTime(bad), bad).toBeNaN();
    expect(parseDateTime("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
    expect(parseDateTime("2025-12-31T23:59:59.999Z")).toBe(Date.UTC(2025, 11, 31, 23, 59, 59, 999));
    expect(parseDateTime("2025-01-31T10:00:00+02:00")).toBe(Date.UTC(2025, 0, 31, 8));
    expect(parseDateTime("soon")).toBeNaN();
  });

  it("says which day does not exist, for the errors", () => {
    expect(noSuchDayNote("2025-02-30")).toBe(" (no such day: 2025-02 has no day 30)");
    expect(noSuchDayNote("2025-02-28")).toBe("");
    expect(noSuchDayNote("2025-13-01")).toBe("");
    expect(noSuchDayNote("tomorrow")).toBe("");
  });
});
