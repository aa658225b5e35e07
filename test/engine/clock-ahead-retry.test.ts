// A clock a day ahead for under a minute, corrected, under `run`: a deferral's retry set on the ahead
// clock neither plans at the future time (tomorrow's slot was due: a daily DCA bought twice in one real
// day) nor holds the strategy until the clock gets there (a review).
import { afterEach, describe, expect, it } from "vitest";
import { scheduledStrategies, timerPlanTime } from "../../src/engine/daemon.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { runDueSlots, runSlotGroup, Scheduler } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const SEC = 1000;
const MINUTE = 60 * SEC;
const DAY = 24 * 60 * MINUTE;
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "30 8 * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    budgetUsd: 10000,
    twap: { minutes: 30, randomize: false },
  },
};

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const placed = (b: TestBot) => b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);

/** A live bot with 20,000 USDC at HYPE 25 and one scheduler for the whole test, as `run` keeps one. */
async function started(strategy: typeof DCA) {
  // Past the hold on a far clock (schedule.maxClockSkew, raised): the retry a deferral set while ahead.
  const b = await startTestBot({
    mode: "live",
    strategies: [strategy],
    fund: { USDC: "20000" },
    configExtra: { schedule: { maxClockSkew: "3d" } },
  });
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
  return { b, d, scheduler };
}

describe("run: a deferral's retry set while the clock ran a day ahead", () => {
  it("a daily DCA buys once per real day, and is not held until the clock reaches the retry", async () => {
    const { b: bot, d, scheduler } = await started(DCA);
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot + MINUTE);
    await runDueSlots(scheduler, d, { trigger: "run" });
    expect(placed(bot)).toHaveLength(1); // today's, a 30-minute TWAP

    // 08:51, the TWAP running until 09:01: the clock jumps a day ahead; tomorrow's slot is due and
    // deferred behind the running TWAP, its retry set on the ahead clock.
    bot.sim.advanceTo(slot + 20 * MINUTE);
    bot.clockOffsetMs = DAY;
    const ahead = await runDueSlots(scheduler, d, { trigger: "run" });
    expect(ahead.runs.map((r) => r.deferred)).toEqual([["dca"]]);
    const armedAt = d.clock();
    const at = scheduler.nextRetry(armedAt)!;
    expect(at).toBeGreaterThan(armedAt);

    // Corrected; the retry timer fires (at − armedAt) later, on the real clock.
    bot.clockOffsetMs = 0;
    bot.sim.advance(at - armedAt);
    const planAt = timerPlanTime(d.clock(), at);
    expect(planAt).toBe(d.clock());
    for (const g of scheduler.plan(planAt).groups) await runSlotGroup(scheduler, d, g, { trigger: "run" });
    expect(placed(bot)).toHaveLength(1);

    // Tomorrow at 08:31 (real): tomorrow's buy, and only it.
    bot.sim.advanceTo(slot + DAY + MINUTE);
    const plan = scheduler.plan(d.clock());
    expect(plan.groups.map((g) => g.slot)).toEqual([slot + DAY]);
    for (const g of plan.groups) await runSlotGroup(scheduler, d, g, { trigger: "run" });
    expect(placed(bot)).toHaveLength(2);
  });

  it("an hourly DCA deferred while the clock ran ahead buys in the next real hour", async () => {
    const hourly = {
      ...DCA,
      schedule: "0 * * * *",
      params: { ...DCA.params, twap: { minutes: 90, randomize: false } },
    };
    const { b: bot, d, scheduler } = await started(hourly);
    const hour = new CronSchedule(hourly.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(hour + MINUTE);
    await runDueSlots(scheduler, d, { trigger: "run" });
    expect(placed(bot)).toHaveLength(1); // a 90-minute TWAP: still running at the next hour
    // The clock a day ahead at the next hour: that slot is due and deferred behind the running TWAP.
    bot.sim.advanceTo(hour + 60 * MINUTE + MINUTE);
    bot.clockOffsetMs = DAY;
    const ahead = await runDueSlots(scheduler, d, { trigger: "run" });
    expect(ahead.runs.map((r) => r.deferred)).toEqual([["dca"]]);
    bot.clockOffsetMs = 0;
    // The TWAP ends at +90 min; the slot of +2 h is due on the real clock and buys.
    bot.sim.advanceTo(hour + 120 * MINUTE + MINUTE);
    const plan = scheduler.plan(d.clock());
    expect(plan.notDue.map((n) => n.reason)).toEqual([]);
    for (const g of plan.groups) await runSlotGroup(scheduler, d, g, { trigger: "run" });
    expect(placed(bot)).toHaveLength(2);
  });

  it("a timer that fires a little early plans at the time it was set for", () => {
    expect(timerPlanTime(10_000, 10_400)).toBe(10_400);
    expect(timerPlanTime(10_000, 9_000)).toBe(10_000);
    expect(timerPlanTime(10_000, 10_000 + DAY)).toBe(10_000);
  });
});
