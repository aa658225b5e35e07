// A TWAP against its pair's traded volume (the venue's dayNtlVlm, the last 24 hours): one larger than the
// whole volume over its run is said in its reason; with twap.maxParticipation it is stretched to trade
// at most that share, up to twap.maxMinutes (a trial's whale: 250,000 USDC over 120 min on a thin pair
// paid 155 bps of spread and impact, over 1,380 min 28).
import { describe, expect, it } from "vitest";
import type { TwapOrderIntent } from "../../src/engine/intents.js";
import { DEFAULT_VENUE_RULES } from "../../src/engine/snapshot.js";
import { fitTwapDuration, twapSchema } from "../../src/engine/strategies/common.js";
import { twapAccumulate, twapAccumulateParams } from "../../src/engine/strategies/twapAccumulate.js";
import { Decimal, parseDecimal } from "../../src/lib/decimal.js";
import { createSimulator } from "../../src/simulator/index.js";
import { buildSnapshot, T0 } from "../helpers/snapshots.js";

const d = (x: string) => parseDecimal(x);
const rules = DEFAULT_VENUE_RULES;
const thin = { pair: "HYPE/USDC", dayVolume: d("200000") };

describe("fitting a TWAP to its pair's volume", () => {
  it("says when a TWAP is larger than the pair's whole volume over its run; leaves its duration", () => {
    // 200,000 a day: 16,666.66 over 120 min; 250,000 is 1,500% of it.
    expect(fitTwapDuration(d("250000"), 120, rules, "USDC", undefined, thin)).toEqual({
      ok: true,
      minutes: 120,
      note: "large against the market: 1500% of HYPE/USDC's volume over its 120 min at the last 24 h's pace (200000 USDC traded by others in the last 24 h); expect a costly fill (twap.maxParticipation stretches such a TWAP)",
    });
    // Under the whole volume: nothing said.
    expect(fitTwapDuration(d("10000"), 120, rules, "USDC", undefined, thin).ok && true).toBe(true);
    expect(fitTwapDuration(d("10000"), 120, rules, "USDC", undefined, thin)).toMatchObject({
      note: undefined,
    });
    // Volume unknown or 0: nothing fitted, nothing said.
    for (const dayVolume of [undefined, d("0")])
      expect(
        fitTwapDuration(d("250000"), 120, rules, "USDC", undefined, { pair: "HYPE/USDC", dayVolume }),
      ).toEqual({
        ok: true,
        minutes: 120,
        note: undefined,
      });
  });

  it("stretches it to trade at most maxParticipation of that volume, up to maxMinutes", () => {
    // 200,000 at 10% of 5,000,000 a day (347.2 a minute): 576 min.
    const medium = { pair: "HYPE/USDC", dayVolume: d("5000000"), maxParticipation: d("0.1") };
    expect(fitTwapDuration(d("200000"), 120, rules, "USDC", undefined, medium)).toEqual({
      ok: true,
      minutes: 576,
      note: "stretched from 120 to 576 min to trade at most 10% of HYPE/USDC's volume over its run (twap.maxParticipation; 5000000 USDC traded by others in the last 24 h)",
    });
    // Already within it: unchanged.
    expect(fitTwapDuration(d("20000"), 120, rules, "USDC", undefined, medium)).toMatchObject({
      minutes: 120,
    });
    // 1.5× the cap (a mutation audit: a threshold of twice the cap passed every test): stretched, and
    // rounded up to whole minutes (50,000 × 1440 / 500,000 = 144, and 50,001 needs 145).
    expect(fitTwapDuration(d("50000"), 96, rules, "USDC", undefined, medium)).toMatchObject({ minutes: 144 });
    expect(fitTwapDuration(d("50001"), 96, rules, "USDC", undefined, medium)).toMatchObject({ minutes: 145 });
    // Capped at maxMinutes (default a day), and said when still above.
    const whale = fitTwapDuration(d("250000"), 120, rules, "USDC", undefined, {
      ...thin,
      maxParticipation: d("0.1"),
    });
    expect(whale).toMatchObject({ ok: true, minutes: 1440 });
    expect(whale.ok && whale.note).toMatch(
      /stretched from 120 to 1440 min.*; still 125% of that volume at 1440 min \(twap\.maxMinutes 1440\)$/,
    );
    const capped = fitTwapDuration(d("250000"), 120, rules, "USDC", undefined, {
      ...thin,
      maxParticipation: d("0.1"),
      maxMinutes: 600,
    });
    expect(capped).toMatchObject({ ok: true, minutes: 600 });
  });

  it("maxMinutes is at least minutes (a file saying otherwise is refused)", () => {
    expect(twapSchema.safeParse({ minutes: 120, maxMinutes: 60 }).success).toBe(false);
    expect(twapSchema.safeParse({ minutes: 120, maxMinutes: 120, maxParticipation: 0.1 }).success).toBe(true);
  });

  it("a DCA reads its pair's volume from the snapshot and places the stretched TWAP, saying why", () => {
    const base = buildSnapshot({ balances: { USDC: 3_000_000 }, hypeMid: 25 });
    const marks = new Map([
      [
        "@107",
        {
          markPx: new Decimal(25),
          midPx: new Decimal(25),
          prevDayPx: new Decimal(25),
          dayNtlVlm: d("5000000"),
        },
      ],
    ]);
    const snapshot = { ...base, marks };
    const params = twapAccumulateParams.parse({
      coin: "HYPE",
      side: "buy",
      amountUsd: 200000,
      twap: { minutes: 120, randomize: false, maxParticipation: 0.1 },
    });
    const [order] = twapAccumulate.decide(snapshot, params, T0, {}, "dca") as TwapOrderIntent[];
    expect(order?.kind).toBe("twapOrder");
    expect(order!.minutes).toBe(576);
    expect(order!.reason).toMatch(
      /stretched from 120 to 576 min to trade at most 10% of HYPE\/USDC's volume/,
    );
  });
});

describe("the account's own volume", () => {
  it("is no liquidity for its next order: taken off the pair's dayNtlVlm (a review)", () => {
    const base = buildSnapshot({ balances: { USDC: 3_000_000 }, hypeMid: 25 });
    const marks = new Map([
      [
        "@107",
        {
          markPx: new Decimal(25),
          midPx: new Decimal(25),
          prevDayPx: new Decimal(25),
          dayNtlVlm: d("5000000"),
        },
      ],
    ]);
    // Yesterday's TWAP of the account filled 1,000,000 of the 5,000,000: others traded 4,000,000.
    const own = {
      ...base.twaps[0],
      twapId: 1,
      coin: "@107",
      assetId: 10107,
      side: "buy" as const,
      size: d("40000"),
      executedSize: d("40000"),
      executedNotional: d("1000000"),
      minutes: 720,
      startedAt: T0 - 20 * 3_600_000,
      ended: true,
    };
    const snapshot = { ...base, marks, recentTwaps: [own] };
    const params = twapAccumulateParams.parse({
      coin: "HYPE",
      side: "buy",
      amountUsd: 200000,
      twap: { minutes: 120, randomize: false, maxParticipation: 0.1 },
    });
    const [order] = twapAccumulate.decide(snapshot as never, params, T0, {}, "dca") as TwapOrderIntent[];
    // 200,000 at 10% of 4,000,000 a day (277.7 a minute): 720 min.
    expect(order!.minutes).toBe(720);
    expect(order!.reason).toMatch(/4000000 USDC traded by others in the last 24 h/);
    // All of it the account's own: said, and stretched as far as maxMinutes allows.
    const mine = { ...own, executedNotional: d("5000000") };
    const [alone] = twapAccumulate.decide(
      { ...snapshot, recentTwaps: [mine] } as never,
      params,
      T0,
      {},
      "dca",
    ) as TwapOrderIntent[];
    expect(alone!.minutes).toBe(1440);
    expect(alone!.reason).toMatch(/all of HYPE\/USDC's volume in the last 24 h was this account's own/);
  });
});

describe("the simulator's volume", () => {
  it("reports a pair with a book at its class's daily volume", () => {
    const sim = createSimulator();
    const [, ctxs] = sim.info({ type: "spotMetaAndAssetCtxs" }) as [unknown, Array<Record<string, string>>];
    const byCoin = new Map(ctxs.map((c) => [c.coin, c]));
    // The demo scenario: HYPE/USDC deep, PURR/USDC thin.
    expect(Number(byCoin.get("@107")!.dayNtlVlm)).toBe(50_000_000);
    expect(Number(byCoin.get("PURR/USDC")!.dayNtlVlm)).toBe(200_000);
  });
});
