import { describe, expect, it } from "vitest";
import { ClockSkewMonitor, measureClockSkew } from "../../src/venue/clockSkew.js";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 700);

describe("clock skew", () => {
  it("measures local − venue from the Date header, taking the middle of its one-second resolution", () => {
    const header = new Date(Date.UTC(2026, 0, 1, 12, 0, 0)); // "12:00:00" covers 12:00:00.000–.999
    expect(measureClockSkew(header, NOW)).toBe(200);
    expect(measureClockSkew(new Date(header.getTime() + 10_000), NOW)).toBe(-9_800);
  });

  it("warns once, on the first response with a Date header, saying which way the clock is off", () => {
    const warnings: string[] = [];
    const monitor = new ClockSkewMonitor({ clock: () => NOW, warn: (m) => warnings.push(m) });
    expect(monitor.observe(undefined)).toBeUndefined();
    const first = monitor.observe(new Date(NOW - 20_700)); // header "11:59:40"
    expect(first).toEqual({ skewMs: 20_200, excessive: true });
    monitor.observe(new Date(NOW + 60_000));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("20.2 s ahead of the venue");
  });

  it("forgives the header's resolution and respects a configured threshold", () => {
    const warnings: string[] = [];
    const quiet = new ClockSkewMonitor({ clock: () => NOW, warn: (m) => warnings.push(m) });
    expect(quiet.observe(new Date(NOW - 5_900))?.excessive).toBe(false);
    const strict = new ClockSkewMonitor({
      clock: () => NOW,
      thresholdMs: 1_000,
      warn: (m) => warnings.push(m),
    });
    expect(strict.observe(new Date(NOW - 2_500))?.excessive).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  it("allows for the round trip: a header written when the request arrived, read 12 s later, is no skew", () => {
    const warnings: string[] = [];
    const sentAt = NOW - 12_000;
    const header = new Date(Math.floor(sentAt / 1000) * 1000); // the venue's clock agrees with ours
    const monitor = new ClockSkewMonitor({ clock: () => NOW, warn: (m) => warnings.push(m) });
    expect(monitor.observe(header, sentAt)?.excessive).toBe(false);
    expect(warnings).toEqual([]);
    // Without the send time the same answer reads as a 12-second skew.
    const naive = new ClockSkewMonitor({ clock: () => NOW, warn: (m) => warnings.push(m) });
    expect(naive.observe(header)?.excessive).toBe(true);
    // A slow answer from a clock 30 s behind is still one.
    const skewed = new ClockSkewMonitor({ clock: () => NOW, warn: (m) => warnings.push(m) });
    expect(skewed.observe(new Date(header.getTime() - 30_000), sentAt)?.excessive).toBe(true);
    expect(warnings.at(-1)).toMatch(/3\d\.\d s ahead of the venue/);
  });
});
