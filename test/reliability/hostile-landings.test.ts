// Issue #17, Money 3 and 5: requests a hostile network holds back and delivers late, and a clock far
// off the venue's. Before the fix a held staking deposit was declared absent after 5 minutes and done
// again (the late copy then doubled it); with the local clock 10 minutes ahead a held TWAP was judged
// expired by our clock and placed twice; one action with the clock a year ahead stored a nonce that
// blocked every later one. Everything acts live against the simulator, through a rewriting proxy.
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { NonceStore } from "../../src/venue/nonces.js";
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

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const STAKE_IDLE = {
  name: "staking",
  kind: "validator-staking",
  params: { validators: 1, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
};

async function hostileBot(o: { strategies: Array<Record<string, unknown>>; fund: Record<string, string> }) {
  proxy = await startRewritingProxy();
  // The clocks tested here are far off: the strategies' hold on a far clock (schedule.maxClockSkew) is
  // raised, so what the executor and reconciler do with such a clock is what is tested.
  bot = await startTestBot({
    mode: "live",
    ...o,
    configExtra: { baseUrl: proxy.url, schedule: { maxClockSkew: "400d" } },
  });
  proxy.target = bot.sim.url;
  return { bot, proxy };
}

async function cycle(b: TestBot) {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger: "once", strategies: b.runtime.strategies() });
}

const actionType = (r: ProxiedRequest) => (r.json as { action?: { type?: string } }).action?.type;

describe("late landings (issue #17, Money 3)", () => {
  it("does not redo a held staking deposit after minutes; when the held copy lands it counts once", async () => {
    const { bot, proxy } = await hostileBot({ strategies: [STAKE_IDLE], fund: { HYPE: "100" } });
    proxy.holdExchange((r) => actionType(r) === "cDeposit");
    const first = await cycle(bot);
    expect(first.actions.map((a) => `${a.action} ${a.outcome}`)).toEqual(["cDeposit unknown"]);
    expect(proxy.held.length).toBeGreaterThan(0);
    expect(bot.sim.ledger({ kind: "cDeposit", user: bot.address })).toHaveLength(0);
    proxy.clear();

    bot.sim.advance(30 * MINUTE); // far past the old 5-minute grace
    const waiting = await cycle(bot);
    expect(waiting.reconciled.map((r) => r.verdict)).toEqual(["unresolved"]);
    expect(waiting.reconciled[0]?.detail).toMatch(/could still land until .*limits count it as spent/);
    expect(waiting.actions).toHaveLength(0);

    const late = await proxy.held[0]!.release(); // the held copy arrives after all
    expect(late.status).toBe(200);
    const after = await cycle(bot);
    expect(after.reconciled.map((r) => r.verdict)).toEqual(["landed"]);
    expect(bot.sim.ledger({ kind: "cDeposit", user: bot.address })).toHaveLength(1);
  });

  it("declares a held staking deposit absent only after the venue's whole nonce window, by the venue's clock", async () => {
    const { bot, proxy } = await hostileBot({ strategies: [STAKE_IDLE], fund: { HYPE: "100" } });
    proxy.holdExchange((r) => actionType(r) === "cDeposit");
    await cycle(bot);
    proxy.clear();
    bot.sim.advance(DAY);
    bot.clockOffsetMs = 3 * DAY; // our clock says the window is long over; the venue's does not
    expect((await cycle(bot)).reconciled.map((r) => r.verdict)).toEqual(["unresolved"]);
    bot.clockOffsetMs = 0;
    bot.sim.advance(DAY + 2 * MINUTE);
    const after = await cycle(bot);
    expect(after.reconciled.map((r) => r.verdict)).toEqual(["absent"]);
    expect(after.reconciled[0]?.detail).toMatch(/by the venue's clock/);
    // The held copy can no longer land: the venue refuses its nonce, so the redo is the only deposit.
    expect((await proxy.held[0]!.release()).json).toMatchObject({ status: "err" });
    expect(bot.sim.ledger({ kind: "cDeposit", user: bot.address })).toHaveLength(1);
  });

  it("with the local clock 10 minutes ahead, judges a held TWAP's expiry by the venue's clock: placed once", async () => {
    const { bot, proxy } = await hostileBot({
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    bot.clockOffsetMs = 10 * MINUTE;
    bot.sim.setPrice("@107", "40");
    proxy.holdExchange((r) => actionType(r) === "twapOrder");
    const first = await cycle(bot);
    expect(first.actions.map((a) => a.outcome)).toEqual(["unknown"]);
    proxy.clear();

    // expiresAfter is counted on the venue's clock (T + 60 s): 30 s on, the venue's clock is before it,
    // ours (10 minutes ahead) long past it.
    bot.sim.advance(30_000);
    const waiting = await cycle(bot);
    expect(waiting.reconciled.map((r) => r.verdict)).toEqual(["unresolved"]);
    expect(waiting.actions).toHaveLength(0);

    expect((await proxy.held[0]!.release()).status).toBe(200);
    const after = await cycle(bot);
    expect(after.reconciled.map((r) => r.verdict)).toEqual(["landed"]);
    expect(after.actions).toHaveLength(0);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(1);
  });
});

describe("nonces far ahead (issue #17, Money 5)", () => {
  it("refuses to take a nonce a year ahead of the venue's clock, and stores nothing", async () => {
    const { bot } = await hostileBot({ strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    bot.clockOffsetMs = 365 * DAY;
    const report = await cycle(bot);
    expect(report.actions.map((a) => a.outcome)).toEqual(["rejected"]);
    expect(report.actions[0]?.detail).toMatch(/not sent: the local clock is 365 days ahead of the venue's/);
    expect(new NonceStore(bot.runtime.db).last(bot.address)).toBeUndefined();

    bot.clockOffsetMs = 0; // clock fixed: the next action goes through at once
    const next = await cycle(bot);
    expect(next.actions.map((a) => a.outcome)).toEqual(["accepted"]);
  });

  it("diagnoses a stored nonce beyond the venue's window, names the remedy, and acts again once it is reset", async () => {
    const { bot } = await hostileBot({ strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const store = new NonceStore(bot.runtime.db);
    store.next(bot.address);
    const yearAhead = bot.sim.now() + 365 * DAY;
    bot.runtime.db.prepare("UPDATE nonces SET last_nonce = ?").run(yearAhead);
    const report = await cycle(bot);
    expect(report.actions.map((a) => a.outcome)).toEqual(["rejected"]);
    expect(report.actions[0]?.detail).toMatch(
      /stored nonce of .* is 365 days ahead.*hlbot journal reset-nonces/,
    );
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);

    expect(store.tooFarAhead(bot.sim.now()).map((r) => r.lastNonce)).toEqual([yearAhead]);
    expect(store.resetAhead(bot.sim.now())).toBe(1);
    const next = await cycle(bot);
    expect(next.actions.map((a) => a.outcome)).toEqual(["accepted"]);
  });
});
