// A chaos trial: a DCA slot whose only TWAP never reached the venue was settled as acted, and the buy of
// that slot was lost although the slot was still within schedule.catchUp.
// (1) every send answered HTTP 500 (outcome unknown; the venue did nothing), reconciled absent a
//     minute later: the next `once` in the same slot said "not due". Now absent reopens the slot.
// (2) every send answered 429 (rejected "rate limited": never processed): the same. Now the slot stays due.
import { afterEach, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});
async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {});
}
const outcomes = (p: Awaited<ReturnType<typeof once>>) =>
  p.runs.flatMap((r) => r.report?.actions.map((a) => `${a.action}:${a.outcome}`) ?? []);
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "30 8 * * *", // daily
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

for (const [label, faults] of [
  ["HTTP 500 on every send (unknown, later absent)", { exchange: { serverErrorRate: 1 } }],
  ["429 on every send (rejected: never processed)", { exchange: { rateLimitRate: 1 } }],
] as const) {
  it(`a daily DCA buys in its slot after ${label}, once the venue answers again`, async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot + 1_000);
    bot.sim.setFaults(faults);
    const first = await once(bot);
    bot.sim.setFaults({});
    expect(outcomes(first)).toHaveLength(1);
    expect(outcomes(first)[0]).not.toBe("twapOrder:accepted");
    // 15 minutes later (a cron every 15 min), well within schedule.catchUp (2 h): nothing landed.
    bot.sim.advanceTo(slot + 15 * MINUTE);
    const res = await fetch(`${bot.sim.url}/info`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "twapHistory", user: bot.address }),
    });
    const twaps = (await res.json()) as unknown[];
    expect(twaps).toHaveLength(0); // the venue never placed the order
    const second = await once(bot);
    // The slot's buy is placed now (it said "not due" until the next day).
    expect(outcomes(second)).toEqual(["twapOrder:accepted"]);
    // And once only: the next pass in the same slot sends nothing.
    bot.sim.advanceTo(slot + 30 * MINUTE);
    expect(outcomes(await once(bot))).toEqual([]);
  });
}
