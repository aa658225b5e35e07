// An urgent exit under the daemon (a seller's trial): `touch state/STOP` (README: "`hlbot stop` (or
// `touch state/STOP`)") with limits.killSwitchCancelRunning: true. `once` cancels the running TWAPs at
// its next call, even when no strategy is due; the daemon ran the kill switch's cancels only inside a
// strategy's cycle, so a daily seller's sale kept filling for hours. Its watch now cancels them.
import { rmSync, writeFileSync } from "node:fs";
import sinon from "sinon";
import { afterEach, expect, it } from "vitest";
import { Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { BotMetrics } from "../../src/engine/metrics.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

const MINUTE = 60_000;
let bot: TestBot | undefined;
let clock: sinon.SinonFakeTimers | undefined;
let daemon: Daemon | undefined;
afterEach(async () => {
  if (daemon) {
    const stopping = daemon.stop(0);
    await clock?.tickAsync(10_000);
    await stopping;
  }
  clock?.restore();
  await bot?.close();
  bot = undefined;
  clock = undefined;
  daemon = undefined;
});
async function step(d: Daemon, ms: number, times = 1) {
  for (let i = 0; i < times; i++) {
    bot!.sim.advance(ms);
    await clock!.tickAsync(ms);
    await d.idle();
  }
}

it("daemon: a kill switch file engaged with killSwitchCancelRunning cancels the running sale within minutes", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "sell-dca",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: {
          coin: "HYPE",
          quote: "USDC",
          side: "sell",
          amountUsd: 5000,
          twap: { minutes: 600, randomize: false },
        },
      },
    ],
    fund: { HYPE: "1000" },
    limits: { killSwitchCancelRunning: true },
  });
  bot.sim.setPrice("@107", "25");
  bot.runtime.journal.slotState(bot.address, "sell-dca", bot.sim.now() - 1);
  clock = sinon.useFakeTimers({
    now: bot.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const { logger } = captureLogger();
  daemon = new Daemon({
    runtime: bot.runtime,
    strategies: scheduledStrategies(bot.runtime.config.strategies),
    logger,
  });
  daemon.start();
  await step(daemon, MINUTE, 2);
  const placed = bot.sim.twaps(bot.address).map((t) => String(t.status));
  expect(placed).toEqual(["activated"]);

  writeFileSync(bot.runtime.config.limits.killSwitchFile, "urgent exit");
  await step(daemon, MINUTE, 2);
  // Cancelled within the watch's minute (it ran on until the strategy's next slot).
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["terminated"]);
  // Once done, the engaged switch costs no further cycle.
  const cycles = bot.runtime.journal.recentCycles(100).length;
  await step(daemon, MINUTE, 5);
  expect(bot.runtime.journal.recentCycles(100)).toHaveLength(cycles);
  // A TWAP placed on the account while the switch stays engaged (by hand in the app, another instance):
  // cancelled at the next watch too, as `once` would (a risk trial: it kept filling until 09:00).
  const byHand = await bot.runtime.exchange!.twapOrder({
    asset: 10107,
    isBuy: false,
    size: "10",
    szDecimals: 2,
    minutes: 30,
  });
  expect(byHand.status).toBe("accepted");
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["terminated", "activated"]);
  await step(daemon, MINUTE, 2);
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["terminated", "terminated"]);
  // And then again nothing more while nothing new runs.
  const after = bot.runtime.journal.recentCycles(100).length;
  await step(daemon, MINUTE, 3);
  expect(bot.runtime.journal.recentCycles(100)).toHaveLength(after);
}, 60_000);

it("daemon: a TWAP the kill switch cannot cancel (a perp TWAP placed by hand) does not cost a cancel cycle every minute", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "sell-dca",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: {
          coin: "HYPE",
          quote: "USDC",
          side: "sell",
          amountUsd: 5000,
          twap: { minutes: 600, randomize: false },
        },
      },
    ],
    fund: { HYPE: "1000" },
    limits: { killSwitchCancelRunning: true },
  });
  bot.sim.setPrice("@107", "25");
  bot.runtime.journal.slotState(bot.address, "sell-dca", bot.sim.now() - 1);
  clock = sinon.useFakeTimers({
    now: bot.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  // A perp TWAP the owner placed by hand on the same account (twapHistory lists every TWAP of the user).
  const startedAt = bot.sim.now();
  const base = bot.runtime;
  let reads = 0;
  const runtime = Object.create(base) as typeof base;
  runtime.cycleDeps = (facts) => {
    const deps = base.cycleDeps(facts);
    const info = Object.create(deps.info) as typeof deps.info;
    info.twapHistory = async (...args: Parameters<typeof deps.info.twapHistory>) => {
      reads++;
      const h = await deps.info.twapHistory(...args);
      return [
        ...h,
        {
          time: Math.floor(startedAt / 1000),
          state: {
            coin: "BTC",
            user: bot!.address,
            side: "A",
            sz: "0.5",
            executedSz: "0.0",
            executedNtl: "0.0",
            minutes: 1440,
            reduceOnly: false,
            randomize: false,
            timestamp: startedAt,
            trigger: null,
            stopPx: null,
          },
          status: { status: "activated" },
          twapId: 999_999,
        },
      ] as typeof h;
    };
    return { ...deps, info };
  };
  const { logger } = captureLogger();
  daemon = new Daemon({ runtime, strategies: scheduledStrategies(bot.runtime.config.strategies), logger });
  daemon.start();
  await step(daemon, MINUTE, 2);
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["activated"]);

  writeFileSync(bot.runtime.config.limits.killSwitchFile, "urgent exit");
  await step(daemon, MINUTE, 2);
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["terminated"]);
  const cycles = bot.runtime.journal.recentCycles(1000).length;
  const readsBefore = reads;
  await step(daemon, MINUTE, 10);
  const extra = bot.runtime.journal.recentCycles(1000).length - cycles;
  // Nothing it can do changes: no cancel cycle every minute (a review: 10 cycles in 10 minutes, for the
  // whole life of the TWAP it cannot cancel). One twapHistory read a watch remains, to see a TWAP placed
  // since the sweep (a risk trial), and the one it cannot cancel starts no cycle.
  expect(extra).toBe(0);
  expect(reads - readsBefore).toBeLessThanOrEqual(10);
}, 60_000);

it("daemon: says in its log that the kill switch is engaged, and acts in the slot it held as soon as it is released", async () => {
  // An operator's trial: started with the switch engaged, the log said nothing of it (only /metrics did),
  // and after `hlbot resume` the held slot waited for its deferral's back-off (up to 30 min, past the
  // catch-up window at worst).
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "dca",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: {
          coin: "HYPE",
          quote: "USDC",
          side: "buy",
          amountUsd: 250,
          twap: { minutes: 30, randomize: false },
        },
      },
    ],
    fund: { USDC: "20000" },
  });
  bot.sim.setPrice("@107", "25");
  bot.runtime.journal.slotState(bot.address, "dca", bot.sim.now() - 1);
  writeFileSync(bot.runtime.config.limits.killSwitchFile, "maintenance");
  clock = sinon.useFakeTimers({
    now: bot.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const { logger, lines } = captureLogger();
  daemon = new Daemon({
    runtime: bot.runtime,
    strategies: scheduledStrategies(bot.runtime.config.strategies),
    logger,
  });
  daemon.start();
  await step(daemon, MINUTE, 33);
  expect(bot.sim.twaps(bot.address)).toEqual([]);
  expect(lines.filter((l) => /^the kill switch is engaged/.test(l.msg))).toHaveLength(1);
  // Each held run says why.
  expect(
    lines.some((l) =>
      /^cycle ok: .*; deferred \(slot stays due\): dca \(the kill switch is engaged\)$/.test(l.msg),
    ),
  ).toBe(true);
  // The back-off's next retry is at minute 61; released at 33, it acts within the watch's minute.
  rmSync(bot.runtime.config.limits.killSwitchFile);
  await step(daemon, MINUTE, 2);
  expect(bot.sim.twaps(bot.address)).toHaveLength(1);
  expect(lines.some((l) => /the kill switch was released: the slots it held are tried now/.test(l.msg))).toBe(
    true,
  );
}, 60_000);

it("daemon with metrics: failing staking reads (read for the metrics only) hold neither a DCA's cycle nor the kill switch's cancel", async () => {
  // A review: read as a required part for the metrics, a failing `delegations` failed every cycle of a
  // DCA-only daemon ("cycle failed (3 in a row)"), and its kill switch's cancel ("TWAP watch failed").
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "sell-dca",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: {
          coin: "HYPE",
          quote: "USDC",
          side: "sell",
          amountUsd: 5000,
          twap: { minutes: 600, randomize: false },
        },
      },
    ],
    fund: { HYPE: "1000" },
    limits: { killSwitchCancelRunning: true },
  });
  bot.sim.setPrice("@107", "25");
  bot.runtime.journal.slotState(bot.address, "sell-dca", bot.sim.now() - 1);
  clock = sinon.useFakeTimers({
    now: bot.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const base = bot.runtime;
  const runtime = Object.create(base) as typeof base;
  runtime.cycleDeps = (facts) => {
    const deps = base.cycleDeps(facts);
    const info = Object.create(deps.info) as typeof deps.info;
    info.delegations = async () => {
      throw new Error("delegations: venue answered 500 (test)");
    };
    return { ...deps, info };
  };
  const { logger } = captureLogger();
  daemon = new Daemon({
    runtime,
    strategies: scheduledStrategies(bot.runtime.config.strategies),
    logger,
    metrics: new BotMetrics(),
  });
  daemon.start();
  await step(daemon, MINUTE, 2);
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["activated"]);
  writeFileSync(bot.runtime.config.limits.killSwitchFile, "urgent exit");
  await step(daemon, MINUTE, 2);
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["terminated"]);
}, 60_000);
