// The per-IP weight budget of the REST API: 1200 weight per minute by default, as a
// token bucket that refills continuously with the simulator's clock (virtual time included). A request
// is refused with 429 when the bucket holds less than its base weight; per-item surcharges, known only
// once the answer is built, are charged afterwards and may take the bucket below zero.

export interface RateLimitConfig {
  /** Weight available per window. */
  capacity: number;
  /** Window length in ms over which `capacity` refills. */
  windowMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private config: RateLimitConfig | false) {}

  get enabled(): boolean {
    return this.config !== false;
  }

  configure(config: RateLimitConfig | false): void {
    this.config = config;
    this.buckets.clear();
  }

  private bucket(key: string, now: number): Bucket | undefined {
    const cfg = this.config;
    if (cfg === false) return undefined;
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: cfg.capacity, at: now };
      this.buckets.set(key, b);
    } else if (now > b.at) {
      b.tokens = Math.min(cfg.capacity, b.tokens + ((now - b.at) * cfg.capacity) / cfg.windowMs);
      b.at = now;
    }
    return b;
  }

  /** Takes `weight` from `key`'s budget; false (and nothing taken) when the budget is short. */
  take(key: string, weight: number, now: number): boolean {
    const b = this.bucket(key, now);
    if (b === undefined) return true;
    if (b.tokens < weight) return false;
    b.tokens -= weight;
    return true;
  }

  /** Charges extra weight after the fact (per-item surcharges). */
  charge(key: string, weight: number, now: number): void {
    const b = this.bucket(key, now);
    if (b !== undefined) b.tokens -= weight;
  }

  /** Remaining weight for `key` at `now` (Infinity when disabled). */
  remaining(key: string, now: number): number {
    const b = this.bucket(key, now);
    return b === undefined ? Number.POSITIVE_INFINITY : b.tokens;
  }
}
