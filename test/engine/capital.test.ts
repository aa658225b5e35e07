// Optional per-strategy capital (issue #12): `capital: {USDC: 300}` in a strategy file caps what the
// strategy sees of each listed token and what the allocator gives it, so strategies with disjoint
// capital act independently. Pure cases pin the rules; the simulator cases go through the strategy files,
// the loader, one cycle and the venue.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { allocate, buyCost, DEFAULT_TWAP_BUY_RESERVE } from "../../src/engine/allocate.js";
import { capitalView, floorView } from "../../src/engine/capital.js";
import { loadConfig } from "../../src/engine/config/loader.js";
import { strategyFileSchema } from "../../src/engine/config/schema.js";
import { runCycle } from "../../src/engine/cycle.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import type { Intent, TwapOrderIntent } from "../../src/engine/intents.js";
import { parseDecimal } from "../../src/lib/decimal.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { buildSnapshot } from "../helpers/snapshots.js";

const d = (v: string | number) => parseDecimal(v);
const cap = (o: Record<string, string>) => new Map(Object.entries(o).map(([k, v]) => [k, d(v)]));

function buy(strategy: string, size: string, mid = "40"): TwapOrderIntent {
  return {
    kind: "twapOrder",
    strategy,
    reason: `${strategy} wants it`,
    coin: "@107",
    label: "HYPE/USDC",
    assetId: 10107,
    side: "buy",
    size: d(size),
    szDecimals: 2,
    minutes: 30,
    randomize: false,
    reduceOnly: false,
    midPx: d(mid),
    notionalUsd: d(size).times(mid),
    quoteUsd: d(1),
  };
}

describe("capitalView (pure)", () => {
  const snapshot = buildSnapshot({ balances: { USDC: { total: 25000, hold: 100 }, HYPE: 50 } });

  it("caps each listed token at its capital and leaves the others and the real snapshot alone", () => {
    const view = capitalView(snapshot, cap({ USDC: "300" }));
    const usdc = view.balances.get("USDC");
    expect([usdc?.total.toFixed(), usdc?.available.toFixed(), usdc?.hold.toFixed()]).toEqual([
      "300",
      "300",
      "0",
    ]);
    expect(view.balances.get("HYPE")).toBe(snapshot.balances.get("HYPE"));
    // The real balances other strategies see are unchanged.
    expect(snapshot.balances.get("USDC")?.available.toFixed()).toBe("24900");
    expect(snapshot.balances.get("USDC")?.total.toFixed()).toBe("25000");
  });

  it("does not count a floor as held by orders", () => {
    // 200 HYPE on spot, all of it the account's floor, nothing running: nothing is on hold.
    const floored = floorView(
      buildSnapshot({ balances: { HYPE: 200 } }),
      new Map([["HYPE", parseDecimal("200")]]),
    );
    const view = capitalView(floored, cap({ HYPE: "1000" }));
    const hype = view.balances.get("HYPE");
    expect([hype?.total.toFixed(), hype?.available.toFixed(), hype?.hold.toFixed()]).toEqual([
      "200",
      "0",
      "0",
    ]);
  });

  it("never shows more than the account has", () => {
    const view = capitalView(snapshot, cap({ USDC: "30000", HYPE: "10" }));
    expect(view.balances.get("USDC")?.available.toFixed()).toBe("24900");
    expect(view.balances.get("USDC")?.total.toFixed()).toBe("25000");
    expect(view.balances.get("HYPE")?.total.toFixed()).toBe("10");
    expect(capitalView(snapshot, undefined)).toBe(snapshot);
  });
});

describe("allocate with capital (pure)", () => {
  it("never reserves more than a strategy's capital, slippage reserve and fee included", () => {
    const snapshot = buildSnapshot({ balances: { USDC: 25000 } });
    const out = allocate([buy("dca", "25")], snapshot, {
      strategies: [{ name: "dca", capital: cap({ USDC: "300" }) }],
    });
    const t = out.intents[0] as TwapOrderIntent;
    expect(buyCost(t.size, t.midPx, DEFAULT_TWAP_BUY_RESERVE, snapshot.spotTakerFee).lte(300)).toBe(true);
    expect(t.size.toFixed()).toBe("7.27");
    expect(t.reason).toMatch(/300 USDC is left for it \(of its capital of 300 USDC\)/);
  });

  it("two strategies with disjoint capital both act; without capital the first crowds the second out", () => {
    const snapshot = buildSnapshot({ balances: { USDC: 700 } });
    const intents = [buy("a", "20"), buy("b", "5")];
    const without = allocate(intents, snapshot, { strategies: [{ name: "a" }, { name: "b" }] });
    expect(without.intents.map((i) => i.strategy)).toEqual(["a"]);
    const withCapital = allocate(intents, snapshot, {
      strategies: [
        { name: "a", capital: cap({ USDC: "300" }) },
        { name: "b", capital: cap({ USDC: "300" }) },
      ],
    });
    expect(withCapital.intents.map((i) => [i.strategy, (i as TwapOrderIntent).size.toFixed()])).toEqual([
      ["a", "7.27"],
      ["b", "5"],
    ]);
    expect(withCapital.skipped).toEqual([]);
  });

  it("a strategy short of its own capital is not deferred (another strategy did not take its room)", () => {
    const snapshot = buildSnapshot({ balances: { USDC: 700 } });
    const out = allocate([buy("a", "5"), buy("b", "20")], snapshot, {
      strategies: [{ name: "a" }, { name: "b", capital: cap({ USDC: "1" }) }],
    });
    expect(out.skipped).toHaveLength(1);
    expect(out.skipped[0]?.defer).toBeUndefined();
    expect(out.skipped[0]?.reason).toMatch(/of its capital of 1 USDC/);
  });
});

describe("allocate a staking deposit with capital (pure)", () => {
  const snapshot = buildSnapshot({ balances: { USDC: 1000, HYPE: 100 } });
  const deposit = (amount: number): Intent => ({
    kind: "cDeposit",
    strategy: "stake",
    reason: "stake",
    amount: d(amount),
  });
  const strategies = [{ name: "stake", capital: cap({ HYPE: "50" }) }];

  it("a deposit within the capital goes out; one above it does not (and is not deferred)", () => {
    expect(allocate([deposit(50)], snapshot, { strategies }).intents).toHaveLength(1);
    const out = allocate([deposit(90)], snapshot, { strategies });
    expect(out.intents).toEqual([]);
    expect(out.skipped[0]?.reason).toMatch(/50 HYPE of its capital is left for it/);
    expect(out.skipped[0]?.defer).toBeUndefined();
  });
});

describe("capital in a strategy file", () => {
  const base = { name: "dca", kind: "twap-accumulate", schedule: "0 * * * *", params: DCA_PARAMS() };
  it("accepts positive decimals by token name and refuses the rest", () => {
    expect(strategyFileSchema.safeParse({ ...base, capital: { USDC: 5000, HYPE: "12.5" } }).success).toBe(
      true,
    );
    for (const capital of [{ USDC: 0 }, { USDC: -1 }, { USDC: "abc" }, { "US DC": 5 }, {}]) {
      expect(strategyFileSchema.safeParse({ ...base, capital }).success, JSON.stringify(capital)).toBe(false);
    }
  });
});

function DCA_PARAMS() {
  return {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 1000,
    twap: { minutes: 10, randomize: false },
  };
}

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function cycle(b: TestBot) {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger: "once", strategies: b.runtime.strategies() });
}

describe("capital against the simulator", () => {
  it("a DCA with capital {USDC: 300} on 25,000 USDC never places a buy worth more than 300 (reserve included)", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [{ name: "dca", kind: "twap-accumulate", capital: { USDC: 300 }, params: DCA_PARAMS() }],
      fund: { USDC: "25000" },
    });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot);
    expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    const placed = bot.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === bot?.address);
    expect(placed).toHaveLength(1);
    const { sz, mid } = (placed[0]?.data ?? {}) as { sz: string; mid: string };
    // What the venue holds for it: size × mid × (1 + 3% slippage reserve + the simulator's 0.07% fee).
    const held = buyCost(d(sz), d(mid), DEFAULT_TWAP_BUY_RESERVE, d("0.0007"));
    expect(held.lte(300)).toBe(true);
    expect(held.gt(290)).toBe(true);
  });

  it("`run`, `once` and `simulate` (scheduled strategies) keep the capital and the priority", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        { name: "dca", kind: "twap-accumulate", capital: { USDC: 300 }, priority: 3, params: DCA_PARAMS() },
      ],
      fund: { USDC: "25000" },
    });
    bot.sim.setPrice("@107", "40");
    const config = await loadConfig(join(bot.dir, "bot.yaml"), { TEST_BOT_KEY: bot.key });
    const strategies = scheduledStrategies(config.strategies);
    expect(strategies[0]?.priority).toBe(3);
    const report = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies,
    });
    expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    expect(report.actions[0]?.reason).toMatch(/limited by the available 300 USDC/);
  });

  it("two DCAs with disjoint capital both buy in the same cycle; a strategy without capital still sees it all", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        { name: "a", kind: "twap-accumulate", capital: { USDC: 300 }, params: DCA_PARAMS() },
        { name: "b", kind: "twap-accumulate", capital: { USDC: 300 }, params: DCA_PARAMS() },
        { name: "c", kind: "twap-accumulate", params: DCA_PARAMS() },
      ],
      fund: { USDC: "900" },
    });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot);
    // Without capital, "a" (listed first) would take the whole 900 USDC and crowd "b" out.
    expect(report.actions.map((a) => [a.strategy, a.outcome])).toEqual([
      ["a", "accepted"],
      ["b", "accepted"],
      ["c", "accepted"],
    ]);
    // "c" decided from the real balance (the capital views of "a" and "b" did not change it), then got
    // what "a" and "b" left.
    const c = report.actions.find((a) => a.strategy === "c");
    expect(c?.reason).toMatch(/limited by the available 900 USDC/);
    for (const name of ["a", "b"])
      expect(report.actions.find((a) => a.strategy === name)?.reason).toMatch(
        /limited by the available 300 USDC/,
      );
    expect(c?.reason).toMatch(/went to a, b \(allocated first\)/);
  });
});
