// candleSnapshot: OHLCV candles of one market over a time range, oldest first. Used by `hlbot data
// fetch` to download price history that `hlbot simulate --prices` replays.
//
// Wire (Hyperliquid info endpoint docs; the same shape in nktkas/hyperliquid and the Python SDK's
// candles_snapshot): `{"type":"candleSnapshot","req":{"coin","interval","startTime","endTime"}}`, times in
// unix ms; the answer is `[{t, T, s, i, o, c, h, l, v, n}]` (open/close time, coin, interval, prices
// and base volume as decimal strings, number of trades). For spot the coin is the pair's venue name
// ("@107", "PURR/USDC"). The venue keeps only the 5000 most recent candles of a market and interval
// (Hydromancer's candleSnapshot docs, cited below, speak of "the 5k last candles available through the
// native Hyperliquid API" too), so a long range is read in pages (`CANDLE_PAGE_LIMIT`). An answer of `null` (seen for an unknown market
// by df-hyperliquid-core) is read as no candles.
//
// Strict: the open time and the four prices, which a replay acts on. Tolerant: the rest (only shown or
// copied into the file).
//
// Candle boundaries (`candleOpen`, `nextCandleOpen`; the simulator's candles and the downloader's
// cursor when an answer omits T): fixed lengths count from the epoch, a week opens on Monday 00:00 UTC
// and a month on the 1st 00:00 UTC. The venue's docs do not say; this is how Hydromancer, which serves
// the same candleSnapshot wire (https://docs.hydromancer.xyz/readme/rest-api/candlesticks/candlesnapshot),
// documents its "1w (Monday-aligned)" and "1M (calendar month)" intervals.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { CANDLE_PER_ITEM_WEIGHT, infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { DecimalString, TimestampMs, UInt } from "../schemas.js";

/** Intervals the venue knows. */
export const CANDLE_INTERVALS = [
  "1m",
  "3m",
  "5m",
  "15m",
  "30m",
  "1h",
  "2h",
  "4h",
  "8h",
  "12h",
  "1d",
  "3d",
  "1w",
  "1M",
] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

/** Most candles one answer holds (only the most recent 5000 are kept by the venue). */
export const CANDLE_PAGE_LIMIT = 5000;

const MINUTE = 60_000;
/** Length of one candle of each interval in ms (a month counted as 30 days: pages only, never prices). */
export const CANDLE_INTERVAL_MS: Record<CandleInterval, number> = {
  "1m": MINUTE,
  "3m": 3 * MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "2h": 120 * MINUTE,
  "4h": 240 * MINUTE,
  "8h": 480 * MINUTE,
  "12h": 720 * MINUTE,
  "1d": 1440 * MINUTE,
  "3d": 3 * 1440 * MINUTE,
  "1w": 7 * 1440 * MINUTE,
  "1M": 30 * 1440 * MINUTE,
};

export function isCandleInterval(value: string): value is CandleInterval {
  return (CANDLE_INTERVALS as readonly string[]).includes(value);
}

/** 1970-01-01 was a Thursday: weeks open 4 days after the epoch's multiples of 7 days. */
const WEEK_OFFSET = 4 * 1440 * MINUTE;

/** Open time of the candle of `interval` that holds `t` (unix ms, UTC). */
export function candleOpen(interval: CandleInterval, t: number): number {
  if (interval === "1M") {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  const len = CANDLE_INTERVAL_MS[interval];
  const offset = interval === "1w" ? WEEK_OFFSET : 0;
  return Math.floor((t - offset) / len) * len + offset;
}

/** Open time of the candle after the one that opens at `open`. */
export function nextCandleOpen(interval: CandleInterval, open: number): number {
  if (interval === "1M") {
    const d = new Date(open);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return open + CANDLE_INTERVAL_MS[interval];
}

export const CandleSnapshotRequest = z.strictObject({
  type: z.literal("candleSnapshot"),
  req: z.strictObject(
    {
      coin: z
        .string({ error: (iss) => (iss.input === undefined ? "required" : "expected a coin (a string)") })
        .min(1, { error: "expected a coin" }),
      interval: z.enum(CANDLE_INTERVALS, {
        error: (iss) =>
          iss.input === undefined ? "required" : `expected one of ${CANDLE_INTERVALS.join(", ")}`,
      }),
      startTime: UInt,
      endTime: UInt.optional(),
    },
    {
      error: (iss) =>
        iss.code !== "invalid_type" ? undefined : iss.input === undefined ? "required" : "expected an object",
    },
  ),
});

export const Candle = z.looseObject({
  /** Open time, unix ms. */
  t: TimestampMs,
  /** Close time, unix ms (the last ms of the candle). */
  T: z.number().optional(),
  s: z.string().optional(),
  i: z.string().optional(),
  o: DecimalString,
  c: DecimalString,
  h: DecimalString,
  l: DecimalString,
  /** Base volume. */
  v: z.string().optional(),
  n: z.number().optional(),
});
export type Candle = z.output<typeof Candle>;

export const CandleSnapshotResponse = z
  .array(Candle)
  .nullable()
  .transform((c) => c ?? []);
export type CandleSnapshotResponse = z.output<typeof CandleSnapshotResponse>;

export const candleSnapshotMethod = defineInfoMethod({
  type: "candleSnapshot",
  request: CandleSnapshotRequest,
  response: CandleSnapshotResponse,
  weight: infoRequestWeight("candleSnapshot"),
  perItemWeight: CANDLE_PER_ITEM_WEIGHT,
  endpoint: "info",
});
export type CandleSnapshotParameters = InfoParams<typeof candleSnapshotMethod>;

export function candleSnapshot(
  transport: HttpTransport,
  params: CandleSnapshotParameters,
  signal?: AbortSignal,
): Promise<CandleSnapshotResponse> {
  return runInfoQuery(transport, candleSnapshotMethod, params, signal);
}
