// The kill switch engaged while a cycle's request is being resent: no further copy goes out. A risk
// trial: `hlbot stop` 1.5 s into a minute whose TWAP the venue answered 500 three times; the fourth
// copy, 5.7 s after the stop, placed the order (the switch was read before the first copy only).
// Against the simulator behind a proxy answering /exchange 500, the switch engaged as the first
// attempt is journaled.
import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = proxy = undefined;
});

describe("the kill switch between two copies of a request", () => {
  it("stops the resend: nothing is placed, the outcome is unknown until reconciled", async () => {
    proxy = await startRewritingProxy();
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "40");
    const stopFile = bot.runtime.config.limits.killSwitchFile!;
    proxy.refuseExchange(500);
    const journal = bot.runtime.journal;
    const recordAttempt = journal.recordAttempt.bind(journal);
    journal.recordAttempt = (...args: Parameters<typeof journal.recordAttempt>) => {
      // `hlbot stop` now, and the venue would take the next copy.
      writeFileSync(stopFile, '{"stoppedAt":"now","reason":"test"}\n');
      proxy!.refuseExchange(undefined);
      return recordAttempt(...args);
    };
    const report = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    expect(report.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "unknown"]]);
    expect(report.actions[0]?.detail).toMatch(/not resent: the kill switch was engaged/);
    expect(proxy.requests.filter((r) => r.path === "/exchange")).toHaveLength(1);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
  });
});
