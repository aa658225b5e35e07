import { describe, expect, it } from "vitest";
import { FaultInjector } from "../../src/simulator/faults.js";
import { RateLimiter } from "../../src/simulator/ratelimit.js";

describe("RateLimiter", () => {
  it("allows the capacity per window, refuses beyond, and refills with the clock", () => {
    const rl = new RateLimiter({ capacity: 100, windowMs: 60_000 });
    let t = 0;
    let granted = 0;
    while (rl.take("ip", 20, t)) granted++;
    expect(granted).toBe(5);
    expect(rl.take("ip", 20, t)).toBe(false);
    expect(rl.take("other-ip", 20, t)).toBe(true);
    t += 12_000; // refills 20
    expect(rl.take("ip", 20, t)).toBe(true);
    expect(rl.take("ip", 1, t)).toBe(false);
    rl.charge("ip", 10, t);
    expect(rl.remaining("ip", t)).toBeCloseTo(-10);
    rl.configure(false);
    expect(rl.take("ip", 10_000, t)).toBe(true);
  });
});

describe("FaultInjector", () => {
  it("is deterministic per seed and endpoint, and matches the configured rates", () => {
    const cfg = { info: { serverErrorRate: 0.2, dropRate: 0.1, latencyMs: [10, 30] as [number, number] } };
    const a = new FaultInjector(11, cfg);
    const b = new FaultInjector(11, cfg);
    const seqA = Array.from({ length: 2000 }, () => a.decide("info"));
    const seqB = Array.from({ length: 2000 }, () => b.decide("info"));
    expect(seqA).toEqual(seqB);
    const rate = (k: "serverError" | "drop" | "nonJson") => seqA.filter((d) => d[k]).length / seqA.length;
    expect(rate("serverError")).toBeGreaterThan(0.16);
    expect(rate("serverError")).toBeLessThan(0.24);
    expect(rate("drop")).toBeGreaterThan(0.07);
    expect(rate("drop")).toBeLessThan(0.13);
    expect(rate("nonJson")).toBe(0);
    expect(Math.min(...seqA.map((d) => d.latencyMs))).toBeGreaterThanOrEqual(10);
    expect(Math.max(...seqA.map((d) => d.latencyMs))).toBeLessThanOrEqual(30);
    // Other endpoints are untouched.
    expect(a.decide("exchange")).toEqual({
      serverError: false,
      rateLimit: false,
      latencyMs: 0,
      drop: false,
      nonJson: false,
      badSchema: false,
    });
  });

  it("applies `all` under per-endpoint knobs and can be changed at run time", () => {
    const f = new FaultInjector(1, { all: { rateLimitRate: 1 }, explorer: { rateLimitRate: 0 } });
    expect(f.decide("info").rateLimit).toBe(true);
    expect(f.decide("exchange").rateLimit).toBe(true);
    expect(f.decide("explorer").rateLimit).toBe(false);
    f.set({});
    expect(f.decide("info").rateLimit).toBe(false);
  });
});
