import { describe, expect, it } from "vitest";
import { CronSchedule, validateCron } from "../../src/engine/schedule.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");

describe("cron schedules in virtual time", () => {
  it("finds the next occurrence strictly after an instant", () => {
    const every15 = new CronSchedule("*/15 * * * *");
    expect(new Date(every15.next(T0)!).toISOString()).toBe("2026-01-01T00:15:00.000Z");
    expect(new Date(every15.next(T0 + 1)!).toISOString()).toBe("2026-01-01T00:15:00.000Z");
    const daily = new CronSchedule("30 12 * * *");
    expect(new Date(daily.next(T0)!).toISOString()).toBe("2026-01-01T12:30:00.000Z");
    expect(new Date(daily.next(Date.parse("2026-01-01T12:30:00Z"))!).toISOString()).toBe(
      "2026-01-02T12:30:00.000Z",
    );
  });

  it("supports a seconds field", () => {
    const s = new CronSchedule("*/20 * * * * *");
    expect(new Date(s.next(T0)!).toISOString()).toBe("2026-01-01T00:00:20.000Z");
  });

  it("rejects impossible and malformed expressions with the field name", () => {
    expect(() => validateCron("0 0 31 2 *")).toThrow(/schedule: invalid cron expression/);
    expect(() => validateCron("61 * * * *")).toThrow(/schedule/);
    expect(() => validateCron("every day")).toThrow(/schedule/);
  });
});
