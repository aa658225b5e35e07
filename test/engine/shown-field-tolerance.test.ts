// A field hlbot only shows, missing or of another shape in an answer a cycle reads, must not stop the
// cycle (README "What hlbot checks strictly and what it tolerates"). An audit: a userFees answer without
// feeSchedule.tiers.mm (a rebate table only `hlbot info userFees` prints) failed every TWAP cycle, and
// the kill switch's cancel of a running TWAP with it. Against the simulator, through a rewriting proxy.
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { resetUnknownReports } from "../../src/venue/info/tolerant.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = proxy = undefined;
});

describe("a shown-only field of userFees missing or reshaped", () => {
  it("is left out with one warning: the TWAP is placed, and the kill switch still cancels it", async () => {
    resetUnknownReports();
    proxy = await startRewritingProxy();
    const { logger, warnings } = captureLogger();
    bot = await startTestBot({
      logger,
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "40");
    proxy.rewriteInfo("userFees", (fees) => {
      const f = fees as {
        feeSchedule: { tiers: Record<string, unknown> };
        activeStakingDiscount: unknown;
        dailyUserVlm?: unknown;
      };
      delete f.feeSchedule.tiers.mm;
      f.activeStakingDiscount = "0.05";
      // Missing altogether: left out without a word.
      delete f.dailyUserVlm;
      return f;
    });
    const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
    const placed = await runCycle(deps, { trigger: "once", strategies: bot.runtime.strategies() });
    expect(placed.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    // The rate it sizes with is still read strictly, and used.
    expect(placed.snapshot.spotTakerFee.gt(0)).toBe(true);
    const running = bot.sim.ledger({ kind: "twapPlaced", user: bot.address });
    expect(running).toHaveLength(1);

    const stopped = await runCycle(deps, {
      trigger: "once",
      strategies: bot.runtime.strategies(),
      killSwitchActive: true,
      cancelRunning: true,
    });
    expect(stopped.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
    expect(bot.sim.ledger({ kind: "twapTerminated", user: bot.address })).toHaveLength(1);
    const said = warnings()
      .map((w) => w.msg)
      .filter((m) => m.includes("userFees"));
    expect(said).toEqual([
      "the venue answered userFees with feeSchedule in a shape hlbot does not know; hlbot only shows it, leaves it out and carries on",
      "the venue answered userFees with activeStakingDiscount in a shape hlbot does not know; hlbot only shows it, leaves it out and carries on",
    ]);
  });
});
