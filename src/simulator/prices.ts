// Deterministic mid-price paths per spot pair. A random-walk path is a geometric Brownian motion sampled
// on a fixed time grid (`priceStep`) from a seeded stream, so the price at a given time depends only on
// the scenario and the seed, never on when or how often it is asked for. A scripted path interpolates
// between points of the scenario. `set` overrides the price from now on: a random walk continues from
// the new value, a scripted path holds it until its next point.
//
// `history` answers the price at past times (the simulator's candleSnapshot) from the same scenario and
// seed, overrides included, whatever kind the path is: a random walk keeps a checkpoint (step, price,
// generator state, time from which it holds) every CHECKPOINT_EVERY steps and at every `set`, and
// replays the walk from the latest checkpoint at or before each time, so it need not keep every step; a
// scripted or candle path recomputes its own formula and keeps the list of overrides.
import { Decimal } from "../lib/decimal.js";
import { DAY, HOUR } from "./clock.js";
import { Prng, type PrngState } from "./prng.js";
import type { PricePathConfig } from "./scenario.js";

const YEAR_MS = 365 * DAY;
const CHECKPOINT_EVERY = 1024;

export interface PricePath {
  /** Mid price at time t (t never goes backwards between calls that matter). */
  at(t: number): number;
  /** Overrides the price at time t. */
  set(t: number, px: number): void;
  /** Price at or shortly before t, from what has been generated, for "previous day" figures. */
  before(t: number): number | undefined;
  /**
   * Prices at past times `times` (ascending, none after the latest time passed to `at`), as `at` answered
   * them; undefined before the path's start.
   */
  history(times: readonly number[]): Array<number | undefined>;
}

class RandomWalkPath implements PricePath {
  private k = 0;
  private px: number;
  private readonly rng: Prng;
  private readonly driftTerm: number;
  private readonly volTerm: number;
  /** Price at the start of each hour, for prevDayPx; bounded to the last 48 hours. */
  private readonly hourly = new Map<number, number>();
  /**
   * Replay points, ascending by `from` (the time from which each holds): every CHECKPOINT_EVERY steps
   * and at every `set` (several may share a step: the price before and after an override).
   */
  private readonly checkpoints: Array<{ from: number; k: number; px: number; rng: PrngState }> = [];

  constructor(
    private readonly start: number,
    private readonly step: number,
    startPx: number,
    drift: number,
    volatility: number,
    seed: number,
    label: string,
  ) {
    this.px = startPx;
    this.rng = new Prng(seed, label);
    const dt = step / YEAR_MS;
    this.driftTerm = (drift - (volatility * volatility) / 2) * dt;
    this.volTerm = volatility * Math.sqrt(dt);
    this.hourly.set(Math.floor(start / HOUR), startPx);
    this.checkpoints.push({ from: start, k: 0, px: startPx, rng: this.rng.save() });
  }

  private get constant(): boolean {
    return this.volTerm === 0 && this.driftTerm === 0;
  }

  at(t: number): number {
    const target = Math.floor((t - this.start) / this.step);
    if (this.constant) {
      this.k = Math.max(this.k, target);
      return this.px;
    }
    while (this.k < target) {
      this.k++;
      this.px *= Math.exp(this.driftTerm + this.volTerm * this.rng.normal());
      if (this.k % CHECKPOINT_EVERY === 0)
        this.checkpoints.push({
          from: this.start + this.k * this.step,
          k: this.k,
          px: this.px,
          rng: this.rng.save(),
        });
      const stepTime = this.start + this.k * this.step;
      const hour = Math.floor(stepTime / HOUR);
      if (!this.hourly.has(hour)) {
        this.hourly.set(hour, this.px);
        this.hourly.delete(hour - 48);
      }
    }
    return this.px;
  }

  set(t: number, px: number): void {
    this.at(t);
    this.px = px;
    // From t on (not from the step's start: earlier in the step `at` answered the price before).
    const from = Math.max(t, this.checkpoints[this.checkpoints.length - 1]!.from);
    this.checkpoints.push({ from, k: this.k, px, rng: this.rng.save() });
  }

  before(t: number): number | undefined {
    return this.hourly.get(Math.floor(t / HOUR));
  }

  history(times: readonly number[]): Array<number | undefined> {
    const out: Array<number | undefined> = [];
    let segment = -1;
    let k = 0;
    let px = 0;
    let rng: Prng | undefined;
    for (const t of times) {
      if (t < this.start) {
        out.push(undefined);
        continue;
      }
      const target = Math.min(Math.floor((t - this.start) / this.step), this.k);
      const j = this.checkpointAt(t);
      if (j !== segment || target < k) {
        const c = this.checkpoints[j]!;
        segment = j;
        k = c.k;
        px = c.px;
        rng = Prng.restore(c.rng);
      }
      if (this.constant) k = Math.max(k, target);
      else {
        while (k < target) {
          k++;
          px *= Math.exp(this.driftTerm + this.volTerm * rng!.normal());
        }
      }
      out.push(px);
    }
    return out;
  }

  /** Index of the last checkpoint holding at t (the first one holds from the start). */
  private checkpointAt(t: number): number {
    let lo = 0;
    let hi = this.checkpoints.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.checkpoints[mid]!.from <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/**
 * The overrides a scripted or candle path was given, in the order given (so ascending in time): each
 * holds from its `set` time until the path's next point (or candle), or until the next override.
 */
class OverrideLog {
  private readonly list: { from: number; px: number; until: number }[] = [];

  add(from: number, px: number, until: number): void {
    this.list.push({ from, px, until });
  }

  /** The override price in force at t, if any. */
  at(t: number): number | undefined {
    let lo = 0;
    let hi = this.list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.list[mid]!.from <= t) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const o = this.list[found];
    return o && t < o.until ? o.px : undefined;
  }
}

class ScriptedPath implements PricePath {
  private override: { px: number; until: number } | undefined;
  private readonly overrides = new OverrideLog();
  private readonly points: { at: number; px: number }[];

  constructor(
    private readonly start: number,
    points: { at: number; px: Decimal }[],
    private readonly mode: "linear" | "step",
  ) {
    this.points = points.map((p) => ({ at: start + p.at, px: p.px.toNumber() })).sort((a, b) => a.at - b.at);
  }

  private scripted(t: number): number {
    const pts = this.points;
    if (t <= pts[0]!.at) return pts[0]!.px;
    for (let i = 1; i < pts.length; i++) {
      const b = pts[i]!;
      if (t < b.at) {
        const a = pts[i - 1]!;
        if (this.mode === "step") return a.px;
        return a.px + ((b.px - a.px) * (t - a.at)) / (b.at - a.at);
      }
    }
    return pts[pts.length - 1]!.px;
  }

  at(t: number): number {
    if (this.override && t < this.override.until) return this.override.px;
    this.override = undefined;
    return this.scripted(t);
  }

  set(t: number, px: number): void {
    const next = this.points.find((p) => p.at > t);
    this.override = { px, until: next?.at ?? Number.POSITIVE_INFINITY };
    this.overrides.add(t, px, this.override.until);
  }

  history(times: readonly number[]): Array<number | undefined> {
    return times.map((t) => (t < this.start ? undefined : (this.overrides.at(t) ?? this.scripted(t))));
  }

  before(t: number): number | undefined {
    return t < this.start ? undefined : this.scripted(t);
  }
}

/**
 * Real history replayed from candles (a file of `hlbot data fetch`). Within a candle the price moves in
 * straight lines open → first extreme → second extreme → close: the low first in a rising candle and
 * the high first in a falling one, at times drawn per candle from the seed (so a replay is the same on
 * every run with the same seed, and another seed gives other paths through the same candles). Before
 * the first candle the price is its open; after the last, its close.
 */
export class CandlePath implements PricePath {
  private override: { px: number; until: number } | undefined;
  private readonly overrides = new OverrideLog();
  private cached: { index: number; times: number[]; prices: number[] } | undefined;

  constructor(
    private readonly candles: readonly { t: number; o: number; h: number; l: number; c: number }[],
    private readonly intervalMs: number,
    private readonly seed: number,
    private readonly label: string,
  ) {}

  /** Index of the candle open at t, or -1 before the first (the last one after the end). */
  private indexAt(t: number): number {
    const cs = this.candles;
    if (t < cs[0]!.t) return -1;
    let lo = 0;
    let hi = cs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (cs[mid]!.t <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private vertices(i: number): { times: number[]; prices: number[] } {
    if (this.cached?.index === i) return this.cached;
    const c = this.candles[i]!;
    const next = this.candles[i + 1];
    const len = Math.min(this.intervalMs, next ? next.t - c.t : this.intervalMs);
    const rng = new Prng(this.seed, `${this.label}:${c.t}`);
    const a = rng.uniform(0.05, 0.5);
    const b = rng.uniform(a + 0.05, 0.95);
    const [x1, x2] = c.c >= c.o ? [c.l, c.h] : [c.h, c.l];
    this.cached = {
      index: i,
      // On whole seconds, so the extremes are reached by a clock that moves in seconds.
      times: [
        c.t,
        c.t + Math.round((a * len) / 1000) * 1000,
        c.t + Math.round((b * len) / 1000) * 1000,
        c.t + len,
      ],
      prices: [c.o, x1, x2, c.c],
    };
    return this.cached;
  }

  private replayed(t: number): number {
    const i = this.indexAt(t);
    if (i < 0) return this.candles[0]!.o;
    const { times, prices } = this.vertices(i);
    if (t >= times[3]!) return prices[3]!;
    for (let k = 1; k < 4; k++) {
      if (t < times[k]!) {
        const t0 = times[k - 1]!;
        const p0 = prices[k - 1]!;
        return p0 + ((prices[k]! - p0) * (t - t0)) / (times[k]! - t0);
      }
    }
    return prices[3]!;
  }

  at(t: number): number {
    if (this.override && t < this.override.until) return this.override.px;
    this.override = undefined;
    return this.replayed(t);
  }

  set(t: number, px: number): void {
    const next = this.candles[this.indexAt(t) + 1];
    this.override = { px, until: next?.t ?? Number.POSITIVE_INFINITY };
    this.overrides.add(t, px, this.override.until);
  }

  before(t: number): number | undefined {
    return this.replayed(t);
  }

  /** The replay is a formula of the candles and the seed, defined at every time; overrides kept. */
  history(times: readonly number[]): Array<number | undefined> {
    return times.map((t) => this.overrides.at(t) ?? this.replayed(t));
  }

  /** First open time and end of the last candle. */
  get span(): { from: number; to: number } {
    const last = this.candles[this.candles.length - 1]!;
    return { from: this.candles[0]!.t, to: last.t + this.intervalMs };
  }
}

export function createPricePath(
  config: PricePathConfig | undefined,
  opts: { start: number; step: number; seed: number; label: string; fallbackPx: number },
): PricePath {
  if (config && "points" in config) return new ScriptedPath(opts.start, config.points, config.interpolate);
  if (config && "candles" in config)
    return new CandlePath(config.candles.candles, config.candles.intervalMs, opts.seed, opts.label);
  const startPx = config ? config.start.toNumber() : opts.fallbackPx;
  const drift = config ? config.drift : 0;
  const volatility = config ? config.volatility : 0;
  return new RandomWalkPath(opts.start, opts.step, startPx, drift, volatility, opts.seed, opts.label);
}

/**
 * The venue's price grid for spot: at most 5 significant figures and at most 8 − szDecimals decimals
 * (integers always allowed). Rounded half-up; never zero for a positive input.
 */
export function roundSpotPrice(px: number, szDecimals: number): Decimal {
  const maxDecimals = Math.max(0, 8 - szDecimals);
  let d = new Decimal(px.toPrecision(15));
  if (d.lte(0)) return new Decimal(10).pow(-maxDecimals);
  if (d.gte(100_000)) return d.toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  d = d.toSignificantDigits(5, Decimal.ROUND_HALF_UP).toDecimalPlaces(maxDecimals, Decimal.ROUND_HALF_UP);
  return d.isZero() ? new Decimal(10).pow(-maxDecimals) : d;
}
