// A TWAP "rejected" because every attempt was rate limited (429: the venue never looked at it) held the
// identical order back for 6 h (a review): a DCA missed its next slots though the venue refused nothing.
import { afterEach, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});
async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {});
}
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "0 * * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

it("a DCA whose TWAP was only rate limited (never processed) buys at the next slot", async () => {
  bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
  bot.sim.setPrice("@107", "25");
  await once(bot);
  const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
  bot.sim.advanceTo(slot);
  bot.sim.setFaults({ exchange: { rateLimitRate: 1 } });
  const first = await once(bot);
  bot.sim.setFaults({});
  const outs = first.runs.flatMap((r) => r.report?.actions.map((a) => a.outcome) ?? []);
  expect(outs).toEqual(["rejected"]);
  expect(bot.runtime.journal.lastTwapSubmission("dca")?.reason).toMatch(/rate limited/);
  bot.sim.advanceTo(slot + HOUR);
  const next = await once(bot);
  const reasons = next.runs.flatMap((r) => r.report?.decisions.map((d) => d.decision.reason) ?? []);
  expect(reasons.filter((r) => /refused this identical order/.test(r))).toEqual([]);
  expect(next.runs.flatMap((r) => r.report?.actions.map((a) => a.outcome) ?? [])).toEqual(["accepted"]);
});
