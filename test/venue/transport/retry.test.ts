import { describe, expect, it } from "vitest";
import { NetworkError, RateLimitError, ServerError, UnprocessableError } from "../../../src/lib/errors.js";
import {
  backoffDelayMs,
  parseRetryAfter,
  resolveRetryPolicy,
  retryDelayMs,
  shouldRetry,
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

describe("request weights (reference §6.4)", () => {
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
