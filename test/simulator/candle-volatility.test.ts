// A trial: replaying the daily candles of a minute random walk gave an hourly realized volatility 20 to
// 33% above the walk's own (each candle's bridge was scaled by whatever its extremes needed), so band
// rebalancers looked better on coarse candles. The bridge is now the best fit of a few drawn with the
// candle's own (Garman–Klass) volatility.
import { describe, expect, it } from "vitest";
import { CandlePath } from "../../src/simulator/prices.js";
import { Prng } from "../../src/simulator/prng.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2025, 0, 1);
const DAYS = 60;

/** A minute geometric random walk of 60 days at 80% a year. */
function minuteWalk(seed: number): number[] {
  const rng = new Prng(seed, "walk");
  const sd = 0.8 / Math.sqrt(365 * 1440);
  const px = [25];
  for (let i = 1; i <= DAYS * 1440; i++) px.push(px[i - 1]! * Math.exp(sd * rng.normal()));
  return px;
}

/** Candles of `len` ms cut from the walk (the close is the next candle's open). */
function cut(px: number[], len: number) {
  const per = len / MIN;
  const out: { t: number; o: number; h: number; l: number; c: number }[] = [];
  for (let s = 0; s + per <= DAYS * 1440; s += per) {
    let h = px[s]!;
    let l = px[s]!;
    for (let k = s; k <= s + per; k++) {
      h = Math.max(h, px[k]!);
      l = Math.min(l, px[k]!);
    }
    out.push({ t: T0 + s * MIN, o: px[s]!, h, l, c: px[s + per]! });
  }
  return out;
}

/** Standard deviation of the log returns of a series. */
function stdevLogReturns(series: number[]): number {
  const r = series.slice(1).map((p, i) => Math.log(p / series[i]!));
  const m = r.reduce((a, b) => a + b, 0) / r.length;
  return Math.sqrt(r.reduce((a, b) => a + (b - m) ** 2, 0) / (r.length - 1));
}

const hours = DAYS * 24;

describe("candle replay: the volatility inside candles is the one the candles imply", () => {
  it("replays the 1d and 1h candles of a minute random walk at its own hourly volatility (±10%)", () => {
    const ratios: Record<string, number[]> = { "1h": [], "1d": [] };
    for (const walkSeed of [1, 2, 3, 4]) {
      const px = minuteWalk(walkSeed);
      const truth = stdevLogReturns(Array.from({ length: hours + 1 }, (_, i) => px[i * 60]!));
      for (const [name, len] of [
        ["1h", HOUR],
        ["1d", DAY],
      ] as const) {
        const candles = cut(px, len);
        for (let seed = 1; seed <= 8; seed++) {
          const path = new CandlePath(candles, len, seed, "price:@107");
          const replay = Array.from({ length: hours + 1 }, (_, i) => path.at(T0 + i * HOUR));
          ratios[name]!.push(stdevLogReturns(replay) / truth);
        }
      }
    }
    const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
    // Hourly candles at hourly reads: their own closes.
    expect(Math.abs(mean(ratios["1h"]!) - 1)).toBeLessThan(0.01);
    // Daily candles: +22% before on these walks; now +4 to +10% per walk (mean +7%).
    expect(Math.abs(mean(ratios["1d"]!) - 1)).toBeLessThan(0.1);
    for (const r of ratios["1d"]!) expect(r).toBeLessThan(1.2);
  });

  it("draws a candle's path the same way for the same seed and another way for another", () => {
    const candles = [{ t: T0, o: 100, h: 104, l: 97, c: 101 }];
    const a = new CandlePath(candles, DAY, 3, "p");
    const b = new CandlePath(candles, DAY, 3, "p");
    const c = new CandlePath(candles, DAY, 4, "p");
    const times = Array.from({ length: 48 }, (_, i) => T0 + i * 30 * MIN);
    expect(a.history(times)).toEqual(b.history(times));
    expect(a.history(times)).not.toEqual(c.history(times));
  });
});
