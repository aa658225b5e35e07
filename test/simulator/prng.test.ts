import { describe, expect, it } from "vitest";
import { Prng, PrngStreams } from "../../src/simulator/prng.js";

describe("Prng", () => {
  it("repeats the same sequence for the same seed and label", () => {
    const a = new Prng(42, "x");
    const b = new Prng(42, "x");
    const seqA = Array.from({ length: 20 }, () => a.next());
    const seqB = Array.from({ length: 20 }, () => b.next());
    expect(seqA).toEqual(seqB);
    const c = new Prng(42, "y");
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
    const d = new Prng(43, "x");
    expect(Array.from({ length: 20 }, () => d.next())).not.toEqual(seqA);
  });

  it("draws uniform values in range and normals with mean 0 and variance 1", () => {
    const r = new Prng(7);
    let sum = 0;
    let sq = 0;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const u = r.uniform(10, 50);
      lo = Math.min(lo, u);
      hi = Math.max(hi, u);
      const z = r.normal();
      sum += z;
      sq += z * z;
    }
    expect(lo).toBeGreaterThanOrEqual(10);
    expect(hi).toBeLessThan(50);
    expect(hi - lo).toBeGreaterThan(39);
    expect(Math.abs(sum / n)).toBeLessThan(0.05);
    expect(Math.abs(sq / n - 1)).toBeLessThan(0.05);
    const ints = new Set(Array.from({ length: 200 }, () => r.int(1, 3)));
    expect([...ints].sort()).toEqual([1, 2, 3]);
  });

  it("keeps streams independent: drawing from one does not shift another", () => {
    const s1 = new PrngStreams(5);
    const s2 = new PrngStreams(5);
    s1.stream("faults").next();
    s1.stream("faults").next();
    expect(s1.stream("prices").next()).toBe(s2.stream("prices").next());
  });
});
