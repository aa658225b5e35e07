// The pure price and metadata check (src/engine/priceSanity.ts) on hand-made snapshots: the bounds,
// how the allowance against the last mid grows with time, and what is remembered.
import { describe, expect, it } from "vitest";
import type { TwapOrderIntent } from "../../src/engine/intents.js";
import {
  checkPriceSanity,
  DEFAULT_PRICE_SANITY,
  deviationFrom,
  gapExceeds,
  type PairMemory,
} from "../../src/engine/priceSanity.js";
import type { PairMarks, Snapshot } from "../../src/engine/snapshot.js";
import { Decimal } from "../../src/lib/decimal.js";
import { buildSnapshot, T0 } from "../helpers/snapshots.js";

const HOUR = 3_600_000;

function snapshot(mid: number, marks: Partial<Record<keyof PairMarks, number>> = {}): Snapshot {
  const s = buildSnapshot({ hypeMid: mid, balances: { HYPE: 10, USDC: 400 } });
  const px = (v: number | undefined) => new Decimal(v ?? mid);
  return {
    ...s,
    marks: new Map([
      ["@107", { markPx: px(marks.markPx), midPx: px(marks.midPx), prevDayPx: px(marks.prevDayPx) }],
    ]),
  };
}

function buy(mid: number, size = 5): TwapOrderIntent {
  return {
    kind: "twapOrder",
    strategy: "s",
    reason: "buy",
    coin: "@107",
    label: "HYPE/USDC",
    assetId: 10107,
    side: "buy",
    size: new Decimal(size),
    szDecimals: 2,
    minutes: 30,
    randomize: false,
    reduceOnly: false,
    midPx: new Decimal(mid),
    notionalUsd: new Decimal(size * mid),
  };
}

function memory(mid: string, midAt: number): (label: string) => PairMemory | undefined {
  const tokenId = (i: number) => `0x${i.toString(16).padStart(32, "0")}`;
  return (label) =>
    label === "HYPE/USDC"
      ? {
          label,
          coin: "@107",
          assetId: 10107,
          baseTokenId: tokenId(150),
          quoteTokenId: tokenId(0),
          mid,
          midAt,
        }
      : undefined;
}

const run = (s: Snapshot, intent: TwapOrderIntent, mem = memory("40", T0 - 60_000), now = T0) =>
  checkPriceSanity({ intents: [intent], snapshot: s, limits: DEFAULT_PRICE_SANITY, memory: mem, now });

describe("price sanity", () => {
  it("measures gaps symmetrically (0.2 against 25 is 12,400%, not 99%)", () => {
    // The gap of 0.2 and 25 is 25 / 0.2 − 1 = 124, whichever way round: over 123.99, not over 124.
    for (const [a, b] of [
      ["0.2", "25"],
      ["25", "0.2"],
    ] as const) {
      expect(gapExceeds(new Decimal(a), new Decimal(b), new Decimal("123.99"))).toBe(true);
      expect(gapExceeds(new Decimal(a), new Decimal(b), new Decimal(124))).toBe(false);
    }
    // Exactly at a 10% bound is inside it; a hair beyond is not.
    expect(gapExceeds(new Decimal(110), new Decimal(100), new Decimal("0.1"))).toBe(false);
    expect(gapExceeds(new Decimal("110.0000001"), new Decimal(100), new Decimal("0.1"))).toBe(true);
    // Not a number is never within a bound of anything, whichever side it is on.
    for (const other of ["-1", "0", "100"]) {
      expect(gapExceeds(new Decimal(Number.NaN), new Decimal(other), new Decimal("0.1"))).toBe(true);
      expect(gapExceeds(new Decimal(other), new Decimal(Number.NaN), new Decimal("0.1"))).toBe(true);
    }
    // A non-positive price is never within any bound.
    expect(gapExceeds(new Decimal(0), new Decimal(1), new Decimal(1000))).toBe(true);
  });

  it("says how far the mid is from the price it disagrees with, relative to that price (#15)", () => {
    // Reference (mark) 100, mid 80: 20% below it (the symmetric gap, 100 / 80 − 1, is 25%).
    const low = run(snapshot(80, { markPx: 100 }), buy(80), () => undefined);
    expect(low.blocked[0]?.reason).toBe(
      "buy; blocked: HYPE/USDC mid 80 is 20% below the mark 100, outside the 10% bound (9.09% below to 10% above it) (price sanity); tried again while its slot is due",
    );
    // Deferred, not settled: prices that disagree may agree again within the catch-up window, and a
    // slot that ages out held is told as missed (a portfolio trial: a DCA's crash-day buy was settled).
    expect(low.blocked[0]?.defer).toBe(true);
    // Mid 125 against 100: 25% above.
    const high = run(snapshot(125, { markPx: 100, midPx: 125, prevDayPx: 125 }), buy(125), () => undefined);
    expect(high.blocked[0]?.reason).toMatch(/blocked: HYPE\/USDC mid 125 is 25% above the mark 100, outside/);
    // Just inside the bound in both directions: 9% below and 10% above pass.
    expect(run(snapshot(91, { markPx: 100 }), buy(91), () => undefined).blocked).toEqual([]);
    expect(run(snapshot(110, { markPx: 100 }), buy(110), () => undefined).blocked).toEqual([]);
    // 9.5% below is a symmetric gap of 10.5%: blocked, and the words say the bound allows 9.09% below.
    expect(run(snapshot(90.5, { markPx: 100 }), buy(90.5), () => undefined).blocked[0]?.reason).toMatch(
      /mid 90\.5 is 9\.5% below the mark 100, outside the 10% bound \(9\.09% below to 10% above it\)/,
    );
    expect(deviationFrom(new Decimal("0.2"), new Decimal(25))).toBe("99.2% below");
    expect(deviationFrom(new Decimal(30), new Decimal(30))).toBe("equal to");
  });

  it("blocks when there is no market context to cross-check with (fail closed)", () => {
    const s = { ...snapshot(40), marks: new Map() };
    expect(run(s, buy(40)).blocked[0]?.reason).toMatch(/no market context/);
  });

  it("lets the allowance against the last mid grow by 10% per hour, and forgets a mid older than a day", () => {
    // 40 → 50 is a 25% move: too much 1 min later, fine 3 h later (allowance 30%).
    expect(run(snapshot(50), buy(50)).blocked).toHaveLength(1);
    expect(run(snapshot(50), buy(50), memory("40", T0 - 3 * HOUR)).allowed).toHaveLength(1);
    // 40 → 100 two days later: the old mid is no reference; the previous-day price still is.
    expect(
      run(snapshot(100, { prevDayPx: 90 }), buy(100), memory("40", T0 - 48 * HOUR)).allowed,
    ).toHaveLength(1);
  });

  it("takes no reference from a mid remembered at a time still to come (the clock ran ahead), and replaces it", () => {
    // Remembered while the clock read a day ahead: held as the last mid, a day of real moves was measured
    // against one cycle's bound until the clock caught up ("the last mid seen -1427 min ago", an operator's trial).
    const ahead = memory("40", T0 + 24 * HOUR);
    const r = run(snapshot(50, { prevDayPx: 45 }), buy(50), ahead);
    expect(r.blocked).toEqual([]);
    expect(r.observed.map((o) => [o.mid, o.midAt])).toEqual([["50", T0]]);
  });

  it("remembers the mid only when it passed, and passes intents other than TWAPs unchanged", () => {
    const passed = run(snapshot(41), buy(41));
    expect(passed.observed.map((o) => [o.label, o.mid, o.midAt])).toEqual([["HYPE/USDC", "41", T0]]);
    const failed = run(snapshot(41, { markPx: 60 }), buy(41));
    expect(failed.blocked).toHaveLength(1);
    // The lie is not remembered; the last sane mid (40) stays as it is, so nothing needs writing.
    expect(failed.observed).toEqual([]);
    const cancel = { kind: "twapCancel" as const, strategy: "s", reason: "stop", assetId: 10107, twapId: 1 };
    const result = checkPriceSanity({
      intents: [cancel],
      snapshot: snapshot(41),
      limits: DEFAULT_PRICE_SANITY,
      memory: () => undefined,
      now: T0,
    });
    expect(result.allowed).toEqual([cancel]);
  });

  it("rewrites a pair's memory only when it is new, its identity changed, or it aged (mid changed or not)", () => {
    const first = run(snapshot(41), buy(41));
    const memory = first.observed[0]!;
    const again = (mid: number, at: number) =>
      checkPriceSanity({
        intents: [buy(mid)],
        snapshot: snapshot(mid),
        limits: DEFAULT_PRICE_SANITY,
        memory: () => memory,
        now: at,
      }).observed.map((o) => o.mid);
    expect(again(41, T0 + 30_000)).toEqual([]); // a fresh enough reference already
    expect(again(41.5, T0 + 30_000)).toEqual([]);
    expect(again(41.5, T0 + 60_000)).toEqual(["41.5"]);
    // The same mid seen again is the last mid seen then, not when it was first seen.
    expect(again(41, T0 + 10 * 60_000)).toEqual(["41"]);
  });

  it("bounds a wick after hours of a flat mid as after hours of small moves (a bear-market trial)", () => {
    // Hourly cycles, then a 30% drop half an hour after the last: the same evidence whether the mid
    // moved a little each hour or not at all. Kept with the time it was first seen, a flat mid's memory
    // aged 5.5 h, which widened the bound to 55% (and a day of it removed the bound).
    const wick = (mids: number[]) => {
      const store = new Map<string, PairMemory>();
      let last: ReturnType<typeof checkPriceSanity> | undefined;
      const points: Array<[number, number]> = mids.map((mid, h) => [T0 + h * HOUR, mid]);
      points.push([T0 + (mids.length - 0.5) * HOUR, 28]);
      for (const [now, mid] of points) {
        last = checkPriceSanity({
          intents: [buy(mid)],
          snapshot: snapshot(mid, { prevDayPx: 40 }),
          limits: DEFAULT_PRICE_SANITY,
          memory: (label) => store.get(label),
          now,
        });
        for (const m of last.observed) store.set(m.label, m);
      }
      return last!.blocked.map((b) => b.reason);
    };
    for (const mids of [
      [40, 40.01, 40, 40.01, 40, 40.01],
      [40, 40, 40, 40, 40, 40],
    ]) {
      const blocked = wick(mids);
      expect(blocked).toHaveLength(1);
      expect(blocked[0]).toMatch(
        /mid 28 is 30(\.01)?% below the last mid seen 30 min ago 40(\.01)?, outside the 15% bound/,
      );
    }
  });

  it("values the order at the highest agreeing price and says so", () => {
    const result = run(snapshot(40, { prevDayPx: 44 }), buy(40));
    const intent = result.allowed[0] as TwapOrderIntent;
    expect(intent.midPx.toNumber()).toBe(44);
    // The mid decided at is kept: a TWAP's maxDeviation is measured from it, not from 44.
    expect(intent.decisionMidPx?.toNumber()).toBe(40);
    expect(intent.notionalUsd.toNumber()).toBe(220);
    expect(intent.reason).toMatch(/valued at 44 \(the previous-day price/);
  });
});

describe("staking intents and HYPE's wei unit", () => {
  it("blocks every staking move when the venue states another wei unit for HYPE than hlbot signs in", () => {
    // An architecture review: only the staking strategy checked it, so a manual `hlbot delegate --amount
    // 10` under a unit of 6 would have moved 100 HYPE. The check before the limits now holds for all.
    const moves = [
      { kind: "cDeposit" as const, strategy: "s", reason: "stake", amount: new Decimal(10) },
      {
        kind: "tokenDelegate" as const,
        strategy: "s",
        reason: "delegate",
        validator: "0x000000000000000000000000000000000000000a",
        amount: new Decimal(10),
        isUndelegate: false,
      },
    ];
    const base = snapshot(25);
    const run = (weiDecimals: number) => {
      const tokens = new Map(base.tokens);
      tokens.set("HYPE", { ...base.tokens.get("HYPE")!, weiDecimals });
      return checkPriceSanity({
        intents: moves,
        snapshot: { ...base, tokens },
        limits: DEFAULT_PRICE_SANITY,
        memory: () => undefined,
        now: T0,
      });
    };
    expect(run(8).allowed).toHaveLength(2);
    const off = run(6);
    expect(off.allowed).toEqual([]);
    expect(off.blocked.map((b) => b.reason)).toEqual([
      expect.stringMatching(
        /^stake; blocked: the venue states HYPE's weiDecimals as 6, and hlbot signs staking amounts in units of 10\^-8 HYPE/,
      ),
      expect.stringMatching(/^delegate; blocked: the venue states HYPE's weiDecimals as 6/),
    ]);
  });
});
