// Retry policy for venue reads: which failures are worth repeating (decided from error classes, in one
// place), how long to wait between attempts (exponential backoff with jitter, or the server's own
// Retry-After), and an abortable sleep. Writes never come through here: the exchange layer decides.
import { NetworkError, VenueError } from "../../lib/errors.js";

export interface RetryPolicy {
  /** Total attempts including the first one. 1 disables retries. */
  attempts: number;
  /** Delay before the second attempt; doubles for each further attempt. */
  baseDelayMs: number;
  /** Cap of the exponential delay (not of Retry-After). */
  maxDelayMs: number;
  /**
   * Fraction (0..1) of each delay that is randomised downwards: the delay is drawn from
   * [d·(1 − jitter), d]. Below 0.5 the delays strictly grow from one attempt to the next.
   */
  jitter: number;
  /** A Retry-After longer than this is not waited for: the error is thrown to the caller instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  attempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: 0.25,
  maxRetryAfterMs: 60_000,
};

export function resolveRetryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    throw new RangeError(`retry.attempts must be an integer >= 1, got ${policy.attempts}`);
  if (!(policy.jitter >= 0 && policy.jitter <= 1))
    throw new RangeError(`retry.jitter must be within 0..1, got ${policy.jitter}`);
  if (!(policy.baseDelayMs >= 0) || !(policy.maxDelayMs >= 0) || !(policy.maxRetryAfterMs >= 0))
    throw new RangeError("retry delays must be non-negative");
  return policy;
}

/** The one place that decides whether a failed read may be sent again. */
export function shouldRetry(err: unknown): boolean {
  return err instanceof VenueError && err.retryable;
}

/** Backoff before attempt `attempt + 1` (attempt counts from 1), with downward jitter. */
export function backoffDelayMs(
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs" | "jitter">,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential * (1 - policy.jitter * random()));
}

/**
 * Delay before retrying after `err`, or `undefined` when the server asked for a longer pause than the
 * policy accepts. A server-given Retry-After wins over the computed backoff (it knows its own window).
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  err: unknown,
  random?: () => number,
): number | undefined {
  const retryAfter = (err as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof retryAfter === "number") {
    return retryAfter > policy.maxRetryAfterMs ? undefined : retryAfter;
  }
  return backoffDelayMs(policy, attempt, random);
}

/**
 * Runs `fn` (given the attempt number, from 1) until it resolves, it throws something `retryable`
 * refuses, `attempts` are used up, or `delayMs` gives no delay (undefined: do not wait, give up); the
 * last error is thrown. Between attempts it calls `onRetry` and waits, abortably. The one retry loop
 * for reads: the callers decide what is retryable, from error classes, and how long to wait.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  o: {
    attempts: number;
    retryable: (err: unknown) => boolean;
    delayMs: (attempt: number, err: unknown) => number | undefined;
    onRetry?: (attempt: number, delayMs: number, err: unknown) => void;
    signal?: AbortSignal;
    /** How to wait between attempts (default: real time, abortable). */
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (!o.retryable(err) || attempt >= o.attempts) throw err;
      const delayMs = o.delayMs(attempt, err);
      if (delayMs === undefined) throw err;
      o.onRetry?.(attempt, delayMs, err);
      await (o.sleep ?? sleep)(delayMs, o.signal);
    }
  }
}

/**
 * Parses a Retry-After header: delta-seconds or an HTTP date (relative to `now`). Returns milliseconds,
 * or undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Waits `ms` with the global setTimeout looked up at call time (so fake timers control it). Rejects with
 * NetworkError("aborted") when `signal` fires.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function abortedError(signal: AbortSignal | undefined, url?: string): NetworkError {
  return new NetworkError("aborted", "request aborted by the caller", { url }, { cause: signal?.reason });
}
