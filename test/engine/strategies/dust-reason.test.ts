// A numbers audit: a DCA (or a rebalancer) whose order is cut to the available balance, and that balance is
// under one lot, was skipped with "<amountUsd> is less than one lot of <coin>" (or "the correction is below
// one lot"): the reason blamed amountUsd instead of the balance (dust, a hold, a keepOnSpot floor).
import { describe, expect, it } from "vitest";
import type { Decision } from "../../../src/engine/intents.js";
import { twapAccumulate, twapAccumulateParams } from "../../../src/engine/strategies/twapAccumulate.js";
import { buildSnapshot, T0 } from "../../helpers/snapshots.js";

function reasonOf(decisions: Decision[]): string {
  expect(decisions).toHaveLength(1);
  expect(decisions[0]?.kind).toBe("skip");
  return decisions[0]!.reason;
}

describe("twap-accumulate: an order cut to a dust balance says so", () => {
  it("sell: 0.005 HYPE available (half a lot), amountUsd 150 at mid 25", () => {
    const p = twapAccumulateParams.parse({
      coin: "HYPE",
      side: "sell",
      amountUsd: 150,
      twap: { minutes: 30, randomize: false },
    });
    const snap = buildSnapshot({ balances: { HYPE: { total: 10, hold: "9.995" }, USDC: 0 }, hypeMid: 25 });
    const reason = reasonOf(twapAccumulate.decide(snap, p, T0, {}, "dca"));
    // Today: "150 USDC is less than one lot of HYPE at mid 25" — false: 150 USDC is 6 HYPE.
    expect(reason).not.toMatch(/^150 USDC is less than one lot/);
    expect(reason).toMatch(/available/);
  });

  it("buy: 0.2 USDC available, amountUsd 150 at mid 25", () => {
    const p = twapAccumulateParams.parse({
      coin: "HYPE",
      side: "buy",
      amountUsd: 150,
      twap: { minutes: 30, randomize: false },
    });
    const snap = buildSnapshot({ balances: { HYPE: 0, USDC: "0.2" }, hypeMid: 25 });
    const reason = reasonOf(twapAccumulate.decide(snap, p, T0, {}, "dca"));
    expect(reason).not.toMatch(/^150 USDC is less than one lot/);
    expect(reason).toMatch(/available/);
  });
});

import { twapRebalance, twapRebalanceParams } from "../../../src/engine/strategies/twapRebalance.js";

describe("twap-rebalance: a buy cut to a dust quote balance says so", () => {
  it("HYPE 0% against a 50% target, 0.005 USDC available (the rest on hold)", () => {
    const p = twapRebalanceParams.parse({
      targets: { HYPE: 0.5, USDC: 0.5 },
      quote: "USDC",
      band: 0.05,
      twap: { minutes: 60 },
    });
    const snap = buildSnapshot({
      balances: { HYPE: 0, USDC: { total: 1000, hold: "999.995" } },
      hypeMid: 25,
    });
    const ds = twapRebalance.decide(snap, p, T0, {}, "reb");
    const reasons = ds.map((d) => d.reason).join(" | ");
    // Today: "...: the correction is below one lot of HYPE (2 decimals)": the correction is 20 HYPE.
    expect(reasons).not.toMatch(/the correction is below one lot/);
  });
});
