// Issue #17, Money 1 and 2: a hostile venue (a rewriting proxy in front of the simulator) answers one
// wrong price or swapped pair metadata. Before the fix one allMids mid valued every limit and the
// asset id was taken from spotMeta unchecked, so a 12,500-USD order passed as 100 USD and a HYPE buy
// was signed for UBTC. Each case acts live: what the simulator's ledger holds is what was executed.
import { afterEach, describe, expect, it } from "vitest";
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

async function hostileBot(fund: Record<string, string>, limits: Record<string, unknown> = {}) {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [REBALANCE],
    fund,
    limits: { maxOrderUsd: 500, ...limits },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  return { bot, proxy };
}

async function cycle(b: TestBot, trigger: "plan" | "once" = "once") {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger, strategies: b.runtime.strategies() });
}

function placed(b: TestBot) {
  return b.sim.ledger({ kind: "twapPlaced", user: b.address });
}

type Ctx = { coin: string; markPx: string; midPx: string | null; prevDayPx: string };
type Meta = { universe: Array<{ name: string; index: number; tokens: [number, number] }> };

describe("price sanity (issue #17, Money 1)", () => {
  it("blocks a sell of 1,000 HYPE valued at a rewritten mid of 0.2 (real 25): the mark disagrees", async () => {
    const { bot, proxy } = await hostileBot({ HYPE: "1000" });
    proxy.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "@107": "0.2" }));
    const report = await cycle(bot);
    expect(report.actions).toHaveLength(0);
    const blocked = report.decisions.filter((d) => d.guard === "blocked");
    expect(blocked).toHaveLength(1);
    expect(blocked[0]?.decision.reason).toMatch(
      /mid 0\.2 is 99\.2% below the mark 25, outside the 10% bound.*price sanity/,
    );
    expect(placed(bot)).toHaveLength(0);
  });

  it("blocks a buy sized at a mid of 1 (5,000 USD passing as 500)", async () => {
    const { bot, proxy } = await hostileBot({ USDC: "5000" });
    proxy.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "@107": "1" }));
    const report = await cycle(bot);
    expect(report.actions).toHaveLength(0);
    expect(report.decisions.map((d) => d.guard)).toEqual(["blocked"]);
    expect(placed(bot)).toHaveLength(0);
  });

  it("blocks a consistent lie (mid, mark and previous-day all 0.000001) against the last mid an earlier cycle saw", async () => {
    const { bot, proxy } = await hostileBot({ HYPE: "1000", USDC: "25000" });
    const first = await cycle(bot, "plan"); // balanced at 25: nothing to do, but the mid is remembered
    expect(first.actions).toHaveLength(0);
    expect(bot.runtime.journal.pairMemory("HYPE/USDC")).toMatchObject({
      coin: "@107",
      assetId: 10107,
      mid: "25",
    });

    const lie = "0.000001";
    proxy.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "@107": lie }));
    proxy.rewriteInfo("spotMetaAndAssetCtxs", (answer) => {
      const [meta, ctxs] = answer as [unknown, Ctx[]];
      return [
        meta,
        ctxs.map((c) => (c.coin === "@107" ? { ...c, markPx: lie, midPx: lie, prevDayPx: lie } : c)),
      ];
    });
    bot.sim.advance(5 * 60_000);
    const report = await cycle(bot);
    expect(report.actions).toHaveLength(0);
    expect(report.decisions.map((d) => d.guard)).toEqual(["blocked"]);
    expect(report.decisions[0]?.decision.reason).toMatch(
      /mid 0\.000001 is 99\.99% below the last mid seen 5 min ago 25/,
    );
    expect(placed(bot)).toHaveLength(0);
    // The lie did not become the reference.
    expect(bot.runtime.journal.pairMemory("HYPE/USDC")?.mid).toBe("25");
  });

  it("values the order at the highest price that agrees (a mark 4% above the mid) for maxOrderUsd", async () => {
    const { bot, proxy } = await hostileBot({ USDC: "5000" });
    proxy.rewriteInfo("spotMetaAndAssetCtxs", (answer) => {
      const [meta, ctxs] = answer as [unknown, Ctx[]];
      return [meta, ctxs.map((c) => (c.coin === "@107" ? { ...c, markPx: "26" } : c))];
    });
    const report = await cycle(bot);
    expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    expect(report.decisions[0]?.decision.reason).toMatch(/valued at 26 \(the mark/);
    const twap = (report.actions[0]!.request as { action: { twap: { s: string } } }).action.twap;
    // 500 USD at 26 is 19.23 HYPE (at the mid of 25 it would have been 20).
    expect(twap.s).toBe("19.23");
    const [row] = bot.runtime.journal.recentSubmissions(1);
    expect(row?.notionalUsd).toBe("499.98");
  });
});

describe("metadata cross-check (issue #17, Money 2)", () => {
  it("refuses a HYPE buy when spotMeta's pair indices are swapped (it would be signed for UBTC)", async () => {
    const { bot, proxy } = await hostileBot({ USDC: "5000" });
    const swap = (meta: Meta): Meta => ({
      ...meta,
      universe: meta.universe.map((p) =>
        p.name === "@107" ? { ...p, index: 142 } : p.name === "@142" ? { ...p, index: 107 } : p,
      ),
    });
    proxy.rewriteInfo("spotMeta", (m) => swap(m as Meta));
    proxy.rewriteInfo("spotMetaAndAssetCtxs", (a) => {
      const [meta, ctxs] = a as [Meta, unknown];
      return [swap(meta), ctxs];
    });
    const report = await cycle(bot);
    expect(report.actions).toHaveLength(0);
    expect(report.decisions[0]?.guard).toBe("blocked");
    expect(report.decisions[0]?.decision.reason).toMatch(
      /names pair index 142 "@107".*metadata inconsistent/,
    );
    expect(placed(bot)).toHaveLength(0);
    expect(bot.runtime.journal.pairMemory("HYPE/USDC")).toBeUndefined();
  });

  it("refuses, loudly, when a pair's asset id changes between cycles (tokens swapped between two pairs)", async () => {
    const { bot, proxy } = await hostileBot({ HYPE: "1000", USDC: "25000" });
    await cycle(bot, "plan");
    expect(bot.runtime.journal.pairMemory("HYPE/USDC")?.assetId).toBe(10107);
    const swap = (meta: Meta): Meta => ({
      ...meta,
      universe: meta.universe.map((p) =>
        p.name === "@107" ? { ...p, tokens: [197, 0] } : p.name === "@142" ? { ...p, tokens: [150, 0] } : p,
      ),
    });
    proxy.rewriteInfo("spotMeta", (m) => swap(m as Meta));
    proxy.rewriteInfo("spotMetaAndAssetCtxs", (a) => {
      const [meta, ctxs] = a as [Meta, unknown];
      return [swap(meta), ctxs];
    });
    proxy.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "@142": "25", "@107": "95000" }));
    bot.sim.fund(bot.address, "USDC", "10000"); // out of balance now: the rebalancer wants to buy HYPE
    const report = await cycle(bot);
    expect(report.actions).toHaveLength(0);
    expect(report.decisions.map((d) => d.guard)).toContain("blocked");
    expect(report.decisions.find((d) => d.guard === "blocked")?.decision.reason).toMatch(
      /HYPE\/USDC changed since an earlier cycle \(asset id 10107 → 10142, pair name @107 → @142/,
    );
    expect(placed(bot)).toHaveLength(0);
    expect(bot.runtime.journal.pairMemory("HYPE/USDC")?.assetId).toBe(10107);
  });
});
