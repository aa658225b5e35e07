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
