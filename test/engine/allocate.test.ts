// One allocator per account (issue #12): strategies decide from one snapshot, then their intents are
// fitted together before anything is signed. Pure cases pin the rules down; the simulator cases
// reproduce what was seen with the shipped CLI (buys refused again and again, opposing TWAPs in one
// minute, a blocked DCA run dropped, budgets counting unfilled TWAPs, USD limits in quote units).
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  allocate,
  buyCost,
  DEFAULT_TWAP_BUY_RESERVE,
  REFUSED_ORDER_HOLD_MS,
} from "../../src/engine/allocate.js";
import { runCycle } from "../../src/engine/cycle.js";
import type { Intent, TwapOrderIntent } from "../../src/engine/intents.js";
import { parseDecimal } from "../../src/lib/decimal.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import {
  JAILED_VALIDATOR,
  REBALANCE,
  stakeWithJailedValidator,
  startTestBot,
  type TestBot,
} from "../helpers/bot.js";
import { buildSnapshot, T0 } from "../helpers/snapshots.js";

const d = (v: string | number) => parseDecimal(v);

function twap(strategy: string, side: "buy" | "sell", size: string, mid = "40"): TwapOrderIntent {
  return {
    kind: "twapOrder",
    strategy,
    reason: `${strategy} wants it`,
    coin: "@107",
    label: "HYPE/USDC",
    assetId: 10107,
    side,
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

describe("allocate (pure)", () => {
  const snapshot = buildSnapshot({ balances: { USDC: 1000, HYPE: 100 } });

  it("sizes a buy of the whole quote balance to what the venue holds for it (slippage reserve + fee)", () => {
    const out = allocate([twap("dca", "buy", "25")], snapshot, { strategies: [{ name: "dca" }] });
    const t = out.intents[0] as TwapOrderIntent;
    // 1000 / (40 × (1 + 0.03 + 0.0007)) = 24.25…
    expect(t.size.toFixed()).toBe("24.25");
    expect(buyCost(t.size, t.midPx, DEFAULT_TWAP_BUY_RESERVE, d("0.0007")).lte(1000)).toBe(true);
    expect(t.reason).toMatch(/reduced to 24.25: 1000 USDC is left for it, 1030.7 needed/);
    // The fee rate as the account pays it, not cut to two decimals (0.07%, and 0.0672% read 0.06%).
    expect(t.reason).toContain("(a buy keeps size × mid × (1 + 3% slippage reserve + 0.07% fee))");
    const discounted = allocate(
      [twap("dca", "buy", "25")],
      { ...snapshot, spotTakerFee: d("0.000672") },
      {
        strategies: [{ name: "dca" }],
      },
    );
    expect(discounted.intents[0]?.reason).toContain("+ 0.0672% fee))");
    expect(out.changed).toEqual([t]);
  });

  it("never takes a token below limits.keepOnSpot: sells, buys' quote and staking deposits stop above it", () => {
    const floors = {
      keepOnSpot: new Map([
        ["HYPE", d(80)],
        ["USDC", d(600)],
      ]),
    };
    const sell = allocate([twap("reb", "sell", "50")], snapshot, {
      strategies: [{ name: "reb" }],
      ...floors,
    });
    expect((sell.intents[0] as TwapOrderIntent).size.toFixed()).toBe("20");
    expect(sell.intents[0]?.reason).toMatch(
      /reduced to 20: 20 HYPE is left for it above limits.keepOnSpot 80 HYPE, 50 needed/,
    );
    // 400 USDC above the floor: 400 / (40 × 1.0307) = 9.70 HYPE.
    const buy = allocate([twap("dca", "buy", "20")], snapshot, { strategies: [{ name: "dca" }], ...floors });
    expect((buy.intents[0] as TwapOrderIntent).size.toFixed()).toBe("9.7");
    const deposit = allocate(
      [{ kind: "cDeposit", strategy: "stake", amount: d(30), reason: "stake idle HYPE" }],
      snapshot,
      { strategies: [{ name: "stake" }], ...floors },
    );
    expect(deposit.intents).toEqual([]);
    expect(deposit.skipped[0]?.reason).toBe(
      "stake idle HYPE; not sent: 20 HYPE is left for it above limits.keepOnSpot 80 HYPE",
    );
    // What is on hold is on its way out: with a running sell of 30, 70 HYPE stay, below the floor of 80.
    const held = buildSnapshot({ balances: { USDC: 1000, HYPE: { total: 100, hold: 30 } } });
    const none = allocate([twap("reb", "sell", "10")], held, { strategies: [{ name: "reb" }], ...floors });
    expect(none.intents).toEqual([]);
    expect(none.skipped[0]?.reason).toMatch(/0 HYPE is left for it above limits.keepOnSpot 80 HYPE/);
  });

  it("reserves balances in the listed order; the strategy crowded out is deferred with the reason", () => {
    const out = allocate([twap("a", "buy", "20"), twap("b", "buy", "20")], snapshot, {
      strategies: [{ name: "a" }, { name: "b" }],
    });
    expect(out.intents.map((i) => [i.strategy, (i as TwapOrderIntent).size.toFixed()])).toEqual([
      ["a", "20"],
      ["b", "4.25"],
    ]);
    // Too little left for even the shortest TWAP: deferred, not dropped.
    const tight = allocate([twap("a", "buy", "23"), twap("b", "buy", "20")], snapshot, {
      strategies: [{ name: "a" }, { name: "b" }],
    });
    expect(tight.intents.map((i) => i.strategy)).toEqual(["a"]);
    expect(tight.skipped[0]).toMatchObject({ strategy: "b", defer: true });
    expect(tight.skipped[0]?.reason).toMatch(/went to a \(allocated first\)/);
  });

  it("a priority changes the order", () => {
    const out = allocate([twap("a", "buy", "23"), twap("b", "buy", "24")], snapshot, {
      strategies: [{ name: "a" }, { name: "b", priority: 1 }],
    });
    expect(out.intents.map((i) => i.strategy)).toEqual(["b"]);
    expect(out.skipped[0]).toMatchObject({ strategy: "a", defer: true });
  });

  it("nets opposing TWAPs on one pair: one TWAP for the difference", () => {
    const out = allocate([twap("rebalance", "sell", "40"), twap("dca", "buy", "10")], snapshot, {
      strategies: [{ name: "rebalance" }, { name: "dca" }],
    });
    expect(out.intents).toHaveLength(1);
    expect(out.intents[0]).toMatchObject({ strategy: "rebalance", side: "sell" });
    expect((out.intents[0] as TwapOrderIntent).size.toFixed()).toBe("30");
    expect(out.skipped[0]?.reason).toMatch(/netted: rebalance's sell of 40 HYPE\/USDC/);
  });

  it("never resends the order the venue refused; a re-sized one goes out", () => {
    const refused = {
      assetId: 10107,
      side: "buy" as const,
      size: d("10"),
      notionalUsd: d("400"),
      reason: "Order has insufficient spot balance to trade",
      at: T0 - 60_000,
    };
    const lastRefused = new Map([["dca", refused]]);
    const same = allocate([twap("dca", "buy", "10")], snapshot, {
      strategies: [{ name: "dca" }],
      lastRefused,
    });
    expect(same.intents).toEqual([]);
    expect(same.skipped[0]?.reason).toMatch(/refused this identical order .* backing off/);
    // The same order at a slightly moved mid is the same order in effect.
    const moved = allocate([twap("dca", "buy", "10.02", "39.9")], snapshot, {
      strategies: [{ name: "dca" }],
      lastRefused,
    });
    expect(moved.intents).toEqual([]);
    const other = allocate([twap("dca", "buy", "9")], snapshot, {
      strategies: [{ name: "dca" }],
      lastRefused,
    });
    expect(other.intents).toHaveLength(1);
  });

  it("holds a refused order back only while its pair's balances stand, and not for ever", () => {
    const base = {
      assetId: 10107,
      side: "buy" as const,
      size: d("10"),
      notionalUsd: d("400"),
      reason: "Order has insufficient spot balance to trade",
      at: T0 - 60_000,
      balances: { USDC: "1000", HYPE: "100", PURR: "7" },
    };
    const run = (refused: typeof base) =>
      allocate([twap("dca", "buy", "10")], snapshot, {
        strategies: [{ name: "dca" }],
        lastRefused: new Map([["dca", refused]]),
      });
    // The same balances of HYPE and USDC (another token's do not matter): held, saying until when.
    const held = run({ ...base, balances: { ...base.balances, PURR: "9" } });
    expect(held.intents).toEqual([]);
    expect(held.skipped[0]?.reason).toMatch(/HYPE and USDC balances have not changed since/);
    expect(held.skipped[0]?.reason).toContain(new Date(base.at + REFUSED_ORDER_HOLD_MS).toISOString());
    // USDC arrived since (or a fill, or a sale): what the order lacked may be there now.
    expect(run({ ...base, balances: { ...base.balances, USDC: "900" } }).intents).toHaveLength(1);
    // Nothing changed, but the refusal is REFUSED_ORDER_HOLD_MS old: tried again (a halted pair resumes).
    expect(run({ ...base, at: T0 - REFUSED_ORDER_HOLD_MS }).intents).toHaveLength(1);
    expect(run({ ...base, at: T0 - REFUSED_ORDER_HOLD_MS + 60_000 }).intents).toEqual([]);
  });

  it("a staking deposit crowded out by a sell defers the staking strategy's whole run", () => {
    const deposit: Intent = { kind: "cDeposit", strategy: "stake", reason: "stake idle HYPE", amount: d(90) };
    const delegate: Intent = {
      kind: "tokenDelegate",
      strategy: "stake",
      reason: "delegate",
      validator: "0x01",
      amount: d(90),
      isUndelegate: false,
    };
    const out = allocate([twap("rebalance", "sell", "40"), deposit, delegate], snapshot, {
      strategies: [{ name: "rebalance" }, { name: "stake" }],
    });
    expect(out.intents.map((i) => i.kind)).toEqual(["twapOrder"]);
    expect(out.skipped.map((s) => [s.considered, s.defer])).toEqual([
      ["cDeposit", true],
      ["tokenDelegate", true],
    ]);
  });
});

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function cycle(b: TestBot) {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger: "once", strategies: b.runtime.strategies() });
}

function placed(b: TestBot) {
  return b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
}

const ALL_IN = {
  ...REBALANCE,
  name: "all-in",
  params: { ...REBALANCE.params, targets: { HYPE: 1, USDC: 0 } },
};

const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 300,
    twap: { minutes: 10, randomize: false },
  },
};

describe("allocation against the simulator", () => {
  it("a buy of all the USDC is sized to the venue's 3% hold and accepted (it was refused on every run)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [ALL_IN], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot);
    expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    expect(report.decisions[0]?.guard).toBe("reduced");
    expect(placed(bot)).toHaveLength(1);
  });

  it("a DCA next to limits.keepOnSpot {USDC: 500} buys day after day until the floor, never through it", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          params: { coin: "HYPE", side: "buy", amountUsd: 150, twap: { minutes: 30, randomize: false } },
        },
      ],
      limits: { keepOnSpot: { USDC: 500 } },
      fund: { USDC: "1000" },
    });
    bot.sim.setPrice("@107", "40");
    const reasons: string[] = [];
    for (let day = 0; day < 6; day++) {
      const report = await cycle(bot);
      reasons.push(...report.decisions.map((x) => x.guardReason ?? x.decision.reason));
      bot.sim.advance(24 * 60 * 60_000);
    }
    // Three buys of 150 (plus fees) fit above 500; the fourth is limited below the venue minimum.
    expect(placed(bot)).toHaveLength(3);
    expect(Number(bot.sim.balance(bot.address, "USDC").total)).toBeGreaterThanOrEqual(500);
    expect(reasons.at(-1)).toMatch(
      /^[\d.]+ USDC is below the venue minimum for a TWAP: at least 100 USDC in all; limited by the available [\d.]+ USDC above limits\.keepOnSpot 500 USDC$/,
    );
  });

  it("a HYPE floor above staking's keepSpot: staking deposits what is above both and still leaves a jailed validator", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          params: {
            validators: 2,
            maxCommission: 0.05,
            maxMovePerRun: 10000,
            stakeIdleSpot: { enabled: true, keepSpot: 10 },
          },
        },
      ],
      limits: { keepOnSpot: { HYPE: 100 } },
      fund: { HYPE: "1200" },
    });
    const jailed = JAILED_VALIDATOR;
    await stakeWithJailedValidator(bot);
    const report = await cycle(bot);
    const sent = report.actions.map((a) => (a.request as { action: Record<string, unknown> }).action);
    // 200 on spot, 100 kept by the floor and 10 by keepSpot above it: 90 deposited (9000000000 wei),
    // after the stake leaving the jailed validator (a daily cap is spent on it first).
    expect(sent[0]).toMatchObject({ type: "tokenDelegate", isUndelegate: true, validator: jailed });
    expect(sent.filter((x) => x.type === "cDeposit")).toEqual([
      expect.objectContaining({ type: "cDeposit", wei: 9_000_000_000 }),
    ]);
    expect(report.actions.every((a) => a.outcome === "accepted")).toBe(true);
    expect(Number(bot.sim.balance(bot.address, "HYPE").total)).toBe(110);
  });

  it("after a refusal for balance, the identical order is not sent again", async () => {
    // The venue holds 10% here while the bot plans with 3%: the first buy is refused.
    bot = await startTestBot({
      mode: "live",
      strategies: [ALL_IN],
      fund: { USDC: "5000" },
      sim: { settings: { twapBuyHoldMargin: "0.1" } },
    });
    bot.sim.setPrice("@107", "40");
    const first = await cycle(bot);
    expect(first.actions.map((a) => a.outcome)).toEqual(["rejected"]);
    expect(first.actions[0]?.detail).toMatch(/insufficient spot balance/);
    bot.sim.advance(5 * 60_000);
    const second = await cycle(bot);
    expect(second.actions).toEqual([]);
    expect(second.decisions[0]?.decision.reason).toMatch(/refused this identical order/);
    // A change of balance re-sizes the order: it goes out again, different.
    bot.sim.fund(bot.address, "USDC", "100");
    bot.sim.advance(5 * 60_000);
    const third = await cycle(bot);
    expect(third.actions).toHaveLength(1);
  });

  it("a rebalancer sell and a DCA buy in the same cycle become one TWAP", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE, DCA],
      fund: { HYPE: "1000", USDC: "30000" },
    });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot);
    expect(placed(bot)).toHaveLength(1);
    expect(report.actions.map((a) => [a.strategy, a.outcome])).toEqual([["rebalance", "accepted"]]);
    const dca = report.decisions.find((x) => x.decision.strategy === "dca");
    expect(dca?.decision.reason).toMatch(/netted/);
    expect(dca?.decision).not.toHaveProperty("defer");
    expect(dca?.decision).not.toHaveProperty("coveredOn");
  });

  it("a DCA buy netted against a sale the limits then block is deferred, not lost (a trader's trial)", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE, DCA],
      fund: { HYPE: "1000", USDC: "30000" },
      // Less than the rebalancer's sale (about 5,000 USD) and nothing smaller fits the TWAP minimum
      // after it: the daily limit blocks the sale that covered the DCA's buy.
      limits: { maxDailyNotionalUsd: 50 },
    });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot);
    expect(placed(bot)).toHaveLength(0);
    const dca = report.decisions.find((x) => x.decision.strategy === "dca");
    expect(dca?.decision).toMatchObject({ kind: "skip", defer: true });
    expect(dca?.decision.reason).toMatch(
      /netted: .*; that TWAP did not go out \(blocked or refused\): not traded, the slot stays due$/,
    );
  });

  it("a DCA run blocked by another strategy's running TWAP is deferred, not dropped", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    await cycle(bot);
    const facts = await bot.runtime.facts();
    const report = await runCycle(bot.runtime.cycleDeps(facts), {
      trigger: "once",
      strategies: [{ name: "dca", kind: "twap-accumulate", params: parseDca() }],
    });
    const skip = report.decisions[0]?.decision;
    expect(skip).toMatchObject({ kind: "skip", defer: true });
    expect(skip?.reason).toMatch(/already running/);
  });
});

function parseDca() {
  return {
    coin: "HYPE",
    quote: "USDC",
    side: "buy" as const,
    amountUsd: d(300),
    twap: { minutes: 10, randomize: false },
  };
}

describe("budgets count fills", () => {
  it("a TWAP that filled nothing on a halted pair leaves its budget available, and says so", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [{ ...DCA, params: { ...DCA.params, budgetUsd: 600 } }],
      fund: { USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    for (let run = 0; run < 3; run++) {
      const report = await cycle(bot);
      expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
      if (run > 0)
        expect(report.actions[0]?.reason).toMatch(
          /the last TWAP #\d+ filled nothing \(valued at [\d.]+ USD for the limits when sent\)/,
        );
      // Halted while it runs: no suborder fills.
      bot.sim.setPairHalted("@107", true);
      bot.sim.advance(15 * 60_000);
      bot.sim.setPairHalted("@107", false);
    }
    // Counted as submitted, the budget (600) would be used up; counted as filled, nothing is spent yet.
    // Now they fill: two runs of 300 use the budget up, and the reason says so.
    for (let run = 0; run < 2; run++) {
      expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
      bot.sim.advance(15 * 60_000);
    }
    const done = await cycle(bot);
    expect(done.actions).toEqual([]);
    expect(done.decisions[0]?.decision.reason).toMatch(/budget used up \(\d+(\.\d+)? of 600 USD/);
  });
});

describe("limits in USD", () => {
  it("an order on a pair quoted in HYPE is valued in USD for maxOrderUsd", async () => {
    const scenario = parse(readFileSync(DEMO_SCENARIO_PATH, "utf8")) as {
      pairs: Array<Record<string, unknown>>;
      prices: Record<string, unknown>;
    };
    const withPair = {
      ...scenario,
      pairs: [...scenario.pairs, { index: 180, base: "UBTC", quote: "HYPE" }],
      prices: { ...scenario.prices, "@180": { start: "4000", drift: 0, volatility: 0 } },
    };
    bot = await startTestBot({
      mode: "live",
      sim: { scenario: withPair as never },
      limits: { maxOrderUsd: 5000 },
      strategies: [
        {
          name: "btc-in-hype",
          kind: "twap-accumulate",
          params: {
            coin: "UBTC",
            quote: "HYPE",
            side: "buy",
            amountUsd: 50_000,
            twap: { minutes: 10, randomize: false },
          },
        },
      ],
      fund: { HYPE: "10000" },
    });
    bot.sim.setPrice("@107", "25");
    bot.sim.setPrice("@180", "4000");
    const report = await cycle(bot);
    expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    const entry = report.decisions.find((x) => x.action);
    const intent = entry?.decision as TwapOrderIntent;
    // 5000 USD at 4000 HYPE × 25 USD per UBTC = 0.05 UBTC (counted in quote units it was 5000 HYPE:
    // 1.25 UBTC, ≈125,000 USD, let through by maxOrderUsd 5000).
    expect(intent.size.toFixed()).toBe("0.05");
    expect(intent.notionalUsd.toFixed()).toBe("5000");
    expect(bot.runtime.journal.usage(bot.address, 0).notionalUsd.toFixed()).toBe("5000");
  });
});
