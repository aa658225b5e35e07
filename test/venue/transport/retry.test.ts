import sinon from "sinon";
import { describe, expect, it } from "vitest";
import { NetworkError, RateLimitError, ServerError, UnprocessableError } from "../../../src/lib/errors.js";
import {
  backoffDelayMs,
  parseRetryAfter,
  resolveRetryPolicy,
  retryDelayMs,
  shouldRetry,
  withRetry,
} from "../../../src/venue/transport/retry.js";
import {
  exchangeWeight,
  historyExtraWeight,
  infoRequestWeight,
} from "../../../src/venue/transport/weights.js";

describe("retry policy", () => {
  it("retries rate limits, server errors and network failures, but not aborts or 422", () => {
    expect(shouldRetry(new RateLimitError())).toBe(true);
    expect(shouldRetry(new ServerError(500, ""))).toBe(true);
    expect(shouldRetry(new NetworkError("reset", "x"))).toBe(true);
    expect(shouldRetry(new NetworkError("timeout", "x"))).toBe(true);
    expect(shouldRetry(new NetworkError("aborted", "x"))).toBe(false);
    expect(shouldRetry(new UnprocessableError("bad"))).toBe(false);
    expect(shouldRetry(new Error("plain"))).toBe(false);
  });

  it("doubles the delay up to the cap, jitter only shortening it", () => {
    const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, jitter: 0.5 });
    expect([1, 2, 3, 4, 5].map((a) => backoffDelayMs(policy, a, () => 0))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
    expect([1, 2, 3].map((a) => backoffDelayMs(policy, a, () => 0.999999))).toEqual([50, 100, 200]);
  });

  it("prefers Retry-After and refuses one beyond maxRetryAfterMs", () => {
    const policy = resolveRetryPolicy({ maxRetryAfterMs: 5000 });
    expect(retryDelayMs(policy, 1, new RateLimitError({ retryAfterMs: 3000 }))).toBe(3000);
    expect(retryDelayMs(policy, 1, new RateLimitError({ retryAfterMs: 9000 }))).toBeUndefined();
  });

  it("parses Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("2")).toBe(2000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
  });

  it("rejects nonsensical policies", () => {
    expect(() => resolveRetryPolicy({ attempts: 0 })).toThrow(RangeError);
    expect(() => resolveRetryPolicy({ jitter: 2 })).toThrow(RangeError);
  });
});

describe("withRetry", () => {
  it("retries what the caller calls retryable, waiting the delays it gives, and throws the last error", async () => {
    const clock = sinon.useFakeTimers();
    try {
      const seen: Array<[number, number]> = [];
      let calls = 0;
      const run = withRetry(
        async (attempt) => {
          calls++;
          throw new ServerError(503, `down ${attempt}`);
        },
        {
          attempts: 3,
          retryable: shouldRetry,
          delayMs: (attempt) => attempt * 100,
          onRetry: (attempt, delayMs) => seen.push([attempt, delayMs]),
        },
      );
      const settled = run.catch((err: unknown) => err);
      await clock.tickAsync(99);
      expect(calls).toBe(1);
      await clock.tickAsync(1 + 200);
      const err = await settled;
      expect(calls).toBe(3);
      expect(seen).toEqual([
        [1, 100],
        [2, 200],
      ]);
      expect((err as Error).message).toMatch(/down 3/);
    } finally {
      clock.restore();
    }
  });

  it("stops at once on an error that is not retryable, or when no delay is given", async () => {
    let calls = 0;
    const refused = new UnprocessableError("bad request");
    await expect(
      withRetry(
        async () => {
          calls++;
          throw refused;
        },
        { attempts: 5, retryable: shouldRetry, delayMs: () => 0 },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
    const limited = new RateLimitError({ retryAfterMs: 120_000 });
    await expect(
      withRetry(
        async () => {
          calls++;
          throw limited;
        },
        { attempts: 5, retryable: shouldRetry, delayMs: () => undefined },
      ),
    ).rejects.toBe(limited);
    expect(calls).toBe(2);
  });

  it("returns the first success", async () => {
    let calls = 0;
    const value = await withRetry(
      async (attempt) => {
        calls++;
        if (attempt < 2) throw new NetworkError("reset", "connection reset");
        return "ok";
      },
      { attempts: 4, retryable: shouldRetry, delayMs: () => 0 },
    );
    expect(value).toBe("ok");
    expect(calls).toBe(2);
  });
});

describe("request weights", () => {
  it("charges 2, 20, 60 and 40 by query and endpoint", () => {
    expect(infoRequestWeight("allMids")).toBe(2);
    expect(infoRequestWeight("spotClearinghouseState")).toBe(2);
    expect(infoRequestWeight("l2Book")).toBe(2);
    expect(infoRequestWeight("userRole")).toBe(60);
    expect(infoRequestWeight("spotMeta")).toBe(20);
    expect(infoRequestWeight("txDetails", "explorer")).toBe(40);
  });

  it("adds +1 per 20 history items by default, configurable", () => {
    expect([0, 19, 20, 39, 40, 60, 500].map((n) => historyExtraWeight(n))).toEqual([0, 0, 1, 1, 2, 3, 25]);
    expect(historyExtraWeight(60, 1 / 10)).toBe(6);
    expect(historyExtraWeight(60, 0)).toBe(0);
  });

  it("weights /exchange by batch length", () => {
    expect(exchangeWeight()).toBe(1);
    expect(exchangeWeight(79)).toBe(2);
  });
});
