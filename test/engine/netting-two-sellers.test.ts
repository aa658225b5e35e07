// A review of netted budgets: a DCA's buy netted against the last of two sellers, whose sale maxOrderUsd
// then cut, was settled as covered because the other seller's uncut TWAP went out first (the check took
// the first TWAP on the pair that went out): the buy did not trade, and its budget counted it.
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 150,
    budgetUsd: 3000,
    twap: { minutes: 5, randomize: false },
  },
};
const TP = {
  name: "tp",
  kind: "twap-accumulate",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "sell",
    amountUsd: 500,
    twap: { minutes: 5, randomize: false },
  },
};
const REBAL = {
  name: "rebal",
  kind: "twap-rebalance",
  params: {
    targets: { HYPE: 0.5, USDC: 0.5 },
    quote: "USDC",
    band: 0.05,
    twap: { minutes: 60, randomize: false },
    minOrderUsd: 100,
  },
};

describe("netting against the second of two sellers, then maxOrderUsd cuts that seller", () => {
  it("the DCA's buy is deferred (not settled, not counted) as with one seller", async () => {
    const b = await startTestBot({
      mode: "live",
      fund: { USDC: "10000", HYPE: "1000" },
      limits: { maxOrderUsd: 5000 },
      strategies: [DCA, TP, REBAL],
    });
    bot = b;
    b.sim.setPrice("@107", "25");
    const r = await runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
      trigger: "once",
      strategies: b.runtime.strategies(),
    });
    const dca = r.decisions.find((x) => x.decision.strategy === "dca")!.decision;
    expect(dca.kind).toBe("skip");
    expect(dca.reason).toMatch(/netted: tp's sell .* and rebal's sell .* covers it/);
    // rebal's sale (which the netting shrank) went out cut by maxOrderUsd:
    const rebal = r.decisions.find(
      (x) => x.decision.strategy === "rebal" && x.decision.kind === "twapOrder",
    )!;
    expect(rebal.decision.reason).toMatch(/maxOrderUsd/);
    // Expected as in the one-seller case: deferred, its budget not counting the buy that did not trade.
    expect(dca.kind === "skip" && dca.defer === true).toBe(true);
    const pair = { assetId: 10107, side: "buy" as const };
    expect(b.runtime.journal.nettedUsd(b.address.toLowerCase(), "dca", pair).toString()).toBe("0");
  });
});
