// Clock steps, skew against the venue, and a stalled scheduler (issue #17 item 15). The daemon's cron
// ticks follow the wall clock (node-cron arms a timer for "next slot − now"): when the wall clock steps
// back, node-cron's next slot lies that far in the future and no tick comes until the clock has caught
// up again; when it steps forward, every slot in between is reported missed. Timers and
// performance.now() follow the monotonic clock, which does not step, so comparing how far each clock
// moved between two checks shows a step. The venue's clock (VenueClock, from each answer's Date header)
// is compared on every check too, not only at start; a skew is logged once per episode.
import type { Logger } from "pino";
import {
  DEFAULT_CLOCK_SKEW_THRESHOLD_MS,
  type SkewBounds,
  skewEstimate,
  skewExcessive,
  skewText,
} from "../venue/clockSkew.js";

/** A wall-clock step larger than this between two checks is reported. */
export const DEFAULT_STEP_THRESHOLD_MS = 10_000;
export const DEFAULT_CLOCK_CHECK_INTERVAL_MS = 60_000;

export interface ClockWatchOptions {
  logger: Pick<Logger, "warn" | "info">;
  /** Wall clock (default Date.now). */
  wall?: () => number;
  /** Monotonic clock in ms (default performance.now). */
  mono?: () => number;
  /** local − venue as the latest answer's Date header and round trip tell (VenueClock.skew), once known. */
  venueSkew?: () => SkewBounds | undefined;
  /** How often the clocks are compared (default one minute). */
  intervalMs?: number;
  stepThresholdMs?: number;
  skewThresholdMs?: number;
  /** The scheduler counts as stalled when it has not run for this long (default 3 × intervalMs). */
  staleAfterMs?: number;
  /**
   * When (monoNow) the daemon's current work (a cycle, a watch) began, while one runs: one running longer
   * than `stuckAfterMs` (default 15 min) makes the scheduler stuck (its reads and sends have timeouts;
   * without this, the check's own beat kept /live at 200 behind a cycle that never returned: a review).
   */
  busySince?: () => number | undefined;
  stuckAfterMs?: number;
  /** A step of the wall clock beyond the threshold (negative: back; `resumeAt` when cron ticks come again). */
  onStep?: (stepMs: number, resumeAt: number | undefined) => void;
  /**
   * The wall clock has caught up after a step back (put right, or reached the old time): cron's timers,
   * armed on the monotonic clock while it was behind, are to be armed anew.
   */
  onRearm?: () => void;
  /**
   * After each check, with the wall time it read and whether the process itself did not run for more
   * than a check interval (frozen, suspended): the daemon looks for cron ticks that never came.
   */
  onCheck?: (wall: number, paused: boolean) => void;
}

export const DEFAULT_STUCK_AFTER_MS = 15 * 60_000;

export type SchedulerHealth = { ok: true } | { ok: false; reason: string };

const seconds = (ms: number) => `${(Math.abs(ms) / 1000).toFixed(1)} s`;

export class ClockWatch {
  private readonly logger: Pick<Logger, "warn" | "info">;
  private readonly wall: () => number;
  private readonly mono: () => number;
  private readonly venueSkew: () => SkewBounds | undefined;
  private readonly intervalMs: number;
  private readonly stepThresholdMs: number;
  private readonly skewThresholdMs: number;
  private readonly staleAfterMs: number;
  private readonly busySince: () => number | undefined;
  private readonly stuckAfterMs: number;
  private readonly onStep: ((stepMs: number, resumeAt: number | undefined) => void) | undefined;
  private readonly onRearm: (() => void) | undefined;
  private readonly onCheck: ((wall: number, paused: boolean) => void) | undefined;
  private lastWall: number;
  private lastMono: number;
  private lastBeat: number;
  private skewed = false;
  /** After a step back: the wall time at which cron ticks come again. */
  private stalledUntil: number | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(o: ClockWatchOptions) {
    this.logger = o.logger;
    this.wall = o.wall ?? Date.now;
    this.mono = o.mono ?? (() => performance.now());
    this.venueSkew = o.venueSkew ?? (() => undefined);
    this.intervalMs = o.intervalMs ?? DEFAULT_CLOCK_CHECK_INTERVAL_MS;
    this.stepThresholdMs = o.stepThresholdMs ?? DEFAULT_STEP_THRESHOLD_MS;
    this.skewThresholdMs = o.skewThresholdMs ?? DEFAULT_CLOCK_SKEW_THRESHOLD_MS;
    this.staleAfterMs = o.staleAfterMs ?? 3 * this.intervalMs;
    this.busySince = o.busySince ?? (() => undefined);
    this.stuckAfterMs = o.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS;
    this.onStep = o.onStep;
    this.onRearm = o.onRearm;
    this.onCheck = o.onCheck;
    this.lastWall = this.wall();
    this.lastMono = this.mono();
    this.lastBeat = this.lastMono;
  }

  /** Checks every `intervalMs` until stopped. */
  start(): void {
    this.lastWall = this.wall();
    this.lastMono = this.mono();
    this.beat();
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The wall clock (the one cron follows). */
  wallNow(): number {
    return this.wall();
  }

  /** The monotonic clock (for `busySince`). */
  monoNow(): number {
    return this.mono();
  }

  /** The scheduler ran (a cron tick, a watch, a check). */
  beat(): void {
    this.lastBeat = this.mono();
  }

  /** Compares the wall clock with the monotonic clock and with the venue's. */
  check(): void {
    const wall = this.wall();
    const mono = this.mono();
    this.beat();
    const stepMs = wall - this.lastWall - (mono - this.lastMono);
    // This check came more than an interval late: the process did not run (SIGSTOP, a frozen VM).
    const paused = mono - this.lastMono > 2 * this.intervalMs;
    this.lastWall = wall;
    this.lastMono = mono;
    if (stepMs < -this.stepThresholdMs) {
      this.stalledUntil = Math.max(this.stalledUntil ?? 0, wall - stepMs);
      this.logger.warn(
        { stepMs, resumeAt: new Date(this.stalledUntil).toISOString() },
        `the wall clock stepped back ${seconds(stepMs)}: scheduled runs do not come until it reaches ` +
          `${new Date(this.stalledUntil).toISOString()} again; /health reports unhealthy until then ` +
          "(restart hlbot to schedule from the new time at once)",
      );
      this.onStep?.(stepMs, this.stalledUntil);
    } else if (stepMs > this.stepThresholdMs) {
      this.logger.warn(
        { stepMs },
        `the wall clock stepped forward ${seconds(stepMs)}: the slots skipped over count as missed ` +
          "(one line per strategy) and are caught up within the catch-up window",
      );
      this.onStep?.(stepMs, undefined);
    }
    if (this.stalledUntil !== undefined && wall >= this.stalledUntil) {
      this.stalledUntil = undefined;
      this.logger.info("the wall clock has caught up after stepping back: scheduled runs come again");
      // A timer cron armed while the clock was behind waits the whole step on the monotonic clock, also
      // once the clock is put right: a daemon whose clock was set back an hour and corrected two minutes
      // later ran nothing for 58 minutes, healthy all along (a long-running operator's trial).
      this.onRearm?.();
    }
    this.checkSkew();
    this.onCheck?.(wall, paused);
  }

  private checkSkew(): void {
    const bounds = this.venueSkew();
    if (bounds === undefined) return;
    // The Date header is truncated to the second and was written somewhere within the answer's round
    // trip: only a skew that every reading of it allows is one (a slow answer is not a skewed clock).
    const skewMs = skewEstimate(bounds);
    const excessive = skewExcessive(bounds, this.skewThresholdMs);
    if (excessive && !this.skewed) {
      this.logger.warn(
        { skewMs },
        `the local clock is ${skewText(skewMs)} the venue's (Date ` +
          "header): expiry is judged by the venue's clock and nonces too far from it are refused; " +
          "synchronise the clock (NTP). Said once until the clocks agree again.",
      );
    } else if (!excessive && this.skewed) {
      this.logger.info({ skewMs }, "the local clock agrees with the venue's again");
    }
    this.skewed = excessive;
  }

  /** Unhealthy when the scheduler has not run for too long, or while a step back stalls cron ticks. */
  health(): SchedulerHealth {
    const since = this.busySince();
    if (since !== undefined && this.mono() - since > this.stuckAfterMs)
      return {
        ok: false,
        reason: `scheduler stuck: its current cycle has run for ${seconds(this.mono() - since)} (bound ${seconds(this.stuckAfterMs)})`,
      };
    const idleMs = this.mono() - this.lastBeat;
    if (idleMs > this.staleAfterMs)
      return {
        ok: false,
        reason: `scheduler stalled: it last ran ${seconds(idleMs)} ago (bound ${seconds(this.staleAfterMs)})`,
      };
    if (this.stalledUntil !== undefined && this.wall() < this.stalledUntil)
      return {
        ok: false,
        reason:
          "the wall clock stepped back: scheduled runs do not come until it reaches " +
          `${new Date(this.stalledUntil).toISOString()} again (restart hlbot to schedule from now)`,
      };
    return { ok: true };
  }
}
