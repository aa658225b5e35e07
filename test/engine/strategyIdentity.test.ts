// What a strategy did stays bound to what it touched, not only to its name: a review renamed a
// strategy (file edited, daemon reloaded) while its order's answer was lost, and the renamed strategy
// placed the same sale again, let its running TWAP's price guard lapse, and spent its budget again.

import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { watchRunningTwaps } from "../../src/engine/guards.js";
import type { Strategy } from "../../src/engine/strategies/registry.js";
import { parseDecimal } from "../../src/lib/decimal.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { type ProxiedRequest, type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
});

const actionType = (r: ProxiedRequest) => (r.json as { action?: { type?: string } }).action?.type;
const renamed = (b: TestBot, name: string): Strategy[] =>
  b.runtime.strategies().map((s) => ({ ...s, name }) as Strategy);

/** One cycle of `strategies`; the configuration holds `peers` (a rename renames both). */
async function cycle(b: TestBot, strategies = b.runtime.strategies(), peers?: Strategy[]) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return runCycle(peers ? { ...deps, peers, configured: peers } : deps, {
    trigger: "once",
    strategies,
  });
}

/** A HYPE DCA whose 400-USD budget one run uses up (387.73 USD filled). */
const DCA_400 = {
  name: "dca",
  kind: "twap-accumulate",
  params: {
    coin: "HYPE",
    side: "buy",
    amountUsd: 400,
    budgetUsd: 400,
    twap: { minutes: 5, randomize: false },
  },
};

describe("an unresolved order holds what it touches, whoever decides next", () => {
  it("a rebalancer renamed while its TWAP's answer was lost does not sell again; the held copy lands once", async () => {
    proxy = await startRewritingProxy();
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "40");
    proxy.holdExchange((r) => actionType(r) === "twapOrder");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["unknown"]);
    proxy.clear();

    const second = await cycle(bot, renamed(bot, "rebalance-hype"));
    expect(second.reconciled.map((r) => [r.strategy, r.verdict])).toEqual([["rebalance", "unresolved"]]);
    expect(second.actions).toHaveLength(0);
    const waiting = second.decisions.find((d) => d.decision.strategy === "rebalance-hype");
    expect(waiting?.decision.reason).toMatch(
      /; not sent: an earlier TWAP order on HYPE\/USDC \(rebalance's\) is not reconciled yet: it may still land$/,
    );
    expect((await proxy.held[0]!.release()).status).toBe(200);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(1);
    // Landed and found: the renamed strategy sees the running TWAP and sends nothing beside it.
    const third = await cycle(bot, renamed(bot, "rebalance-hype"));
    expect(third.reconciled.map((r) => r.verdict)).toEqual(["landed"]);
    expect(third.actions).toHaveLength(0);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(1);
  });

  it("a staking move waits while another strategy's staking action is unresolved", async () => {
    proxy = await startRewritingProxy();
    const staking = (name: string) => ({
      name,
      kind: "validator-staking",
      params: { validators: 2, maxCommission: 0.05, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
    });
    bot = await startTestBot({
      mode: "live",
      strategies: [staking("staking")],
      fund: { HYPE: "2000", USDC: "1000" },
      limits: { maxStakeMovePerDay: 100_000 },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    proxy.holdExchange((r) => actionType(r) === "cDeposit");
    expect((await cycle(bot)).actions.map((a) => [a.action, a.outcome])).toEqual([["cDeposit", "unknown"]]);
    proxy.clear();
    const second = await cycle(bot, renamed(bot, "staking-v2"));
    expect(second.actions).toHaveLength(0);
    expect(second.decisions.map((d) => d.decision.reason).join("\n")).toMatch(
      /not sent: an earlier staking action \(staking's\) is not reconciled yet/,
    );
    expect((await proxy.held[0]!.release()).status).toBe(200);
    expect(bot.sim.ledger({ kind: "cDeposit", user: bot.address })).toHaveLength(1);
  });
});

describe("a running TWAP keeps the guard it was sent with", () => {
  const guarded = {
    name: "dca",
    kind: "twap-accumulate",
    params: {
      coin: "HYPE",
      side: "buy",
      amountUsd: 800,
      limitPx: 41,
      twap: { minutes: 60, randomize: false },
    },
  };

  it.each([
    ["renamed", (b: TestBot) => renamed(b, "dca-hype")],
    ["removed", () => [] as Strategy[]],
  ])(
    "its strategy %s, the watch still cancels it above its buy ceiling (journaled under the name that sent it)",
    async (_, now) => {
      bot = await startTestBot({ mode: "live", strategies: [guarded], fund: { USDC: "5000" } });
      bot.sim.setPrice("@107", "40");
      expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
      bot.sim.advance(60_000);
      bot.sim.setPrice("@107", "45");
      const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
      const watch = await watchRunningTwaps(deps, now(bot));
      expect(watch.checked).toBe(1);
      expect(watch.report?.actions.map((a) => [a.strategy, a.action, a.outcome])).toEqual([
        ["dca", "twapCancel", "accepted"],
      ]);
      expect(watch.report?.actions[0]?.reason).toMatch(/mid 45 rose above the buy ceiling limitPx 41/);
    },
  );

  it("a name reused for a DCA on another pair does not put that pair's limit on the running TWAP", async () => {
    bot = await startTestBot({ mode: "live", strategies: [guarded], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(60_000);
    // The HYPE DCA is now "dca-hype"; "dca" is a new PURR DCA with a ceiling of 0.2 (a review's case:
    // the HYPE buy at 40 was cancelled for "rising above" 0.2).
    const [old] = bot.runtime.strategies();
    const now = [
      { ...old!, name: "dca-hype" },
      { ...old!, name: "dca", params: { ...old!.params, coin: "PURR", limitPx: parseDecimal("0.2") } },
    ] as Strategy[];
    const watch = await watchRunningTwaps(bot.runtime.cycleDeps(await bot.runtime.facts()), now);
    expect(watch.checked).toBe(1); // its own ceiling of 41, journaled
    expect(watch.report).toBeUndefined();
  });

  it("a limit tightened in the file since applies too", async () => {
    bot = await startTestBot({ mode: "live", strategies: [guarded], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(60_000);
    bot.sim.setPrice("@107", "40.5");
    const tightened = bot.runtime
      .strategies()
      .map((s) => ({ ...s, params: { ...s.params, limitPx: parseDecimal("40.2") } }) as Strategy);
    const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
    const watch = await watchRunningTwaps(deps, tightened);
    expect(watch.report?.actions[0]?.reason).toMatch(/mid 40\.5 rose above the buy ceiling limitPx 40\.2/);
  });
});

describe("a budget follows its strategy's market, not only its name", () => {
  const budgeted = DCA_400;

  it("a DCA renamed in its file does not spend its used-up budget again; the reason names what it counted", async () => {
    bot = await startTestBot({ mode: "live", strategies: [budgeted], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    expect((await cycle(bot)).decisions[0]?.decision.reason).toMatch(
      /^budget used up \(3\d\d\.\d\d of 400 USD;/,
    );
    const renamedRun = await cycle(bot, renamed(bot, "dca-hype"), renamed(bot, "dca-hype"));
    expect(renamedRun.actions).toHaveLength(0);
    expect(renamedRun.decisions[0]?.decision.reason).toMatch(
      /^budget used up \(3\d\d\.\d\d of 400 USD, 3\d\d\.\d\d of it by dca \(no longer configured\) on this pair and side: counted as this strategy's in case it is one of them renamed \(the journal knows strategies by name\); if it is not, raise budgetUsd by that/,
    );
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(1);
  });

  it.each([
    ["a rebalancer disabled in its file", "disabled"],
    ["a rebalancer renamed in its file (no budget of its own)", "renamed"],
  ])("%s: its HYPE buys do not use up a DCA's budget", async (_, how) => {
    const dca = { ...budgeted, params: { ...budgeted.params, amountUsd: 200, budgetUsd: 1000 } };
    bot = await startTestBot({
      mode: "live",
      strategies: [dca, { ...REBALANCE, enabled: how !== "disabled" }],
      fund: { USDC: "10000" },
    });
    bot.sim.setPrice("@107", "40");
    const rebalancer = bot.runtime.config.strategies.filter((s) => s.name === "rebalance");
    const rebalanced = await cycle(bot, rebalancer);
    expect(rebalanced.actions.map((a) => [a.strategy, a.outcome])).toEqual([["rebalance", "accepted"]]);
    bot.sim.advance(61 * 60_000);
    const peers =
      how === "renamed" ? rebalancer.map((s) => ({ ...s, name: "rebalance-v2" }) as Strategy) : undefined;
    const run = await cycle(
      bot,
      bot.runtime.strategies().filter((s) => s.name === "dca"),
      peers && [...bot.runtime.strategies().filter((s) => s.name === "dca"), ...peers],
    );
    expect(
      run.actions.map((a) => [a.strategy, a.outcome]),
      run.decisions[0]?.decision.reason,
    ).toEqual([["dca", "accepted"]]);
  });

  it("a second DCA on the pair and side, disabled in its file, keeps its spend to itself", async () => {
    const main = {
      ...budgeted,
      name: "dca-main",
      params: { ...budgeted.params, amountUsd: 200, budgetUsd: 1000 },
    };
    const paused = {
      ...budgeted,
      name: "dca-paused",
      enabled: false,
      params: { ...budgeted.params, amountUsd: 1200, budgetUsd: 5000 },
    };
    bot = await startTestBot({ mode: "live", strategies: [main, paused], fund: { USDC: "10000" } });
    bot.sim.setPrice("@107", "40");
    const first = await cycle(
      bot,
      bot.runtime.config.strategies.filter((s) => s.name === "dca-paused"),
    );
    expect(first.actions.map((a) => [a.strategy, a.outcome])).toEqual([["dca-paused", "accepted"]]);
    bot.sim.advance(10 * 60_000);
    const run = await cycle(
      bot,
      bot.runtime.strategies().filter((s) => s.name === "dca-main"),
    );
    expect(
      run.actions.map((a) => [a.strategy, a.outcome]),
      run.decisions[0]?.decision.reason,
    ).toEqual([["dca-main", "accepted"]]);
  });

  it("renamed while its old name is reused for a DCA on another pair: the renamed one keeps its spend, the new one counts it too (fail closed, named)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [budgeted], fund: { USDC: "5000", PURR: "0" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    const [old] = bot.runtime.strategies();
    const hype = { ...old!, name: "dca-hype" } as Strategy;
    const purr = {
      ...old!,
      name: "dca",
      params: {
        ...old!.params,
        coin: "PURR",
        amountUsd: parseDecimal("150"),
        budgetUsd: parseDecimal("1000"),
      },
    } as Strategy;
    const run = await cycle(bot, [hype, purr], [hype, purr]);
    expect(run.actions.map((a) => [a.strategy, a.outcome])).toEqual([["dca", "accepted"]]);
    const held = run.decisions.find((d) => d.decision.strategy === "dca-hype")?.decision.reason;
    expect(held).toMatch(
      /^budget used up \(3\d\d\.\d\d of 400 USD, 3\d\d\.\d\d of it by dca \(now another strategy's name\)/,
    );
    // The journal cannot tell a new strategy from the old one moved to PURR: it counts them, and says so.
    const purrRun = run.actions.find((a) => a.strategy === "dca");
    // Where they were, said once (it read "… on another pair or side on this pair and side").
    expect(purrRun?.reason).toMatch(
      /3\d\d\.\d\d of it by its own name's TWAPs on another pair or side: counted/,
    );
  });

  it("a journal from before the budget stamp: a renamed DCA still counts its TWAPs (fail closed)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [budgeted], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    // What an older version wrote: the intent without the stamp.
    bot.runtime.db.prepare("UPDATE decisions SET intent = json_remove(intent, '$.byDca')").run();
    bot.sim.advance(10 * 60_000);
    const run = await cycle(bot, renamed(bot, "dca-hype"), renamed(bot, "dca-hype"));
    expect(run.actions).toHaveLength(0);
    expect(run.decisions[0]?.decision.reason).toMatch(/of it by dca \(no longer configured\)/);
  });

  it("TWAPs of a strategy no longer configured on the other side of the pair are not counted", async () => {
    const seller = {
      ...budgeted,
      name: "seller",
      params: { ...budgeted.params, side: "sell", budgetUsd: 5000 },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [budgeted, seller],
      fund: { USDC: "5000", HYPE: "100" },
    });
    bot.sim.setPrice("@107", "40");
    // A sell of HYPE by a strategy named "old-seller", not in the file now.
    const sold = await cycle(
      bot,
      bot.runtime
        .strategies()
        .filter((s) => s.name === "seller")
        .map((s) => ({ ...s, name: "old-seller" }) as Strategy),
    );
    expect(sold.actions.map((a) => [a.strategy, a.outcome])).toEqual([["old-seller", "accepted"]]);
    bot.sim.advance(10 * 60_000);
    const run = await cycle(
      bot,
      bot.runtime.strategies().filter((s) => s.name === "dca"),
    );
    expect(run.actions.map((a) => [a.strategy, a.outcome])).toEqual([["dca", "accepted"]]);
    expect(run.actions[0]?.reason).not.toMatch(/no longer configured/);
  });
});

describe("a budget follows its strategy through edits of its file", () => {
  const dca = DCA_400;
  const edited = (b: TestBot, params: Record<string, unknown>) =>
    b.runtime.strategies().map((s) => ({ ...s, params: { ...s.params, ...params } }) as Strategy);

  it("switched from buy to sell, or moved to another pair, it does not start its budget again", async () => {
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "5000", HYPE: "100" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    for (const params of [{ side: "sell" }, { coin: "PURR" }]) {
      const now = edited(bot, params);
      const run = await cycle(bot, now, now);
      expect(run.actions, run.decisions[0]?.decision.reason).toHaveLength(0);
      expect(run.decisions[0]?.decision.reason).toMatch(/^budget used up \(3\d\d\.\d\d of 400 USD/);
    }
  });

  it.each([
    ["a rebalancer renamed into the DCA's old name", "rebalancer"],
    ["a DCA without a budget on another pair given the old name", "unbudgeted"],
  ])("%s: the renamed budgeted DCA still counts its spend", async (_, who) => {
    bot = await startTestBot({ mode: "live", strategies: [dca, REBALANCE], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const [mine] = bot.runtime.strategies().filter((s) => s.name === "dca");
    expect((await cycle(bot, [mine!])).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    const renamedDca = { ...mine!, name: "dca-hype" } as Strategy;
    const other =
      who === "rebalancer"
        ? ({ ...bot.runtime.strategies().find((s) => s.name === "rebalance")!, name: "dca" } as Strategy)
        : ({ ...mine!, params: { ...mine!.params, coin: "PURR", budgetUsd: undefined } } as Strategy);
    const run = await cycle(bot, [renamedDca], [renamedDca, other]);
    expect(run.actions, run.decisions[0]?.decision.reason).toHaveLength(0);
    expect(run.decisions[0]?.decision.reason).toMatch(/of it by dca \(now another strategy's name\)/);
  });
});

describe("a budget counts, failing closed, what may have been its own", () => {
  const dca = DCA_400;

  it("moved to another pair beside a budgeted DCA there: it keeps its spend, and that one counts it too (fail closed, named)", async () => {
    const big = { ...dca, name: "dca-big", params: { ...dca.params, amountUsd: 200, budgetUsd: 5000 } };
    bot = await startTestBot({ mode: "live", strategies: [big, dca], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => [a.strategy, a.outcome])).toEqual([
      ["dca-big", "accepted"],
      ["dca", "accepted"],
    ]);
    bot.sim.advance(10 * 60_000);
    // Only dca's file changes: HYPE -> PURR. dca-big traded before it, so it is not dca renamed.
    const now = bot.runtime
      .strategies()
      .map((s) => (s.name === "dca" ? ({ ...s, params: { ...s.params, coin: "PURR" } } as Strategy) : s));
    const run = await cycle(bot, now, now);
    const moved = run.decisions.find((d) => d.decision.strategy === "dca")?.decision.reason;
    expect(moved).toMatch(/^budget used up \(3\d\d\.\d\d of 400 USD/);
    // dca-big cannot be told from a successor of dca there: it counts dca's HYPE TWAPs, and says so.
    const stays = run.decisions.find((d) => d.decision.strategy === "dca-big")?.decision.reason;
    expect(stays).toMatch(/of it by dca \(now another strategy's name\)/);
  });

  it("a journal from before the mark is marked from the configuration at the first start: a rename then keeps the spend", async () => {
    bot = await startTestBot({ mode: "live", strategies: [dca, REBALANCE], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const [mine] = bot.runtime.strategies().filter((s) => s.name === "dca");
    expect((await cycle(bot, [mine!])).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    // What an older version left: no marks, no flag.
    bot.runtime.db.prepare("UPDATE decisions SET intent = json_remove(intent, '$.byDca')").run();
    bot.runtime.db.prepare("DELETE FROM journal_flags").run();
    await bot.reopen("live");
    bot.sim.advance(10 * 60_000);
    // Then the DCA is renamed and its old name goes to the rebalancer (a review's case).
    const renamedDca = { ...mine!, name: "dca-hype" } as Strategy;
    const rebalancer = {
      ...bot.runtime.strategies().find((s) => s.name === "rebalance")!,
      name: "dca",
    } as Strategy;
    const run = await cycle(bot, [renamedDca], [renamedDca, rebalancer]);
    expect(run.actions, run.decisions[0]?.decision.reason).toHaveLength(0);
  });
});

describe("renames a review found the budget forgot", () => {
  const dca = (name: string, params: Record<string, unknown> = {}) => ({
    name,
    kind: "twap-accumulate",
    params: {
      coin: "HYPE",
      side: "buy",
      amountUsd: 200,
      budgetUsd: 400,
      twap: { minutes: 5, randomize: false },
      ...params,
    },
  });
  const as = (s: Strategy, name: string, params: Record<string, unknown> = {}) =>
    ({ ...s, name, params: { ...s.params, ...params } }) as Strategy;
  const placed = () => bot!.sim.ledger({ kind: "twapPlaced", user: bot!.address }).length;

  it("renamed and renamed back: each name counts the other's TWAPs", async () => {
    bot = await startTestBot({ mode: "live", strategies: [dca("dca")], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const [s] = bot.runtime.strategies();
    expect((await cycle(bot, [s!], [s!])).actions).toHaveLength(1);
    bot.sim.advance(10 * 60_000);
    const hype = as(s!, "dca-hype");
    expect((await cycle(bot, [hype], [hype])).actions).toHaveLength(1); // the second half of the budget
    bot.sim.advance(10 * 60_000);
    const back = await cycle(bot, [s!], [s!]);
    expect(back.actions, back.decisions[0]?.decision.reason).toHaveLength(0);
    expect(placed()).toBe(2);
  });

  it("a DCA that traded without a budget, given one and renamed, counts what it traded", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [dca("dca", { amountUsd: 400, budgetUsd: undefined })],
      fund: { USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    const [s] = bot.runtime.strategies();
    expect((await cycle(bot, [s!], [s!])).actions).toHaveLength(1);
    bot.sim.advance(10 * 60_000);
    const renamedBudgeted = as(s!, "dca-hype", { budgetUsd: parseDecimal("400") });
    const run = await cycle(bot, [renamedBudgeted], [renamedBudgeted]);
    expect(run.actions, run.decisions[0]?.decision.reason).toHaveLength(0);
  });

  it("two DCAs that traded side by side, their coins swapped: neither buys beyond its budget", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        dca("dca-a", { amountUsd: 400, budgetUsd: 800 }),
        dca("dca-b", { coin: "PURR", amountUsd: 400, budgetUsd: 800 }),
      ],
      fund: { USDC: "10000" },
    });
    bot.sim.setPrice("@107", "40");
    for (let i = 0; i < 2; i++) {
      expect((await cycle(bot)).actions).toHaveLength(2);
      bot.sim.advance(10 * 60_000);
    }
    const [a, b] = bot.runtime.strategies();
    const swapped = [as(a!, "dca-a", { coin: "PURR" }), as(b!, "dca-b", { coin: "HYPE" })];
    const run = await cycle(bot, swapped, swapped);
    expect(run.actions, run.decisions.map((d) => d.decision.reason).join("\n")).toHaveLength(0);
  });
});

describe("a name another kind of strategy had before", () => {
  it("a new DCA named as a removed rebalancer does not count the rebalancer's TWAPs", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { USDC: "10000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => [a.strategy, a.outcome])).toEqual([
      ["rebalance", "accepted"],
    ]);
    bot.sim.advance(61 * 60_000);
    const [template] = bot.runtime.strategies();
    const dca = {
      ...template!,
      name: "rebalance",
      kind: "twap-accumulate",
      params: {
        coin: "HYPE",
        quote: "USDC",
        side: "buy",
        amountUsd: parseDecimal("200"),
        budgetUsd: parseDecimal("1000"),
        twap: { minutes: 5, randomize: false },
      },
    } as unknown as Strategy;
    const run = await cycle(bot, [dca], [dca]);
    expect(
      run.actions.map((a) => [a.strategy, a.outcome]),
      run.decisions[0]?.decision.reason,
    ).toEqual([["rebalance", "accepted"]]);
    // Its budget starts from nothing: the rebalancer's sale is not counted.
    expect(run.actions[0]?.reason).toMatch(/; budget: 0 of 1000 USD spent before this run$/);
  });
});
