// A running TWAP's price guard cancels it whatever holds its strategy's new orders back: the kill switch
// engaged without --cancel-twaps, or a TWAP on the pair that the journal does not have (placed by hand
// in the venue's UI). Cancels only take exposure off (review of 2026-11-27: in both cases the sale or
// the buy went on through its limit). Against the simulator, through the watch as `once` and the daemon
// run it.
import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { watchRunningTwaps } from "../../src/engine/guards.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function firstCycle(b: TestBot) {
  const report = await runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
    trigger: "once",
    strategies: b.runtime.strategies(),
  });
  expect(report.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
}

async function watch(b: TestBot) {
  return watchRunningTwaps(b.runtime.cycleDeps(await b.runtime.facts()), b.runtime.strategies());
}

describe("a running TWAP's guard", () => {
  it("cancels a sale below its floor while the kill switch is engaged; nothing new goes out", async () => {
    const dca = {
      name: "dca-sell",
      kind: "twap-accumulate",
      params: {
        coin: "HYPE",
        side: "sell",
        amountUsd: 800,
        limitPx: 35,
        twap: { minutes: 60, randomize: false },
      },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { HYPE: "1000" } });
    bot.sim.setPrice("@107", "40");
    await firstCycle(bot);
    bot.sim.advance(2 * 60_000);
    // The operator stops the bot (hlbot stop, no --cancel-twaps); then the price falls through the floor.
    writeFileSync(bot.runtime.config.limits.killSwitchFile!, "stopped by the operator");
    bot.sim.setPrice("@107", "30");
    const w = await watch(bot);
    expect(w.report?.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
    // The strategy itself, due again, places nothing while the switch is engaged.
    bot.sim.setPrice("@107", "40");
    const again = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    expect(again.actions).toEqual([]);
    expect(again.decisions.map((d) => d.decision.reason).join("\n")).toMatch(/kill switch is on/);
  });

  it("cancels a buy above its ceiling while a TWAP the journal lacks holds its budgeted DCA", async () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      params: {
        coin: "HYPE",
        side: "buy",
        amountUsd: 1000,
        budgetUsd: 100000,
        limitPx: 42,
        twap: { minutes: 120, randomize: false },
      },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "40");
    await firstCycle(bot);
    // The owner buys some HYPE by hand with a TWAP of their own on the same pair and side.
    const byHand = await bot.runtime.exchange!.twapOrder({
      asset: 10107,
      isBuy: true,
      size: "5",
      szDecimals: 2,
      minutes: 30,
    });
    expect(byHand.status).toBe("accepted");
    bot.sim.advance(2 * 60_000);
    bot.sim.setPrice("@107", "45"); // above the DCA's ceiling of 42
    const w = await watch(bot);
    expect(w.report?.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
    // Only the DCA's own TWAP was cancelled; the hand-placed one runs on.
    const cancels = bot.sim.ledger({ kind: "twapTerminated", user: bot.address });
    expect(cancels).toHaveLength(1);
    const dcaTwapId = bot.runtime.journal
      .recentSubmissions(10)
      .find((s) => s.strategy === "dca" && s.actionType === "twapOrder")!.twapId;
    expect(cancels.map((c) => (c.data as { twapId: number }).twapId)).toEqual([dcaTwapId]);
  });

  it("is sent once when the kill switch cancels running TWAPs itself (killSwitchCancelRunning)", async () => {
    const dca = {
      name: "dca-sell",
      kind: "twap-accumulate",
      params: {
        coin: "HYPE",
        side: "sell",
        amountUsd: 800,
        limitPx: 35,
        twap: { minutes: 60, randomize: false },
      },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [dca],
      fund: { HYPE: "1000" },
      limits: { killSwitchCancelRunning: true },
    });
    bot.sim.setPrice("@107", "40");
    await firstCycle(bot);
    bot.sim.advance(2 * 60_000);
    writeFileSync(bot.runtime.config.limits.killSwitchFile!, "stopped by hand");
    bot.sim.setPrice("@107", "30");
    const w = await watch(bot);
    // One cancel (the kill switch's), accepted; the guard's is not sent again, said.
    expect(w.report?.actions.map((a) => [a.strategy, a.action, a.outcome])).toEqual([
      ["kill-switch", "twapCancel", "accepted"],
    ]);
    expect(w.report?.decisions.map((d) => d.decision.reason).join("\n")).toMatch(
      /not sent: the kill switch cancels TWAP #\d+ in this cycle/,
    );
  });
});
