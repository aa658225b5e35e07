// Rules of the decision layer that a mutation audit (a second test auditor) showed no test pinned: each
// case below fails when its rule is broken as the audit broke it.
import { describe, expect, it } from "vitest";
import { unseenByCapital } from "../../../src/engine/capital.js";
import {
  type Decision,
  isIntent,
  type TokenDelegateIntent,
  type TwapOrderIntent,
} from "../../../src/engine/intents.js";
import { twapAccumulate, twapAccumulateParams } from "../../../src/engine/strategies/twapAccumulate.js";
import { twapRebalance, twapRebalanceParams } from "../../../src/engine/strategies/twapRebalance.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { Decimal } from "../../../src/lib/decimal.js";
import { addr, buildSnapshot, DAY_MS, T0, type ValidatorSpec } from "../../helpers/snapshots.js";

const A = addr(1);
const B = addr(2);
const twaps = (ds: Decision[]) => ds.filter((d): d is TwapOrderIntent => d.kind === "twapOrder");
const moves = (ds: Decision[]) =>
  ds
    .filter((d): d is TokenDelegateIntent => d.kind === "tokenDelegate")
    .map((d) => [d.isUndelegate ? "undelegate" : "delegate", d.validator, d.amount.toFixed()]);
const reasons = (ds: Decision[]) => ds.map((d) => d.reason).join("\n");

const PURR_TOKENS = [
  { name: "USDC", index: 0, szDecimals: 8, weiDecimals: 8 },
  { name: "HYPE", index: 150, szDecimals: 2, weiDecimals: 8 },
  { name: "PURR", index: 1, szDecimals: 0, weiDecimals: 5 },
];

describe("twap-rebalance", () => {
  it("a buy is capped by the quote it can pay with, counted in quote (not in base units)", () => {
    // PURR at 0.2: 10,000 USDC and no PURR, 50/50. The buy is 5,000 USDC = 25,000 PURR, within the
    // 10,000 USDC available: not limited. (Compared in base units, 25,000 > 10,000 limited it to all the
    // USDC: 50,000 PURR.)
    const snapshot = buildSnapshot({
      tokens: PURR_TOKENS,
      pairs: [
        { base: "HYPE", index: 107, mid: 25 },
        { base: "PURR", index: 0, mid: "0.2" },
      ],
      balances: { USDC: 10_000, PURR: 0 },
    } as never);
    const p = twapRebalanceParams.parse({
      targets: { PURR: 0.5, USDC: 0.5 },
      band: 0.05,
      twap: { minutes: 30, randomize: false },
    });
    const [buy] = twaps(twapRebalance.decide(snapshot, p, T0, {}, "rebalance"));
    expect(buy?.side).toBe("buy");
    expect(buy?.size.toFixed()).toBe("25000");
    expect(buy?.reason).not.toMatch(/limited by the available/);
  });

  it("minOrderUsd is in USD for a pair quoted in HYPE", () => {
    // 200 HYPE of PURR at HYPE 25 is 5,000 USD, above minOrderUsd 1,000 (200 in quote units is not).
    const snapshot = buildSnapshot({
      tokens: PURR_TOKENS,
      pairs: [
        { base: "HYPE", index: 107, mid: 25 },
        { base: "PURR", quote: "HYPE", index: 5, mid: "0.008" },
      ],
      balances: { HYPE: 400, PURR: 0 },
    } as never);
    const p = twapRebalanceParams.parse({
      targets: { PURR: 0.5, HYPE: 0.5 },
      quote: "HYPE",
      band: 0.05,
      twap: { minutes: 60, randomize: false },
      minOrderUsd: 1000,
    });
    const decisions = twapRebalance.decide(snapshot, p, T0, {}, "rebalance");
    expect(decisions.filter(isIntent)).toHaveLength(1);
    expect(twaps(decisions)[0]?.notionalUsd.toNumber()).toBeCloseTo(5000, 0);
    // Above it, skipped, in USD.
    const high = twapRebalance.decide(
      snapshot,
      { ...p, minOrderUsd: new Decimal(6000) },
      T0,
      {},
      "rebalance",
    );
    expect(high.filter(isIntent)).toHaveLength(0);
    expect(reasons(high)).toMatch(/5000(\.00)? USD .*is below minOrderUsd 6000/);
  });
});

describe("capital on both tokens (unseenByCapital)", () => {
  const snapshot = buildSnapshot({ hypeMid: 25, balances: { USDC: 10_000, HYPE: 100 } });
  const buy = { side: "buy" as const, label: "HYPE/USDC", size: new Decimal(40), midPx: new Decimal(25) };
  it("a trade that leaves both tokens at or above their capital is said to change nothing the strategy sees", () => {
    const capital = new Map([
      ["USDC", new Decimal(5000)],
      ["HYPE", new Decimal(50)],
    ]);
    expect(unseenByCapital(buy, snapshot, capital)).toMatch(/it would change nothing this strategy sees/);
  });
  it("it goes when the token bought is held under its capital (the strategy sees it grow)", () => {
    const capital = new Map([
      ["USDC", new Decimal(5000)],
      ["HYPE", new Decimal(500)],
    ]);
    expect(unseenByCapital(buy, snapshot, capital)).toBeUndefined();
  });
  it("it goes when the token spent falls under its capital", () => {
    const capital = new Map([
      ["USDC", new Decimal(9500)],
      ["HYPE", new Decimal(50)],
    ]);
    expect(unseenByCapital(buy, snapshot, capital)).toBeUndefined();
  });
});

describe("twap-accumulate: the sell floor at equality", () => {
  it("sells at a mid equal to limitPx, not below it", () => {
    const params = (limitPx: number) =>
      twapAccumulateParams.parse({
        coin: "HYPE",
        side: "sell",
        amountUsd: 500,
        limitPx,
        twap: { minutes: 30, randomize: false },
      });
    const snapshot = buildSnapshot({ hypeMid: 40, balances: { HYPE: 100, USDC: 0 } });
    expect(twaps(twapAccumulate.decide(snapshot, params(40), T0, {}, "dca"))).toHaveLength(1);
    expect(twaps(twapAccumulate.decide(snapshot, params(40.5), T0, {}, "dca"))).toHaveLength(0);
  });
});

describe("validator-staking", () => {
  const decide = (validators: ValidatorSpec[], params: Record<string, unknown>, on = B) =>
    validatorStaking.decide(
      buildSnapshot({
        validators,
        delegations: [{ validator: on, amount: 1000, lockedUntil: T0 - 10 * DAY_MS }],
      }),
      validatorStakingParams.parse({ validators: 1, ...params }),
      T0,
      {},
      "stake",
    );

  it("horizonDays: a better validator takes the stake only when the gain over the horizon pays a day of rewards", () => {
    // 3.0% against 2.9% (same commission): 0.1 point × horizonDays must beat 2.9 points × 1 day.
    const vs: ValidatorSpec[] = [
      { address: A, name: "alpha", apr: "0.03", commission: "0.05" },
      { address: B, name: "bravo", apr: "0.029", commission: "0.05" },
    ];
    const short = decide(vs, { minImprovement: 0, horizonDays: 20 });
    expect(moves(short)).toEqual([]);
    expect(reasons(short)).toMatch(/the gain over 20 days does not pay for the move \(1 day of rewards\)/);
    expect(moves(decide(vs, { minImprovement: 0, horizonDays: 30 }))).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
  });

  it("rankBy stake: an incumbent keeps its place against one ranked less than rebalanceThreshold higher", () => {
    const vs = (alpha: number): ValidatorSpec[] => [
      { address: A, name: "alpha", apr: "0.03", stake: alpha },
      { address: B, name: "bravo", apr: "0.03", stake: 1_000_000 },
    ];
    const within = decide(vs(1_050_000), { rankBy: "stake", rebalanceThreshold: 0.1 });
    expect(moves(within)).toEqual([]);
    expect(reasons(within)).toMatch(/alpha .* ranks within 10% of it by stake/);
    const beyond = decide(vs(1_200_000), { rankBy: "stake", rebalanceThreshold: 0.1 });
    expect(moves(beyond)).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
    expect(reasons(beyond)).toMatch(/alpha .* ranks more than 10% higher by stake/);
  });

  it("maxCommission excludes only above the bound, not at it", () => {
    const vs = (commission: string): ValidatorSpec[] => [
      { address: A, name: "alpha", apr: "0.05", commission },
      { address: B, name: "bravo", apr: "0.02", commission: "0.01" },
    ];
    // At the bound: eligible, and it pays the most: the stake moves to it.
    expect(moves(decide(vs("0.05"), { maxCommission: 0.05 }))).toEqual([
      ["undelegate", B, "1000"],
      ["delegate", A, "1000"],
    ]);
    // Above it: excluded, nothing moves.
    expect(moves(decide(vs("0.06"), { maxCommission: 0.05 }))).toEqual([]);
  });
});
