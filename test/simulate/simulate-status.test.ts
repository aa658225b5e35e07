// A TWAP that ended having filled nothing is shown as such in the summary and report (issue #12 case 7).
import { describe, expect, it } from "vitest";
import { twapStatusText } from "../../src/simulate/summary.js";

describe("twapStatusText", () => {
  it("says a finished or terminated TWAP filled nothing when nothing executed", () => {
    expect(twapStatusText({ status: "finished", executedSize: "0" })).toBe("finished, filled nothing");
    expect(twapStatusText({ status: "terminated", executedSize: "0.0" })).toBe("terminated, filled nothing");
  });

  it("keeps the plain status when something filled, or while the TWAP still runs", () => {
    expect(twapStatusText({ status: "finished", executedSize: "12.5" })).toBe("finished");
    expect(twapStatusText({ status: "running", executedSize: "0" })).toBe("running");
  });
});
