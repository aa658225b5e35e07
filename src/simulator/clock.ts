// Time for the simulated venue. Every time-dependent rule (TWAP slices, locks, daily rewards, the
// withdrawal queue, nonce windows, expiry, rate-limit windows) reads `now()` and schedules work with
// `schedule()`, so the same code runs in real time (standalone `hlbot venue`) and in virtual time (tests,
// `hlbot simulate`), where time only moves when the caller advances it and days pass in milliseconds
// because only scheduled events are visited, in time order.
import { durationText } from "../lib/duration.js";
import { InternalError, ValidationError } from "../lib/errors.js";

export interface ScheduledEvent {
  readonly at: number;
  readonly label: string;
  /** Insertion order: events due at the same instant run in the order they were scheduled. */
  readonly seq: number;
  cancelled: boolean;
}

interface QueuedEvent extends ScheduledEvent {
  run: () => void;
}

/** A binary min-heap of events ordered by (at, seq). */
class EventHeap {
  private items: QueuedEvent[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): QueuedEvent | undefined {
    return this.items[0];
  }

  push(event: QueuedEvent): void {
    const items = this.items;
    items.push(event);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): QueuedEvent | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && before(items[l]!, items[m]!)) m = l;
      if (r < items.length && before(items[r]!, items[m]!)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
    return top;
  }
}

function before(a: QueuedEvent, b: QueuedEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** What the venue needs from a clock. */
export interface Clock {
  readonly kind: "real" | "virtual";
  /** Current time in unix ms. While a scheduled event runs, this is the event's own time. */
  now(): number;
  /** Runs `run` at time `at` (or as soon as possible if `at` is already past). */
  schedule(at: number, label: string, run: () => void): ScheduledEvent;
  cancel(event: ScheduledEvent): void;
  /** Runs every event that is due at `now()`, in time order. */
  runDue(): void;
  /** Releases timers (real clock). */
  close(): void;
}

abstract class SchedulingClock implements Clock {
  abstract readonly kind: "real" | "virtual";
  protected readonly queue = new EventHeap();
  private seq = 0;
  /** Time of the event being run, so that event handlers see their own time, not the wall clock. */
  protected pinned: number | undefined;
  private running = false;

  abstract now(): number;

  schedule(at: number, label: string, run: () => void): ScheduledEvent {
    if (!Number.isFinite(at)) throw new InternalError(`cannot schedule ${label} at ${at}`);
    // Something due in the past runs at the next opportunity, as of now, never back in time.
    const when = Math.max(Math.floor(at), this.now());
    const event: QueuedEvent = { at: when, label, seq: this.seq++, cancelled: false, run };
    this.queue.push(event);
    this.onScheduled();
    return event;
  }

  cancel(event: ScheduledEvent): void {
    event.cancelled = true;
  }

  /** Time of the next pending (not cancelled) event, if any. */
  nextEventAt(): number | undefined {
    for (;;) {
      const top = this.queue.peek();
      if (top === undefined) return undefined;
      if (!top.cancelled) return top.at;
      this.queue.pop();
    }
  }

  /** Number of pending events (cancelled ones may still be counted until they reach the front). */
  get pendingEvents(): number {
    return this.queue.size;
  }

  runDue(): void {
    this.runUntil(this.now());
  }

  /** Runs, in order, every event due at or before `t`; each sees `now()` equal to its own `at`. */
  protected runUntil(t: number): void {
    // An event handler that triggers runDue() again (an HTTP request served from inside an event in
    // real mode) must not re-enter the loop and run later events before the current one finishes.
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const top = this.queue.peek();
        if (top === undefined || top.at > t) break;
        this.queue.pop();
        if (top.cancelled) continue;
        this.pinned = Math.max(top.at, this.pinned ?? Number.NEGATIVE_INFINITY);
        this.beforeEvent(this.pinned);
        top.run();
      }
    } finally {
      this.pinned = undefined;
      this.running = false;
    }
  }

  protected beforeEvent(_at: number): void {}
  protected onScheduled(): void {}
  close(): void {}
}

/**
 * Time that moves only when told to. `advance(ms)` visits each scheduled event in time order and then
 * settles at the target, so advancing by a week costs one step per event, not per millisecond.
 */
export class VirtualClock extends SchedulingClock {
  readonly kind = "virtual" as const;
  private current: number;

  constructor(startMs = DEFAULT_VIRTUAL_START) {
    super();
    if (!Number.isSafeInteger(startMs) || startMs < 0)
      throw new ValidationError([{ path: "clock.start", message: `invalid start time ${startMs}` }]);
    this.current = startMs;
  }

  now(): number {
    return this.pinned ?? this.current;
  }

  /** Moves time forward by `ms` (≥ 0), running every event that falls due on the way. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new ValidationError([{ path: "ms", message: `cannot advance by ${ms}` }]);
    this.advanceTo(this.current + ms);
  }

  /** Moves time forward to `t` (never backwards), running every event due on the way. */
  advanceTo(t: number): void {
    const target = Math.floor(t);
    if (target < this.current)
      throw new ValidationError([
        { path: "time", message: `cannot move the clock backwards (${target} < ${this.current})` },
      ]);
    this.runUntil(target);
    this.current = target;
  }

  /**
   * Like advance, but yields to the event loop between events so that promise continuations started
   * by an event (a bot awaiting `sleep`) can schedule further events before time moves on.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const next = this.nextEventAt();
      if (next === undefined || next > target) break;
      this.advanceTo(Math.max(next, this.current));
    }
    this.advanceTo(target);
  }

  /** Resolves once the clock has been advanced past `ms` from now. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.schedule(this.now() + Math.max(0, ms), "sleep", resolve);
    });
  }

  protected override beforeEvent(at: number): void {
    this.current = Math.max(this.current, at);
  }
}

/** Wall-clock time. Scheduled events run from a timer, and are also caught up before each request. */
export class RealClock extends SchedulingClock {
  readonly kind = "real" as const;
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  private closed = false;

  now(): number {
    return this.pinned ?? Date.now();
  }

  protected override onScheduled(): void {
    this.arm();
  }

  override runDue(): void {
    super.runDue();
    this.arm();
  }

  private arm(): void {
    if (this.closed) return;
    const next = this.nextEventAt();
    if (next === undefined) return;
    if (this.timer !== undefined && this.timerAt !== undefined && this.timerAt <= next) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = next;
    // Timers are capped near 24.8 days; a far event simply re-arms when the shorter timer fires.
    const delay = Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = undefined;
      this.runDue();
    }, delay);
    this.timer.unref();
  }

  override close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Default start of a virtual clock when the scenario does not say: 2025-01-01T00:00:00Z. */
export const DEFAULT_VIRTUAL_START = Date.UTC(2025, 0, 1);

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The milliseconds of "30s", "5m", "1h", "7d", "250ms", a compound ("1d8h", "2h 30m") or a bare number of ms. */
export function durationMs(text: string): number | undefined {
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(text)) return Math.round(Number(text));
  return durationText(text, ["ms", "s", "m", "h", "d", "w"]);
}

/** Parses a duration as durationMs does, or a number of ms; throws on anything else. */
export function parseDuration(value: string | number, field = "duration"): number {
  if (typeof value === "number") {
    if (Number.isFinite(value) && value >= 0) return Math.floor(value);
  } else {
    const ms = durationMs(value);
    if (ms !== undefined) return ms;
  }
  throw new ValidationError([
    {
      path: field,
      message: `expected a duration like "30s", "5m", "1h", "7d", "1d8h" or ms, got ${JSON.stringify(value)}`,
    },
  ]);
}
