// A DCA's buy netted against a rebalancer's sale on its pair is covered only if that sale goes out as
// netted: cut by a limit after the netting, it may go out as large as without it, and the DCA's buy did
// not trade (a cron user's trial: a sale of 493 HYPE cut to 200 by maxOrderUsd "covered" a DCA's 6 HYPE,
// and the DCA's slot was settled, its day lost).
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

describe("netting, then limits", () => {
  it.each([
    [5000, true],
    [100000, false],
  ])("maxOrderUsd %d: the covered DCA's slot stays due: %s", async (maxOrderUsd, due) => {
    // 1,000 HYPE at 25 and 10,000 USDC: about 71% HYPE, the rebalancer sells about 7,500 USD.
    const b = await startTestBot({
      mode: "live",
      fund: { USDC: "10000", HYPE: "1000" },
      limits: { maxOrderUsd },
      strategies: [DCA, REBAL],
    });
    bot = b;
    b.sim.setPrice("@107", "25");
    const r = await runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
      trigger: "once",
      strategies: b.runtime.strategies(),
    });
    const dca = r.decisions.find((x) => x.decision.strategy === "dca")!.decision;
    expect(dca.kind).toBe("skip");
    expect(dca.reason).toMatch(/netted: rebal's sell .* covers it/);
    expect(dca.kind === "skip" && dca.defer === true).toBe(due);
    if (due)
      expect(dca.reason).toMatch(
        /that TWAP went out reduced by a limit \(rebal's reason says which\): what it covered may not have traded, the slot stays due$/,
      );
    expect(b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address)).toHaveLength(1);
  });
});

// A portfolio trial: a take-profit selling HYPE and a rebalancer selling HYPE against a DCA's buy. The
// take-profit (allocated last) gave way first and was netted to nothing; the rebalancer's sale, which
// carried the netting, was then cut by maxOrderUsd, so the DCA's buy was deferred (not traded) while the
// take-profit's day was settled as done: its sale was lost. It now follows the DCA: deferred too.
describe("netting, then limits, with two sellers", () => {
  const TP = {
    name: "tp",
    kind: "twap-accumulate",
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "sell",
      amountUsd: 125,
      twap: { minutes: 5, randomize: false },
    },
  };
  it.each([
    [5000, true],
    [100000, false],
  ])(
    "maxOrderUsd %d: a seller netted to nothing is deferred with the buyer it netted against: %s",
    async (maxOrderUsd, due) => {
      const b = await startTestBot({
        mode: "live",
        fund: { USDC: "10000", HYPE: "1000" },
        limits: { maxOrderUsd },
        strategies: [DCA, REBAL, TP],
      });
      bot = b;
      b.sim.setPrice("@107", "25");
      const r = await runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
        trigger: "once",
        strategies: b.runtime.strategies(),
      });
      const of = (name: string) => r.decisions.find((x) => x.decision.strategy === name)!.decision;
      expect(of("tp").kind).toBe("skip");
      expect(of("tp").reason).toMatch(/netted against dca's buy .*, and the rest is not traded/);
      const deferred = (name: string) => {
        const d = of(name);
        return d.kind === "skip" && d.defer === true;
      };
      expect(deferred("dca")).toBe(due);
      expect(deferred("tp")).toBe(due);
    },
  );
});
