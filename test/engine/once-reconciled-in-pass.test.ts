// `hlbot once` exits 1 for an action the venue refused or whose outcome is still unknown. A pass runs
// several cycles (the TWAP watch, then each due group), and each cycle first reconciles what earlier ones
// left unknown: a guard's cancel whose answer was lost in the watch is found landed by the next cycle of
// the same pass. A cron user's mail said the pass failed for a cancel that had taken effect.
import { afterEach, expect, it } from "vitest";
import { troubledActions } from "../../src/engine/cycle.js";
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

it("a watch cancel lost in one cycle and found landed by a later cycle of the same pass is not a failure; a lost order still is", async () => {
  const rebalance = {
    name: "rebalance",
    kind: "twap-rebalance",
    schedule: "0 */4 * * *",
    params: {
      targets: { HYPE: 0.5, USDC: 0.5 },
      quote: "USDC",
      band: 0.05,
      twap: { minutes: 120, randomize: false, maxDeviation: 0.05 },
      minOrderUsd: 10,
    },
  };
  // Due at :15 of every hour, on another pair: its own order's answer is lost too, and nothing in the
  // pass can settle it.
  const dca = {
    name: "purr-dca",
    kind: "twap-accumulate",
    schedule: "15 * * * *",
    params: {
      coin: "PURR",
      quote: "USDC",
      side: "buy",
      amountUsd: 200,
      twap: { minutes: 10, randomize: false },
    },
  };
  bot = await startTestBot({
    mode: "live",
    strategies: [rebalance, dca],
    fund: { HYPE: "1000", USDC: "5000" },
  });
  bot.sim.setPrice("@107", "40");
  await once(bot); // registers both (its 10-minute TWAPs are done before the pass at :15)
  const slot = new CronSchedule(rebalance.schedule).next(bot.sim.now() + 60 * MINUTE)!;
  bot.sim.advanceTo(slot);
  const placed = await once(bot);
  const sells = placed.runs.flatMap((r) => r.report?.actions ?? []).filter((a) => a.strategy === "rebalance");
  expect(sells.map((a) => a.outcome)).toEqual(["accepted"]);
  // The sale's price falls 15% (maxDeviation 5%); at :15 the exchange applies everything and every
  // answer is lost.
  bot.sim.advanceTo(slot + 5 * MINUTE);
  bot.sim.setPrice("@107", "34");
  bot.sim.advanceTo(slot + 15 * MINUTE);
  bot.sim.setFaults({ exchange: { dropRate: 1 } });
  const pass = await once(bot);
  bot.sim.setFaults({});
  const watch = pass.watch.report!;
  expect(watch.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "unknown"]]);
  const dcaRun = pass.runs.find((r) => r.group.strategies.some((s) => s.name === "purr-dca"))!;
  // The DCA's cycle reconciled the cancel before deciding: landed.
  expect(
    dcaRun.report!.reconciled.filter((r) => r.actionType === "twapCancel").map((r) => r.verdict),
  ).toEqual(["landed"]);
  expect(dcaRun.report!.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "unknown"]]);
  // The exit code's count: the cancel took effect, the DCA's order is still unknown.
  expect(troubledActions(watch, bot.runtime.journal, bot.address)).toEqual([]);
  expect(troubledActions(dcaRun.report!, bot.runtime.journal, bot.address).map((a) => a.action)).toEqual([
    "twapOrder",
  ]);
});
