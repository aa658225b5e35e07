import { describe, expect, it } from "vitest";
import { capitalView, floorView } from "../../../src/engine/capital.js";
import { type Decision, isIntent, type TwapOrderIntent } from "../../../src/engine/intents.js";
import { twapRebalance, twapRebalanceParams } from "../../../src/engine/strategies/twapRebalance.js";
import { parseDecimal as parse } from "../../../src/lib/decimal.js";
import { buildSnapshot, type SnapshotSpec, T0 } from "../../helpers/snapshots.js";

const base = {
  targets: { HYPE: 0.5, USDC: 0.5 },
  quote: "USDC",
  band: 0.05,
  twap: { minutes: 60, randomize: true },
};

function run(spec: SnapshotSpec, params: Record<string, unknown> = {}, now = T0): Decision[] {
  const p = twapRebalanceParams.parse({ ...base, ...params });
  return twapRebalance.decide(buildSnapshot(spec), p, now, {}, "rebalance");
}

const twaps = (ds: Decision[]) => ds.filter(isIntent) as TwapOrderIntent[];
const skips = (ds: Decision[]) => ds.filter((d) => d.kind === "skip");

describe("twap-rebalance", () => {
  it("raises a correction below the venue's smallest TWAP to it when the weight still ends within band", () => {
    // A small account (a trial): 17.6 HYPE at 25 (440) and 560 USDC, 44% for 50% ± 5%: 60 USDC to buy,
    // under the venue's 100. 101 USDC of HYPE (1% above it) ends 41 over target, within the 50 of band.
    const up = twaps(run({ balances: { HYPE: 17.6, USDC: 560 }, hypeMid: 25 }));
    expect(up.map((t) => [t.side, t.size.toFixed()])).toEqual([["buy", "4.04"]]);
    expect(up[0]?.reason).toMatch(
      /buy 4\.04 HYPE \(≈101 USDC\) over \d+ min; raised from 2\.4 to the venue's smallest TWAP \(100 USDC, and 1%\): the weight still ends within its band/,
    );
    // 700 in all (band 35): the smallest TWAP would end 54 past the target, out of band the other way;
    // it says what lets it trade (101 / 700 / 2 is 7.3%).
    const held = run({ balances: { HYPE: 12.128, USDC: 396.8 }, hypeMid: 25 });
    expect(twaps(held)).toEqual([]);
    expect(skips(held)[0]?.reason).toMatch(
      /is below the venue minimum for a TWAP: at least 100 USDC in all; its band \(± 5% = 35 USDC\) is too narrow for the venue's smallest TWAP to correct within it: a band of at least 7\.3%, or more USDC and HYPE in it, lets it trade$/,
    );
  });

  it("MUST: 1000 HYPE at 40 and 5000 USDC at 50/50 plans exactly one TWAP selling 437.5 HYPE on HYPE/USDC", () => {
    const decisions = run({ balances: { HYPE: 1000, USDC: 5000 }, hypeMid: 40 });
    const intents = decisions.filter(isIntent);
    expect(intents).toHaveLength(1);
    const t = intents[0] as TwapOrderIntent;
    expect(t.kind).toBe("twapOrder");
    expect(t.side).toBe("sell");
    expect(t.size.toFixed()).toBe("437.5");
    expect(t.coin).toBe("@107");
    expect(t.assetId).toBe(10107);
    expect(t.label).toBe("HYPE/USDC");
    expect(t.minutes).toBe(60);
    expect(t.randomize).toBe(true);
    expect(t.reduceOnly).toBe(false);
    expect(t.notionalUsd.toFixed()).toBe("17500");
    expect(t.midPx.toFixed()).toBe("40");
    expect(t.strategy).toBe("rebalance");
    expect(t.reason).toMatch(/HYPE is 88\.88% .*target 50% ± 5%.*sell 437\.5 HYPE/);
  });

  it("does nothing but explain when every weight is inside its band", () => {
    const decisions = run({ balances: { HYPE: 130, USDC: 5000 }, hypeMid: 40 }); // 5200 vs 5000: 50.98%
    expect(twaps(decisions)).toHaveLength(0);
    expect(skips(decisions)[0]?.reason).toMatch(/within band/);
  });

  it("treats a weight exactly on the band's edge as inside it, and one wei of value beyond as outside", () => {
    // 1100 HYPE at 1 and 900 USDC: HYPE is exactly 55%, the edge of 50% ± 5%.
    const edge = run({ balances: { HYPE: 1100, USDC: 900 }, hypeMid: 1 });
    expect(twaps(edge)).toHaveLength(0);
    expect(skips(edge)[0]?.reason).toMatch(/HYPE is 55% of 2000 USDC.*within band/);
    const beyond = run({ balances: { HYPE: "1100.00000001", USDC: 900 }, hypeMid: 1 });
    expect(twaps(beyond)).toHaveLength(1);
    expect(twaps(beyond)[0]?.side).toBe("sell");
    const third = run(
      { balances: { HYPE: 2, USDC: 1 }, hypeMid: 1 },
      { targets: { HYPE: "0.5", USDC: "0.5" }, band: "0.16666666666666666666666666666666666666667" },
    );
    // A weight no finite decimal spells: 2/3 − 1/2 = 1/6 = 0.1666…, inside the band just above it; the
    // shown weight is truncated.
    expect(skips(third)[0]?.reason).toMatch(/HYPE is 66\.66% of 3 USDC.*within band/);
  });

  it("buys when a token is under its target, sized from the quote shortfall", () => {
    const decisions = run({ balances: { HYPE: 100, USDC: 6000 }, hypeMid: 40 }); // 40% HYPE
    const [t] = twaps(decisions);
    expect(t?.side).toBe("buy");
    expect(t?.size.toFixed()).toBe("25"); // (5000 − 4000) / 40
  });

  it("truncates sizes to szDecimals and never rounds up", () => {
    const decisions = run({ balances: { USDC: 1000 }, hypeMid: 3 }, { band: 0.01 }); // buy 500/3 = 166.666…
    const [t] = twaps(decisions);
    expect(t?.size.toFixed()).toBe("166.66");
    expect(t?.notionalUsd.toFixed()).toBe("499.98");
  });

  it("counts balances on hold in the weights but never trades them", () => {
    const decisions = run({ balances: { HYPE: { total: 1000, hold: 900 }, USDC: 5000 }, hypeMid: 40 });
    const [t] = twaps(decisions);
    expect(t?.size.toFixed()).toBe("100");
    expect(t?.reason).toMatch(/limited to the available 100 HYPE \(900 on hold\)/);
  });

  it("skips a token while a TWAP is already running on its pair", () => {
    const decisions = run({ balances: { HYPE: 1000, USDC: 5000 }, twaps: [{ coin: "@107", twapId: 77 }] });
    expect(twaps(decisions)).toHaveLength(0);
    expect(skips(decisions)[0]?.reason).toMatch(/TWAP #77 is already running on HYPE\/USDC \(@107\)/);
  });

  it("shortens the TWAP so each 30-s slice is worth at least 10 USDC, when that per-slice rule is set", () => {
    // 10 HYPE at 40 + 100 USDC: sell 150 USDC worth; 150 / (2·60) < 10, 150 / (2·7) ≥ 10.
    const decisions = run({
      balances: { HYPE: 10, USDC: 100 },
      hypeMid: 40,
      rules: { twapMinSliceValue: parse("10") },
    });
    const [t] = twaps(decisions);
    expect(t?.size.toFixed()).toBe("3.75");
    expect(t?.minutes).toBe(7);
    expect(t?.reason).toMatch(/shortened from 60 to 7 min/);
  });

  it("skips an order worth less than the minimum even over the shortest TWAP", () => {
    // Sell 30 USDC worth: the 5-minute TWAP needs 100.
    const decisions = run({ balances: { HYPE: 2, USDC: 20 }, hypeMid: 40 });
    expect(twaps(decisions)).toHaveLength(0);
    expect(skips(decisions)[0]?.reason).toMatch(/30 USDC is below the venue minimum .* at least 100 USDC/);
  });

  it("respects a configured minimum slice value", () => {
    const spec: SnapshotSpec = {
      balances: { HYPE: 1000, USDC: 5000 },
      rules: { twapMinSliceValue: parse("100") },
    };
    const [t] = twaps(run(spec)); // 17500 / (2·m) ≥ 100 → m ≤ 87, so 60 stays
    expect(t?.minutes).toBe(60);
    const tight: SnapshotSpec = { ...spec, rules: { twapMinSliceValue: parse("1000") } };
    expect(twaps(run(tight))[0]?.minutes).toBe(8); // floor(17500 / 2000)
  });

  it("skips dust below one lot of the token", () => {
    const decisions = run({
      tokens: [
        { name: "USDC", index: 0, szDecimals: 8 },
        { name: "HYPE", index: 150, szDecimals: 0 },
      ],
      balances: { HYPE: 1, USDC: 600 },
      hypeMid: 1000,
    }); // sell 200 USDC = 0.2 HYPE → 0 whole HYPE
    expect(twaps(decisions)).toHaveLength(0);
    expect(skips(decisions)[0]?.reason).toMatch(/below one lot of HYPE/);
  });

  it("refuses to act without a mid price for a target token", () => {
    const decisions = run({ balances: { HYPE: 1000, USDC: 5000 }, hypeMid: null });
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.kind).toBe("skip");
    expect(decisions[0]?.reason).toMatch(/no mid price for HYPE\/USDC/);
  });

  it("skips orders below minOrderUsd", () => {
    const decisions = run({ balances: { HYPE: 130, USDC: 4000 }, hypeMid: 40 }, { minOrderUsd: "1000" });
    expect(twaps(decisions)).toHaveLength(0);
    expect(skips(decisions)[0]?.reason).toMatch(/below minOrderUsd 1000/);
  });

  it("with several tokens sells first and caps buys at the available quote", () => {
    const spec: SnapshotSpec = {
      tokens: [
        { name: "USDC", index: 0, szDecimals: 8 },
        { name: "HYPE", index: 150, szDecimals: 2 },
        { name: "PURR", index: 1, szDecimals: 0 },
      ],
      pairs: [
        { base: "HYPE", index: 107, mid: 40 },
        { base: "PURR", index: 0, canonical: true, mid: "0.2" },
      ],
      // HYPE 8000 (80%), PURR 2000 (20%), USDC 0 (0%)
      balances: { HYPE: 200, PURR: 10000, USDC: { total: 500, hold: 500 } },
    };
    const decisions = run(spec, { targets: { HYPE: 0.4, PURR: 0.3, USDC: 0.3 } });
    const [sell, ...rest] = twaps(decisions);
    expect(sell?.side).toBe("sell");
    expect(sell?.coin).toBe("@107");
    expect(sell?.size.toFixed()).toBe("95"); // 8000 − 0.4·10500 = 3800 USDC at 40
    expect(rest).toHaveLength(0);
    // PURR is under target but there is no available quote to buy it with.
    expect(skips(decisions)[0]?.reason).toMatch(/PURR is 19\.04% .*no USDC available to buy with/);
  });

  it("caps a buy at the quote that is available, after earlier buys in the same run", () => {
    const spec: SnapshotSpec = {
      tokens: [
        { name: "USDC", index: 0, szDecimals: 8 },
        { name: "HYPE", index: 150, szDecimals: 2 },
        { name: "PURR", index: 1, szDecimals: 0 },
      ],
      pairs: [
        { base: "HYPE", index: 107, mid: 40 },
        { base: "PURR", index: 0, canonical: true, mid: "0.2" },
      ],
      balances: { USDC: { total: 10000, hold: 4000 } },
    };
    const decisions = run(spec, { targets: { HYPE: 0.4, PURR: 0.3, USDC: 0.3 } });
    const buys = twaps(decisions);
    // HYPE wants 4000 USDC (available 6000), then PURR wants 3000 but only 2000 are left.
    expect(buys.map((b) => [b.coin, b.size.toFixed()])).toEqual([
      ["@107", "100"],
      ["PURR/USDC", "10000"],
    ]);
    expect(buys[1]?.reason).toMatch(/limited by the available 2000 USDC/);
  });

  it("is deterministic", () => {
    const spec: SnapshotSpec = { balances: { HYPE: 1000, USDC: 5000 } };
    expect(run(spec)).toEqual(run(spec));
  });
});

describe("twap-rebalance params", () => {
  it("rejects targets that do not sum to 1", () => {
    const r = twapRebalanceParams.safeParse({ ...base, targets: { HYPE: 0.5, USDC: 0.4 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["targets"]);
    expect(r.error?.issues[0]?.message).toMatch(/sum to 1 .*0\.9/);
  });

  it("accepts a sum within 1e-9 and rejects one just outside", () => {
    expect(
      twapRebalanceParams.safeParse({ ...base, targets: { HYPE: "0.3333333333", USDC: "0.6666666666" } })
        .success,
    ).toBe(true);
    expect(
      twapRebalanceParams.safeParse({ ...base, targets: { HYPE: "0.333333333", USDC: "0.666666665" } })
        .success,
    ).toBe(false);
  });

  it("reports a weight written as a percentage at its own path instead of throwing (a trial's exit 1, no file)", () => {
    const r = twapRebalanceParams.safeParse({ ...base, targets: { HYPE: "50%", USDC: "50%" } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path)).toEqual([
      ["targets", "HYPE"],
      ["targets", "USDC"],
    ]);
  });

  it("requires the quote token among the targets", () => {
    const r = twapRebalanceParams.safeParse({ ...base, targets: { HYPE: 1 } });
    expect(r.error?.issues.map((i) => i.path)).toContainEqual(["quote"]);
  });

  it("YAML numbers and decimal strings mean the same exact value", () => {
    const a = twapRebalanceParams.parse({ ...base, band: 0.1, minOrderUsd: 12.3 });
    const b = twapRebalanceParams.parse({ ...base, band: "0.1", minOrderUsd: "12.30" });
    expect(a.band.eq(b.band)).toBe(true);
    expect(a.minOrderUsd?.eq(b.minOrderUsd!)).toBe(true);
    expect(a.band.toFixed()).toBe("0.1");
  });
});

describe("twap-rebalance countStaked (issue #12: staked HYPE is HYPE)", () => {
  // 100 HYPE on spot + 900 staked at 40 = 40,000 USDC of HYPE; 40,000 USDC: 50/50 when staking counts.
  const spec: SnapshotSpec = {
    balances: { HYPE: 100, USDC: 40_000 },
    hypeMid: 40,
    delegations: [{ validator: "0x0000000000000000000000000000000000000001", amount: 800 }],
    undelegated: 50,
    totalPendingWithdrawal: 50,
  };

  it("counting spot HYPE only, it buys back what staking moved away", () => {
    const t = twaps(run(spec, { countStaked: false }));
    expect(t.map((x) => x.side)).toEqual(["buy"]);
  });

  it("counting staked, undelegated and pending-withdrawal HYPE, the account is in balance", () => {
    const ds = run(spec, { countStaked: true });
    expect(twaps(ds)).toEqual([]);
    expect(skips(ds)[0]?.reason).toMatch(/HYPE is 50% .*incl\. 900 staked.*within band/);
  });

  it("sells only spot HYPE when HYPE is above its band", () => {
    const t = twaps(run({ ...spec, hypeMid: 80 }, { countStaked: true }));
    expect(t).toHaveLength(1);
    expect(t[0]?.side).toBe("sell");
    expect(t[0]?.size.toFixed()).toBe("100");
    expect(t[0]?.reason).toMatch(/limited to the available 100 HYPE/);
  });

  it("with every HYPE staked, says there is nothing on spot to sell (not 'below one lot')", () => {
    const ds = run({ ...spec, balances: { USDC: 40_000 }, hypeMid: 80 }, { countStaked: true });
    expect(twaps(ds)).toEqual([]);
    expect(skips(ds)[0]?.reason).toMatch(
      /: no HYPE available on spot to sell \(900 staked, 50 of it pending withdrawal \(back on spot when its queue ends\): a staking strategy with withdrawForSales \(or its maxStaked set below what is staked\), or `hlbot undelegate` and `hlbot unstake`, bring the rest back to spot through the unstaking queue \(7 days on mainnet\)\)$/,
    );
    // With a staking strategy of the account withdrawing for it: no advice to act by hand (a review read
    // "bring the rest back" as "undelegate 797 HYPE by hand").
    const served = twapRebalance.decide(
      {
        ...buildSnapshot({ ...spec, balances: { USDC: 40_000 }, hypeMid: 80 }),
        withdrawsForSales: "hype-staking",
      },
      twapRebalanceParams.parse({ ...base, countStaked: true }),
      T0,
      {},
      "rebalance",
    );
    expect(skips(served)[0]?.reason).toMatch(
      /\(900 staked, 50 of it pending withdrawal \(back on spot when its queue ends\): hype-staking withdraws what this sale lacks \(withdrawForSales\) through the unstaking queue \(7 days on mainnet\); nothing to do by hand\)$/,
    );
    // Nothing on its way back.
    const none = run(
      { ...spec, balances: { USDC: 40_000 }, hypeMid: 80, totalPendingWithdrawal: 0, nPendingWithdrawals: 0 },
      { countStaked: true },
    );
    expect(skips(none)[0]?.reason).toMatch(
      /\(850 staked: a staking strategy with withdrawForSales .* bring it back to spot/,
    );
  });
});

describe("twap-rebalance with limits.keepOnSpot (strategies see only what is above the floors)", () => {
  const floored = (
    spec: SnapshotSpec,
    floors: Record<string, number>,
    params: Record<string, unknown> = {},
  ) => {
    const p = twapRebalanceParams.parse({ ...base, ...params });
    const view = floorView(
      buildSnapshot(spec),
      new Map(Object.entries(floors).map(([k, v]) => [k, parse(String(v))])),
    );
    return twapRebalance.decide(view, p, T0, {}, "rebalance");
  };

  it("weighs what is above the floors: a 40,000 USDC reserve is not part of the 50/50", () => {
    // 1000 HYPE at 40 and 45,000 USDC: 47% HYPE counting the reserve (within band), but of the trading
    // money above it (40,000 USD of HYPE, 5,000 USDC) HYPE is 88.88%: the same sale as without a reserve.
    const spec = { balances: { HYPE: 1000, USDC: 45_000 }, hypeMid: 40 };
    expect(twaps(run(spec))).toEqual([]);
    const ds = floored(spec, { USDC: 40_000 });
    expect(twaps(ds).map((t) => [t.side, t.size.toFixed()])).toEqual([["sell", "437.5"]]);
    expect(twaps(ds)[0]?.reason).toMatch(
      /^HYPE is 88\.88% of 45000 USDC above limits\.keepOnSpot \(USDC 40000\) .*sell 437\.5 HYPE/,
    );
  });

  it("a token's floor is out of its own weight, and a balance below its floor counts as none", () => {
    const spec = { balances: { HYPE: 1000, USDC: 5_000 }, hypeMid: 40 };
    // 875 HYPE kept: 125 HYPE (5,000) against 5,000 USDC, on target.
    const kept = floored(spec, { HYPE: 875 });
    expect(twaps(kept)).toEqual([]);
    expect(skips(kept)[0]?.reason).toMatch(
      /^HYPE is 50% of 10000 USDC above limits\.keepOnSpot \(HYPE 875\) \(125 at mid 40\).*: within band$/,
    );
    // A USDC floor met exactly: the trading money is the HYPE alone, half of it is sold (the proceeds are
    // above the floor and count).
    const met = floored(spec, { USDC: 5_000 });
    expect(twaps(met).map((t) => [t.side, t.size.toFixed()])).toEqual([["sell", "500"]]);
  });

  it("holds while a target is below its floor, saying how to go on (a floor is a guard, not an order)", () => {
    // 30,000 USDC under a 40,000 floor and 500 HYPE at 40: no sale refills the floor by default (a deficit
    // refilled by default sold 99.9% of a position for a 10,010-USDC floor, a 0.25% move from holding).
    const ds = floored({ balances: { HYPE: 500, USDC: 30_000 }, hypeMid: 40 }, { USDC: 40_000 });
    expect(twaps(ds)).toEqual([]);
    expect(skips(ds).map((d) => d.reason)).toEqual([
      "USDC 10000 below its floor of 40000 (30000 held): nothing is rebalanced while a target is below its limits.keepOnSpot floor (a floor is kept, not refilled by selling the other tokens). Top it up or lower the floor, or set refillFloors: true to refill it from the other tokens first",
    ]);
    // A floored token the venue lists no balance of (never held) is below its floor too (an audit: with no
    // HYPE row at all, the same floor bought 200 HYPE as if there were none).
    const none = floored({ balances: { USDC: 10_000 }, hypeMid: 40 }, { HYPE: 100 });
    expect(twaps(none)).toEqual([]);
    expect(skips(none).map((d) => d.reason)).toEqual([
      "HYPE 100 below its floor of 100 (0 held): nothing is rebalanced while a target is below its limits.keepOnSpot floor (a floor is kept, not refilled by selling the other tokens). Top it up or lower the floor, or set refillFloors: true to refill it from the other tokens first",
    ]);
    // 1 HYPE under a 10,000 floor holds the other tokens too: said in the same words.
    const three = twapRebalanceParams.parse({ ...base, targets: { HYPE: 0.5, USDC: 0.25, PURR: 0.25 } });
    const view = floorView(
      buildSnapshot({
        tokens: [
          { name: "USDC", index: 0, szDecimals: 8 },
          { name: "HYPE", index: 150, szDecimals: 2 },
          { name: "PURR", index: 1, szDecimals: 0 },
        ],
        pairs: [
          { base: "HYPE", index: 107, mid: 40 },
          { base: "PURR", index: 0, canonical: true, mid: 2 },
        ],
        balances: { HYPE: 9_999, USDC: 200_000, PURR: 100_000 },
      }),
      new Map([["HYPE", parse("10000")]]),
    );
    const held = twapRebalance.decide(view, three, T0, {}, "rebalance");
    expect(twaps(held)).toEqual([]);
    expect(skips(held)[0]?.reason).toMatch(
      /^HYPE 1 below its floor of 10000 \(9999 held\): nothing is rebalanced/,
    );
    // With refillFloors the weights count what the floor lacks (continuous across it): PURR is sold and
    // HYPE bought back to its floor and weight.
    const refill = twapRebalanceParams.parse({
      ...base,
      targets: { HYPE: 0.5, USDC: 0.25, PURR: 0.25 },
      refillFloors: true,
    });
    expect(
      twaps(twapRebalance.decide(view, refill, T0, {}, "rebalance")).map((t) => [t.label, t.side]),
    ).toEqual([
      ["PURR/USDC", "sell"],
      ["HYPE/USDC", "buy"],
    ]);
  });

  it("with refillFloors, a floor is refilled once from the others, then in balance", () => {
    const refill = { refillFloors: true };
    // The trading money is 20,000 of HYPE less the 10,000 USDC the floor lacks: one sale of 375 HYPE
    // (counted as none, USDC was refilled cycle after cycle by selling half the HYPE each time).
    const under = floored({ balances: { HYPE: 500, USDC: 30_000 }, hypeMid: 40 }, { USDC: 40_000 }, refill);
    expect(twaps(under).map((t) => [t.side, t.size.toFixed()])).toEqual([["sell", "375"]]);
    expect(twaps(under)[0]?.reason).toMatch(
      /^HYPE is 200% of 10000 USDC above limits\.keepOnSpot \(USDC 40000; refilling USDC 10000 below its floor of 40000 \(30000 held\)\) /,
    );
    const after = floored({ balances: { HYPE: 125, USDC: 45_000 }, hypeMid: 40 }, { USDC: 40_000 }, refill);
    expect(twaps(after)).toEqual([]);
    expect(skips(after)[0]?.reason).toMatch(/: within band$/);
    // A withdrawal took USDC under its floor and HYPE rallied: the sale goes out.
    const rally = floored({ balances: { HYPE: 1000, USDC: 18_500 }, hypeMid: 40 }, { USDC: 20_000 }, refill);
    expect(twaps(rally).map((t) => [t.side, t.size.toFixed()])).toEqual([["sell", "518.75"]]);
    // A deficit larger than the other tokens is not refilled: said, not a weight of NaN%.
    const none = floored({ balances: { HYPE: 90, USDC: 0 }, hypeMid: 40 }, { HYPE: 100 }, refill);
    expect(skips(none)[0]?.reason).toMatch(
      /^nothing to rebalance: HYPE 10 below its floor of 100 \(90 held\): more than the other tokens above limits\.keepOnSpot \(HYPE 100\) could refill \(net -400 USDC\)\. Top it up or lower the floor$/,
    );
    // 10 HYPE under its 100 floor, 1000 staked, 80,000 USDC over a 40,000 floor: in band, no round trip.
    const staked = {
      balances: { HYPE: 90, USDC: 80_000 },
      hypeMid: 40,
      delegations: [{ validator: "0x0000000000000000000000000000000000000001", amount: 1000 }],
    };
    expect(twaps(floored(staked, { USDC: 40_000, HYPE: 100 }, { countStaked: true, ...refill }))).toEqual([]);
  });

  it("with a strategy's capital, weighs the capital's share of what is above the floor", () => {
    const both = (spec: SnapshotSpec, floors: Record<string, number>, capital: Record<string, number>) => {
      const p = twapRebalanceParams.parse(base);
      const toMap = (o: Record<string, number>) =>
        new Map(Object.entries(o).map(([k, v]) => [k, parse(String(v))]));
      const view = capitalView(floorView(buildSnapshot(spec), toMap(floors)), toMap(capital));
      return twapRebalance.decide(view, p, T0, {}, "rebalance");
    };
    // 50,000 USDC, a 40,000 floor, 5,000 of capital, 125 HYPE at 40 (5,000): 50/50, in band. It counted
    // max(5,000 − 40,000, 0) = 0 USDC and sold half its HYPE, then half the rest.
    const inBand = both(
      { balances: { HYPE: 125, USDC: 50_000 }, hypeMid: 40 },
      { USDC: 40_000 },
      { USDC: 5_000 },
    );
    expect(twaps(inBand)).toEqual([]);
    expect(skips(inBand)[0]?.reason).toMatch(
      /^HYPE is 50% of 10000 USDC above limits\.keepOnSpot \(USDC 40000\) /,
    );
    // 100,000 USDC, the same floor, 50,000 of capital, 1,250 HYPE (50,000): 50/50 of what it may trade.
    const big = both(
      { balances: { HYPE: 1_250, USDC: 100_000 }, hypeMid: 40 },
      { USDC: 40_000 },
      { USDC: 50_000 },
    );
    expect(twaps(big)).toEqual([]);
  });
});

describe("twap-rebalance priceLimits (a sale's floor, a buy's ceiling)", () => {
  const spec = { balances: { HYPE: 1000, USDC: 5000 }, hypeMid: 40 }; // HYPE 88.88%: sell 437.5
  it("holds a sale while the mid is below the token's sell floor, and sends it above", () => {
    const held = run(spec, { priceLimits: { HYPE: { sellFloor: 45 } } });
    expect(twaps(held)).toEqual([]);
    expect(skips(held)[0]?.reason).toMatch(
      /: sell held: mid 40 is below the sell floor 45 \(priceLimits\.HYPE\.sellFloor\)$/,
    );
    expect(twaps(run(spec, { priceLimits: { HYPE: { sellFloor: 40 } } })).map((t) => t.side)).toEqual([
      "sell",
    ]);
    // A ceiling does not hold a sale.
    expect(twaps(run(spec, { priceLimits: { HYPE: { buyCeiling: 30 } } })).map((t) => t.side)).toEqual([
      "sell",
    ]);
  });

  it("holds a buy while the mid is above the token's buy ceiling", () => {
    const short = { balances: { HYPE: 10, USDC: 5000 }, hypeMid: 40 };
    expect(skips(run(short, { priceLimits: { HYPE: { buyCeiling: 35 } } }))[0]?.reason).toMatch(
      /: buy held: mid 40 is above the buy ceiling 35 \(priceLimits\.HYPE\.buyCeiling\)$/,
    );
    expect(twaps(run(short, { priceLimits: { HYPE: { buyCeiling: 40 } } })).map((t) => t.side)).toEqual([
      "buy",
    ]);
  });

  it("refuses a limit on a token it does not trade, and a ceiling below the floor", () => {
    const bad = twapRebalanceParams.safeParse({ ...base, priceLimits: { PURR: { sellFloor: 1 } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(/PURR is not one of the traded targets \(HYPE\)/);
    const quote = twapRebalanceParams.safeParse({ ...base, priceLimits: { USDC: { sellFloor: 1 } } });
    expect(quote.success).toBe(false);
    const crossed = twapRebalanceParams.safeParse({
      ...base,
      priceLimits: { HYPE: { sellFloor: 40, buyCeiling: 30 } },
    });
    expect(crossed.error?.issues[0]?.message).toMatch(/buyCeiling 30 is below sellFloor 40/);
    const empty = twapRebalanceParams.safeParse({ ...base, priceLimits: { HYPE: {} } });
    expect(empty.error?.issues[0]?.message).toMatch(
      /HYPE has neither sellFloor nor buyCeiling: it limits nothing/,
    );
  });
});
