// Deterministic mid-price paths per spot pair. A random-walk path is a geometric Brownian motion on a
// fixed time grid (`priceStep`) whose value at any step is computed directly, without walking the steps
// before it (a Brownian bridge, see BridgeWalk): the price at a given time depends only on the scenario
// and the seed, never on when, how often or in what order it is asked for, and a year of one-second
// steps costs what a few hundred queries cost. A scripted path interpolates between points of the
// scenario. `set` overrides the price from now on: a random walk continues from the new value with the
// same moves, a candle replay is scaled from then on so its moves go on from the new value, and a
// scripted path holds it until its next point.
//
// `history` answers the price at past times (the simulator's candleSnapshot) from the same scenario and
// seed, overrides included, whatever kind the path is: each path is a formula of time plus the list of
// overrides it was given.
import { Decimal } from "../lib/decimal.js";
import { DAY, HOUR } from "./clock.js";
import { Prng } from "./prng.js";
import type { PricePathConfig } from "./scenario.js";

const YEAR_MS = 365 * DAY;

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

/**
 * A Gaussian random walk B(k) = Z₁ + … + Z_k (Zᵢ independent standard normals) whose value at any step
 * k is drawn directly. The walk is cut into blocks of 2^LEVELS steps: the block ends are drawn in order
 * (one normal per block, kept), and inside a block B is refined by halving: given B at both ends of an
 * interval of n steps, B at its midpoint is normal with mean the ends' average and variance n/4 (the
 * exact law of a partial sum of i.i.d. normals given its endpoints). Each draw comes from a hash of the
 * stream key, the block and the node, never from a sequential stream, so a step's value does not depend
 * on the queries before it. The same law as summing the steps one by one; other numbers (the paths of
 * a seed changed when this replaced the step-by-step walk). Consecutive queries share most of their
 * descent, which is cached: a query costs a few normals, not one per step since the last.
 */
class BridgeWalk {
  private static readonly LEVELS = 16;
  private static readonly BLOCK = 1 << BridgeWalk.LEVELS;
  /** Standard deviation of a level's midpoint draw: sqrt(interval / 4). */
  private static readonly SD = Array.from({ length: BridgeWalk.LEVELS }, (_, l) =>
    Math.sqrt((BridgeWalk.BLOCK >>> l) / 4),
  );
  /** B at each block end drawn so far (ends[j] = B(j · BLOCK)). */
  private readonly ends: number[] = [0];
  /** The last descent: the block, and per level the node and its value (valid to `depth`). */
  private block = -1;
  private depth = 0;
  private readonly nodes = new Int32Array(BridgeWalk.LEVELS);
  private readonly values = new Float64Array(BridgeWalk.LEVELS);

  constructor(private readonly key: number) {}

  at(k: number): number {
    const BLOCK = BridgeWalk.BLOCK;
    const j = Math.floor(k / BLOCK);
    const m = k - j * BLOCK;
    let vlo = this.end(j);
    if (m === 0) return vlo;
    let vhi = this.end(j + 1);
    if (j !== this.block) {
      this.block = j;
      this.depth = 0;
    }
    let lo = 0;
    let hi = BLOCK;
    let node = 1;
    for (let level = 0; ; level++) {
      const mid = (lo + hi) >>> 1;
      let v: number;
      if (level < this.depth && this.nodes[level] === node) v = this.values[level]!;
      else {
        v = (vlo + vhi) / 2 + BridgeWalk.SD[level]! * normalAt(this.key, j, node);
        this.nodes[level] = node;
        this.values[level] = v;
        this.depth = level + 1;
      }
      if (m === mid) return v;
      if (m < mid) {
        hi = mid;
        vhi = v;
        node = 2 * node;
      } else {
        lo = mid;
        vlo = v;
        node = 2 * node + 1;
      }
    }
  }

  private end(j: number): number {
    const ends = this.ends;
    const sd = Math.sqrt(BridgeWalk.BLOCK);
    // Node 0 of block i is its end draw (nodes of the halving start at 1).
    while (ends.length <= j) ends.push(ends[ends.length - 1]! + sd * normalAt(this.key, ends.length - 1, 0));
    return ends[j]!;
  }
}

/** A 32-bit integer hash with good avalanche (the "lowbias32" constants of Chris Wellons' hash search). */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

const TWO_POW_32 = 4294967296;

/** The hash key of a path's draws: the first number of the seeded stream of (seed, label). */
function streamKey(seed: number, label: string): number {
  return new Prng(seed, label).nextUint32();
}

/** A standard normal drawn from (key, block, node) alone (Box–Muller on two hashed uniforms in (0, 1)). */
function normalAt(key: number, block: number, node: number): number {
  const h = mix32(mix32(key ^ mix32(block + 0x632be5ab)) ^ node);
  const u1 = (h + 0.5) / TWO_POW_32;
  const u2 = (mix32(h ^ 0x9e3779b9) + 0.5) / TWO_POW_32;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * Geometric Brownian motion on the step grid: log price = log start + drift term · k + vol term · B(k).
 * An override at time t (step k₀) to price p makes the price from t on p · exp(drift term · (k − k₀) +
 * vol term · (B(k) − B(k₀))): the walk continues from p with the moves it would have made.
 */
class RandomWalkPath implements PricePath {
  private readonly walk: BridgeWalk;
  private readonly driftTerm: number;
  private readonly volTerm: number;
  /** Anchors, ascending by `from` (the time from which each holds): the start, then every `set`. */
  private readonly anchors: Array<{ from: number; k: number; px: number; b: number }> = [];

  constructor(
    private readonly start: number,
    private readonly step: number,
    startPx: number,
    drift: number,
    volatility: number,
    seed: number,
    label: string,
  ) {
    this.walk = new BridgeWalk(streamKey(seed, label));
    const dt = step / YEAR_MS;
    this.driftTerm = (drift - (volatility * volatility) / 2) * dt;
    this.volTerm = volatility * Math.sqrt(dt);
    this.anchors.push({ from: start, k: 0, px: startPx, b: 0 });
  }

  private stepAt(t: number): number {
    return Math.floor((t - this.start) / this.step);
  }

  private priceAt(t: number): number {
    const a = this.anchors[this.anchorAt(t)]!;
    const k = this.stepAt(t);
    if (k === a.k) return a.px;
    const moves = this.volTerm === 0 ? 0 : this.volTerm * (this.walk.at(k) - a.b);
    return a.px * Math.exp(this.driftTerm * (k - a.k) + moves);
  }

  at(t: number): number {
    return this.priceAt(Math.max(t, this.start));
  }

  set(t: number, px: number): void {
    // From t on (not from the step's start: earlier in the step `at` answered the price before).
    const from = Math.max(t, this.start, this.anchors[this.anchors.length - 1]!.from);
    const k = this.stepAt(from);
    this.anchors.push({ from, k, px, b: this.volTerm === 0 ? 0 : this.walk.at(k) });
  }

  /** The price at the start of t's hour (the path's start within its first hour). */
  before(t: number): number | undefined {
    if (t < this.start) return undefined;
    return this.priceAt(Math.max(this.start, Math.floor(t / HOUR) * HOUR));
  }

  history(times: readonly number[]): Array<number | undefined> {
    return times.map((t) => (t < this.start ? undefined : this.priceAt(t)));
  }

  /** Index of the last anchor holding at t (the first one holds from the start). */
  private anchorAt(t: number): number {
    return Math.max(
      0,
      lastAtOrBefore(this.anchors, t, (a) => a.from),
    );
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
    const o = this.list[lastAtOrBefore(this.list, t, (x) => x.from)];
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

  /** The price at t as it was (overrides included): what the venue shows as the previous day's. */
  before(t: number): number | undefined {
    return t < this.start ? undefined : (this.overrides.at(t) ?? this.scripted(t));
  }
}

/** Nodes of the path drawn inside one candle: one a minute, at least 8, at most 240 (daily: 6 min). */
function candleNodes(lengthMs: number): number {
  return Math.min(240, Math.max(8, Math.round(lengthMs / 60_000)));
}

/**
 * Real history replayed from candles (a file of `hlbot data fetch`). Inside a candle the price follows a
 * Brownian bridge from its open to its close, drawn per candle from the seed (a replay is the same on
 * every run with the same seed; another seed gives other paths through the same candles), in log-price,
 * with the volatility the candle's range implies, reaching the candle's high and low exactly and nothing
 * beyond (drawInside).
 *
 * Two earlier rules let a strategy deciding inside a candle (a cron off the candle's open, hourly runs on
 * daily candles, the one-minute price guards) read where it was going. "Open → low → high → close in a
 * rising candle" made its first minutes move against its close (a history trial: 952 of 960 candles);
 * straight lines through the open, both extremes in a drawn order and the close still reverted: on
 * candles cut from a random walk (where the move so far and the rest of a candle are independent) their
 * correlation was −0.19 at 25% in; the bridge's stays within ±0.15 at 5, 10, 25 and 50% (the walk's own
 * is within ±0.05 at that sample size). Before the first candle the price is its open; after the last,
 * its close.
 */
export class CandlePath implements PricePath {
  /**
   * Prices set on the replay (a scenario's price event, setPrice): from each on, the replay is scaled so
   * that the price at that moment is the one set, and the candles' moves go on from it. A shock persists:
   * held only until the next candle, a trial's -40% lasted an hour, the next candle snapped it back, and
   * the bot's buy at the bottom and sale an hour later showed as 1,200 USDC of gains that never were.
   */
  private readonly scales: { from: number; factor: number }[] = [];
  /**
   * The paths drawn inside the candles read last (a few: the venue's previous-day price reads a day
   * back beside the current one, and a daily candle's path has 240 nodes; a review measured 18 s a year
   * of minute reads alternating between two candles with one kept).
   */
  private readonly drawn = new Map<number, { times: number[]; prices: number[] }>();

  constructor(
    private readonly candles: readonly { t: number; o: number; h: number; l: number; c: number }[],
    private readonly intervalMs: number,
    private readonly seed: number,
    private readonly label: string,
  ) {}

  /** Index of the candle open at t, or -1 before the first (the last one after the end). */
  private indexAt(t: number): number {
    return lastAtOrBefore(this.candles, t, (c) => c.t);
  }

  /** The path drawn inside candle i: its node times (whole seconds, from its open to its end) and prices. */
  private vertices(i: number): { times: number[]; prices: number[] } {
    const kept = this.drawn.get(i);
    if (kept !== undefined) return kept;
    const c = this.candles[i]!;
    const next = this.candles[i + 1];
    const len = Math.min(this.intervalMs, next ? next.t - c.t : this.intervalMs);
    const n = candleNodes(len);
    const prices = drawInside(c, n, new Prng(this.seed, `${this.label}:${c.t}`));
    const times = prices.map((_, k) => c.t + Math.round((k * len) / n / 1000) * 1000);
    times[n] = c.t + len;
    if (this.drawn.size >= 4) this.drawn.delete(this.drawn.keys().next().value!);
    const path = { times, prices };
    this.drawn.set(i, path);
    return path;
  }

  private replayed(t: number): number {
    const i = this.indexAt(t);
    if (i < 0) return this.candles[0]!.o;
    const { times, prices } = this.vertices(i);
    const last = times.length - 1;
    if (t >= times[last]!) return prices[last]!;
    let k = Math.min(
      last - 1,
      Math.max(0, Math.floor(((t - times[0]!) * last) / (times[last]! - times[0]!))),
    );
    while (k > 0 && t < times[k]!) k--;
    while (k < last - 1 && t >= times[k + 1]!) k++;
    const t0 = times[k]!;
    const p0 = prices[k]!;
    return p0 + ((prices[k + 1]! - p0) * (t - t0)) / (times[k + 1]! - t0);
  }

  /** The replay at t, scaled by the last price set at or before t. */
  at(t: number): number {
    const px = this.replayed(t);
    if (this.scales.length === 0) return px;
    return px * (this.scales[lastAtOrBefore(this.scales, t, (x) => x.from)]?.factor ?? 1);
  }

  set(t: number, px: number): void {
    const base = this.replayed(t);
    this.scales.push({ from: t, factor: base > 0 ? px / base : 1 });
  }

  before(t: number): number | undefined {
    return this.at(t);
  }

  /** The replay is a formula of the candles and the seed, defined at every time; prices set kept. */
  history(times: readonly number[]): Array<number | undefined> {
    return times.map((t) => this.at(t));
  }

  /** First open time and end of the last candle. */
  get span(): { from: number; to: number } {
    const last = this.candles[this.candles.length - 1]!;
    return { from: this.candles[0]!.t, to: last.t + this.intervalMs };
  }
}

/**
 * A path of n steps inside candle c (n + 1 node prices): the open and the close exact, the high and the
 * low each reached at a node (the open's, or an inner one) and nothing beyond. In log-price (in price if
 * the low is not positive): the straight line from the open to the close plus a Brownian bridge, its
 * rises scaled by one factor and its falls by another, the largest that keep it within [low, high] (so
 * the highest node is the high and the lowest the low).
 *
 * The bridge is the best fit of up to 16 drawn with the candle's own volatility, the Garman–Klass
 * estimate from its range and its move (variance over the candle ½·ln(h/l)² − (2 ln 2 − 1)·ln(c/o)²):
 * the one whose two factors are nearest 1 (the first within e^±0.15 ends the search). A single draw,
 * the rule before, was scaled by whatever its extremes needed: a bridge that barely rose got a large
 * factor over half the candle, and the daily candles of a 60-day minute random walk replayed at +20 to
 * 33% hourly volatility (hourly candles sampled every 5 minutes: +13%), which made band rebalancers look
 * better on coarse candles. With the fit, those daily candles read +4 to +15% (6 walks, mean +8%), 4-hour
 * ones +2%, and the move so far still does not predict the rest (candle-lookahead.test.ts). Drawing a
 * bridge with that volatility, folding it into the range and reaching a missed extreme by a local
 * excursion read +1 to +3%, but the excursions near the candle's ends made its first and last minutes
 * predict the rest (−0.2 to −0.3); scaling is kept for that.
 */
function drawInside(c: { o: number; h: number; l: number; c: number }, n: number, rng: Prng): number[] {
  const logs = c.l > 0;
  const to = logs ? Math.log : (x: number) => x;
  const x0 = to(c.o);
  const x1 = to(c.c);
  const hi = Math.max(to(c.h), x0, x1);
  const lo = Math.min(to(c.l), x0, x1);
  const range = hi - lo;
  const prices = new Array<number>(n + 1).fill(c.o);
  prices[n] = c.c;
  if (!(range > 0)) return prices;
  // Garman–Klass: the candle's variance from its range and its move, spread over the n steps.
  const sd = Math.sqrt(Math.max(0, 0.5 * range ** 2 - (2 * Math.LN2 - 1) * (x1 - x0) ** 2) / n);
  const line = Array.from({ length: n + 1 }, (_, k) => x0 + ((x1 - x0) * k) / n);
  // Does the path have to rise above the line to reach the high (fall for the low)? Not when the line
  // is on it already (an open and a close at the high).
  const needUp = hi > x0 || hi > x1;
  const needDown = lo < x0 || lo < x1;
  const walk = new Float64Array(n + 1);
  let chosen: { dev: Float64Array; up: number; down: number } | undefined;
  let chosenMiss = Number.POSITIVE_INFINITY;
  for (let draw = 0; draw < MAX_DRAWS && chosenMiss > GOOD_MISS; draw++) {
    for (let k = 1; k <= n; k++) walk[k] = walk[k - 1]! + sd * rng.normal();
    const dev = new Float64Array(n + 1);
    for (let k = 1; k < n; k++) dev[k] = walk[k]! - (walk[n]! * k) / n;
    let up = Number.POSITIVE_INFINITY;
    let down = Number.POSITIVE_INFINITY;
    for (let k = 1; k < n; k++) {
      const d = dev[k]!;
      if (d > 0) up = Math.min(up, (hi - line[k]!) / d);
      else if (d < 0) down = Math.min(down, (line[k]! - lo) / -d);
    }
    const miss = (f: number, need: boolean) =>
      !need ? 0 : f > 0 && f < Number.POSITIVE_INFINITY ? Math.abs(Math.log(f)) : 50;
    const m = Math.max(miss(up, needUp), miss(down, needDown));
    if (m < chosenMiss) {
      chosenMiss = m;
      chosen = { dev, up, down };
    }
  }
  const { dev, up, down } = chosen!;
  const x = line.map((v, k) => {
    const d = dev[k]!;
    if (k === 0 || k === n || d === 0) return v;
    return d > 0 ? Math.min(hi, v + up * d) : Math.max(lo, v + down * d);
  });
  // The node of each extreme: the open if it is there, else the inner node that reaches it (the close
  // is the next candle's open), else the inner node nearest to it.
  const reach = (target: number, side: 1 | -1): number => {
    if (x0 === target) return 0;
    let at = 1;
    for (let k = 2; k < n; k++) if (side * (x[k]! - x[at]!) > 0) at = k;
    return at;
  };
  const top = reach(hi, 1);
  let bottom = reach(lo, -1);
  if (bottom === top) bottom = top + (top + 1 < n ? 1 : -1);
  const from = logs ? Math.exp : (v: number) => v;
  for (let k = 1; k < n; k++) prices[k] = Math.min(c.h, Math.max(c.l, from(x[k]!)));
  prices[top] = c.h;
  prices[bottom] = c.l;
  prices[0] = c.o;
  prices[n] = c.c;
  return prices;
}

/** Bridges drawn at most per candle, and the fit (|ln factor| on both sides) that ends the search early. */
const MAX_DRAWS = 16;
const GOOD_MISS = 0.15;

/** Index of the last item of `list` (ascending by `key`) whose key is at or before t; -1 if none. */
function lastAtOrBefore<T>(list: readonly T[], t: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]!) <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
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
 * (integers always allowed). Rounded half-up; never zero for a positive input. Rounds the digits of
 * `px.toPrecision(15)` (as a Decimal of that text would be rounded: to 5 figures, then to the decimals)
 * and makes one Decimal of the result: every mid and slice price of a simulation passes here.
 */
export function roundSpotPrice(px: number, szDecimals: number): Decimal {
  const maxDecimals = Math.max(0, 8 - szDecimals);
  if (Number.isNaN(px) || px === Number.POSITIVE_INFINITY) return new Decimal(px);
  if (px <= 0) return new Decimal(10).pow(-maxDecimals);
  const { digits, point } = decimalDigits(px.toPrecision(15));
  // 100 000 and above: whole numbers. Below: 5 significant figures, and that result rounded again to
  // the decimals allowed (two roundings: 1.234496 with 3 decimals is 1.2345, then 1.235).
  let rounded: { kept: string; point: number };
  if (point >= 6) rounded = roundDigits(digits, point, point);
  else {
    const figures = roundDigits(digits, point, 5);
    rounded = roundDigits(figures.kept, figures.point, figures.point + maxDecimals);
  }
  if (rounded.kept.length === 0) return new Decimal(10).pow(-maxDecimals);
  return new Decimal(digitsText(rounded.kept, rounded.point));
}

/**
 * The significant digits of a positive number's text (no leading zeros) and where its decimal point
 * falls: "0.00123" is digits "123", point −2 (0.123 × 10^−2); "2.5e+21" is "25", point 22.
 */
function decimalDigits(text: string): { digits: string; point: number } {
  const e = text.indexOf("e");
  const mantissa = e < 0 ? text : text.slice(0, e);
  const exponent = e < 0 ? 0 : Number(text.slice(e + 1));
  const dot = mantissa.indexOf(".");
  let digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  let point = (dot < 0 ? mantissa.length : dot) + exponent;
  let lead = 0;
  while (lead < digits.length - 1 && digits.charCodeAt(lead) === 0x30) lead++;
  digits = digits.slice(lead);
  point -= lead;
  return { digits, point };
}

/**
 * The first `keep` digits rounded half up by the next one (keep ≤ 0: the number rounds to 0 or to one
 * unit of the place `keep` names), trailing zeros dropped. `kept` empty means zero.
 */
function roundDigits(digits: string, point: number, keep: number): { kept: string; point: number } {
  if (keep >= digits.length) return { kept: digits.replace(/0+$/, ""), point };
  if (keep < 0) return { kept: "", point };
  const up = digits.charCodeAt(keep) >= 0x35; // the first dropped digit is 5 or more
  let kept = digits.slice(0, keep);
  if (up) {
    let i = kept.length - 1;
    while (i >= 0 && kept.charCodeAt(i) === 0x39) i--;
    if (i < 0) return { kept: "1", point: point + 1 }; // all nines (or nothing kept): 10^point
    kept = kept.slice(0, i) + String.fromCharCode(kept.charCodeAt(i) + 1);
  }
  return { kept: kept.replace(/0+$/, ""), point };
}

/** Plain decimal text of 0.`kept` × 10^point. */
function digitsText(kept: string, point: number): string {
  if (point <= 0) return `0.${"0".repeat(-point)}${kept}`;
  if (point >= kept.length) return kept + "0".repeat(point - kept.length);
  return `${kept.slice(0, point)}.${kept.slice(point)}`;
}
