// Under portfolio margin the venue's `hold` is said to be net of what the account could borrow, and
// `spotHold` the reserve before that netting (JKorf/HyperLiquid.Net PR #102): what a strategy may spend
// is the total less the larger of the two, so a buy is not sized into borrowed funds (a wire audit).
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
});

it("spot balances hold the larger of hold and spotHold: a portfolio-margin account's borrowable funds are not spent", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    strategies: [REBALANCE],
    fund: { HYPE: "10", USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "40");
  // USDC: 5,000 in total, 1,000 held before netting, nothing after it (the borrow capacity covers it).
  proxy.rewriteInfo("spotClearinghouseState", (answer) => {
    const a = answer as { balances: Array<Record<string, string>> };
    return {
      ...a,
      portfolioMarginEnabled: true,
      balances: a.balances.map((b) => (b.coin === "USDC" ? { ...b, hold: "0.0", spotHold: "1000.0" } : b)),
    };
  });
  const report = await runCycle(bot.runtime.cycleDeps({ multiSig: null }), {
    trigger: "plan",
    strategies: bot.runtime.strategies(),
  });
  const usdc = report.snapshot.balances.get("USDC");
  expect([usdc?.total.toFixed(), usdc?.hold.toFixed(), usdc?.available.toFixed()]).toEqual([
    "5000",
    "1000",
    "4000",
  ]);
  // A hold larger than spotHold stays as it is.
  proxy.clear();
  proxy.rewriteInfo("spotClearinghouseState", (answer) => {
    const a = answer as { balances: Array<Record<string, string>> };
    return {
      ...a,
      balances: a.balances.map((b) => (b.coin === "USDC" ? { ...b, hold: "300.0", spotHold: "100.0" } : b)),
    };
  });
  const again = await runCycle(bot.runtime.cycleDeps({ multiSig: null }), {
    trigger: "plan",
    strategies: bot.runtime.strategies(),
  });
  expect(again.snapshot.balances.get("USDC")?.available.toFixed()).toBe("4700");
  // A negative hold (the venue's docs allow one) makes nothing more available than the total (a review).
  proxy.clear();
  proxy.rewriteInfo("spotClearinghouseState", (answer) => {
    const a = answer as { balances: Array<Record<string, string>> };
    return { ...a, balances: a.balances.map((b) => (b.coin === "USDC" ? { ...b, hold: "-2000.0" } : b)) };
  });
  const negative = await runCycle(bot.runtime.cycleDeps({ multiSig: null }), {
    trigger: "plan",
    strategies: bot.runtime.strategies(),
  });
  expect(negative.snapshot.balances.get("USDC")?.available.toFixed()).toBe("5000");
});
