// Client-side IP weight budget, so hlbot never causes its own 429s. The venue allows 1200 weight per
// minute per IP. This is a sliding-window log: a request may start only if the weight spent in the last
// `windowMs` plus its own stays within `capacity`, so no window of that length ever exceeds the
// capacity (a token bucket would allow a full burst plus a full refill within one minute). Callers wait
// (FIFO) rather than fail. Waiting uses the global setTimeout and Date.now, so fake timers drive it.
import { abortedError } from "./retry.js";

export const DEFAULT_BUDGET_CAPACITY = 1200;
export const DEFAULT_BUDGET_WINDOW_MS = 60_000;

interface Spend {
  at: number;
  weight: number;
}

interface Waiter {
  weight: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** Date.now() when it started waiting. */
  since: number;
}

export interface WeightBudgetOptions {
  capacity?: number;
  windowMs?: number;
  /** Called when a caller that had to wait is admitted, with how long it waited (ms); for metrics. */
  onWait?: (waitedMs: number) => void;
}

export class WeightBudget {
  readonly capacity: number;
  readonly windowMs: number;
  private readonly spends: Spend[] = [];
  private readonly waiters: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onWait: ((waitedMs: number) => void) | undefined;

  constructor(opts: WeightBudgetOptions = {}) {
    this.onWait = opts.onWait;
    this.capacity = opts.capacity ?? DEFAULT_BUDGET_CAPACITY;
    this.windowMs = opts.windowMs ?? DEFAULT_BUDGET_WINDOW_MS;
    if (!(this.capacity > 0)) throw new RangeError(`budget capacity must be > 0, got ${this.capacity}`);
    if (!(this.windowMs > 0)) throw new RangeError(`budget windowMs must be > 0, got ${this.windowMs}`);
  }

  /**
   * Resolves once `weight` fits in the window, and records it as spent. A weight above the capacity is
   * treated as the full capacity (it could otherwise never start). Rejects with NetworkError("aborted")
   * if `signal` fires while waiting; nothing is spent then.
   */
  acquire(weight: number, signal?: AbortSignal): Promise<void> {
    try {
      checkWeight(weight);
    } catch (err) {
      return Promise.reject(err);
    }
    if (signal?.aborted) return Promise.reject(abortedError(signal));
    const effective = Math.min(weight, this.capacity);
    if (this.waiters.length === 0 && this.used() + effective <= this.capacity) {
      this.record(effective);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        weight: effective,
        resolve,
        reject,
        signal,
        onAbort: undefined,
        since: Date.now(),
      };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(abortedError(signal));
          this.pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /** Records weight already spent (per-item surcharges known only after a response). Never waits. */
  charge(weight: number): void {
    checkWeight(weight);
    if (weight === 0) return;
    this.record(weight);
  }

  /** Weight spent within the current window. */
  used(): number {
    this.prune(Date.now());
    let total = 0;
    for (const s of this.spends) total += s.weight;
    return total;
  }

  /** Number of callers currently waiting for budget. */
  waiting(): number {
    return this.waiters.length;
  }

  private reportWait(ms: number): void {
    try {
      this.onWait?.(ms);
    } catch {
      // An observer must not stop the queue.
    }
  }

  private record(weight: number): void {
    this.spends.push({ at: Date.now(), weight });
  }

  private prune(now: number): void {
    while (this.spends.length > 0 && now - this.spends[0]!.at >= this.windowMs) this.spends.shift();
  }

  /** Admits waiters in order while they fit, then sleeps until the head can fit. */
  private pump(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    let head = this.waiters[0];
    while (head && this.used() + head.weight <= this.capacity) {
      this.waiters.shift();
      if (head.signal && head.onAbort) head.signal.removeEventListener("abort", head.onAbort);
      this.record(head.weight);
      head.resolve();
      this.reportWait(Date.now() - head.since);
      head = this.waiters[0];
    }
    if (!head) return;
    const now = Date.now();
    // Find the moment enough old spends leave the window for the head to fit.
    let freed = 0;
    const excess = this.used() + head.weight - this.capacity;
    let wakeAt = now;
    for (const s of this.spends) {
      freed += s.weight;
      wakeAt = s.at + this.windowMs;
      if (freed >= excess) break;
    }
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(1, wakeAt - now),
    );
  }
}

function checkWeight(weight: number): void {
  if (!Number.isFinite(weight) || weight < 0)
    throw new RangeError(`weight must be a finite number >= 0, got ${weight}`);
}
