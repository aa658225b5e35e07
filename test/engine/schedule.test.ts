import { describe, expect, it } from "vitest";
import {
  CronSchedule,
  parseDuration,
  rewoundSlotState,
  scheduleWarnings,
  slotVerdict,
  validateCron,
} from "../../src/engine/schedule.js";

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
    expect(() => validateCron("abc * * * *")).toThrow(/minute: abc is not a valid minute/);
  });
});

describe("the UTC fast path agrees with node-cron's matcher", () => {
  it.each([
    "*/15 * * * *",
    "0 * * * *",
    "30 8 * * 1-5",
    "15 */6 * * *",
    "0 6 1,15 * *",
    "5,35 9-17 * * *",
    "*/20 * * * * *",
    "10 */30 * * * 0",
  ])("%s", (expression) => {
    const fast = new CronSchedule(expression);
    // The same expression in a zone without DST but not named UTC takes the plain minute-by-minute scan.
    const slow = new CronSchedule(expression, "Etc/GMT");
    let a = T0;
    let b = T0;
    for (let i = 0; i < 6; i++) {
      a = fast.next(a)!;
      b = slow.next(b)!;
      expect(new Date(a).toISOString()).toBe(new Date(b).toISOString());
    }
  });
});

describe("the next-slot answer is remembered between slots", () => {
  it("answers any sequence of questions as a schedule asked each question fresh", () => {
    const start = Date.UTC(2025, 2, 30, 22, 0, 0);
    for (const expression of ["0 */6 * * *", "*/20 * * * * *", "30 8 * * 1", "0 0 1 * *"]) {
      const reused = new CronSchedule(expression);
      // Forwards in small steps (the scheduler's pattern), then back and forth.
      const afters = [
        ...Array.from({ length: 300 }, (_, i) => start + i * 7 * 60_000),
        start + 90 * 86_400_000,
        start,
        start - 1,
        start + 3 * 86_400_000 + 1,
      ];
      for (const after of afters) expect(reused.next(after)).toBe(new CronSchedule(expression).next(after));
    }
  });
});

describe("slot verdicts (pure)", () => {
  const H = 60 * 60_000;
  const daily = new CronSchedule("30 8 * * *");
  const at = (s: string) => Date.parse(s);

  it("a new strategy's slots count from when it was first seen", () => {
    const state = { lastSlot: undefined, firstSeen: at("2026-01-01T11:21:00Z") };
    expect(slotVerdict(daily, state, at("2026-01-01T11:21:00Z"), 2 * H)).toMatchObject({
      due: false,
      missed: 0,
    });
    const v = slotVerdict(daily, state, at("2026-01-02T08:37:00Z"), 2 * H);
    expect(v).toMatchObject({ due: true, slot: at("2026-01-02T08:30:00Z"), missed: 0 });
  });

  it("a slot is caught up while exactly catchUp old, and missed a millisecond later", () => {
    // A mutation audit: the window's edge could move by a millisecond with every test passing.
    const state = { lastSlot: at("2026-01-01T08:30:00Z"), firstSeen: T0 };
    const slot = at("2026-01-02T08:30:00Z");
    expect(slotVerdict(daily, state, slot + 2 * H, 2 * H)).toMatchObject({ due: true, slot, missed: 0 });
    expect(slotVerdict(daily, state, slot + 2 * H + 1, 2 * H)).toMatchObject({
      due: false,
      missed: 1,
      latestMissed: slot,
    });
  });

  it("a slot acted in is not due again; the next one is", () => {
    const state = { lastSlot: at("2026-01-02T08:30:00Z"), firstSeen: T0 };
    expect(slotVerdict(daily, state, at("2026-01-02T11:27:00Z"), 2 * H).due).toBe(false);
    expect(slotVerdict(daily, state, at("2026-01-03T08:30:00Z"), 2 * H)).toMatchObject({ due: true });
  });

  it("a slot settled while the clock ran ahead does not hold the strategy until then (an operator's trial)", () => {
    // The clock read a day (or a year) ahead for a minute: the slots settled then lay in the future, and
    // after the clock was corrected nothing was due until it reached them again, /health still "ok".
    const halfHourly = new CronSchedule("*/30 * * * *");
    const now = at("2026-11-27T14:31:05Z");
    const dayAhead = {
      lastSlot: at("2026-11-28T14:00:00Z"),
      firstSeen: at("2026-11-20T00:00:00Z"),
      lastActed: true,
    };
    // Nothing sent since the latest slot (14:30) began: settled up to the one before, so 14:30 is due.
    expect(rewoundSlotState(halfHourly, dayAhead, now, () => false)).toEqual({
      firstSeen: dayAhead.firstSeen,
      lastSlot: at("2026-11-27T14:00:00Z"),
      lastActed: false,
      lastSchedule: "*/30 * * * *",
    });
    // Something sent in it: 14:30 is acted in; the next one comes. Not known (a pure verdict): the same.
    expect(rewoundSlotState(halfHourly, dayAhead, now, () => true)).toMatchObject({
      lastSlot: at("2026-11-27T14:30:00Z"),
      lastActed: true,
    });
    expect(slotVerdict(halfHourly, dayAhead, now, 2 * H)).toMatchObject({
      due: false,
      next: at("2026-11-27T15:00:00Z"),
    });
    const yearAhead = {
      lastSlot: at("2027-11-27T08:30:00Z"),
      firstSeen: at("2026-10-01T00:00:00Z"),
      lastActed: true,
    };
    const rewound = rewoundSlotState(daily, yearAhead, at("2026-11-28T08:31:00Z"), () => false)!;
    expect(slotVerdict(daily, rewound, at("2026-11-28T08:31:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-11-28T08:30:00Z"),
      missed: 0,
    });
    // Settled under another expression than today's (edited since): measured under the one it was settled
    // under, as the change rule wants.
    const edited = { ...yearAhead, lastSchedule: "30 8 * * *" };
    expect(
      rewoundSlotState(new CronSchedule("0 9 * * *"), edited, at("2026-11-28T09:05:00Z"), () => true),
    ).toMatchObject({
      lastSlot: at("2026-11-28T08:30:00Z"),
      lastActed: true,
      lastSchedule: "30 8 * * *",
    });
    // First seen while the clock ran ahead: its slots count from now.
    const seenAhead = { lastSlot: undefined, firstSeen: at("2027-01-01T00:00:00Z") };
    expect(slotVerdict(daily, seenAhead, at("2026-11-28T08:31:00Z"), 2 * H)).toMatchObject({ due: false });
    // Not ahead: nothing to bring back.
    expect(
      rewoundSlotState(
        daily,
        { lastSlot: at("2026-11-28T08:30:00Z"), firstSeen: T0 },
        at("2026-11-28T08:31:00Z"),
      ),
    ).toBeUndefined();
  });

  it("catches up only the latest slot within the window; older ones are missed", () => {
    const state = { lastSlot: at("2026-01-02T08:30:00Z"), firstSeen: T0 };
    // Down from the 2nd to the 5th at 09:00: the 5th's slot is caught up, the 3rd's and 4th's missed.
    expect(slotVerdict(daily, state, at("2026-01-05T09:00:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-01-05T08:30:00Z"),
      missed: 2,
    });
    // Back at 11:00: too late for the 5th too.
    expect(slotVerdict(daily, state, at("2026-01-05T11:00:00Z"), 2 * H)).toMatchObject({
      due: false,
      missed: 3,
      latestMissed: at("2026-01-05T08:30:00Z"),
    });
  });

  it("a schedule changed after the strategy acted: the period holding that run is acted in (review of 2026-11-27)", () => {
    // Bought at 08:00 under "0 8 * * *"; at 08:45 the owner moves it to 08:30.
    const acted = { lastSlot: at("2026-01-02T08:00:00Z"), firstSeen: T0, lastActed: true };
    expect(slotVerdict(daily, acted, at("2026-01-02T08:45:00Z"), 2 * H)).toMatchObject({
      due: false,
      missed: 0,
      next: at("2026-01-03T08:30:00Z"),
    });
    expect(slotVerdict(daily, acted, at("2026-01-03T08:31:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-01-03T08:30:00Z"),
      missed: 0,
    });
    // Moved before the day's slot (at 07:00 to 06:30): today's 06:30 is a new period, acted in once.
    const yesterday = { lastSlot: at("2026-01-01T08:00:00Z"), firstSeen: T0, lastActed: true };
    const early = new CronSchedule("30 6 * * *");
    expect(slotVerdict(early, yesterday, at("2026-01-02T07:00:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-01-02T06:30:00Z"),
      missed: 0,
    });
    // A slot reported missed was not acted in: it covers nothing.
    const missed = { lastSlot: at("2026-01-02T08:00:00Z"), firstSeen: T0 };
    expect(slotVerdict(daily, missed, at("2026-01-02T08:45:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-01-02T08:30:00Z"),
    });
    // An unchanged schedule: its last slot is one of its own, nothing is skipped.
    const same = { lastSlot: at("2026-01-02T08:30:00Z"), firstSeen: T0, lastActed: true };
    expect(slotVerdict(daily, same, at("2026-01-03T08:30:00Z"), 2 * H)).toMatchObject({ due: true });
  });

  it("with the old schedule known, the shorter of the two periods bounds it (a review)", () => {
    // A daily DCA bought Friday 08:00, then made weekly on Monday 08:00: Monday's buy is due (3 days
    // is more than half a day, the old period), not taken for Friday's.
    const friday8 = at("2026-01-02T08:00:00Z");
    const weekly = new CronSchedule("0 8 * * 1");
    const daily8 = { lastSlot: friday8, firstSeen: T0, lastActed: true, lastSchedule: "0 8 * * *" };
    expect(slotVerdict(weekly, daily8, at("2026-01-05T08:01:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-01-05T08:00:00Z"),
    });
    // A weekly buy on Monday moved to Tuesday after Monday's: that week is bought.
    const monday8 = at("2026-01-05T08:00:00Z");
    const tuesday = new CronSchedule("0 8 * * 2");
    const weekly8 = { lastSlot: monday8, firstSeen: T0, lastActed: true, lastSchedule: "0 8 * * 1" };
    expect(slotVerdict(tuesday, weekly8, at("2026-01-06T08:01:00Z"), 2 * H)).toMatchObject({ due: false });
    expect(slotVerdict(tuesday, weekly8, at("2026-01-13T08:01:00Z"), 2 * H)).toMatchObject({
      due: true,
      slot: at("2026-01-13T08:00:00Z"),
    });
    // Unchanged (the same expression): nothing is skipped.
    const same = {
      lastSlot: at("2026-01-02T08:30:00Z"),
      firstSeen: T0,
      lastActed: true,
      lastSchedule: "30 8 * * *",
    };
    expect(slotVerdict(daily, same, at("2026-01-03T08:30:00Z"), 2 * H)).toMatchObject({ due: true });
  });

  it("parses durations", () => {
    expect(parseDuration("2h")).toBe(2 * H);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("1.5d")).toBe(36 * H);
    expect(parseDuration("soon")).toBeUndefined();
    // Compound, largest unit first (a bear-market trial's "36h33m" was refused).
    expect(parseDuration("1h30m")).toBe(90 * 60_000);
    expect(parseDuration("1d 12h")).toBe(36 * H);
    for (const bad of ["30m1h", "1h1h", "1w", "2h30", "h", ""])
      expect({ bad, ms: parseDuration(bad) }).toEqual({ bad });
  });
});

describe("schedules that run otherwise than they read (config validate warns)", () => {
  it('a step as long as its field ("*/90" minutes) matches only the first value: the schedule says so', () => {
    const [w] = scheduleWarnings("*/90 * * * *");
    expect(w).toMatch(/^minute "\*\/90": a step of 90 is not shorter than the 60 values of the field/);
    // It does run hourly: the warning's claim, checked against the matcher.
    const s = new CronSchedule("*/90 * * * *");
    expect(s.next(T0)! - T0).toBe(60 * 60_000);
    expect(scheduleWarnings("0 */25 * * *")[0]).toMatch(/^hour "\*\/25"/);
    expect(scheduleWarnings("5,*/60 * * * *")[0]).toMatch(/^minute "\*\/60"/);
    expect(scheduleWarnings("*/30 */6 * * *")).toEqual([]);
    // A step that does not divide the field restarts each hour: "*/45" is :00 and :45.
    expect(scheduleWarnings("*/45 * * * *")).toEqual([
      'minute "*/45": 60 is not a multiple of 45, so the steps restart at 0: it runs at minutes 0 to 45 every 45, then 15 after 45 (not evenly every 45).',
    ]);
    const s45 = new CronSchedule("*/45 * * * *");
    expect(s45.next(T0)! - T0).toBe(45 * 60_000);
    expect(s45.next(T0 + 45 * 60_000)! - T0).toBe(60 * 60_000);
    expect(scheduleWarnings("0 */5 * * *")[0]).toMatch(/^hour "\*\/5": 24 is not a multiple of 5/);
    expect(scheduleWarnings("0 0 */2 * *")).toEqual([]);
    expect(scheduleWarnings("*/70 * * * * *")[0]).toMatch(/^second "\*\/70"/);
  });

  it("a day some months lack (the 31st, Feb 29) is warned of: the schedule runs in fewer months than it names", () => {
    expect(scheduleWarnings("0 0 31 * *")).toEqual([
      expect.stringMatching(
        /^day of month "31": it never runs in Feb, Apr, Jun, Sep, Nov \(no such day\): it runs in 7 month\(s\) a year/,
      ),
    ]);
    // The claim, checked: from 2026-01-31 the next run is 2026-03-31.
    const s = new CronSchedule("0 0 31 * *");
    expect(new Date(s.next(Date.UTC(2026, 0, 31, 1))!).toISOString()).toBe("2026-03-31T00:00:00.000Z");
    expect(scheduleWarnings("0 12 29 2 *")).toEqual([
      expect.stringMatching(
        /^day of month "29": in Feb it runs only in leap years: it runs in 0 or 1 month\(s\) a year/,
      ),
    ]);
    expect(scheduleWarnings("0 0 30 1,3 *")).toEqual([]);
    expect(scheduleWarnings("0 0 1 * *")).toEqual([]);
    expect(scheduleWarnings("0 0 28 * *")).toEqual([]);
    expect(scheduleWarnings("0 0 */2 * *")).toEqual([]);
    expect(scheduleWarnings("30 8 * * *")).toEqual([]);
    // Quick for any expression (it walked the matcher minute by minute: 20 to 45 s, a review).
    const started = performance.now();
    expect(scheduleWarnings("* * 28 * *")).toEqual([]);
    expect(scheduleWarnings("* * 31 * *")[0]).toMatch(/never runs in Feb, Apr, Jun, Sep, Nov/);
    expect(scheduleWarnings("*/30 * * 28 * *")).toEqual([]);
    expect(scheduleWarnings("* * * 31 * *")[0]).toMatch(/never runs in Feb/);
    // "L", the last day of the month, is in every month.
    expect(scheduleWarnings("0 0 L * *")).toEqual([]);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("day of month and weekday both set: runs on days matching both (node-cron), said against crontab's either", () => {
    const [w] = scheduleWarnings("0 0 1-7 * 1");
    expect(w).toMatch(/runs only on days that match both, where crontab runs on days that match either/);
    // The claim, checked: the next runs are first Mondays only.
    const s = new CronSchedule("0 0 1-7 * 1");
    const first = s.next(T0)!;
    expect(new Date(first).toISOString()).toBe("2026-01-05T00:00:00.000Z");
    expect(new Date(s.next(first)!).toISOString()).toBe("2026-02-02T00:00:00.000Z");
    expect(scheduleWarnings("0 0 1 * *")).toEqual([]);
    // A field starting with "*" is unrestricted to crontab as well (it then needs both too).
    expect(scheduleWarnings("0 0 */2 * 1")).toEqual([]);
    expect(scheduleWarnings("0 0 1 * */2")).toEqual([]);
    expect(scheduleWarnings("0 0 * * 1")).toEqual([]);
  });
});
