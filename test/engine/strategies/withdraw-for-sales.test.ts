// withdrawForSales: a rebalancer of the account over its HYPE target with too little spot HYPE to sell
// (the rest staked) gets what it lacks withdrawn through the queue. A year of the shipped strategies
// (50/50 HYPE/USDC beside staking that keeps 500 HYPE on spot) left HYPE at 62 to 67% for months on two
// seeds of six: everything above keepSpot was staked and nothing ever came back for the rebalancer.
import { describe, expect, it } from "vitest";
import { plannedHypeSales } from "../../../src/engine/cycle.js";
import type { Decision } from "../../../src/engine/intents.js";
import type { PlannedSale } from "../../../src/engine/snapshot.js";
import { twapRebalanceParams } from "../../../src/engine/strategies/twapRebalance.js";
import { validatorStaking, validatorStakingParams } from "../../../src/engine/strategies/validatorStaking.js";
import { Decimal } from "../../../src/lib/decimal.js";
import { addr, buildSnapshot, T0 } from "../../helpers/snapshots.js";

const [A, B] = [addr(1), addr(2)];

function decide(
  opts: { spot?: number; pending?: number; nPending?: number; params?: Record<string, unknown> },
  sales: PlannedSale[],
): Decision[] {
  const snapshot = {
    ...buildSnapshot({
      validators: [
        { address: A, name: "A", apr: "0.03", commission: "0.01" },
        { address: B, name: "B", apr: "0.03", commission: "0.01" },
      ],
      delegations: [
        { validator: A, amount: 1_000 },
        { validator: B, amount: 1_000 },
      ],
      balances: { HYPE: opts.spot ?? 0, USDC: 10_000 },
      totalPendingWithdrawal: opts.pending ?? 0,
      nPendingWithdrawals: opts.nPending ?? 0,
    }),
    plannedHypeSales: sales,
  };
  return validatorStaking.decide(
    snapshot,
    validatorStakingParams.parse({
      validators: 2,
      stakeIdleSpot: { enabled: true, keepSpot: 500 },
      withdrawForSales: true,
      ...opts.params,
    }),
    T0,
    {},
    "stake",
  );
}

/** The moves decided, sorted (which validator goes first does not matter here). */
const moves = (ds: Decision[]) =>
  ds
    .flatMap((d) =>
      d.kind === "cWithdraw"
        ? [`withdraw ${d.amount.toFixed()}`]
        : d.kind === "tokenDelegate"
          ? [
              `${d.isUndelegate ? "undelegate" : "delegate"} ${d.amount.toFixed()} ${d.validator === A ? "A" : "B"}`,
            ]
          : d.kind === "cDeposit"
            ? [`deposit ${d.amount.toFixed()}`]
            : [],
    )
    .sort();
const sale = (over: number, extra: Partial<PlannedSale> = {}): PlannedSale => ({
  strategy: "hype-usdc-5050",
  size: new Decimal(0),
  heldBy: "its decision now",
  overTarget: new Decimal(over),
  ...extra,
});

it("withdraws what the sale lacks beyond spot HYPE, evenly from the validators, and says for whom", () => {
  const ds = decide({ spot: 100 }, [sale(300)]);
  expect(moves(ds)).toEqual(["undelegate 100 A", "undelegate 100 B", "withdraw 100", "withdraw 100"]);
  const reason = ds.find((d) => d.kind === "cWithdraw")?.reason ?? "";
  expect(reason).toContain("2000 HYPE staked, above what leaves hype-usdc-5050 HYPE to sell");
  expect(reason).toContain("it is 300 HYPE over its target, spot holds 100");
});

it("does nothing of the kind when withdrawForSales is off (the default)", () => {
  expect(moves(decide({ spot: 100, params: { withdrawForSales: false } }, [sale(300)]))).toEqual([]);
  expect(validatorStakingParams.parse({ validators: 1 }).withdrawForSales).toBe(false);
});

it("counts what is already on its way back, and a small rest waits for the pending withdrawal", () => {
  // 300 over, 100 on spot, 150 pending: 50 short, under rebalanceThreshold of the stake (10%).
  const ds = decide({ spot: 100, pending: 150, nPending: 1 }, [sale(300)]);
  expect(moves(ds)).toEqual([]);
  expect(JSON.stringify(ds)).toContain("withdrawn once the pending withdrawal(s) are done");
  // All of it on its way back: nothing to say.
  expect(moves(decide({ spot: 100, pending: 200, nPending: 1 }, [sale(300)]))).toEqual([]);
  // A large rest goes at once, pending or not.
  expect(moves(decide({ spot: 0, pending: 50, nPending: 1 }, [sale(850)]))).toEqual([
    "undelegate 400 A",
    "undelegate 400 B",
    "withdraw 400",
    "withdraw 400",
  ]);
});

it("takes the larger of maxStaked's excess and the sale's, with the reason of the one that binds", () => {
  const bySale = decide({ spot: 100, params: { maxStaked: 1_900 } }, [sale(300)]);
  expect(moves(bySale)).toEqual(["undelegate 100 A", "undelegate 100 B", "withdraw 100", "withdraw 100"]);
  expect(JSON.stringify(bySale)).toContain("withdrawForSales");
  const byCap = decide({ spot: 100, params: { maxStaked: 1_500 } }, [sale(300)]);
  expect(moves(byCap)).toEqual(["undelegate 250 A", "undelegate 250 B", "withdraw 250", "withdraw 250"]);
  expect(JSON.stringify(byCap)).toContain("above maxStaked 1500");
});

it("withdraws nothing for a sale its sell floor holds, nor for one spot HYPE covers", () => {
  // cycle.ts gives a floor-held sale no overTarget: the price may stay under the floor for months.
  expect(
    moves(decide({ spot: 0 }, [sale(300, { heldBy: "its sell floor", overTarget: undefined })])),
  ).toEqual([]);
  expect(moves(decide({ spot: 400 }, [sale(300)]))).toEqual([]);
});

describe("what the cycle tells staking of a rebalancer's sale (plannedHypeSales)", () => {
  // 900 HYPE staked, none on spot, at 80: 72,000 of HYPE against 40,000 USDC, 64% for a 50% target.
  const snapshot = buildSnapshot({
    balances: { USDC: 40_000 },
    hypeMid: 80,
    delegations: [{ validator: A, amount: 900 }],
  });
  const rebalancer = (priceLimits?: Record<string, unknown>) => ({
    name: "hype-usdc-5050",
    kind: "twap-rebalance" as const,
    params: twapRebalanceParams.parse({
      targets: { HYPE: 0.5, USDC: 0.5 },
      quote: "USDC",
      band: 0.05,
      twap: { minutes: 60 },
      countStaked: true,
      ...(priceLimits ? { priceLimits } : {}),
    }),
    capital: undefined,
  });

  it("says what it is over target by, though it has nothing on spot to sell", () => {
    const [p] = plannedHypeSales([rebalancer()], snapshot, T0);
    // (72,000 − 56,000) / 80
    expect(p?.overTarget?.toFixed()).toBe("200");
  });

  it("and nothing to withdraw for while its sell floor holds the sale, spot HYPE or not", () => {
    const held = plannedHypeSales([rebalancer({ HYPE: { sellFloor: 90 } })], snapshot, T0);
    expect(held.map((p) => [p.heldBy, p.overTarget?.toFixed()])).toEqual([["its sell floor", undefined]]);
    const withSpot = buildSnapshot({
      balances: { USDC: 40_000, HYPE: 50 },
      hypeMid: 80,
      delegations: [{ validator: A, amount: 900 }],
    });
    const both = plannedHypeSales([rebalancer({ HYPE: { sellFloor: 90 } })], withSpot, T0);
    expect(both.map((p) => [p.heldBy, p.overTarget?.toFixed()])).toEqual([["its sell floor", undefined]]);
  });
});
