// The one scheduler of `run`, `once` and `simulate` against the embedded simulator in virtual time:
// `once` called every 15 minutes acts only in due cron slots (issue #12 case 1), catches a slot missed
// by downtime up once within the window, reports older ones as missed, and keeps deferred slots due.
import { afterEach, describe, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { oncePass } from "../../src/engine/scheduler.js";
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
    budgetUsd: 10000,
    twap: { minutes: 30, randomize: false },
  },
};

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

function twapsPlaced(b: TestBot) {
  return b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
}

async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {
    ...(b.runtime.config.schedule ? { catchUpMs: b.runtime.config.schedule.catchUpMs } : {}),
  });
}

describe("once follows the strategies' cron schedules (virtual time)", () => {
  it("a DCA scheduled 30 8 * * * run by once every 15 minutes buys once a day, at 08:30", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot); // first sight: registers the strategy, nothing is due
    for (let t = 15 * MINUTE; t <= 3 * DAY; t += 15 * MINUTE) {
      bot.sim.advance(15 * MINUTE);
      await once(bot);
    }
    const placed = twapsPlaced(bot);
    expect(placed.map((e) => new Date(e.time).toISOString())).toEqual([
      new Date(start + 8.5 * HOUR).toISOString(),
      new Date(start + DAY + 8.5 * HOUR).toISOString(),
      new Date(start + 2 * DAY + 8.5 * HOUR).toISOString(),
    ]);
  }, 120_000);

  it("says which strategies were not due, and when they are", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    const first = await once(bot);
    expect(first.runs).toEqual([]);
    expect(first.plan.notDue).toEqual([
      expect.objectContaining({
        strategy: "dca",
        reason: expect.stringMatching(/not due: next slot .*T08:30:00/),
      }),
    ]);
  });

  it("catches a slot missed by downtime up once within the window, never twice; older ones are missed", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot);
    bot.sim.advanceTo(start + 8.5 * HOUR);
    expect((await once(bot)).runs.map((r) => r.acted)).toEqual([["dca"]]);
    // Down until 09:40 two days later: the 08:30 slot of that day is caught up, the one before is missed.
    bot.sim.advanceTo(start + 2 * DAY + 9 * HOUR + 40 * MINUTE);
    const back = await once(bot);
    expect(back.runs.map((r) => [new Date(r.group.slot).toISOString(), r.acted])).toEqual([
      [new Date(start + 2 * DAY + 8.5 * HOUR).toISOString(), ["dca"]],
    ]);
    expect(back.plan.missed).toEqual([{ strategy: "dca", count: 1, latest: undefined }]);
    bot.sim.advance(15 * MINUTE);
    expect((await once(bot)).runs).toEqual([]); // never twice
    // Down past the window: reported as missed, not run.
    bot.sim.advanceTo(start + 3 * DAY + 11 * HOUR);
    const late = await once(bot);
    expect(late.runs).toEqual([]);
    expect(late.plan.missed).toEqual([{ strategy: "dca", count: 1, latest: start + 3 * DAY + 8.5 * HOUR }]);
    expect((await once(bot)).plan.missed).toEqual([]); // reported once
    expect(twapsPlaced(bot)).toHaveLength(2);
  }, 60_000);

  it("a failed run leaves its slot due: the next once call within the window acts in it", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA],
      fund: { USDC: "20000" },
      configExtra: { venue: { readAttempts: 1 } },
    });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot);
    bot.sim.advanceTo(start + 8.5 * HOUR);
    bot.sim.setFaults({ info: { serverErrorRate: 1 } });
    const failed = await once(bot);
    expect(failed.runs.map((r) => r.error)).toEqual([expect.stringMatching(/500/)]);
    bot.sim.setFaults({});
    bot.sim.advance(15 * MINUTE);
    expect((await once(bot)).runs.map((r) => r.acted)).toEqual([["dca"]]);
    expect(twapsPlaced(bot)).toHaveLength(1);
  }, 60_000);
});
