import { describe, expect, it } from "vitest";
import { VenueCore } from "../../src/simulator/core.js";
import type { TwapRequest } from "../../src/simulator/twap.js";
import { ADDR, HYPE_ASSET, START, testScenario } from "./fixtures.js";

function venue(settings: Record<string, unknown> = {}) {
  const scenario = testScenario();
  return new VenueCore({ scenario, settings });
}

function req(p: Partial<TwapRequest>): TwapRequest {
  return {
    asset: HYPE_ASSET,
    isBuy: true,
    size: "10",
    reduceOnly: false,
    minutes: 5,
    randomize: false,
    hasDetails: false,
    ...p,
  };
}

function place(core: VenueCore, p: Partial<TwapRequest>) {
  const r = core.twaps.place(ADDR.trader, req(p), "0x01");
  if (!r.ok) throw new Error(r.error);
  return r.twap;
}

const bal = (core: VenueCore, coin: string) => core.balance(ADDR.trader, coin);

describe("TWAP engine", () => {
  it("runs one suborder every 30 s at the mid with taker fees, reserving quote for a buy", () => {
    const core = venue();
    const twap = place(core, { size: "10", minutes: 5 });
    // Quote reserved: remaining size × mid × (1 + 3 % slippage margin).
    expect(bal(core, "USDC").hold.toString()).toBe("257.5");
    core.advance(29_999);
    expect(twap.slicesFilled).toBe(0);
    core.advance(1);
    expect(twap.slicesFilled).toBe(1);
    core.advance(3 * 30_000);
    expect(bal(core, "USDC").hold.toString()).toBe("154.5");
    core.advance(10 * 60_000);
    expect(twap.status).toBe("finished");
    expect(twap.slicesFilled).toBe(10);
    const fills = core.twaps.fillsOf(ADDR.trader);
    expect(fills.map((f) => f.time - START)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((i) => i * 30_000));
    expect(fills.every((f) => f.sz.toString() === "1" && f.px.toString() === "25")).toBe(true);
    expect(new Set(fills.map((f) => f.tid)).size).toBe(10);
    // Buys pay the fee in the base token received.
    expect(bal(core, "HYPE").total.toString()).toBe("1009.99");
    expect(bal(core, "USDC").total.toString()).toBe("9750");
    expect(bal(core, "USDC").hold.toString()).toBe("0");
    const history = core.twaps.historyOf(ADDR.trader);
    expect(history.map((h) => [h.status, h.time - START, h.executedSz.toString()])).toEqual([
      ["activated", 0, "0"],
      ["finished", 300_000, "10"],
    ]);
  });

  it("a sell reserves base, pays the fee in quote, and catches up (≤ 3× size) after a halt", () => {
    const core = venue();
    const twap = place(core, { isBuy: false, size: "20", minutes: 10 });
    expect(bal(core, "HYPE").hold.toString()).toBe("20");
    core.advance(5 * 30_000);
    expect(twap.executedSz.toString()).toBe("5");
    core.setPairHalted("@107", true);
    core.advance(5 * 30_000);
    expect(twap.executedSz.toString()).toBe("5");
    core.setPairHalted("@107", false);
    core.advance(30_000);
    core.advance(30_000);
    core.advance(30_000);
    const sizes = core.twaps.fillsOf(ADDR.trader).map((f) => f.sz.toString());
    expect(sizes).toEqual(["1", "1", "1", "1", "1", "3", "3", "2"]);
    core.advance(10 * 60_000);
    expect(twap.status).toBe("finished");
    expect(twap.executedSz.toString()).toBe("20");
    expect(bal(core, "HYPE").total.toString()).toBe("980");
    // 20 × 25 = 500 USDC, minus 0.1 % fee in USDC.
    expect(bal(core, "USDC").total.toString()).toBe("10499.5");
    expect(core.ledger.list({ kind: "twapSliceSkipped" })).toHaveLength(5);
  });

  it("finishes partly unfilled when it falls too far behind", () => {
    const core = venue();
    const twap = place(core, { isBuy: false, size: "20", minutes: 10 });
    core.advance(2 * 30_000);
    core.setPairHalted("@107", true);
    core.advance(10 * 60_000);
    expect(twap.status).toBe("finished");
    expect(twap.executedSz.toString()).toBe("2");
    expect(bal(core, "HYPE").hold.toString()).toBe("0");
  });

  it("randomised TWAPs vary intervals (10–50 s) and sizes, finish the size, and repeat with the seed", () => {
    const run = () => {
      const core = venue();
      const twap = place(core, { size: "30", minutes: 30, randomize: true });
      core.advance(31 * 60_000);
      return { twap, fills: core.twaps.fillsOf(ADDR.trader) };
    };
    const a = run();
    const b = run();
    expect(a.twap.status).toBe("finished");
    expect(a.twap.executedSz.toString()).toBe("30");
    const times = a.fills.map((f) => f.time);
    // The last suborder runs at the end time, whatever the draw: leave that gap out.
    const gaps = times.slice(1, -1).map((t, i) => t - times[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(10_000);
    expect(new Set(gaps).size).toBeGreaterThan(5);
    expect(new Set(a.fills.map((f) => f.sz.toString())).size).toBeGreaterThan(3);
    expect(a.fills.map((f) => [f.time, f.sz.toString()])).toEqual(
      b.fills.map((f) => [f.time, f.sz.toString()]),
    );
  });

  it("validates duration, size precision, zero size, minimum slice value, balance and asset", () => {
    const core = venue();
    const err = (p: Partial<TwapRequest>) => {
      const r = core.twaps.place(ADDR.trader, req(p), "0x02");
      return r.ok ? "ok" : r.error;
    };
    expect(err({ minutes: 4 })).toBe("Invalid TWAP duration: 4 min(s)");
    expect(err({ minutes: 10_081 })).toBe("Invalid TWAP duration: 10081 min(s)");
    expect(err({ size: "1.005" })).toBe("Order has invalid size");
    expect(err({ size: "0" })).toBe("Order has zero size.");
    // 3 HYPE × 25 = 75 USDC < 100 for the whole TWAP.
    expect(err({ size: "3" })).toBe("TWAP order value too small. Min is $100.");
    expect(err({ size: "1000", isBuy: true })).toBe("Order has insufficient spot balance to trade");
    expect(err({ size: "1001", isBuy: false })).toBe("Order has insufficient spot balance to trade");
    expect(err({ asset: 10999 })).toBe("Invalid asset: 10999");
    expect(err({ asset: 0 })).toBe("Invalid asset: 0");
    expect(err({ reduceOnly: true })).toMatch(/Reduce only/);
    expect(err({ size: "4" })).toBe("ok");
    // A running sell holds base: a second sell beyond what is left is refused.
    expect(err({ size: "990", isBuy: false })).toBe("ok");
    expect(err({ size: "20", isBuy: false })).toBe("Order has insufficient spot balance to trade");
    // The older rules, when configured: 10 per minute of duration, and 10 per 30-s suborder.
    const perMinute = venue({ twapMinValuePerMinute: 10 });
    expect(perMinute.twaps.place(ADDR.trader, req({ size: "10", minutes: 30 }), "0x").ok).toBe(false);
    expect(
      (perMinute.twaps.place(ADDR.trader, req({ size: "10", minutes: 30 }), "0x") as { error: string }).error,
    ).toBe("TWAP order value too small. Min is $300, which is $10 per minute.");
    const perSlice = venue({ twapMinSliceValue: 10 });
    // 4.5 HYPE × 25 = 112.5 in all, but over 10 minutes (20 suborders) only 5.6 per suborder.
    expect(
      (perSlice.twaps.place(ADDR.trader, req({ size: "4.5", minutes: 10 }), "0x") as { error: string }).error,
    ).toBe("Order must have minimum value of 10 USDC.");
    const lax = venue({ twapMaxMinutes: 1440, twapMinOrderValue: 0 });
    expect(lax.twaps.place(ADDR.trader, req({ minutes: 1441 }), "0x").ok).toBe(false);
    expect(lax.twaps.place(ADDR.trader, req({ size: "0.1" }), "0x").ok).toBe(true);
  });

  it("cancels a running TWAP once, releasing its hold", () => {
    const core = venue();
    const twap = place(core, { isBuy: false, size: "20", minutes: 10 });
    core.advance(60_000);
    expect(core.twaps.cancel(ADDR.trader, HYPE_ASSET + 1, twap.id)).toBe(false);
    expect(core.twaps.cancel(ADDR.staker, HYPE_ASSET, twap.id)).toBe(false);
    expect(core.twaps.cancel(ADDR.trader, HYPE_ASSET, twap.id)).toBe(true);
    expect(core.twaps.cancel(ADDR.trader, HYPE_ASSET, twap.id)).toBe(false);
    expect(twap.status).toBe("terminated");
    expect(bal(core, "HYPE").hold.toString()).toBe("0");
    core.advance(20 * 60_000);
    expect(twap.executedSz.toString()).toBe("2");
  });

  it("runs a 7-day TWAP (20 160 suborders) in well under a few seconds of wall time", () => {
    const core = venue();
    const started = performance.now();
    core.fund(ADDR.trader, "HYPE", "100000");
    const twap = place(core, { isBuy: false, size: "90000", minutes: 10_080 });
    core.advance(7 * 86_400_000 + 1_000);
    expect(twap.status).toBe("finished");
    expect(twap.slicesRun).toBe(20_160);
    expect(twap.executedSz.toString()).toBe("90000");
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});
