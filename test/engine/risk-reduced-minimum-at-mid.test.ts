// A TWAP that maxOrderUsd (or maxDailyNotionalUsd) reduces is held to the venue's minimum order value at
// the mid the venue checks it near, not at the higher price it was valued at (price sanity's highest
// recent price, e.g. the previous day's after a fall). A trader's trial: after a 20% dip with maxOrderUsd
// 115, every reduced DCA buy was 4.6 HYPE ≈ 92 USDC at the mid 20, refused, 20 of 24 hourly runs.
import { describe, expect, it } from "vitest";
import type { TwapOrderIntent } from "../../src/engine/intents.js";
import { applyLimits, type RiskLimits, type RiskUsage } from "../../src/engine/risk.js";
import { DEFAULT_VENUE_RULES } from "../../src/engine/snapshot.js";
import { parseDecimal as dec } from "../../src/lib/decimal.js";

const limits: RiskLimits = {
  maxOrderUsd: dec("115"),
  maxDailyNotionalUsd: dec("20000"),
  maxStakeMovePerDay: dec("1500"),
  killSwitchFile: "/srv/hlbot/STOP",
};
const noUsage: RiskUsage = { notionalUsd: dec("0"), stakeMoved: dec("0") };

describe("a reduced TWAP after a fall", () => {
  it("is never sent below the venue minimum at the mid the venue checks it at", () => {
    // 15 HYPE decided at mid 20, valued at 25 (previous-day price) by price sanity.
    const intent: TwapOrderIntent = {
      kind: "twapOrder",
      strategy: "hype-dca",
      reason: "buy 15 HYPE",
      coin: "@107",
      label: "HYPE/USDC",
      assetId: 10107,
      side: "buy",
      size: dec("15"),
      szDecimals: 2,
      minutes: 30,
      randomize: false,
      reduceOnly: false,
      midPx: dec("25"),
      decisionMidPx: dec("20"),
      notionalUsd: dec("375"),
      quoteUsd: dec("1"),
    };
    const r = applyLimits([intent], limits, noUsage, { killSwitchActive: false, rules: DEFAULT_VENUE_RULES });
    // 115 USD at 25 is 4.6 HYPE, 92 USDC at the mid 20: no size fits both, so it is blocked, saying why.
    expect(r.allowed).toEqual([]);
    expect(r.blocked.map((b) => b.reason)).toEqual([
      expect.stringMatching(
        /reduced to 115(\.00)? USD by maxOrderUsd.*it is too small: 92 USDC is below the venue minimum/,
      ),
    ]);
    // With room for the minimum at the mid (maxOrderUsd 130: 5.2 HYPE, 104 USDC at 20), it goes out.
    const roomy = applyLimits([intent], { ...limits, maxOrderUsd: dec("130") }, noUsage, {
      killSwitchActive: false,
      rules: DEFAULT_VENUE_RULES,
    });
    expect(roomy.allowed.map((a) => (a as TwapOrderIntent).size.toFixed())).toEqual(["5.2"]);
  });
});
