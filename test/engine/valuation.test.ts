// The one valuation of an account (src/engine/valuation.ts), shared by `hlbot status`, the metrics and
// the notices: stablecoins 1:1, other tokens at their canonical USDC pair's mid, held balances whole,
// staked/idle/pending HYPE at HYPE's price, and an unknown value rather than a low one when staked HYPE
// has no price.
import { describe, expect, it } from "vitest";
import { portfolioValueUsd, valueAccount } from "../../src/engine/valuation.js";
import { Decimal } from "../../src/lib/decimal.js";
import { addr, buildSnapshot } from "../helpers/snapshots.js";

const TOKENS = [
  { name: "USDC", index: 0 },
  { name: "HYPE", index: 150 },
  { name: "USDT0", index: 268 },
  { name: "PURR", index: 1 },
  { name: "ODD", index: 9 },
];
const n = (v: Decimal | undefined) => v?.toFixed();

describe("valueAccount", () => {
  it("values spot and staking by one rule", () => {
    const s = buildSnapshot({
      tokens: TOKENS,
      pairs: [
        { base: "HYPE", index: 107, mid: 40 },
        // USDT0 has a USDC pair, but a stablecoin counts 1:1.
        { base: "USDT0", index: 166, mid: "0.998" },
        // PURR's canonical pair (lowest index) has no mid: PURR has no price, even if another one has.
        { base: "PURR", index: 0, canonical: true, mid: null },
        { base: "PURR", index: 300, mid: "0.2" },
        // A mid of zero is no price either.
        { base: "ODD", index: 9, mid: 0 },
      ],
      balances: {
        USDC: 100,
        // A TWAP's hold is still the account's.
        HYPE: { total: 10, hold: 4 },
        USDT0: 50,
        PURR: 1000,
        ODD: 5,
      },
      delegations: [{ validator: addr(1), amount: 3 }],
      undelegated: 2,
      totalPendingWithdrawal: 1,
    });
    const staking = {
      delegated: s.staking.delegated,
      undelegated: s.staking.undelegated,
      pendingWithdrawal: s.staking.totalPendingWithdrawal,
    };
    const v = valueAccount(s, { spot: s.balances.values(), staking });
    expect(v.spot.map((x) => [x.coin, n(x.usdPrice), n(x.usd)])).toEqual([
      ["USDC", "1", "100"],
      ["HYPE", "40", "400"],
      ["USDT0", "1", "50"],
      ["PURR", undefined, undefined],
      ["ODD", undefined, undefined],
    ]);
    expect(n(v.spotUsd)).toBe("550");
    expect(v.staked).toMatchObject({ coin: "HYPE" });
    expect(n(v.staked?.amount)).toBe("6");
    expect(n(v.staked?.usd)).toBe("240");
    expect(n(v.totalUsd)).toBe("790");
    expect(n(portfolioValueUsd(s, true))).toBe("790");
    // Without the staking balance: the spot alone.
    expect(n(valueAccount(s, { spot: s.balances.values() }).totalUsd)).toBe("550");
    expect(n(portfolioValueUsd(s, false))).toBe("550");
  });

  it("has no value when HYPE is staked but has no price, and ignores that price when nothing is staked", () => {
    const s = buildSnapshot({ hypeMid: null, balances: { USDC: 100, HYPE: 10 }, undelegated: 5 });
    const zero = {
      delegated: new Decimal(0),
      undelegated: new Decimal(0),
      pendingWithdrawal: new Decimal(0),
    };
    const staked = { ...zero, undelegated: new Decimal(5) };
    expect(valueAccount(s, { spot: s.balances.values(), staking: staked }).totalUsd).toBeUndefined();
    expect(portfolioValueUsd(s, true)).toBeUndefined();
    expect(n(valueAccount(s, { spot: s.balances.values(), staking: zero }).totalUsd)).toBe("100");
  });
});
