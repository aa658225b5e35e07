import { describe, expect, it } from "vitest";
import { DEFAULT_MESSAGES } from "../../src/simulator/errors.js";
import { NonceTracker } from "../../src/simulator/nonces.js";

const NOW = 1_700_000_000_000;
const DAY = 86_400_000;

function tracker(setSize = 3) {
  return new NonceTracker({ setSize, windowPast: DAY, windowFuture: DAY }, () => DEFAULT_MESSAGES);
}

describe("NonceTracker", () => {
  it("refuses a duplicate with the venue's text", () => {
    const t = tracker();
    expect(t.check("0xa", NOW, NOW)).toEqual({ ok: true });
    t.use("0xa", NOW);
    expect(t.check("0xa", NOW, NOW)).toEqual({ ok: false, error: `Invalid nonce: duplicate nonce ${NOW}` });
    // Per signer: another signer may use the same nonce.
    expect(t.check("0xb", NOW, NOW).ok).toBe(true);
  });

  it("accepts gaps and out-of-order nonces until the set is full, then needs more than its smallest", () => {
    const t = tracker(3);
    for (const n of [NOW + 10, NOW + 5, NOW + 20]) {
      expect(t.check("0xa", n, NOW).ok).toBe(true);
      t.use("0xa", n);
    }
    expect(t.stored("0xa")).toEqual([NOW + 5, NOW + 10, NOW + 20]);
    expect(t.check("0xa", NOW + 1, NOW)).toEqual({
      ok: false,
      error: `Invalid nonce: nonce too low ${NOW + 1} < ${NOW + 5}`,
    });
    expect(t.check("0xa", NOW + 7, NOW).ok).toBe(true);
    t.use("0xa", NOW + 7);
    // The smallest is evicted; the new minimum is NOW+7.
    expect(t.stored("0xa")).toEqual([NOW + 7, NOW + 10, NOW + 20]);
    expect(t.check("0xa", NOW + 6, NOW).ok).toBe(false);
  });

  it("refuses nonces outside the window around the clock; rules can change at run time", () => {
    const t = tracker();
    expect(t.check("0xa", NOW - DAY, NOW).ok).toBe(false);
    expect(t.check("0xa", NOW + DAY, NOW).ok).toBe(false);
    expect(t.check("0xa", NOW - DAY + 1, NOW).ok).toBe(true);
    expect(t.check("0xa", NOW + DAY - 1, NOW).ok).toBe(true);
    t.setRules({ windowPast: 2 * DAY });
    expect(t.check("0xa", NOW - DAY - 5, NOW).ok).toBe(true);
  });
});

describe("the size of the stored set", () => {
  it("stores 20 per address, one more per 1M USDC of volume, at most 100", () => {
    let volume = 0;
    const t = new NonceTracker(
      { setSize: 20, maxSetSize: 100, volumePerExtraNonce: 1_000_000, windowPast: DAY, windowFuture: DAY },
      () => DEFAULT_MESSAGES,
      () => volume,
    );
    expect(t.setSizeFor("0xa")).toBe(20);
    for (let i = 1; i <= 21; i++) t.use("0xa", NOW + i);
    expect(t.stored("0xa")).toHaveLength(20);
    expect(t.check("0xa", NOW + 1, NOW).ok).toBe(false); // evicted: below the smallest of the 20
    volume = 5_999_999;
    expect(t.setSizeFor("0xa")).toBe(25);
    volume = 1e12;
    expect(t.setSizeFor("0xa")).toBe(100);
  });

  it("the simulated venue keeps 20 by default, configurable", async () => {
    const { createSimulator } = await import("../../src/simulator/index.js");
    expect(createSimulator().core.nonces.setSizeFor("0x0000000000000000000000000000000000000001")).toBe(20);
    const sim = createSimulator({ settings: { nonceSetSize: 5, nonceVolumePerExtra: 0 } });
    expect(sim.core.nonces.setSizeFor("0x0000000000000000000000000000000000000001")).toBe(5);
  });
});
