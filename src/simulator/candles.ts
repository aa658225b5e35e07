// Candle files: the price history `hlbot data fetch` downloads and `hlbot simulate --prices` (or a
// scenario's `prices: { PAIR: { candles: FILE } }`) replays. One CSV per market and interval:
//
//   coin,interval,time_ms,time_iso,open,high,low,close,volume,trades
//   @107,1h,1735689600000,2025-01-01T00:00:00.000Z,24.95,25.31,24.80,25.12,18234.5,412
//
// time_ms is the candle's open time; prices and volume are copied verbatim from the venue's answer.
// A file the replay could misread is refused with its line number: rows out of order or repeated, an
// interval the venue does not have, rows a fraction of a candle apart (mixed intervals: with them
// one row would stand for a stretch it never covered), a time off the interval's boundaries (shifted, or
// seconds for milliseconds), or most rows more than one candle apart (a longer interval mislabelled). A gap (whole candles missing: a venue outage, a
// pair that did not trade, a hand-edited file) is allowed but counted (`gaps`, `candleGapWarning`): the
// replay holds the last close through it and the next candle starts at its own open, so no price is
// invented for time the file does not describe.
//
// The other way, `simulatedCandles` is the simulated venue's answer to candleSnapshot: candles of a
// pair built from its own price path, so they agree with the mids the venue answered (see there).
import { Decimal } from "../lib/decimal.js";
import { ConfigError } from "../lib/errors.js";
import { readRegularTextFile } from "../lib/readText.js";
import { duration } from "../lib/text.js";
import {
  CANDLE_INTERVAL_MS,
  CANDLE_INTERVALS,
  CANDLE_PAGE_LIMIT,
  type CandleInterval,
  candleOpen,
  isCandleInterval,
  nextCandleOpen,
} from "../venue/info/methods/candleSnapshot.js";
import { HOUR } from "./clock.js";
import { fmt } from "./format.js";
import type { Markets, Pair } from "./markets.js";

/** Intervals whose candle boundaries are not checked (see the check). */
const LOOSE_BOUNDARIES: ReadonlySet<CandleInterval> = new Set<CandleInterval>(["1w", "1M"]);

export const CANDLE_CSV_HEADER = "coin,interval,time_ms,time_iso,open,high,low,close,volume,trades";

export interface CandleRow {
  /** Open time, unix ms. */
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  v: number;
}

export interface CandleFile {
  file: string;
  coin: string;
  interval: CandleInterval;
  /** Length of one candle (a month counted as 30 days). */
  intervalMs: number;
  candles: CandleRow[];
  gaps: CandleGaps;
}

/** Where whole candles are missing between rows. */
export interface CandleGaps {
  /** Places where one or more candles are missing. */
  count: number;
  /** Candles missing in all. */
  missing: number;
  /**
   * The longest: from the close of the candle before it to the open of the one after (unix ms), and
   * the file line of the row after it.
   */
  largest?: { from: number; to: number; line: number };
}

/** A candle as the venue's candleSnapshot answers it: open (and close) time, prices as its strings. */
export interface VenueCandle {
  t: number;
  T?: number | undefined;
  o: string;
  h: string;
  l: string;
  c: string;
  v?: string | undefined;
  n?: number | undefined;
}

/** One CSV line of a candle as the venue sent it (strings copied verbatim). */
export function candleCsvLine(coin: string, interval: string, c: VenueCandle): string {
  return [coin, interval, c.t, new Date(c.t).toISOString(), c.o, c.h, c.l, c.c, c.v ?? "", c.n ?? ""].join(
    ",",
  );
}

/**
 * What is wrong with a candle's prices for a replay, or undefined: high must be the highest and low the
 * lowest of the four (the reader's rule, which `hlbot data fetch` checks before it writes a row).
 */
export function candleFault(c: { o: number; h: number; l: number; c: number }): string | undefined {
  if (c.h < Math.max(c.o, c.c, c.l) || c.l > Math.min(c.o, c.c))
    return "high must be the highest and low the lowest of open, high, low, close";
  return undefined;
}

/** Reads and checks a candle file; errors name the file and line. */
export function readCandleFile(file: string): CandleFile {
  // A year of 1-minute candles is about 35 MB.
  const text = readRegularTextFile(file, 1024 * 1024 * 1024, { prefix: "the candle file: " });
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== CANDLE_CSV_HEADER)
    throw new ConfigError(`expected the header "${CANDLE_CSV_HEADER}" (a file of hlbot data fetch)`, {
      file,
      line: 1,
    });
  let coin: string | undefined;
  let interval: CandleInterval | undefined;
  const candles: CandleRow[] = [];
  const gaps: CandleGaps = { count: 0, missing: 0 };
  // Steps of more than one candle by their number of candles, and the line after the first.
  const stepCounts = new Map<number, number>();
  let firstGapLine: number | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const at = { file, line: i + 1 };
    const f = line.split(",");
    if (f.length !== 10) throw new ConfigError(`expected 10 comma-separated fields, got ${f.length}`, at);
    if (coin === undefined) {
      if (!isCandleInterval(f[1]!))
        throw new ConfigError(
          `interval: expected one of ${CANDLE_INTERVALS.join(", ")} (the venue's), got ${JSON.stringify(f[1])}`,
          at,
        );
      if (f[0]!.trim() === "")
        throw new ConfigError(
          'coin: empty: expected the market the candles are of (e.g. "@107" or "PURR/USDC", as `hlbot data fetch` writes it)',
          at,
        );
      coin = f[0]!;
      interval = f[1];
    } else if (f[0] !== coin || f[1] !== interval)
      throw new ConfigError(
        `one market and interval per file: ${coin} ${interval} above, ${f[0]} ${f[1]} here`,
        at,
      );
    const num = (k: number, name: string, positive: boolean) => {
      const v = Number(f[k]);
      if (f[k] === "" || !Number.isFinite(v) || (positive ? v <= 0 : v < 0))
        throw new ConfigError(
          `${name}: expected a ${positive ? "positive" : "non-negative"} number, got ${JSON.stringify(f[k])}`,
          at,
        );
      return v;
    };
    const t = num(2, "time_ms", false);
    if (!Number.isSafeInteger(t))
      throw new ConfigError(`time_ms: expected whole unix milliseconds, got ${JSON.stringify(f[2])}`, at);
    const row = {
      t,
      o: num(4, "open", true),
      h: num(5, "high", true),
      l: num(6, "low", true),
      c: num(7, "close", true),
      v: f[8] === "" ? 0 : num(8, "volume", false),
    };
    const fault = candleFault(row);
    if (fault) throw new ConfigError(fault, at);
    const prev = candles[candles.length - 1];
    if (prev && t <= prev.t)
      throw new ConfigError(
        `time_ms ${t} is not after the previous row's ${prev.t}: rows must be sorted and unique`,
        at,
      );
    if (prev) {
      const steps = candlesBetween(interval!, prev.t, t);
      if (steps === undefined)
        throw new ConfigError(
          `time_ms ${t} (${iso(t)}) is ${duration(t - prev.t)} after the previous row, not a whole number of ` +
            `${interval} candles: one interval per file (mixed intervals or a misplaced row)`,
          at,
        );
      if (steps > 1) {
        gaps.count++;
        gaps.missing += steps - 1;
        const from = nextCandleOpenAfter(interval!, prev.t);
        if (gaps.largest === undefined || t - from > gaps.largest.to - gaps.largest.from)
          gaps.largest = { from, to: t, line: i + 1 };
        stepCounts.set(steps, (stepCounts.get(steps) ?? 0) + 1);
        firstGapLine ??= i + 1;
      }
    }
    // The venue's candles open on the interval's boundaries: a row between them is shifted (a time zone,
    // a close time for the open) or in seconds, and a replay would put every price at the wrong time.
    // Checked up to a day, where the boundaries are the epoch's multiples; the day a week or a month
    // opens on is this project's belief (candleOpen), not confirmed, so a 1w or 1M file is not refused
    // on it (tolerant where hlbot only replays).
    if (!LOOSE_BOUNDARIES.has(interval!) && candleOpen(interval!, t) !== t)
      throw new ConfigError(offBoundary(interval!, t), at);
    candles.push(row);
  }
  if (candles.length === 0 || coin === undefined || interval === undefined)
    throw new ConfigError("no candles in the file", { file });
  const longer = longerInterval(interval, candles.length - 1, gaps, stepCounts);
  if (longer !== undefined) throw new ConfigError(longer, { file, line: firstGapLine! });
  return { file, coin, interval, intervalMs: CANDLE_INTERVAL_MS[interval], candles, gaps };
}

/** Where the candles of an interval open, for a person. */
function boundaryText(interval: CandleInterval): string {
  if (interval === "1M") return "on the 1st of each month, 00:00 UTC";
  if (interval === "1w") return "on Mondays, 00:00 UTC";
  return `at whole multiples of ${interval} since 1970-01-01 00:00 UTC`;
}

/** The refusal of a row whose time is not a candle's open: in seconds, or shifted off the boundaries. */
function offBoundary(interval: CandleInterval, t: number): string {
  const asMs = t * 1000;
  if (t > 0 && t < 1e11 && candleOpen(interval, asMs) === asMs)
    return (
      `time_ms ${t} looks like seconds, not milliseconds (as ms it is ${iso(t)}; ×1000 it is ${iso(asMs)}): ` +
      "write unix milliseconds in time_ms (hlbot data fetch does)"
    );
  const open = candleOpen(interval, t);
  return (
    `time_ms ${t} (${iso(t)}) is not the open of a ${interval} candle: the venue's ${interval} candles open ` +
    `${boundaryText(interval)} (here ${iso(open)} or ${iso(nextCandleOpen(interval, open))}), and this row ` +
    `is ${duration(t - open)} after one. Shifted times (a time zone, close times for opens) or another ` +
    "source's candles would replay every price at the wrong time: put each candle's open time in time_ms, " +
    `or download them with hlbot data fetch --interval ${interval}`
  );
}

/**
 * The refusal of a file whose rows lie on a coarser grid, or are almost all one same number of candles
 * apart: a longer interval labelled as this one (4h candles called 1h). Undefined when most steps are one
 * candle, when the gaps have lengths with nothing in common, or when some rows are one candle apart and
 * the rhythm is no interval of the venue (a pair that seldom traded: its gaps are warned of).
 */
function longerInterval(
  interval: CandleInterval,
  steps: number,
  gaps: CandleGaps,
  stepCounts: Map<number, number>,
): string | undefined {
  const gapSteps = [...stepCounts.values()].reduce((a, n) => a + n, 0);
  if (gapSteps < 2 || gapSteps * 2 <= steps) return undefined;
  const [k, most] = [...stepCounts].reduce((a, b) => (b[1] > a[1] ? b : a));
  // Every row on a coarser grid (no rows one candle apart, every step a multiple of one number of
  // candles: 4h candles with some missing, labelled 1h; a review) or one step length almost every time
  // is a longer interval under this one's name; gaps of lengths with nothing in common are a pair that
  // traded seldom, replayed with its gaps told (a history trial: data fetch wrote such a file, then
  // failed; monthly rows called 1d pass so, their flat share warned).
  const ones = steps - gapSteps;
  const grid = ones > 0 ? 1 : [...stepCounts.keys()].reduce(gcd);
  if (grid < 2 && most * 10 < gapSteps * 9) return undefined;
  const ratio = grid >= 2 ? grid : k;
  const flat = Math.round((gaps.missing / (gaps.missing + steps + 1)) * 100);
  const named =
    interval === "1M"
      ? undefined
      : CANDLE_INTERVALS.find(
          (i) => i !== "1M" && CANDLE_INTERVAL_MS[i] === ratio * CANDLE_INTERVAL_MS[interval],
        );
  // With some rows one candle apart, a rhythm that is no interval of the venue (mostly every 3 hours) is
  // a pair that trades seldom; one that is (4h candles labelled 1h, with a row or a day of 1h ones
  // appended: a review) is still a longer interval's file.
  if (ones > 0 && named === undefined) return undefined;
  const head =
    `${gapSteps} of the ${steps} steps between rows skip whole ${interval} candles (the first before this ` +
    `line), ${most} of them ${k} candles (${duration(k * CANDLE_INTERVAL_MS[interval])}): `;
  return named !== undefined
    ? `${head}the file looks like ${named} candles labelled ${interval}, and a replay would hold a flat ` +
        `price for ${flat}% of the time. Write ${named} in the interval column, or download ${interval} ` +
        `candles: hlbot data fetch --interval ${interval}`
    : `${head}it looks like a longer interval than ${interval} (or a pair that seldom traded), and a replay ` +
        `would hold a flat price for ${flat}% of the time. Give the file its real interval, or download ` +
        `${interval} candles: hlbot data fetch --interval ${interval}`;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * How many candles of `interval` from the open `from` to the open `to` (1: the next one), or undefined
 * when `to` is not a whole number of candles later. Months are calendar months (same day and time).
 */
export function candlesBetween(interval: CandleInterval, from: number, to: number): number | undefined {
  if (interval !== "1M") {
    const steps = (to - from) / CANDLE_INTERVAL_MS[interval];
    return Number.isInteger(steps) ? steps : undefined;
  }
  const a = new Date(from);
  const b = new Date(to);
  const months = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + b.getUTCMonth() - a.getUTCMonth();
  return addMonths(from, months) === to ? months : undefined;
}

function addMonths(t: number, months: number): number {
  const d = new Date(t);
  return Date.UTC(
    d.getUTCFullYear(),
    d.getUTCMonth() + months,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
}

/**
 * The gaps of a file (from the close of the candle before to the open of the one after) that overlap
 * `from`..`to`, clipped to it: where a replay in that period holds the last close.
 */
export function gapSpansWithin(c: CandleFile, from: number, to: number): Array<{ from: number; to: number }> {
  const out: Array<{ from: number; to: number }> = [];
  for (let i = 1; i < c.candles.length; i++) {
    const start = nextCandleOpenAfter(c.interval, c.candles[i - 1]!.t);
    const end = c.candles[i]!.t;
    if (end > start && end > from && start < to)
      out.push({ from: Math.max(start, from), to: Math.min(end, to) });
  }
  return out;
}

/** Open of the candle after the one opening at `t` (its close + 1 ms). */
function nextCandleOpenAfter(interval: CandleInterval, t: number): number {
  return interval === "1M" ? addMonths(t, 1) : t + CANDLE_INTERVAL_MS[interval];
}

/**
 * The warning a person gets for a file with gaps (undefined without): how many, the candles missing,
 * the largest (times and line), and what the replay does there.
 */
export function candleGapWarning(file: {
  file: string;
  interval: string;
  gaps: CandleGaps;
}): string | undefined {
  const { count, missing, largest } = file.gaps;
  if (count === 0 || largest === undefined) return undefined;
  return (
    `${file.file}: ${count} gap${count === 1 ? "" : "s"} in the ${file.interval} candles ` +
    `(${missing} candle${missing === 1 ? "" : "s"} missing); the largest ${duration(largest.to - largest.from)}, ` +
    `from ${iso(largest.from)} to ${iso(largest.to)} (before line ${largest.line}). ` +
    "In a gap the replay holds the last close, then moves to the next candle's open when it starts"
  );
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Most path samples per candle (a long candle is sampled more coarsely than every priceStep). */
export const MAX_SAMPLES_PER_CANDLE = 240;

/**
 * The simulated venue's candles of `pair` for a candleSnapshot request, in the venue's wire shape.
 * Each candle samples the pair's path (`PricePath.history`) at its open, every priceStep (or every
 * 1/MAX_SAMPLES_PER_CANDLE of the candle when that is coarser) and at its last moment, on the price
 * grid: its open is the mid the venue answered at the open time, and its high and low bound every mid
 * it answered at the sampled times. Only candles opened by now are answered; the one still open ends
 * at now (its close is the current mid). Nothing before the simulation's start, and, as the venue
 * keeps only the most recent CANDLE_PAGE_LIMIT candles of a market and interval, nothing older than
 * those (so an answer never holds more). Volume: the base volume traded in the candle's whole hours
 * (recorded per hour, kept 48 hours; a shorter or older candle shows "0.0"); n 0.
 */
export function simulatedCandles(
  markets: Markets,
  pair: Pair,
  req: { interval: CandleInterval; startTime: number; endTime?: number | undefined },
  clock: { now: number; start: number; priceStep: number },
): Array<Record<string, unknown>> {
  const { interval } = req;
  const last = Math.min(req.endTime ?? clock.now, clock.now);
  const first = Math.max(req.startTime, clock.start, oldestKept(interval, clock.now));
  if (last < first) return [];
  const opens: number[] = [];
  for (let open = candleOpen(interval, first); open <= last; open = nextCandleOpen(interval, open))
    opens.push(open);
  return opens.map((open) => {
    const close = nextCandleOpen(interval, open) - 1;
    const from = Math.max(open, clock.start);
    const to = Math.min(close, clock.now);
    const every = Math.max(clock.priceStep, Math.ceil((close + 1 - open) / MAX_SAMPLES_PER_CANDLE));
    const times: number[] = [];
    for (let t = from; t < to; t += every) times.push(t);
    times.push(to);
    // Rounding to the grid is monotonic: the extremes of the raw path round to the extremes of the mids.
    const pxs = markets.pathHistory(pair, times).filter((px): px is number => px !== undefined);
    let h = pxs[0]!;
    let l = h;
    for (const px of pxs) {
      if (px > h) h = px;
      if (px < l) l = px;
    }
    const volume = close + 1 - open >= HOUR ? markets.baseVolume(pair, open, close + 1) : new Decimal(0);
    return {
      t: open,
      T: close,
      s: pair.name,
      i: interval,
      o: fmt(markets.onGrid(pair, pxs[0]!)),
      c: fmt(markets.onGrid(pair, pxs[pxs.length - 1]!)),
      h: fmt(markets.onGrid(pair, h)),
      l: fmt(markets.onGrid(pair, l)),
      v: fmt(volume),
      n: 0,
    };
  });
}

/** Open time of the oldest of the CANDLE_PAGE_LIMIT most recent candles at `now` (the current one included). */
export function oldestKept(interval: CandleInterval, now: number): number {
  const current = candleOpen(interval, now);
  if (interval !== "1M") return current - (CANDLE_PAGE_LIMIT - 1) * CANDLE_INTERVAL_MS[interval];
  const d = new Date(current);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (CANDLE_PAGE_LIMIT - 1), 1);
}
