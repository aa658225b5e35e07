import { describe, expect, it } from "vitest";
import type { Decision, TwapOrderIntent } from "../../../src/engine/intents.js";
import { twapAccumulate, twapAccumulateParams } from "../../../src/engine/strategies/twapAccumulate.js";
import type { StrategyMemory } from "../../../src/engine/strategies/types.js";
import { parseDecimal } from "../../../src/lib/decimal.js";
import { buildSnapshot, type SnapshotSpec, T0 } from "../../helpers/snapshots.js";

const base = { coin: "HYPE", side: "buy", amountUsd: 1000, twap: { minutes: 30, randomize: false } };
const funded: SnapshotSpec = { balances: { HYPE: 100, USDC: 50_000 }, hypeMid: 40 };

function run(
  params: Record<string, unknown> = {},
  spec: SnapshotSpec = funded,
  memory: StrategyMemory = {},
): Decision[] {
  const p = twapAccumulateParams.parse({ ...base, ...params });
  return twapAccumulate.decide(buildSnapshot(spec), p, T0, memory, "dca");
}

function only(decisions: Decision[]): TwapOrderIntent {
  expect(decisions).toHaveLength(1);
  expect(decisions[0]?.kind).toBe("twapOrder");
  return decisions[0] as TwapOrderIntent;
}

function skipped(decisions: Decision[]): string {
  expect(decisions).toHaveLength(1);
  expect(decisions[0]?.kind).toBe("skip");
  return decisions[0]!.reason;
}

describe("twap-accumulate", () => {
  it("buys the fixed amount at the mid through one TWAP", () => {
    const t = only(run());
    expect(t).toMatchObject({
      side: "buy",
      coin: "@107",
      assetId: 10107,
      minutes: 30,
      randomize: false,
      strategy: "dca",
    });
    expect(t.size.toFixed()).toBe("25");
    expect(t.notionalUsd.toFixed()).toBe("1000");
  });

  it("says of a last TWAP that filled nothing what its value was for the limits, not as what was ordered", () => {
    // A DCA's trial: "filled nothing (0 of 155.64 USD)" of a 149.92-USDC order (155.64 its value at the
    // previous day's higher price, for the limits).
    const memory: StrategyMemory = {
      lastEndedTwap: { twapId: 1001, submittedUsd: parseDecimal("155.64"), executedUsd: parseDecimal("0") },
    };
    const t = only(run({}, funded, memory));
    expect(t.reason).toMatch(
      /the last TWAP #1001 filled nothing \(valued at 155\.64 USD for the limits when sent\): its amount is available again/,
    );
  });

  it("a HYPE sale with none on spot names the stake and who (does not) withdraw it", () => {
    // A treasurer's trial: "no HYPE available to sell" 21 times beside 196,870 HYPE delegated, with
    // withdrawForSales on (which serves twap-rebalance only).
    const reason = skipped(
      run(
        { side: "sell", amountUsd: 400 },
        {
          ...funded,
          balances: { HYPE: 0, USDC: 50_000 },
          delegations: [{ validator: "0x" + "1".repeat(40), amount: 196_870 }],
        },
      ),
    );
    expect(reason).toMatch(
      /^no HYPE available to sell \(196870 HYPE staked: staking's withdrawForSales serves twap-rebalance sales only, not this one; keep HYPE on spot for it \(the staking strategy's stakeIdleSpot\.keepSpot\) or withdraw some by hand: hlbot undelegate, then hlbot unstake\)$/,
    );
    // Nothing staked: the bare reason.
    expect(
      skipped(run({ side: "sell", amountUsd: 400 }, { ...funded, balances: { HYPE: 0, USDC: 50_000 } })),
    ).toBe("no HYPE available to sell");
  });

  it("sells when asked, and accepts the pair name as coin", () => {
    const t = only(run({ side: "sell", coin: "@107", amountUsd: 400 }, { ...funded, hypeMid: 40 }));
    expect(t.side).toBe("sell");
    expect(t.size.toFixed()).toBe("10");
    expect(t.minutes).toBe(30); // 400 is above the venue minimum of 100 in all: the duration stays
  });

  it("truncates the size to szDecimals", () => {
    const t = only(run({ amountUsd: 1000 }, { ...funded, hypeMid: 3 }));
    expect(t.size.toFixed()).toBe("333.33");
    expect(t.notionalUsd.toFixed()).toBe("999.99");
  });

  it("shortens a TWAP whose 30-s slices would be below one lot: a day-long 200-USD buy at 35 has 0.002-HYPE slices", () => {
    const t = only(
      run({ amountUsd: 200, twap: { minutes: 1440, randomize: false } }, { ...funded, hypeMid: 35 }),
    );
    expect(t.size.toFixed()).toBe("5.71");
    // 571 lots of 0.01 HYPE, two slices a minute: 285 minutes of one-lot slices at most.
    expect(t.minutes).toBe(285);
    expect(t.reason).toContain(
      "shortened from 1440 to 285 min so each 30-s slice is at least one lot (0.01 HYPE; smaller slices may fill nothing)",
    );
    // A duration whose slices are a lot or more stays as asked.
    expect(
      only(run({ amountUsd: 200, twap: { minutes: 240, randomize: false } }, { ...funded, hypeMid: 35 }))
        .minutes,
    ).toBe(240);
  });

  it("skips buys while the mid is above limitPx and sells while it is below", () => {
    expect(skipped(run({ limitPx: 35 }))).toMatch(/mid 40 is above the buy ceiling limitPx 35/);
    expect(only(run({ limitPx: "40" })).size.toFixed()).toBe("25");
    expect(skipped(run({ side: "sell", limitPx: 45, amountUsd: 200 }))).toMatch(
      /below the sell floor limitPx 45/,
    );
    expect(only(run({ side: "sell", limitPx: 39.5, amountUsd: 200 })).side).toBe("sell");
  });

  it("keeps within the budget: the last run is sized under what is left by the buy reserve, then it stops", () => {
    const budget = { budgetUsd: 2500 };
    const early = only(run(budget, funded, { spentUsd: parseDecimal("1000") }));
    expect(early.notionalUsd.toFixed()).toBe("1000");
    // Every run says how much of its budget is spent (an accountant's trial saw it only once used up).
    expect(early.reason).toMatch(/; budget: 1000 of 2500 USD spent before this run$/);
    const last = only(run(budget, funded, { spentUsd: parseDecimal("2000") }));
    // Its fills pay the spread and move with the price: sized at the mid to exactly what is left, it
    // would overspend (a user saw 1500.26 of a 1500 budget). 500 / 1.03 = 485.44 → 12.13 HYPE at 40.
    expect(last.size.toFixed()).toBe("12.13");
    expect(last.notionalUsd.toFixed()).toBe("485.2");
    expect(last.notionalUsd.times("1.03").lte(500)).toBe(true);
    expect(last.reason).toMatch(/last run of the budget: 500 of 2500 USD left, sized 3% under it/);
    expect(skipped(run(budget, funded, { spentUsd: parseDecimal("2500") }))).toMatch(
      /budget used up \(2500 of 2500 USD\)/,
    );
    // Said before a price limit: a finished DCA is not waiting for a dip (a year-long trial).
    expect(skipped(run({ ...budget, limitPx: 30 }, funded, { spentUsd: parseDecimal("2500") }))).toBe(
      "budget used up (2500 of 2500 USD)",
    );
    // 50 left is below the venue minimum for the shortest TWAP (100): skipped, not overspent.
    expect(skipped(run(budget, funded, { spentUsd: parseDecimal("2450") }))).toMatch(
      /budget used up \(2450 of 2500 USD; of the 50 USD left, a run is sized 3% under it .*: 48\.54\d* USDC is below the venue minimum for a TWAP/,
    );
    // And so, before a price limit: a rest too small for any TWAP is not waiting for a dip either (a
    // newcomer read "above the buy ceiling" with 97 USD left that no TWAP could spend).
    expect(skipped(run({ ...budget, limitPx: 30 }, funded, { spentUsd: parseDecimal("2450") }))).toMatch(
      /^budget used up \(2450 of 2500 USD; of the 50 USD left, a run is sized 3% under it/,
    );
    // Not while its own TWAP runs: the budget counts it in full until it ends (it may fill less), so the
    // run is deferred behind it, not settled as used up (a review).
    const running = { ...funded, twaps: [{ coin: "@107", twapId: 9 }] };
    const behind = run({ ...budget, limitPx: 50 }, running, { spentUsd: parseDecimal("2450") });
    expect(behind).toEqual([expect.objectContaining({ kind: "skip", defer: true })]);
    expect(skipped(behind)).toMatch(/a TWAP #9 is already running/);
    // A rest that can still buy waits for the price as before.
    expect(skipped(run({ ...budget, limitPx: 30 }, funded, { spentUsd: parseDecimal("2000") }))).toBe(
      "mid 40 is above the buy ceiling limitPx 30",
    );
    // Nothing spent: the budget itself is too small for one TWAP (100 / 1.03 = 97.09 is below 100).
    expect(skipped(run({ budgetUsd: 100, amountUsd: 100 }, funded, { spentUsd: parseDecimal("0") }))).toMatch(
      /^budgetUsd 100 is too small for one TWAP: a run is sized 3% under it .*: 97\.087\d* USDC is below the venue minimum for a TWAP/,
    );
  });

  it("an amount at the venue minimum, rounded down to whole lots below it, says what amount would do", () => {
    // 100 / 35.03 = 2.8547 → 2.85 HYPE = 99.8355 USDC; 2.86 HYPE = 100.1858 USDC.
    const reason = skipped(run({ amountUsd: 100 }, { ...funded, hypeMid: 35.03 }));
    expect(reason).toBe(
      "99.8355 USDC is below the venue minimum for a TWAP: at least 100 USDC in all (100 USDC rounded down to whole lots of 0.01 HYPE at mid 35.03): raise amountUsd to 100.19 or more",
    );
    expect(only(run({ amountUsd: 100.19 }, { ...funded, hypeMid: 35.03 })).size.toFixed()).toBe("2.86");
    // An amount below it names the setting too (a small account's trial read only "4.83936 USDC is below
    // the venue minimum", a number it never wrote, at every run).
    expect(skipped(run({ amountUsd: 5 }, { ...funded, hypeMid: 35.03 }))).toBe(
      "4.9042 USDC is below the venue minimum for a TWAP: at least 100 USDC in all: amountUsd 5 is below it; raise amountUsd to 100.19 or more",
    );
    // The budget's last run rounded below the minimum: the budget is used up, amountUsd is not to blame.
    // 103.1 left / 1.03 = 100.097 USD → 2.85 HYPE at 35.03 = 99.8355.
    expect(
      skipped(
        run(
          { amountUsd: 150, budgetUsd: 1000 },
          { ...funded, hypeMid: 35.03 },
          { spentUsd: parseDecimal("896.9") },
        ),
      ),
    ).toBe(
      "budget used up (896.9 of 1000 USD; of the 103.1 USD left, rounded down to whole lots: 99.8355 USDC is below the venue minimum for a TWAP: at least 100 USDC in all)",
    );
  });

  it("the budget's last run cut below the minimum by the balance says the balance, not 'budget used up' (a trader's trial)", () => {
    // 15,087 USD of a 40,000 budget left, runs of 20,000: the last run, but the account holds 87.2 USDC.
    const reason = skipped(
      run(
        { amountUsd: 20_000, budgetUsd: 40_000 },
        { balances: { HYPE: 100, USDC: 87.2 }, hypeMid: 40 },
        { spentUsd: parseDecimal("24912.7") },
      ),
    );
    expect(reason).not.toMatch(/budget used up/);
    expect(reason).toMatch(/is below the venue minimum for a TWAP.*limited by the available 87\.2 USDC/);
  });

  it("fails closed when the amount already spent is unknown", () => {
    expect(skipped(run({ budgetUsd: 10_000 }, funded, {}))).toMatch(/already spent is unknown/);
    // Without a budget the journal's count is not needed.
    expect(only(run({}, funded, {})).size.toFixed()).toBe("25");
  });

  it("trades only available balances", () => {
    const poor: SnapshotSpec = {
      balances: { HYPE: { total: 10, hold: 5 }, USDC: { total: 700, hold: 100 } },
      hypeMid: 40,
    };
    const buy = only(run({}, poor));
    expect(buy.notionalUsd.toFixed()).toBe("600");
    expect(buy.reason).toMatch(/limited by the available 600 USDC/);
    const sell = only(run({ side: "sell" }, poor));
    expect(sell.size.toFixed()).toBe("5");
    expect(skipped(run({}, { balances: {}, hypeMid: 40 }))).toMatch(/no USDC available/);
  });

  it("skips while a TWAP is already running on the pair", () => {
    expect(skipped(run({}, { ...funded, twaps: [{ coin: "@107", twapId: 9 }] }))).toMatch(
      /TWAP #9 is already running/,
    );
  });

  it("skips an amount below one lot and an unknown coin", () => {
    expect(skipped(run({ amountUsd: "0.001" }))).toMatch(/less than one lot/);
    expect(skipped(run({ coin: "NOPE" }))).toMatch(/no spot pair trades NOPE against USDC/);
    expect(skipped(run({}, { ...funded, hypeMid: null }))).toMatch(/no mid price/);
  });
});
