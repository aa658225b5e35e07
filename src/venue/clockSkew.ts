// Clock skew between this machine and the venue. Nonces are millisecond timestamps and the venue
// refuses those too far from its block time (about a day), and `expiresAfter` is judged by the venue's
// clock: a local clock that is off by more than a few seconds makes actions expire early or live too
// long. The venue's `Date` response header (1 s resolution) is the only clock it shows us, so the first
// response of a session is compared with the local clock and a warning is given past a threshold.

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
  /** local − venue in ms; positive when the local clock is ahead. */
  skewMs: number;
  /** True when |skewMs| exceeds the threshold (after allowing for the header's 1 s resolution). */
  excessive: boolean;
}

/**
 * local − venue for a response received at `localNow` whose `Date` header says `serverDate`. The
 * header is truncated to the second, so the venue's real time lies in [serverDate, serverDate + 1 s):
 * the midpoint is the estimate, and the extra half second is forgiven by `excessive`.
 */
export function measureClockSkew(serverDate: Date, localNow: number): number {
  return Math.round(localNow - (serverDate.getTime() + 500));
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
   * Call after a response arrived, with the transport's latest `Date` header. Only the first call
   * with a date counts; later ones return that first reading.
   */
  observe(serverDate: Date | undefined): ClockSkewReading | undefined {
    if (this.reading !== undefined || serverDate === undefined) return this.reading;
    const skewMs = measureClockSkew(serverDate, this.clock());
    const excessive = Math.abs(skewMs) > this.thresholdMs + 500;
    this.reading = { skewMs, excessive };
    if (excessive) {
      const direction = skewMs > 0 ? "ahead of" : "behind";
      this.warn(
        `the local clock is ${(Math.abs(skewMs) / 1000).toFixed(1)} s ${direction} the venue's (Date header); ` +
          "nonces and expiresAfter are local times, so the venue may refuse or expire actions early. " +
          "Synchronise the clock (NTP).",
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

  constructor(
    /** The Date header of the latest response (HttpTransport.lastServerDate). */
    private readonly source: () => Date | undefined,
    private readonly local: () => number = Date.now,
  ) {}

  /** Call when a response has arrived: measures venue − local from its Date header. */
  sample(): void {
    const t = this.source()?.getTime();
    if (t === undefined || Number.isNaN(t)) return;
    this.offsetMs = t - this.local();
  }

  /** The venue's time now (ms), or undefined before any response carried a Date header. */
  now(): number | undefined {
    return this.offsetMs === undefined ? undefined : this.local() + this.offsetMs;
  }

  /** local − venue in ms (positive: the local clock is ahead), once known. */
  get skewMs(): number | undefined {
    return this.offsetMs === undefined ? undefined : -this.offsetMs;
  }
}
