import { describe, expect, it } from "vitest";
import { Decimal, parseDecimal } from "../../src/lib/decimal.js";
import { CandlePath, createPricePath, type PricePath, roundSpotPrice } from "../../src/simulator/prices.js";
import { Prng } from "../../src/simulator/prng.js";

const START = Date.UTC(2025, 0, 1);
const walk = { start: parseDecimal("25"), drift: 0.1, volatility: 0.8 };

describe("price paths", () => {
  it("gives the same random-walk price at a time however often it was asked before", () => {
    const opts = { start: START, step: 1_000, seed: 9, label: "price:@107", fallbackPx: 1 };
    const a = createPricePath(walk, opts);
    const b = createPricePath(walk, opts);
    for (let t = START; t <= START + 3_600_000; t += 7_000) a.at(t);
    expect(a.at(START + 3_600_000)).toBe(b.at(START + 3_600_000));
    expect(a.at(START + 3_600_000)).not.toBe(25);
    const other = createPricePath(walk, { ...opts, seed: 10 });
    expect(other.at(START + 3_600_000)).not.toBe(a.at(START + 3_600_000));
  });

  it("gives the same random-walk prices whatever the order of the questions (no sequential stream)", () => {
    const opts = { start: START, step: 1_000, seed: 5, label: "price:@107", fallbackPx: 1 };
    const times = Array.from({ length: 400 }, (_, i) => START + ((i * 7919 * 1_013) % (200 * 86_400_000)));
    const ascending = createPricePath(walk, opts);
    const sorted = [...times].sort((a, b) => a - b);
    const byTime = new Map(sorted.map((t) => [t, ascending.at(t)]));
    const shuffled = createPricePath(walk, opts);
    for (const t of times) expect(shuffled.at(t)).toBe(byTime.get(t));
    // A year ahead at once is the price a walk through every step reaches.
    const far = START + 365 * 86_400_000 + 123_000;
    expect(createPricePath(walk, opts).at(far)).toBe(ascending.at(far));
  });

  it("has independent one-step moves with the configured spread, inside and across the bridge's blocks", () => {
    // One-second steps, volatility 0.8: a step's log-return has sd 0.8·sqrt(1 s / 1 year). A wrong
    // midpoint law shows as a wrong spread at some scale, or as correlated neighbouring moves.
    const path = createPricePath(
      { start: parseDecimal("25"), drift: 0, volatility: 0.8 },
      { start: START, step: 1_000, seed: 11, label: "steps", fallbackPx: 1 },
    );
    const expected = 0.8 * Math.sqrt(1_000 / (365 * 86_400_000));
    for (const every of [1, 37, 4096, 65_536 * 3]) {
      const returns: number[] = [];
      let prev = Math.log(path.at(START));
      for (let i = 1; i <= 3_000; i++) {
        const now = Math.log(path.at(START + i * every * 1_000));
        returns.push(now - prev);
        prev = now;
      }
      const n = returns.length;
      const sd = Math.sqrt(returns.reduce((a, r) => a + r * r, 0) / n);
      const want = expected * Math.sqrt(every);
      expect(sd / want).toBeGreaterThan(0.93);
      expect(sd / want).toBeLessThan(1.07);
      let lag1 = 0;
      for (let i = 1; i < n; i++) lag1 += returns[i]! * returns[i - 1]!;
      expect(Math.abs(lag1 / (n - 1) / (sd * sd))).toBeLessThan(0.08);
    }
  });

  it("moves with the configured volatility (daily log-returns have the right spread)", () => {
    const path = createPricePath(
      { start: parseDecimal("100"), drift: 0, volatility: 0.5 },
      { start: START, step: 60_000, seed: 3, label: "vol", fallbackPx: 1 },
    );
    const returns: number[] = [];
    let prev = path.at(START);
    for (let d = 1; d <= 400; d++) {
      const px = path.at(START + d * 86_400_000);
      returns.push(Math.log(px / prev));
      prev = px;
    }
    const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
    const sd = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length);
    const expected = 0.5 * Math.sqrt(1 / 365);
    expect(sd).toBeGreaterThan(expected * 0.8);
    expect(sd).toBeLessThan(expected * 1.2);
  });

  it("interpolates scripted points and holds after the last; set() overrides until the next point", () => {
    const path = createPricePath(
      {
        points: [
          { at: 0, px: parseDecimal("100") },
          { at: 60_000, px: parseDecimal("110") },
          { at: 120_000, px: parseDecimal("90") },
        ],
        interpolate: "linear",
      },
      { start: START, step: 1_000, seed: 1, label: "s", fallbackPx: 1 },
    );
    expect(path.at(START)).toBe(100);
    expect(path.at(START + 30_000)).toBe(105);
    expect(path.at(START + 90_000)).toBe(100);
    expect(path.at(START + 500_000)).toBe(90);
    const p2 = createPricePath(
      {
        points: [
          { at: 0, px: parseDecimal("1") },
          { at: 60_000, px: parseDecimal("2") },
        ],
        interpolate: "step",
      },
      { start: START, step: 1_000, seed: 1, label: "s", fallbackPx: 1 },
    );
    expect(p2.at(START + 59_999)).toBe(1);
    p2.set(START + 10_000, 5);
    expect(p2.at(START + 20_000)).toBe(5);
    expect(p2.at(START + 60_000)).toBe(2);
  });

  it("a random walk continues from a price set by hand", () => {
    const path = createPricePath(
      { start: parseDecimal("10"), drift: 0, volatility: 0 },
      { start: START, step: 1_000, seed: 1, label: "flat", fallbackPx: 1 },
    );
    path.set(START + 5_000, 12);
    expect(path.at(START + 50_000)).toBe(12);
  });
});

// candleSnapshot answers the past from `history`: whatever the kind of path, it must be what `at`
// answered at those times (overrides included), the same however often and in whatever pieces it is
// asked, and undefined before a generated path's start.
describe("price history", () => {
  /** Walks `path` forward, noting each answer, with overrides at the given sample indexes. */
  function walkNoting(path: PricePath, step: number, count: number, sets: Record<number, number>) {
    const seen: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) {
      const t = START + i * step;
      const px = sets[i];
      if (px !== undefined) path.set(t, px);
      seen.push([t, path.at(t)]);
    }
    return seen;
  }

  it("replays a random walk across overrides, also mid-step and in pieces", () => {
    const opts = { start: START, step: 1_000, seed: 4, label: "price:@107", fallbackPx: 1 };
    const path = createPricePath({ start: parseDecimal("25"), drift: 0, volatility: 0.9 }, opts);
    // 7.919 s apart: overrides mid-step.
    const seen = walkNoting(path, 7_919, 1400, { 700: 31.5, 701: 30 });
    expect(seen[700]![1]).toBe(31.5);
    expect(path.history(seen.map(([t]) => t))).toEqual(seen.map(([, px]) => px));
    // The same in pieces and again (nothing consumed), and before the start.
    const tail = seen.slice(1000);
    expect(path.history(tail.map(([t]) => t))).toEqual(tail.map(([, px]) => px));
    expect(path.history([START - 1, START])).toEqual([undefined, 25]);
    // An override inside a step leaves the same step's earlier time at the price it had.
    const flat = createPricePath({ start: parseDecimal("10"), drift: 0, volatility: 0 }, opts);
    flat.at(START + 5_200);
    flat.set(START + 5_600, 12);
    expect(flat.history([START + 5_200, START + 5_600, START + 9_000])).toEqual([10, 12, 12]);
  });

  it("replays a scripted path with its overrides", () => {
    const path = createPricePath(
      {
        points: [
          { at: 0, px: parseDecimal("100") },
          { at: 60_000, px: parseDecimal("110") },
        ],
        interpolate: "linear",
      },
      { start: START, step: 1_000, seed: 1, label: "s", fallbackPx: 1 },
    );
    const seen = walkNoting(path, 2_500, 40, { 8: 104, 12: 99 });
    expect(path.history(seen.map(([t]) => t))).toEqual(seen.map(([, px]) => px));
    expect(path.history([START - 1])).toEqual([undefined]);
    // The previous-day price (before) is the same past: a shock held a day later is the day-ago price
    // (before() once answered the scripted points only, so a rebalancer stayed blocked for days by a
    // "35% below the previous-day price" that the venue would not have shown after a day).
    expect(seen.map(([t]) => path.before(t))).toEqual(seen.map(([, px]) => px));
  });

  it("replays a candle path (the formula of its candles and seed) with its overrides", () => {
    const HOUR = 3_600_000;
    const candles = [
      { t: START, o: 25, h: 26, l: 24, c: 25.5 },
      { t: START + HOUR, o: 25.5, h: 25.8, l: 24.1, c: 24.2 },
      { t: START + 2 * HOUR, o: 24.2, h: 24.9, l: 24, c: 24.8 },
    ];
    const path = new CandlePath(candles, HOUR, 7, "price:@107");
    const seen = walkNoting(path, 61_000, 170, { 70: 30 });
    // The price set holds as a scale of the replay: 30 at once, the candles' moves from there on.
    expect(seen[70]![1]).toBeCloseTo(30, 9);
    const plain = new CandlePath(candles, HOUR, 7, "price:@107");
    const factor = 30 / plain.at(seen[70]![0]);
    expect(seen[160]![1]).toBeCloseTo(plain.at(seen[160]![0]) * factor, 9);
    expect(path.history(seen.map(([t]) => t))).toEqual(seen.map(([, px]) => px));
    // A fresh path (never walked) answers the same past without the override.
    const fresh = new CandlePath(candles, HOUR, 7, "price:@107");
    expect(fresh.history([START + 10 * 61_000])).toEqual([seen[10]![1]]);
  });
});

describe("roundSpotPrice", () => {
  it("keeps 5 significant figures and at most 8 − szDecimals decimals", () => {
    expect(roundSpotPrice(25.123456, 2).toString()).toBe("25.123");
    expect(roundSpotPrice(0.000123456, 2).toString()).toBe("0.000123");
    expect(roundSpotPrice(0.2049876, 0).toString()).toBe("0.20499");
    expect(roundSpotPrice(95012.7, 5).toString()).toBe("95013");
    expect(roundSpotPrice(123456.7, 5).toString()).toBe("123457");
    expect(roundSpotPrice(1e-12, 2).toString()).toBe("0.000001");
  });

  // The grid price is rounded on the digits of px.toPrecision(15); this is the same rule written with
  // Decimal operations, for comparison.
  function reference(px: number, szDecimals: number): Decimal {
    const maxDecimals = Math.max(0, 8 - szDecimals);
    let d = new Decimal(px.toPrecision(15));
    if (d.lte(0)) return new Decimal(10).pow(-maxDecimals);
    if (d.gte(100_000)) return d.toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
    d = d.toSignificantDigits(5, Decimal.ROUND_HALF_UP).toDecimalPlaces(maxDecimals, Decimal.ROUND_HALF_UP);
    return d.isZero() ? new Decimal(10).pow(-maxDecimals) : d;
  }

  it("rounds twice (figures, then decimals), carries, and never gives zero for a positive price", () => {
    expect(roundSpotPrice(1.234496, 5).toString()).toBe("1.235");
    expect(roundSpotPrice(9.99996, 0).toString()).toBe("10");
    expect(roundSpotPrice(99999.5, 0).toString()).toBe("100000");
    expect(roundSpotPrice(0.00000049, 2).toString()).toBe("0.000001");
    expect(roundSpotPrice(2.5e21, 0).toString()).toBe("2500000000000000000000");
    expect(roundSpotPrice(0, 3).toString()).toBe("0.00001");
    expect(roundSpotPrice(-4, 3).toString()).toBe("0.00001");
    expect(roundSpotPrice(Number.NaN, 3).isNaN()).toBe(true);
  });

  it("is the rule written with Decimal operations, for prices of every size and each szDecimals", () => {
    const prng = new Prng(7, "roundSpotPrice");
    const random = () => prng.next();
    const prices: number[] = [1.234496, 0.1234449999, 12.345, 99999.49999, 99999.5, 9.999949, 1e-9, 5e-7];
    for (let i = 0; i < 20_000; i++) {
      const magnitude = 10 ** Math.floor(random() * 24 - 12);
      prices.push(random() * magnitude);
      // Prices that sit on a rounding edge: few digits, then a 5 or a 4 followed by 9s.
      const edge = Math.round(random() * 99999) / 10 ** Math.floor(random() * 10);
      prices.push(
        edge + 5 * 10 ** -Math.floor(random() * 12),
        edge + 4.999999 * 10 ** -Math.floor(random() * 12),
      );
    }
    for (const px of prices)
      for (let sz = 0; sz <= 8; sz++) {
        const got = roundSpotPrice(px, sz);
        const want = reference(px, sz);
        if (!got.eq(want) || got.toString() !== want.toString())
          expect({ px, sz, got: got.toString() }).toEqual({ px, sz, got: want.toString() });
      }
  });
});

describe("mids and previous-day prices on the grid", () => {
  it("are the path's prices rounded, hour after hour for more days than the kept roundings cover", async () => {
    const { VenueCore } = await import("../../src/simulator/core.js");
    const { testScenario } = await import("./fixtures.js");
    const core = new VenueCore({
      scenario: testScenario({ prices: { "@107": { start: "25", volatility: 0.9 } } }),
    });
    const pair = core.markets.pair("@107")!;
    const start = core.now();
    const seen = new Set<string>();
    // 400 hours: more distinct prices than the 256 roundings kept per pair, each asked for twice.
    for (let h = 0; h < 400; h++) {
      core.advance(3_600_000);
      const t = core.now();
      for (let again = 0; again < 2; again++) {
        expect(core.markets.mid(pair).eq(roundSpotPrice(pair.path.at(t), 2))).toBe(true);
        const dayAgo = pair.path.before(Math.max(t - 86_400_000, start))!;
        expect(core.markets.prevDayPx(pair).eq(roundSpotPrice(dayAgo, 2))).toBe(true);
      }
      seen.add(core.markets.mid(pair).toFixed());
    }
    expect(seen.size).toBeGreaterThan(256);
  });

  it("are the start's price in the first day, never the current one (a first-day pump is a move)", async () => {
    // prevDayPx in the first day was the mid itself, so a 25 → 45 pump within hours passed the bot's
    // previous-day check in simulations only (a trader's trial): the venue always has a day-old price.
    const { VenueCore } = await import("../../src/simulator/core.js");
    const { testScenario } = await import("./fixtures.js");
    const core = new VenueCore({
      scenario: testScenario({
        prices: {
          "@107": {
            interpolate: "linear",
            points: [
              { at: 0, px: "25" },
              { at: 20 * 3_600_000, px: "45" },
            ],
          },
        },
      }),
    });
    const pair = core.markets.pair("@107")!;
    core.advance(20 * 3_600_000);
    expect(core.markets.mid(pair).toFixed()).toBe("45");
    expect(core.markets.prevDayPx(pair).toFixed()).toBe("25");
    core.advance(10 * 3_600_000);
    // A day on, the price a day ago: 25 + 20 × 6/20.
    expect(core.markets.prevDayPx(pair).toFixed()).toBe("31");
  });
});
