// The minimum in the venue's refusal of a too-small TWAP, read from its own words.
import { describe, expect, it } from "vitest";
import { DEFAULT_MESSAGES } from "../../../src/simulator/errors.js";
import { parseTwapMinimum } from "../../../src/venue/exchange/twapMinimum.js";

describe("parseTwapMinimum", () => {
  it("reads the total and the per-minute rule of the venue's text", () => {
    const min = parseTwapMinimum("TWAP order value too small. Min is $1200, which is $10 per minute");
    expect(min?.total.toFixed()).toBe("1200");
    expect(min?.perMinute?.toFixed()).toBe("10");
  });

  it("accepts thousands separators, decimals, a trailing dot, and a text without the per-minute part", () => {
    const big = parseTwapMinimum("TWAP order value too small. Min is $100,800, which is $10.5 per minute.");
    expect(big?.total.toFixed()).toBe("100800");
    expect(big?.perMinute?.toFixed()).toBe("10.5");
    const total = parseTwapMinimum("TWAP order value too small. Min is $100.");
    expect(total?.total.toFixed()).toBe("100");
    expect(total?.perMinute).toBeUndefined();
  });

  it("returns undefined for any other refusal, or a minimum that is not positive", () => {
    expect(parseTwapMinimum("Order must have minimum value of 10 USDC.")).toBeUndefined();
    expect(parseTwapMinimum("Order has insufficient spot balance to trade")).toBeUndefined();
    expect(parseTwapMinimum("TWAP order value too small. Min is $0")).toBeUndefined();
  });

  it("reads the simulator's refusal, so the end-to-end tests exercise the same parser", () => {
    expect(parseTwapMinimum(DEFAULT_MESSAGES.twapOrderTooSmall("1200", "10"))?.perMinute?.toFixed()).toBe(
      "10",
    );
    expect(parseTwapMinimum(DEFAULT_MESSAGES.twapOrderTooSmall("100", undefined))?.total.toFixed()).toBe(
      "100",
    );
  });
});
