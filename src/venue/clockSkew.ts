// Clock skew between this machine and the venue. Nonces are millisecond timestamps and the venue
// refuses those too far from its block time (about a day), and `expiresAfter` is judged by the venue's
// clock: a local clock that is off by more than a few seconds makes actions expire early or live too
// long. The venue's `Date` response header (1 s resolution) is the only clock it shows us, so the first
// response of a session is compared with the local clock and a warning is given past a threshold.

import { duration } from "../lib/text.js";

export const DEFAULT_CLOCK_SKEW_THRESHOLD_MS = 5_000;

export interface ClockSkewOptions {
  /** Warn when |local − venue| exceeds this (default 5 000 ms). */
  thresholdMs?: number;
  /** Local clock (default Date.now). */
  clock?: () => number;
  /** Where the warning goes (default: a line on stderr). */
  warn?: (message: string) => void;
}

export interface ClockSkewReading {
  /** local − venue in ms, the middle of what the answer allows; positive when the local clock is ahead. */
  skewMs: number;
  /** True when every skew the answer allows exceeds the threshold (see skewBounds). */
  excessive: boolean;
}

/** What one answer tells of local − venue (ms): it lies within [low, high]. */
export interface SkewBounds {
  low: number;
  high: number;
}

/**
 * local − venue as far as one answer tells. Its `Date` header was written at some local time between
 * sending the request (`sentAt`) and receiving the answer (`receivedAt`), and is truncated to the
 * second (the venue's time then lay in [header, header + 1 s)). A slow answer widens the range: a
 * 12-second round trip is not a 12-second skew (a trial's daemon behind a slow link warned of one).
 */
export function skewBounds(serverDateMs: number, receivedAt: number, sentAt = receivedAt): SkewBounds {
  return { low: Math.min(sentAt, receivedAt) - (serverDateMs + 1000), high: receivedAt - serverDateMs };
}

/** The middle of the bounds, the estimate shown. */
export function skewEstimate(b: SkewBounds): number {
  return Math.round((b.low + b.high) / 2);
}

/** True when no skew within the bounds is inside ±thresholdMs: the clocks certainly disagree. */
export function skewExcessive(b: SkewBounds, thresholdMs: number): boolean {
  return b.low > thresholdMs || b.high < -thresholdMs;
}

/**
 * local − venue for a response received at `localNow` whose `Date` header says `serverDate`, taking
 * the middle of the header's one-second resolution (no round trip known).
 */
export function measureClockSkew(serverDate: Date, localNow: number): number {
  return skewEstimate(skewBounds(serverDate.getTime(), localNow));
}

/** The warning's words for an estimated skew (local − venue, ms): seconds under a minute, else "3 h 5 min". */
export function skewText(skewMs: number): string {
  const abs = Math.abs(skewMs);
  const size =
    abs < 60_000 ? `${(abs / 1000).toFixed(1)} s` : `about ${duration(Math.round(abs / 60_000) * 60_000)}`;
  return `${size} ${skewMs > 0 ? "ahead of" : "behind"}`;
}

/** Compares the clocks once, on the first response that carries a Date header, and warns if they differ. */
export class ClockSkewMonitor {
  private readonly thresholdMs: number;
  private readonly clock: () => number;
  private readonly warn: (message: string) => void;
  private reading: ClockSkewReading | undefined;

  constructor(options: ClockSkewOptions = {}) {
    this.thresholdMs = options.thresholdMs ?? DEFAULT_CLOCK_SKEW_THRESHOLD_MS;
    this.clock = options.clock ?? Date.now;
    this.warn = options.warn ?? ((message) => process.stderr.write(`hlbot: warning: ${message}\n`));
  }

  /** The first reading, once there has been one. */
  get last(): ClockSkewReading | undefined {
    return this.reading;
  }

  /**
   * Call after a response arrived, with the transport's latest `Date` header and the local time the
   * request was sent (a slow answer says less about the clocks). Only the first call with a date
   * counts; later ones return that first reading.
   */
  observe(serverDate: Date | undefined, sentAt?: number): ClockSkewReading | undefined {
    if (this.reading !== undefined || serverDate === undefined) return this.reading;
    const bounds = skewBounds(serverDate.getTime(), this.clock(), sentAt);
    const skewMs = skewEstimate(bounds);
    const excessive = skewExcessive(bounds, this.thresholdMs);
    this.reading = { skewMs, excessive };
    if (excessive) {
      this.warn(
        `the local clock is ${skewText(skewMs)} the venue's (Date header); ` +
          "nonces are local times, and the venue refuses those far from its own (a day ahead, two behind; " +
          "expiresAfter is counted on the venue's clock). Synchronise the clock (NTP).",
      );
    }
    return this.reading;
  }
}

/**
 * The venue's clock as far as we can tell: the `Date` header of the latest response, carried forward by
 * the local clock. `sample` must be called as each response arrives (HttpTransport's onResponse), so
 * the offset is measured at receipt. The header is truncated to the second and was sent before we read
 * it, so the estimate never runs ahead of the venue's real time: safe for "has this expired yet?" (we
 * may wait a moment longer, never declare too early) and for "is this nonce too far ahead?" (we may
 * refuse a little early).
 */
export class VenueClock {
  private offsetMs: number | undefined;
  /** The latest sampled answer's round trip (ms): how long before its receipt the header may be from. */
  private roundTripMs = 0;

  constructor(
    /** The Date header of the latest response (HttpTransport.lastServerDate). */
    private readonly source: () => Date | undefined,
    private readonly local: () => number = Date.now,
  ) {}

  /**
   * Call when a response has arrived: measures venue − local from its Date header. `roundTripMs` is how
   * long the request took (the header was written somewhere within it).
   */
  sample(roundTripMs = 0): void {
    const t = this.source()?.getTime();
    if (t === undefined || Number.isNaN(t)) return;
    this.offsetMs = t - this.local();
    this.roundTripMs = Math.max(0, roundTripMs);
  }

  /** The venue's time now (ms), or undefined before any response carried a Date header. */
  now(): number | undefined {
    return this.offsetMs === undefined ? undefined : this.local() + this.offsetMs;
  }

  /** local − venue in ms (positive: the local clock is ahead) at the latest answer's receipt, once known. */
  get skewMs(): number | undefined {
    return this.offsetMs === undefined ? undefined : -this.offsetMs;
  }

  /** What the latest answer tells of local − venue, allowing for its round trip (skewBounds). */
  get skew(): SkewBounds | undefined {
    if (this.offsetMs === undefined) return undefined;
    const high = -this.offsetMs;
    return { low: high - this.roundTripMs - 1000, high };
  }
}
