import { afterEach, describe, expect, it } from "vitest";
import { DAY, parseDuration, RealClock, VirtualClock } from "../../src/simulator/clock.js";

describe("VirtualClock", () => {
  it("runs scheduled events in time order, each seeing its own time, and settles at the target", () => {
    const clock = new VirtualClock(1_000);
    const seen: Array<[string, number]> = [];
    clock.schedule(5_000, "b", () => seen.push(["b", clock.now()]));
    clock.schedule(2_000, "a", () => seen.push(["a", clock.now()]));
    clock.schedule(5_000, "c", () => seen.push(["c", clock.now()]));
    clock.advance(3_000);
    expect(seen).toEqual([["a", 2_000]]);
    expect(clock.now()).toBe(4_000);
    clock.advance(10_000);
    // Same instant: insertion order.
    expect(seen).toEqual([
      ["a", 2_000],
      ["b", 5_000],
      ["c", 5_000],
    ]);
    expect(clock.now()).toBe(14_000);
  });

  it("runs events scheduled by events, cancels, and never goes backwards", () => {
    const clock = new VirtualClock(0);
    const times: number[] = [];
    const tick = () => {
      times.push(clock.now());
      if (times.length < 5) clock.schedule(clock.now() + 30_000, "tick", tick);
    };
    clock.schedule(30_000, "tick", tick);
    const cancelled = clock.schedule(45_000, "never", () => times.push(-1));
    clock.cancel(cancelled);
    clock.advance(DAY);
    expect(times).toEqual([30_000, 60_000, 90_000, 120_000, 150_000]);
    expect(() => clock.advanceTo(10)).toThrow(/backwards/);
    expect(() => clock.advance(-1)).toThrow();
  });

  it("runs something scheduled in the past at the current time, not before it", () => {
    const clock = new VirtualClock(10_000);
    let at = 0;
    clock.schedule(5_000, "late", () => {
      at = clock.now();
    });
    clock.advance(0);
    expect(at).toBe(10_000);
  });

  it("advances a week of 30-second events quickly", () => {
    const clock = new VirtualClock(0);
    let n = 0;
    const step = () => {
      n++;
      clock.schedule(clock.now() + 30_000, "step", step);
    };
    clock.schedule(30_000, "step", step);
    const started = performance.now();
    clock.advance(7 * DAY);
    expect(n).toBe((7 * DAY) / 30_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("sleep resolves when the clock passes it; advanceAsync lets continuations schedule more", async () => {
    const clock = new VirtualClock(0);
    const log: number[] = [];
    const loop = async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(1_000);
        log.push(clock.now());
      }
    };
    const done = loop();
    await clock.advanceAsync(5_000);
    await done;
    expect(log).toEqual([1_000, 2_000, 3_000]);
    expect(clock.now()).toBe(5_000);
  });
});

describe("RealClock", () => {
  let clock: RealClock | undefined;
  afterEach(() => clock?.close());

  it("fires due events from a timer and on runDue, with the event's own time", async () => {
    clock = new RealClock();
    const c = clock;
    const start = c.now();
    const seen: number[] = [];
    c.schedule(start + 20, "soon", () => seen.push(c.now()));
    await new Promise((r) => setTimeout(r, 80));
    expect(seen).toEqual([start + 20]);
    c.schedule(start - 5, "past", () => seen.push(c.now()));
    c.runDue();
    expect(seen.length).toBe(2);
    expect(seen[1]).toBeGreaterThanOrEqual(start);
  });
});

describe("parseDuration", () => {
  it("reads units and plain milliseconds", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("5m")).toBe(300_000);
    expect(parseDuration("1h")).toBe(3_600_000);
    expect(parseDuration("7d")).toBe(7 * DAY);
    expect(parseDuration("1.5s")).toBe(1_500);
    expect(parseDuration(250)).toBe(250);
    expect(() => parseDuration("soon")).toThrow(/duration/);
    expect(() => parseDuration(-1)).toThrow();
    expect(parseDuration("36h33m")).toBe(36 * 3_600_000 + 33 * 60_000);
    expect(parseDuration("1d8h")).toBe(DAY + 8 * 3_600_000);
    expect(parseDuration("1m30s250ms")).toBe(90_250);
    expect(() => parseDuration("8h1d")).toThrow(/duration like .*"1d8h"/);
  });
});
