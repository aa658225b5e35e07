// The guard rule of the TWAP watch (pure): which mids cross a running TWAP's price limit or its maximum
// deviation from the mid at decision time, against the order's side only.
import { describe, expect, it } from "vitest";
import { crossed, guardOf, type WatchTarget } from "../../src/engine/guards.js";
import type { Strategy } from "../../src/engine/strategies/registry.js";
import { Decimal } from "../../src/lib/decimal.js";

const d = (x: string) => new Decimal(x);
const base: WatchTarget = {
  strategy: "s",
  twapId: 1,
  assetId: 10107,
  coin: "@107",
  side: "sell",
  guards: [],
  decisionMid: d("25"),
};

describe("crossed", () => {
  it("a sell floor is crossed below it, a buy ceiling above it", () => {
    const sell = { ...base, guards: [{ limitPx: d("22") }] };
    expect(crossed(sell, d("22"))).toBeUndefined();
    expect(crossed(sell, d("21.99"))).toMatch(/below the sell floor limitPx 22/);
    const buy = { ...base, side: "buy" as const, guards: [{ limitPx: d("30") }] };
    expect(crossed(buy, d("30"))).toBeUndefined();
    expect(crossed(buy, d("30.5"))).toMatch(/above the buy ceiling limitPx 30/);
    expect(crossed(buy, d("10"))).toBeUndefined(); // a falling price is good for a buy
  });

  it("maxDeviation counts only moves against the order", () => {
    const sell = { ...base, guards: [{ maxDeviation: d("0.05") }] };
    expect(crossed(sell, d("23.75"))).toBeUndefined(); // exactly 5% down
    expect(crossed(sell, d("23.7"))).toMatch(/moved 5\.2% against the sell from 25/);
    expect(crossed(sell, d("40"))).toBeUndefined();
    const buy = { ...base, side: "buy" as const, guards: [{ maxDeviation: d("0.05") }] };
    expect(crossed(buy, d("26.3"))).toMatch(/moved 5\.2% against the buy/);
    expect(crossed(buy, d("20"))).toBeUndefined();
  });

  it("several guards (the journaled one and a tighter current one): the first crossed names itself", () => {
    const sell = {
      ...base,
      guards: [{ limitPx: d("20") }, { limitPx: d("22"), limitName: "priceLimits.HYPE.sellFloor" }],
    };
    expect(crossed(sell, d("21"))).toMatch(/below the sell floor priceLimits\.HYPE\.sellFloor 22/);
    expect(crossed(sell, d("19"))).toMatch(/below the sell floor limitPx 20/);
    expect(crossed(sell, d("23"))).toBeUndefined();
  });

  it("no limit, no crossing", () => {
    expect(crossed(base, d("1"))).toBeUndefined();
  });
});

describe("guardOf", () => {
  const dca = (params: Record<string, unknown>) =>
    ({
      kind: "twap-accumulate",
      params: { coin: "UBTC", quote: "USDC", side: "buy", ...params },
    }) as unknown as Strategy;

  it("guards only a TWAP on the pair the strategy trades: its coin and its quote", () => {
    expect(guardOf(dca({ limitPx: d("100000") }), "buy", "UBTC/USDC", "@142")?.limitPx?.toFixed()).toBe(
      "100000",
    );
    // The file moved to the HYPE quote (a ceiling in HYPE): the running UBTC/USDC buy is not its.
    expect(guardOf(dca({ quote: "HYPE", limitPx: d("4000") }), "buy", "UBTC/USDC", "@142")).toBeUndefined();
    expect(guardOf(dca({ coin: "PURR", limitPx: d("0.2") }), "buy", "UBTC/USDC", "@142")).toBeUndefined();
    // limitPx holds on the side it trades; maxDeviation on either.
    expect(guardOf(dca({ limitPx: d("100000") }), "sell", "UBTC/USDC", "@142")).toBeUndefined();
    expect(
      guardOf(
        dca({ twap: { maxDeviation: d("0.05") } }),
        "sell",
        "UBTC/USDC",
        "@142",
      )?.maxDeviation?.toFixed(),
    ).toBe("0.05");
  });

  it("guards a DCA's TWAP whether the DCA names its market by the base token or the pair name", () => {
    // A limit tester's trial: `coin: "@107"` was never matched against the label's base, so its running
    // TWAP had no watch and sold through limitPx.
    const byPair = dca({ coin: "@142", side: "sell", limitPx: d("90000") });
    expect(guardOf(byPair, "sell", "UBTC/USDC", "@142")?.limitPx?.toFixed()).toBe("90000");
    // Another pair's name is not its market.
    expect(guardOf(byPair, "sell", "HYPE/USDC", "@107")).toBeUndefined();
  });
});
