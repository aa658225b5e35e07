// The daemon told `twap.finished` / `twap.cancelled` only for TWAPs its own process saw running: a TWAP
// that ended across a restart (an upgrade, a crash, a liveness kill) or while the daemon was down was
// never told (a daemon operator's trial). A new process now follows the TWAPs the journal shows placed
// and not seen ending (followTwapsOf), and tells each once.
import pino from "pino";
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { DaemonNotices, followTwapsOf } from "../../src/engine/notify/daemonNotices.js";
import { channelsFromConfig, Notifier } from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import { placeManualHypeTwap } from "../helpers/manual.js";

let bot: TestBot | undefined;
let hook: TestHttpServer | undefined;
afterEach(async () => {
  await bot?.close();
  await hook?.close();
  bot = hook = undefined;
});

/** A notifier sending every event to the test's webhook. */
function webhookNotifier(): Notifier {
  return new Notifier({
    channels: channelsFromConfig(
      { timeoutMs: 2000, retries: 0, minIntervalMs: 0, webhook: { url: `${hook!.url}/hook` } },
      {},
    ),
    logger: pino({ level: "silent" }),
    minIntervalMs: 0,
  });
}

/** The notices a `hlbot run` process makes as it starts (cli/commands/run.ts), on the test bot. */
function daemonNotices(notifier: Notifier): DaemonNotices {
  const runtime = bot!.runtime;
  return new DaemonNotices({
    notifier,
    info: runtime.info,
    account: runtime.account,
    network: "testnet",
    killSwitchFile: runtime.config.limits.killSwitchFile,
    clock: () => bot!.sim.now(),
    logger: pino({ level: "silent" }),
    placedBefore: followTwapsOf(runtime.journal, runtime.account, bot!.sim.now()),
    journal: runtime.journal,
  });
}

/** One cycle of the test bot's strategies. */
async function cycle(trigger: "once" | "run" = "once") {
  const runtime = bot!.runtime;
  return runCycle(runtime.cycleDeps(await runtime.facts()), { trigger, strategies: runtime.strategies() });
}

it("a TWAP placed before a restart and ended after it is told as finished by the new process", async () => {
  hook = await startHttpServer([{ json: {} }]);
  bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
  bot.sim.setPrice("@107", "40");
  const notifier = webhookNotifier();
  const process = () => daemonNotices(notifier);

  // First process: places the rebalancer's one-hour TWAP, then is restarted.
  const before = process();
  before.start("live", ["rebalance"]);
  const first = await cycle();
  before.afterCycle(first, ["rebalance"], 0);
  expect(first.actions.some((a) => a.outcome === "accepted" && a.twapId !== undefined)).toBe(true);
  await before.settled();
  before.stop(0);

  // Second process: starts while the TWAP runs; its first cycle sees it running; it ends an hour later.
  const after = process();
  after.start("live", ["rebalance"]);
  after.afterCycle(await cycle(), ["rebalance"], 0);
  bot.sim.advance(61 * 60_000);
  const later = await cycle();
  expect(later.snapshot.twaps).toHaveLength(0);
  after.afterCycle(later, ["rebalance"], 0);
  await after.settled();
  await notifier.flush(5000);
  await new Promise((r) => setTimeout(r, 300));
  const finished = hook.requests.map((r) => r.json as NotifyEvent).filter((e) => e.type === "twap.finished");
  // Told once: the next process does not tell it again; named by the strategy that placed it, as `once`
  // names it (an accountant's trial: the daemon's notices said which TWAP ended, not whose).
  expect(finished.map((e) => [e.title.split(":")[0], e.data.strategy])).toEqual([["rebalance", "rebalance"]]);
}, 60_000);

it.each([{ between: [] as string[] }, { between: ["plan", "manual"] }])(
  "a TWAP that ended while the daemon was down is told at the next start (cycles run meanwhile: $between)",
  async ({ between }) => {
    hook = await startHttpServer([{ json: {} }]);
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const runtime = bot.runtime;
    const notifier = webhookNotifier();
    const make = () => daemonNotices(notifier);
    const before = make();
    before.start("live", ["rebalance"]);
    before.afterCycle(await cycle(), ["rebalance"], 0);
    await before.settled();
    before.stop(0);
    bot.sim.advance(61 * 60_000); // down for an hour: the TWAP ends meanwhile
    // While it is down the owner may run `hlbot plan` and a manual command (`hlbot stake` …): each writes a
    // cycle to the journal, as runCycle and engine/manual.ts do; written here as they write them, nothing
    // sent. Both moved the time the new process followed TWAPs from past the TWAP's end (an accountant's
    // trial): its end was never told, by the daemon nor by `once` after it.
    for (const trigger of between) {
      const id = `c-${trigger}-while-down`;
      runtime.journal.startCycle({
        id,
        trigger,
        mode: "dry-run",
        account: runtime.account,
        strategies: ["rebalance"],
      });
      runtime.journal.finishCycle(id, "ok");
      bot.sim.advance(60_000);
    }
    const after = make();
    after.start("live", ["rebalance"]);
    after.afterCycle(await cycle(), ["rebalance"], 0);
    await after.settled();
    await notifier.flush(5000);
    await new Promise((r) => setTimeout(r, 300));
    // A third process, after a cycle of the second: it does not tell the TWAP again.
    const third = make();
    third.start("live", ["rebalance"]);
    third.afterCycle(await cycle(), ["rebalance"], 0);
    await third.settled();
    await notifier.flush(5000);
    await new Promise((r) => setTimeout(r, 300));
    const types = hook.requests.map((r) => (r.json as NotifyEvent).type);
    // Told once: the next process does not tell it again.
    expect(types.filter((t) => t === "twap.finished")).toHaveLength(1);
  },
  60_000,
);

it("a TWAP end the daemon told is not told again by `once` run later, nor one `once` told by a daemon", async () => {
  const { endedOwnTwaps } = await import("../../src/engine/twapEnds.js");
  hook = await startHttpServer([{ json: {} }]);
  bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
  bot.sim.setPrice("@107", "40");
  const runtime = bot.runtime;
  const notifier = webhookNotifier();
  const daemon = () => daemonNotices(notifier);
  const cronPass = async (since: number | undefined) =>
    endedOwnTwaps({
      info: runtime.info,
      journal: runtime.journal,
      account: runtime.account,
      now: bot!.sim.now(),
      since,
      reports: [],
    });

  // The daemon places the TWAP and sees it end an hour later: told.
  const d = daemon();
  const first = await cycle();
  d.afterCycle(first, ["rebalance"], 0);
  const placedAt = first.snapshot.takenAt;
  bot.sim.advance(61 * 60_000);
  d.afterCycle(await cycle(), ["rebalance"], 0);
  await d.settled();
  await notifier.flush(5000);
  expect(hook.requests.map((r) => (r.json as NotifyEvent).type)).toContain("twap.finished");
  // The user switches to cron: its first pass (counting from before the TWAP was placed) tells nothing.
  expect(await cronPass(placedAt - 1)).toEqual([]);

  // The other way: the next TWAP's end is told by a cron pass; a daemon started then does not follow it.
  bot.sim.fund(bot.address, "HYPE", "1000"); // out of its band again
  const second = await cycle();
  const twapId = second.actions.find((a) => a.outcome === "accepted")?.twapId;
  expect(twapId).toBeDefined();
  bot.sim.advance(61 * 60_000);
  const told = await cronPass(second.snapshot.takenAt - 1);
  expect(told.map((t) => t.twapId)).toEqual([twapId]);
  expect(followTwapsOf(runtime.journal, runtime.account, bot!.sim.now())).not.toContain(twapId);
}, 60_000);

it("a TWAP end whose twapHistory read failed is asked about again after the next cycle (a review)", async () => {
  const { startRewritingProxy } = await import("../helpers/rewritingProxy.js");
  const proxy = await startRewritingProxy();
  try {
    hook = await startHttpServer([{ json: {} }]);
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "40");
    const notifier = webhookNotifier();
    const notices = daemonNotices(notifier);
    const told = async () => {
      await notices.settled();
      await notifier.flush(5000);
      await new Promise((r) => setTimeout(r, 200));
      return hook!.requests.map((r) => (r.json as NotifyEvent).type).filter((t) => t.startsWith("twap."));
    };
    notices.afterCycle(await cycle("run"), ["rebalance"], 0);
    bot.sim.advance(61 * 60_000);
    // The cycle's own read of twapHistory works; the notice's (with its retries) is answered 500.
    proxy.failInfo("twapHistory", 10, 1);
    notices.afterCycle(await cycle("run"), ["rebalance"], 0);
    expect(await told()).toEqual([]);
    proxy.failInfo("twapHistory", 0);
    bot.sim.advance(60_000);
    notices.afterCycle(await cycle("run"), ["rebalance"], 0);
    expect(await told()).toEqual(["twap.finished"]);
  } finally {
    await proxy.close();
  }
}, 60_000);

it("a manual TWAP placed while the daemon runs and ended between two of its cycles is told at the next cycle (an accountant's trial)", async () => {
  // The daemon followed TWAPs from its cycles' snapshots and, at start, the journal's: a `hlbot twap`
  // of five minutes placed between two hourly cycles was never in a snapshot, and `once` later skipped
  // it as settled by the daemon. Neither its end nor what it filled was ever told.
  hook = await startHttpServer([{ json: {} }]);
  bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
  const notifier = webhookNotifier();
  const notices = daemonNotices(notifier);
  notices.start("live", ["rebalance"]);
  notices.afterCycle(await cycle("run"), ["rebalance"], 0);
  await notices.settled();
  await placeManualHypeTwap(bot, { size: "7.37", minutes: 5 });
  bot.sim.advance(60 * 60_000); // it runs and ends before the daemon's next cycle
  const next = await cycle("run");
  expect(next.snapshot.twaps).toHaveLength(0);
  notices.afterCycle(next, ["rebalance"], 0);
  await notices.settled();
  notices.afterCycle(await cycle("run"), ["rebalance"], 0); // told once, not at every cycle
  await notices.settled();
  await notifier.flush(5000);
  await new Promise((r) => setTimeout(r, 300));
  const finished = hook.requests
    .map((r) => r.json as NotifyEvent)
    .filter((e) => e.type === "twap.finished")
    .map((e) => e.title);
  // The rebalancer's own TWAP of the first cycle is told as before; the manual one once.
  expect(finished.filter((t) => /finished: bought 7\.37 of 7\.37 on HYPE\/USDC/.test(t))).toHaveLength(1);
}, 60_000);
