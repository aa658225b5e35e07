// What the daemon tells, built from real cycles against the simulator and sent to a webhook stand-in
// on 127.0.0.1: a TWAP that ran to its end (what it sold, at what average price), the kill switch
// engaged and released, one message for the first failure and one for the recovery, and the daily
// summary (value, rewards, fees).
import { rmSync, writeFileSync } from "node:fs";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { Daemon, loadStrategySet } from "../../src/engine/daemon.js";
import { DaemonNotices } from "../../src/engine/notify/daemonNotices.js";
import { channelsFromConfig, Notifier } from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

let bot: TestBot | undefined;
let hook: TestHttpServer | undefined;
afterEach(async () => {
  await bot?.close();
  await hook?.close();
  bot = hook = undefined;
});

/** A notifier sending every event at once to `{url}/hook`, with no retry. */
function webhookNotifier(url: string): Notifier {
  return new Notifier({
    channels: channelsFromConfig(
      { timeoutMs: 2000, retries: 0, minIntervalMs: 0, webhook: { url: `${url}/hook` } },
      {},
    ),
    logger: pino({ level: "silent" }),
    minIntervalMs: 0,
  });
}

describe("daemon notices", () => {
  it("tell an ended TWAP with its fills, the kill switch, a failure and the recovery, and the daily summary", async () => {
    hook = await startHttpServer([{ json: {} }]);
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const runtime = bot.runtime;
    const notifier = webhookNotifier(hook.url);
    const killSwitchFile = runtime.config.limits.killSwitchFile;
    const notices = new DaemonNotices({
      notifier,
      info: runtime.info,
      account: runtime.account,
      network: "testnet",
      killSwitchFile,
      clock: () => bot!.sim.now(),
      logger: pino({ level: "silent" }),
    });
    const cycle = async () =>
      runCycle(runtime.cycleDeps(await runtime.facts()), {
        trigger: "once",
        strategies: runtime.strategies(),
      });
    const received = async (n: number): Promise<NotifyEvent[]> => {
      await notices.settled();
      await notifier.flush(5000);
      await hook!.waitForRequests(n, 5000);
      return hook!.requests.map((r) => r.json as NotifyEvent);
    };

    notices.start("live", ["rebalance"]);
    const first = await cycle();
    notices.afterCycle(first, ["rebalance"], 0);
    let got = await received(2);
    expect(got.map((e) => e.type)).toEqual(["daemon.start", "submission.accepted"]);
    // What was sent, as fields a receiver's code can read (a scripter had it only inside `sent`).
    const sentTwap = got[1]!.data;
    expect(sentTwap).toMatchObject({
      side: "sell",
      asset: 10107,
      pair: "HYPE/USDC",
      twapId: expect.any(Number),
    });
    expect(Number(sentTwap.size)).toBeGreaterThan(0);
    expect(sentTwap.sent).toContain(`sell ${String(sentTwap.size)} HYPE`);
    expect(typeof sentTwap.minutes).toBe("number");

    // The one-hour TWAP runs to its end; the next cycle no longer sees it running.
    bot.sim.advance(61 * 60_000);
    const second = await cycle();
    expect(second.snapshot.twaps).toHaveLength(0);
    notices.afterCycle(second, ["rebalance"], 0);
    got = await received(3);
    const ended = got.find((e) => e.type === "twap.finished")!;
    expect(ended.title).toMatch(/^TWAP \d+ finished: sold \d+(\.\d+)? of \d+(\.\d+)? on HYPE\/USDC$/); // the pair, not the venue's "@107"
    expect(Number(ended.data.executedSize)).toBeGreaterThan(0);
    expect(ended.data.pair).toBe("HYPE/USDC");
    expect(Number(ended.data.averagePrice)).toBeGreaterThan(38);
    expect(Number(ended.data.averagePrice)).toBeLessThan(42);
    expect(ended.text).toMatch(/^average price \d+(\.\d+)?; notional \d+\.\d\d$/);

    // The kill switch appears, then goes. Engaged by `hlbot stop --reason`, the notice says since when
    // and why, and that running TWAPs go on (an operator's trial got only "STOP exists").
    writeFileSync(
      killSwitchFile,
      `${JSON.stringify({ stoppedAt: "2025-01-01T01:02:03.000Z", reason: "operator test" })}\n`,
    );
    notices.checkKillSwitch();
    rmSync(killSwitchFile);
    notices.checkKillSwitch();
    got = await received(5);
    expect(got.slice(-2).map((e) => e.type)).toEqual(["killswitch.engaged", "killswitch.released"]);
    expect(got.at(-2)?.text).toBe(
      `engaged since 2025-01-01T01:02:03.000Z (operator test): nothing is submitted until \`hlbot resume\` (${killSwitchFile}). Running TWAPs keep filling unless cancelled (\`hlbot stop --cancel-twaps\`).`,
    );

    // Three failures in a row: the first is told, then the third (every 3rd); the recovery once.
    for (let i = 1; i <= 3; i++) notices.cycleFailed(["rebalance"], "venue unreachable", i, 3);
    const third = await cycle();
    notices.afterCycle(third, ["rebalance"], 3);
    got = await received(8);
    expect(got.slice(-3).map((e) => [e.type, e.title])).toEqual([
      ["cycle.failed", "cycle of rebalance failed"],
      ["cycle.failed", "cycle of rebalance failed (3 in a row)"],
      ["cycle.recovered", "cycles work again (rebalance) after 3 failed"],
    ]);

    notices.dailySummary();
    got = await received(9);
    const summary = got.at(-1)!;
    expect(summary.type).toBe("daily.summary");
    expect(Number(summary.data.valueUsd)).toBeGreaterThan(40_000);
    expect(summary.data.rewardsHype).toBe("0");
    expect(Object.keys(summary.data.fees as object)).toEqual(["USDC"]);
    expect(summary.text).toMatch(/^value: \d+\.\d\d USD\nstaking rewards: 0 HYPE\ntrading fees: \d/);

    // The stop notice names the mode the daemon ran in (it was empty).
    notices.stop(0);
    got = await received(10);
    expect(got.at(-1)?.data).toEqual({ mode: "live", exitCode: 0 });
    notifier.close();
  }, 60_000);
});

describe("daemon notices of strategy files that do not load", () => {
  it("say at start that no strategy runs and why, and tell a refused reload", async () => {
    // An operator's trial: started with a broken strategy file, the only notice was "daemon started …
    // strategies: " (empty); a SIGHUP reload refused was only logged.
    hook = await startHttpServer([{ json: {} }]);
    const notifier = webhookNotifier(hook.url);
    const notices = new DaemonNotices({
      notifier,
      info: undefined as never,
      account: "0xabc",
      network: "testnet",
      clock: () => Date.UTC(2025, 0, 1),
      logger: pino({ level: "silent" }),
    });
    notices.start("live", [], "1 strategy file problem(s), no strategy runs: dca.yaml:10: invalid YAML");
    notices.reloadRefused(["dca.yaml:10: invalid YAML"], 3);
    notices.strategiesResumed(["dca", "rebal"], "1 strategy file problem(s)");
    await notifier.flush(5000);
    await hook.waitForRequests(3, 5000);
    const got = hook.requests.map((r) => r.json as NotifyEvent);
    expect(got.map((e) => [e.type, e.title, e.text])).toEqual([
      [
        "daemon.start",
        "daemon started (live) for 0xabc on testnet: NO STRATEGY RUNS",
        "1 strategy file problem(s), no strategy runs: dca.yaml:10: invalid YAML; fix the file, then SIGHUP (the TWAP guards still run)",
      ],
      [
        "strategies.refused",
        "strategy reload refused: keeping the 3 current strategies",
        "dca.yaml:10: invalid YAML\nFix the file(s), then SIGHUP again.",
      ],
      [
        "strategies.resumed",
        "strategy files load again: 2 strategies run",
        "strategies: dca, rebal (was: 1 strategy file problem(s))",
      ],
    ]);
  });
});

describe("the daemon tells reloads of a held strategy set", () => {
  it("a reload refused, then one that loads: strategies.refused, then strategies.resumed", async () => {
    hook = await startHttpServer([{ json: {} }]);
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { USDC: "100" } });
    const runtime = bot.runtime;
    const notifier = webhookNotifier(hook.url);
    const notices = new DaemonNotices({
      notifier,
      info: runtime.info,
      account: runtime.account,
      network: "testnet",
      clock: () => bot!.sim.now(),
      logger: pino({ level: "silent" }),
    });
    const daemon = new Daemon({
      runtime,
      strategies: [],
      held: "1 strategy file problem(s), no strategy runs: strategy-0.yaml:3: bad",
      logger: pino({ level: "silent" }),
      notices,
      schedule: () => ({ stop: () => undefined }),
    });
    expect(
      await daemon.reloadFrom(async () => {
        throw new Error("strategy-0.yaml:3: still bad");
      }),
    ).toBe(false);
    expect(await daemon.reloadFrom(() => loadStrategySet(runtime.config, { TEST_BOT_KEY: bot!.key }))).toBe(
      true,
    );
    await notifier.flush(5000);
    await hook.waitForRequests(2, 5000);
    expect(hook.requests.map((r) => [(r.json as NotifyEvent).type, (r.json as NotifyEvent).title])).toEqual([
      ["strategies.refused", "strategy reload refused: keeping the 0 current strategies"],
      ["strategies.resumed", "strategy files load again: 1 strategy runs"],
    ]);
    await daemon.stop(0);
  });
});

describe("the daily summary", () => {
  it("values the account as it is at the summary: a stake no strategy reads, and a TWAP placed since the last cycle", async () => {
    // A consistency trial: from the last cycle's snapshot (read before its own TWAP went out, hours old)
    // it said "running TWAPs: 0" beside a running one, and a daemon without a staking strategy left the
    // stake out of the value (1,400 USD for an account worth 25,400).
    hook = await startHttpServer([{ json: {} }]);
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "610", USDC: "1000" } });
    bot.sim.setPrice("@107", "40");
    const runtime = bot.runtime;
    const notifier = webhookNotifier(hook.url);
    const notices = new DaemonNotices({
      notifier,
      info: runtime.info,
      account: runtime.account,
      network: "testnet",
      clock: () => bot!.sim.now(),
      logger: pino({ level: "silent" }),
    });
    // By hand: 300 HYPE staked.
    const ex = runtime.exchange!;
    expect((await ex.cDeposit({ amount: "300" })).status).toBe("accepted");
    const delegate = {
      validator: "0x5ac99df645f3414876c816caa18b2d234024b487",
      amount: "300",
      isUndelegate: false,
    };
    expect((await ex.tokenDelegate(delegate)).status).toBe("accepted");
    // Then a cycle that reads no staking (a rebalancer; it sells, HYPE being 92% of what it sees): its
    // snapshot, read before its TWAP went out, shows none running.
    const report = await runCycle(runtime.cycleDeps(await runtime.facts()), {
      trigger: "once",
      strategies: runtime.strategies(),
    });
    notices.afterCycle(report, ["rebalance"], 0);
    expect(report.snapshot.parts?.has("staking")).toBe(false);
    expect(report.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    expect(report.snapshot.twaps).toHaveLength(0);
    notices.dailySummary();
    await notices.settled();
    await notifier.flush(5000);
    const summary = hook.requests.map((r) => r.json as NotifyEvent).find((e) => e.type === "daily.summary")!;
    // 610 HYPE at 40 (spot, on hold for the sale, and staked) and 1,000 USDC: 25,400, a few fills aside.
    expect(Number(summary.data.valueUsd)).toBeGreaterThan(25_000);
    expect(Number(summary.data.valueUsd)).toBeLessThan(25_800);
    expect(summary.text).toMatch(/\nrunning TWAPs: 1\n/);
    notifier.close();
  }, 60_000);
});
