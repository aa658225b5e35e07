// A local clock far from the venue's: strategies hold (schedule.maxClockSkew) instead of acting in slots
// that are not due. A review: 13 h ahead at 20:00, a daily 08:30 DCA bought the next day's run that
// evening, and again the next morning once the clock was corrected.
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass, runDueSlots, Scheduler } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "30 8 * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const placed = (b: TestBot) => b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);

/** A Scheduler as each `once` makes one, with the venue's clock as the cycle reads it. */
const onceScheduler = (b: TestBot, d: Awaited<ReturnType<TestBot["runtime"]["cycleDeps"]>>) =>
  new Scheduler({
    journal: d.journal,
    account: d.account,
    mode: "live",
    strategies: scheduledStrategies(b.runtime.config.strategies),
    ...(d.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: d.maxClockSkewMs }),
    ...(d.venueNow ? { venueNow: d.venueNow } : {}),
  });

describe("a local clock far from the venue's", () => {
  it("holds every strategy as a failed run until corrected: a daily DCA buys once per real day", async () => {
    const b = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot = b;
    b.sim.setPrice("@107", "25");
    const d = b.runtime.cycleDeps(await b.runtime.facts());
    const scheduler = new Scheduler({
      journal: d.journal,
      account: d.account,
      mode: "live",
      strategies: scheduledStrategies(b.runtime.config.strategies),
    });
    scheduler.register(d.clock());
    const slot = new CronSchedule(DCA.schedule).next(b.sim.now())!;
    b.sim.advanceTo(slot + MINUTE);
    await runDueSlots(scheduler, d, { trigger: "run" });
    expect(placed(b)).toHaveLength(1);

    // 20:00 real, the clock 13 h ahead: the next day's 08:30 slot looks due. It holds, as a failure.
    b.sim.advanceTo(slot + 11.5 * HOUR);
    b.clockOffsetMs = 13 * HOUR;
    const ahead = await runDueSlots(scheduler, d, { trigger: "run" });
    expect(ahead.runs).toHaveLength(1);
    const skip = ahead.runs[0]!.report?.decisions.find((x) => x.decision.strategy === "dca")?.decision;
    expect(skip?.reason).toMatch(
      /^holding: the local clock is about 13 h ahead of the venue's .* more than schedule\.maxClockSkew \(5 min\)/,
    );
    expect(skip?.kind === "skip" && skip.failed).toBe(true);
    expect(placed(b)).toHaveLength(1);

    // Corrected: the daemon plans again (any tick); the next real morning buys once.
    b.clockOffsetMs = 0;
    b.sim.advance(HOUR);
    expect((await runDueSlots(scheduler, d, { trigger: "run" })).runs).toEqual([]);
    b.sim.advanceTo(slot + DAY + MINUTE);
    await runDueSlots(scheduler, d, { trigger: "run" });
    expect(placed(b)).toHaveLength(2);
    b.sim.advance(2 * HOUR);
    await runDueSlots(scheduler, d, { trigger: "run" });
    expect(placed(b)).toHaveLength(2);
  });

  it("a clock in sync is never held, also at the smallest maxClockSkew; a sub-minute one reads in seconds", async () => {
    const b = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot = b;
    b.sim.setPrice("@107", "25");
    // Mid-second: the Date header (whole seconds) reads 0.7 s behind a clock in perfect sync (a review:
    // "0.7 s ahead" held it).
    b.sim.advance(700);
    const d = { ...b.runtime.cycleDeps(await b.runtime.facts()), maxClockSkewMs: 10_000 };
    const synced = await runCycle(d, { trigger: "once", strategies: b.runtime.strategies() });
    expect(synced.decisions.filter((x) => /holding: the local clock/.test(x.decision.reason))).toEqual([]);
    b.clockOffsetMs = MINUTE;
    const off = await runCycle(d, { trigger: "once", strategies: b.runtime.strategies() });
    expect(off.decisions.map((x) => x.decision.reason)).toEqual([
      expect.stringMatching(
        /^holding: the local clock is (59\.\d s|about 1 min) ahead of the venue's .* more than schedule\.maxClockSkew \(10 s\)/,
      ),
    ]);
  });

  it("within schedule.maxClockSkew nothing holds; the kill switch's cancels go whatever the clock", async () => {
    const b = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot = b;
    b.sim.setPrice("@107", "25");
    b.clockOffsetMs = 4 * MINUTE;
    const d = b.runtime.cycleDeps(await b.runtime.facts());
    const within = await runCycle(d, { trigger: "once", strategies: b.runtime.strategies() });
    expect(within.decisions.filter((x) => /holding: the local clock/.test(x.decision.reason))).toEqual([]);
    expect(placed(b)).toHaveLength(1);
    b.clockOffsetMs = 2 * HOUR;
    const cancel = await runCycle(d, {
      trigger: "stop",
      strategies: [],
      killSwitchActive: true,
      cancelRunning: true,
    });
    expect(cancel.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
  });

  it.each([4 * MINUTE, 90_000])(
    "a clock %d ms ahead (within maxClockSkew), corrected before the slot: the day's DCA buys once (a cron user's trial)",
    async (ahead) => {
      const b = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
      bot = b;
      b.sim.setPrice("@107", "25");
      const d = b.runtime.cycleDeps(await b.runtime.facts());
      onceScheduler(b, d).register(d.clock());
      const slot = new CronSchedule(DCA.schedule).next(b.sim.now() + HOUR)!;
      // Real 08:26, local 08:30: within the tolerance, the slot is acted in a little early.
      b.sim.advanceTo(slot - ahead);
      b.clockOffsetMs = ahead;
      await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      expect(placed(b)).toHaveLength(1);
      // Corrected; cron's `once` every few minutes from 08:29 to 10:00, past the end of the early TWAP
      // (30 minutes) and within catch-up: the slot it acted in stays acted.
      b.clockOffsetMs = 0;
      for (let m = -1; m <= 90; m += 3) {
        b.sim.advanceTo(slot + m * MINUTE + 10_000);
        await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      }
      expect(placed(b)).toHaveLength(1);
    },
  );

  it.each([
    [9 * MINUTE, "10m"],
    [25 * MINUTE, "30m"],
  ])(
    "a clock %d ms ahead within a raised maxClockSkew (%s), corrected before the slot: the DCA buys once (a clock trial)",
    async (ahead, maxClockSkew) => {
      // A clock trial: maxClockSkew 10m, the clock 9 minutes ahead bought at 11:53 for the 11:59 slot;
      // corrected, the slot state more than 5 minutes ahead was brought back, the buy re-dated before the
      // slot, and 11:59 bought again: 300 USD in a 150-USD daily slot.
      const b = await startTestBot({
        mode: "live",
        strategies: [DCA],
        fund: { USDC: "20000" },
        configExtra: { schedule: { maxClockSkew } },
      });
      bot = b;
      b.sim.setPrice("@107", "25");
      const d = b.runtime.cycleDeps(await b.runtime.facts());
      expect(d.maxClockSkewMs).toBeGreaterThan(ahead);
      onceScheduler(b, d).register(d.clock());
      const slot = new CronSchedule(DCA.schedule).next(b.sim.now() + HOUR)!;
      b.sim.advanceTo(slot - ahead + 10_000);
      b.clockOffsetMs = ahead;
      await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      expect(placed(b)).toHaveLength(1);
      b.clockOffsetMs = 0;
      // Corrected before the slot: the next slot named is tomorrow's, not the one acted in (a clock
      // trial: `once` said "next slot" of the slot it had acted in).
      b.sim.advanceTo(slot - ahead + 30_000);
      const corrected = await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      expect(corrected.plan.notDue.find((n) => n.strategy === "dca")?.next).toBe(slot + 86_400_000);
      for (let t = slot - ahead + MINUTE; t <= slot + 90 * MINUTE; t += 3 * MINUTE) {
        b.sim.advanceTo(t);
        await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      }
      expect(placed(b)).toHaveLength(1);
    },
  );

  it("3 hours ahead across the slot: nothing is settled missed while held, and the day's buy comes once corrected", async () => {
    const b = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot = b;
    b.sim.setPrice("@107", "25");
    const d = b.runtime.cycleDeps(await b.runtime.facts());
    onceScheduler(b, d).register(d.clock());
    const slot = new CronSchedule(DCA.schedule).next(b.sim.now() + 4 * HOUR)!;
    b.clockOffsetMs = 3 * HOUR;
    // `once` every 15 minutes from real 05:00 to 08:45, the clock 3 hours ahead: every run holds, and the
    // day's slot (08:30, older than catch-up on the ahead clock by 07:30 real) is not settled as missed.
    for (let t = slot - 3.5 * HOUR; t <= slot + 15 * MINUTE; t += 15 * MINUTE) {
      b.sim.advanceTo(t + MINUTE);
      const r = await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      expect(r.plan.missed).toEqual([]);
    }
    expect(placed(b)).toHaveLength(0);
    // Corrected at 09:00 real, within schedule.catchUp of the slot: it buys, once.
    b.clockOffsetMs = 0;
    for (let t = slot + 30 * MINUTE; t <= slot + 90 * MINUTE; t += 15 * MINUTE) {
      b.sim.advanceTo(t + MINUTE);
      await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
    }
    expect(placed(b)).toHaveLength(1);
  });
});

/**
 * A DCA every `period` minutes with 5-minute TWAPs, registered a minute before its next slot, and what a
 * `once` does (the venue's time is read before a state ahead of the clock is judged: runDueSlots; the
 * last answer here may be from before the clock fell behind). Resolves at that slot + 3 s, bought once.
 */
async function dcaBoughtAtSlot(period: number, maxClockSkew?: string) {
  const dca = {
    name: "dca",
    kind: "twap-accumulate",
    schedule: `*/${period} * * * *`,
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "buy",
      amountUsd: 250,
      twap: { minutes: 5, randomize: false },
    },
  };
  const b = await startTestBot({
    mode: "live",
    strategies: [dca],
    fund: { USDC: "20000" },
    ...(maxClockSkew === undefined ? {} : { configExtra: { schedule: { maxClockSkew } } }),
  });
  bot = b;
  b.sim.setPrice("@107", "25");
  const once = async () => {
    const deps = b.runtime.cycleDeps(await b.runtime.facts());
    return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {});
  };
  const slot = new CronSchedule(dca.schedule).next(b.sim.now() + MINUTE)!;
  b.sim.advanceTo(slot - MINUTE);
  await once(); // registers the strategy: slots from now on are its
  b.sim.advanceTo(slot + 3_000);
  await once();
  expect(placed(b)).toHaveLength(1);
  return { b, once, slot };
}

describe("a local clock that falls behind the venue's after a run", () => {
  it("leaves the slot it acted in acted: the same slot does not buy again once the clock is right (a disaster trial)", async () => {
    // `once` at 21:30 bought; `once` at 21:30:54 with the clock 10 minutes behind re-dated that buy to
    // 21:20:55 and rewound the slot as if written while the clock ran ahead; at 21:35, the TWAP ended and
    // the clock right, the 21:30 slot bought again: two TWAPs for one slot.
    const { b, once, slot } = await dcaBoughtAtSlot(10);
    const sentAt = b.runtime.journal.recentSubmissions(5).map((r) => r.createdAt);

    b.sim.advanceTo(slot + 54_000);
    b.clockOffsetMs = -10 * MINUTE;
    const behind = await once();
    expect(placed(b)).toHaveLength(1);
    expect(behind.runs).toEqual([]);
    // The plan says why (once prints it): the clock, not the schedule.
    expect(behind.plan.clockSkewMs).toBeCloseTo(-10 * MINUTE, -4);
    // What was recorded stays as it was: the venue's clock proves when it was sent.
    expect(b.runtime.journal.recentSubmissions(5).map((r) => r.createdAt)).toEqual(sentAt);

    b.clockOffsetMs = 0;
    b.sim.advanceTo(slot + 5 * MINUTE + 40_000);
    await once();
    expect(placed(b)).toHaveLength(1);
    // The next slot buys, once.
    b.sim.advanceTo(slot + 10 * MINUTE + 3_000);
    await once();
    expect(placed(b)).toHaveLength(2);
  });
});

describe("a local clock behind the venue's by less than a raised maxClockSkew (a review)", () => {
  for (const skew of ["5m", "30m"])
    it(`maxClockSkew ${skew}: a DCA's slot acted in stays acted while the clock is 10 minutes behind, and after`, async () => {
      const { b, once, slot } = await dcaBoughtAtSlot(30, skew);
      // 10 minutes behind for the rest of the slot (a slow NTP), then corrected.
      b.clockOffsetMs = -10 * MINUTE;
      for (const at of [54_000, 12 * MINUTE, 16 * MINUTE]) {
        b.sim.advanceTo(slot + at);
        await once();
      }
      b.clockOffsetMs = 0;
      b.sim.advanceTo(slot + 20 * MINUTE);
      await once();
      expect(placed(b)).toHaveLength(1);
      b.sim.advanceTo(slot + 30 * MINUTE + 3_000);
      await once();
      expect(placed(b)).toHaveLength(2);
    });
});

describe("a clock ahead by more than half a period, within a raised maxClockSkew (a review)", () => {
  it.each([
    ["0 * * * *", 35, "1h", 50],
    ["0 * * * *", 45, "1h", 50],
    ["*/20 * * * *", 12, "15m", 15],
    ["*/10 * * * *", 7, "10m", 8],
  ] as const)(
    "%s, the clock %d minutes ahead (maxClockSkew %s), corrected: one buy per slot",
    async (schedule, ahead, maxClockSkew, after) => {
      // An hourly DCA bought at its slot, then, 35 minutes ahead, bought early for the next; corrected,
      // that early buy was counted in the slot before (already bought), and the next slot bought again.
      const dca = {
        ...DCA,
        schedule,
        params: { ...DCA.params, amountUsd: 150, twap: { minutes: 5, randomize: false } },
      };
      const b = await startTestBot({
        mode: "live",
        strategies: [dca],
        fund: { USDC: "20000" },
        configExtra: { schedule: { maxClockSkew } },
      });
      bot = b;
      b.sim.setPrice("@107", "25");
      const d = b.runtime.cycleDeps(await b.runtime.facts());
      const cron = new CronSchedule(schedule);
      const prev = cron.next(b.sim.now() + 10 * MINUTE)!;
      const slot = cron.next(prev)!;
      b.sim.advanceTo(prev - MINUTE);
      onceScheduler(b, d).register(d.clock());
      b.sim.advanceTo(prev + 3_000);
      await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      expect(placed(b)).toHaveLength(1);
      b.sim.advanceTo(slot - ahead * MINUTE + 10_000);
      b.clockOffsetMs = ahead * MINUTE;
      await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      expect(placed(b)).toHaveLength(2);
      b.clockOffsetMs = 0;
      for (let t = slot - ahead * MINUTE + 40_000; t <= slot + after * MINUTE; t += MINUTE) {
        b.sim.advanceTo(t);
        await runDueSlots(onceScheduler(b, d), d, { trigger: "once" });
      }
      // The slot before and the slot acted in early: two buys, not three.
      expect(placed(b)).toHaveLength(2);
    },
  );
});
