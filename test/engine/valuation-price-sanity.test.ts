// A rebalancer's order is sized from the mids of all its target tokens: each of them passes the price
// checks, not only the traded pair's. A risk trial: PURR/USDC's mid answered 200% above its mark and its
// previous-day price; the PURR sale was blocked, but in the same cycle a 7,000-USDC HYPE buy sized from
// the wrong PURR price went out (HYPE "19.96% of 50,056 USDC" where it was 33% of 30,022), and was sold
// back an hour later. Against the simulator, through a proxy rewriting allMids.
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = proxy = undefined;
});

describe("the prices a rebalancer's weights are valued at", () => {
  it("are checked too: a wrong PURR mid holds the HYPE order it would size, nothing is placed", async () => {
    proxy = await startRewritingProxy();
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "three",
          kind: "twap-rebalance",
          params: {
            targets: { HYPE: 0.34, PURR: 0.33, USDC: 0.33 },
            quote: "USDC",
            band: 0.05,
            minOrderUsd: 100,
            twap: { minutes: 10, randomize: false },
          },
        },
      ],
      // 400 HYPE at 25, 50,000 PURR at 0.2, 10,000 USDC: 33.3% each, within band.
      fund: { HYPE: "400", PURR: "50000", USDC: "10000" },
      limits: { maxOrderUsd: 20_000, maxDailyNotionalUsd: 100_000 },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "25");
    bot.sim.setPrice("PURR/USDC", "0.2");
    const cycle = async () =>
      runCycle(bot!.runtime.cycleDeps(await bot!.runtime.facts()), {
        trigger: "once",
        strategies: bot!.runtime.strategies(),
      });
    const within = await cycle();
    expect(within.actions).toEqual([]);
    // allMids alone says PURR is at 0.6; its mark, context mid and previous-day price still say 0.2.
    proxy.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "PURR/USDC": "0.6" }));
    const report = await cycle();
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
    expect(report.actions).toEqual([]);
    const reasons = report.decisions.map((d) => d.decision.reason);
    expect(
      reasons.some((r) =>
        /^HYPE is .*buy .* HYPE.*PURR\/USDC mid 0\.6 .*\(the price of PURR values this order's portfolio\)/.test(
          r,
        ),
      ),
    ).toBe(true);
    // The true prices back: within band again, nothing to do (no sale of what was never bought).
    proxy.clear();
    expect((await cycle()).actions).toEqual([]);
  });
});

describe("the prices that do not size a rebalancer's order", () => {
  const start = async (fund: Record<string, string>) => {
    proxy = await startRewritingProxy();
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "three",
          kind: "twap-rebalance",
          params: {
            targets: { HYPE: 0.4, PURR: 0.2, USDC: 0.4 },
            quote: "USDC",
            band: 0.05,
            minOrderUsd: 100,
            twap: { minutes: 10, randomize: false },
          },
        },
      ],
      fund,
      limits: { maxOrderUsd: 20_000, maxDailyNotionalUsd: 100_000 },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "25");
    bot.sim.setPrice("PURR/USDC", "0.2");
    return async () =>
      runCycle(bot!.runtime.cycleDeps(await bot!.runtime.facts()), {
        trigger: "once",
        strategies: bot!.runtime.strategies(),
      });
  };

  it("a wrong mid of a token held at nothing holds nothing (a review: it held the HYPE sale)", async () => {
    // 400 HYPE at 25 and 10,000 USDC, no PURR: HYPE 50% for 40% ± 5, a sale.
    const cycle = await start({ HYPE: "400", USDC: "10000" });
    proxy!.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "PURR/USDC": "0.6" }));
    const report = await cycle();
    expect(report.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
  });

  it("a pair without a book (halted) whose prices agree values the portfolio; its own order waits", async () => {
    // 400 HYPE at 25, 10,000 PURR at 0.2 (2,000), 8,000 USDC: HYPE 50%, PURR 10%: a HYPE sale, a PURR buy.
    const cycle = await start({ HYPE: "400", PURR: "10000", USDC: "8000" });
    proxy!.rewriteInfo("spotMetaAndAssetCtxs", (answer) => {
      const [meta, ctxs] = answer as [unknown, Array<{ coin: string; midPx: string | null }>];
      return [meta, ctxs.map((c) => (c.coin === "PURR/USDC" ? { ...c, midPx: null } : c))];
    });
    const report = await cycle();
    expect(report.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    const reasons = report.decisions.map((d) => d.decision.reason);
    expect(reasons.some((r) => /^PURR is .*PURR\/USDC has no book/.test(r))).toBe(true);
  });
});
