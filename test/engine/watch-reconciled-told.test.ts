// A bookkeeper's trial: a TWAP order whose answer was lost is told as "outcome UNKNOWN (being
// reconciled)". When the TWAP watch (every `once` pass, every minute under `run`) was the one that
// reconciled it, its verdict was in no cycle report, so no `submission.reconciled` event ("LANDED: it
// took effect") was ever sent. The watch now hands its verdicts on.
import { afterEach, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { reconciledEvents, submissionEvents } from "../../src/engine/notify/events.js";
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

it("a lost TWAP order found landed by a later pass is told as submission.reconciled", async () => {
  const dca = {
    name: "hype-dca",
    kind: "twap-accumulate",
    schedule: "30 */12 * * *",
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "buy",
      amountUsd: 300,
      twap: { minutes: 10, randomize: false },
    },
  };
  bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "5000" } });
  await once(bot); // registers the strategy
  const slot = new CronSchedule(dca.schedule).next(bot.sim.now())!;
  bot.sim.advanceTo(slot);
  bot.sim.setFaults({ exchange: { dropRate: 1 } });
  const lost = await once(bot);
  bot.sim.setFaults({});
  const ctx = { account: bot.address, network: "testnet", now: bot.sim.now() };
  const told1 = lost.runs.flatMap((r) => (r.report ? submissionEvents(ctx, r.report) : []));
  expect(told1.map((e) => e.type)).toEqual(["submission.unknown"]);

  // The next cron pass, 15 minutes later: nothing is due; the watch reconciles the lost order (landed).
  bot.sim.advanceTo(slot + 15 * MINUTE);
  const next = await once(bot);
  const row = bot.runtime.journal.recentSubmissions(5).find((s) => s.actionType === "twapOrder")!;
  expect(row.status).toBe("landed");
  expect(next.watch.reconciled?.map((r) => [r.strategy, r.actionType, r.verdict])).toEqual([
    ["hype-dca", "twapOrder", "landed"],
  ]);
  const told2 = reconciledEvents(ctx, next.watch.reconciled ?? []);
  expect(told2.map((e) => [e.type, e.title])).toEqual([
    ["submission.reconciled", `hype-dca: twapOrder #${row.id} LANDED: it took effect`],
  ]);
});
