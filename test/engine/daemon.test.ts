// The daemon's scheduler against the embedded simulator, with node-cron driven by sinon fake timers:
// which strategies run when, no self-overlap, back-off and recovery, fatal errors, reload, graceful stop.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import {
  cronSchedule,
  Daemon,
  type DaemonRuntime,
  loadStrategySet,
  type ScheduleFn,
  scheduledStrategies,
} from "../../src/engine/daemon.js";
import { BotMetrics } from "../../src/engine/metrics.js";
import { DaemonNotices } from "../../src/engine/notify/daemonNotices.js";
import { Notifier } from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { retryDelayMs, slotAccount } from "../../src/engine/scheduler.js";
import { ConfigError, isFatalError, ServerError } from "../../src/lib/errors.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

const STAKING = {
  name: "staking",
  kind: "validator-staking",
  params: {
    validators: 2,
    rankBy: "predictedApr",
    maxCommission: 0.05,
    rebalanceThreshold: 0.05,
    maxMovePerRun: 10000,
  },
};
const MINUTE = 60_000;
// Real timers, captured before any test fakes them, for polling real I/O.
const realSetTimeout = globalThis.setTimeout;

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

/** Fake timers starting at the simulator's virtual time, so cron ticks and venue time agree. */
function fakeTime(b: TestBot): sinon.SinonFakeTimers {
  clock = sinon.useFakeTimers({
    now: b.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  return clock;
}

/** Moves venue time and the fake clock forward together, then waits for the runs that fell due. */
async function step(d: Daemon, ms: number, times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    bot!.sim.advance(ms);
    await clock!.tickAsync(ms);
    await d.idle();
  }
}

async function until(what: string, cond: () => boolean, ms = 5_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => realSetTimeout(r, 5));
  }
}

function runCycles(b: TestBot) {
  return b.runtime.journal
    .recentCycles(100)
    .filter((c) => c.trigger === "run")
    .reverse()
    .map((c) => ({
      minute: Math.round((c.startedAt - START) / MINUTE),
      strategies: JSON.parse(c.strategies) as string[],
      status: c.status,
      id: c.id,
    }));
}

let START = 0;

function newDaemon(
  b: TestBot,
  extra: Partial<ConstructorParameters<typeof Daemon>[0]> = {},
  runtime?: DaemonRuntime,
) {
  const { logger, lines, raw } = captureLogger();
  const metrics = new BotMetrics();
  daemon = new Daemon({
    runtime: runtime ?? b.runtime,
    strategies: scheduledStrategies(b.runtime.config.strategies),
    logger,
    metrics,
    ...extra,
  });
  return { daemon, lines, raw, metrics };
}

function twapsPlaced(b: TestBot) {
  return b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
}

async function metricValue(metrics: BotMetrics, name: string, labels: Record<string, string>) {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const found = (metric?.values ?? []).find((v) =>
    Object.entries(labels).every(([k, val]) => String((v.labels as Record<string, unknown>)[k]) === val),
  );
  return found?.value ?? 0;
}

describe("back-off and fatal errors (pure rules)", () => {
  it("waits 1, 2, 4, 8 … minutes after consecutive failures, up to the cap", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((f) => retryDelayMs(f, MINUTE, 30 * MINUTE) / MINUTE)).toEqual([
      1, 2, 4, 8, 16, 30, 30,
    ]);
  });

  it("stops only for configuration and state database failures", () => {
    const sqlite = Object.assign(new Error("attempt to write a readonly database"), {
      name: "SqliteError",
      code: "SQLITE_READONLY",
    });
    const busy = Object.assign(new Error("database is locked"), { name: "SqliteError", code: "SQLITE_BUSY" });
    expect(isFatalError(new ConfigError("multi-sig"))).toBe(true);
    expect(isFatalError(sqlite)).toBe(true);
    expect(isFatalError(new Error("wrapped", { cause: sqlite }))).toBe(true);
    expect(isFatalError(busy)).toBe(false);
    expect(isFatalError(new ServerError(500, "boom"))).toBe(false);
    expect(isFatalError(new Error("anything else"))).toBe(false);
  });
});

describe("daemon scheduling against the simulator (fake timers)", () => {
  it("runs each strategy at its own cron times, those due at the same instant in one cycle, with the cycle id in logs and journal", async () => {
    bot = await startTestBot({
      strategies: [
        { ...REBALANCE, schedule: "*/2 * * * *" },
        { ...STAKING, schedule: "*/3 * * * *" },
      ],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines, raw, metrics } = newDaemon(bot, { factsRefreshMs: 5 * MINUTE });
    const refresh = sinon.spy(bot.runtime, "refreshFacts");
    d.start();
    await step(d, MINUTE, 7);

    const cycles = runCycles(bot);
    const byMinute = (m: number) =>
      cycles
        .filter((c) => c.minute === m)
        .flatMap((c) => c.strategies)
        .sort();
    expect(cycles.every((c) => c.status === "ok")).toBe(true);
    expect(byMinute(1)).toEqual([]);
    expect(byMinute(2)).toEqual(["rebalance"]);
    expect(byMinute(3)).toEqual(["staking"]);
    expect(byMinute(4)).toEqual(["rebalance"]);
    expect(byMinute(5)).toEqual([]);
    // Due in the same slot instant: one cycle, as in `once` and `simulate` (src/engine/scheduler.ts).
    expect(cycles.filter((c) => c.minute === 6).map((c) => c.strategies.sort())).toEqual([
      ["rebalance", "staking"],
    ]);
    expect(cycles).toHaveLength(4);

    // Every cycle's log lines carry its id; the daemon's summary line names the strategies.
    for (const c of cycles) {
      const own = lines.filter((l) => l.cycle === c.id);
      expect(own.some((l) => l.msg.startsWith("cycle ok") && l.strategy === c.strategies.join(", "))).toBe(
        true,
      );
    }
    // Each decision is logged at info with its reason, skipped ones included.
    expect(lines.some((l) => l.level === 30 && l.decision === "skip" && /^staking: skip: /.test(l.msg))).toBe(
      true,
    );
    // No line gives a key twice (a log reader keeps one of them, whichever it likes).
    for (const text of raw) {
      const keys = [...text.matchAll(/[{,]"([^"]+)":/g)].map((m) => m[1]);
      expect(keys.length, text).toBe(new Set(keys).size);
    }
    expect(await metricValue(metrics, "hlbot_cycles_total", { strategy: "rebalance", outcome: "ok" })).toBe(
      3,
    );
    expect(await metricValue(metrics, "hlbot_cycles_total", { strategy: "staking", outcome: "ok" })).toBe(2);
    expect(await metricValue(metrics, "hlbot_last_success_timestamp_seconds", { strategy: "staking" })).toBe(
      (START + 6 * MINUTE) / 1000,
    );
    expect(refresh.callCount).toBe(1); // every 5 minutes
    expect(d.ready()).toBe(true);
  });

  it("never overlaps a strategy with itself: a tick during a slow run is skipped with a log line", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000 } },
    });
    bot.sim.setPrice("@107", "40");
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines, metrics } = newDaemon(bot);
    bot.sim.setFaults({ exchange: { latencyMs: 150_000 } }); // the answer to the TWAP is held 2.5 minutes
    d.start();
    bot.sim.advance(MINUTE);
    await clock!.tickAsync(MINUTE);
    const b = bot;
    await until("the TWAP to reach the venue", () => twapsPlaced(b).length === 1);
    expect(d.health("rebalance")?.running).toBe(true);

    await clock!.tickAsync(2 * MINUTE + 1000); // ticks at minutes 2 and 3 fall inside the run
    const skips = lines.filter((l) => l.reason === "overlap");
    expect(skips.map((l) => l.tick)).toEqual([
      new Date(START + 2 * MINUTE).toISOString(),
      new Date(START + 3 * MINUTE).toISOString(),
    ]);
    expect(skips[0]?.msg).toMatch(/previous run is still going/);

    await clock!.tickAsync(29_000); // the answer arrives
    await d.idle();
    expect(runCycles(bot)).toHaveLength(1);
    expect(bot.runtime.journal.recentSubmissions(5).map((s) => s.status)).toEqual(["accepted"]);
    expect(twapsPlaced(bot)).toHaveLength(1);
    expect(
      await metricValue(metrics, "hlbot_cycles_total", { strategy: "rebalance", outcome: "skipped" }),
    ).toBe(2);
    expect(
      await metricValue(metrics, "hlbot_submissions_total", { action: "twapOrder", outcome: "accepted" }),
    ).toBe(1);
  });

  it("says the ticks skipped in one slot in one line, not a line per strategy", async () => {
    // An SRE's trial: 22 strategies at "*/2" behind a slow venue wrote 21 skip lines a tick.
    bot = await startTestBot({
      mode: "live",
      strategies: [
        { ...REBALANCE, schedule: "* * * * *" },
        { ...STAKING, schedule: "* * * * *" },
      ],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000 } },
    });
    bot.sim.setPrice("@107", "40");
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines, metrics } = newDaemon(bot);
    bot.sim.setFaults({ exchange: { latencyMs: 150_000 } });
    d.start();
    bot.sim.advance(MINUTE);
    await clock!.tickAsync(MINUTE);
    const b = bot;
    await until("the TWAP to reach the venue", () => twapsPlaced(b).length === 1);

    await clock!.tickAsync(2 * MINUTE + 1000); // both strategies' ticks at minutes 2 and 3 are skipped
    const skips = lines.filter((l) => l.reason === "overlap");
    expect(skips.map((l) => [l.tick, [...(l.strategies as string[])].sort()])).toEqual([
      [new Date(START + 2 * MINUTE).toISOString(), ["rebalance", "staking"]],
      [new Date(START + 3 * MINUTE).toISOString(), ["rebalance", "staking"]],
    ]);
    expect(skips[0]?.msg).toMatch(
      /run of (rebalance, staking|staking, rebalance): their previous runs are still going/,
    );
    for (const name of ["rebalance", "staking"])
      expect(await metricValue(metrics, "hlbot_cycles_total", { strategy: name, outcome: "skipped" })).toBe(
        2,
      );
    await clock!.tickAsync(29_000);
    await d.idle();
  });

  it("a clock set back and put right again: runs come at the next slot, not after the whole step (an operator's trial)", async () => {
    // Set back an hour and corrected two minutes later, a daemon ran nothing for 58 minutes, healthy all
    // along: cron's timer, armed while the clock was behind, waited the whole step on the monotonic clock.
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d } = newDaemon(bot);
    d.start();
    await step(d, MINUTE, 3);
    const before = runCycles(bot).length;
    expect(before).toBeGreaterThan(0);
    clock!.setSystemTime(Date.now() - 60 * MINUTE);
    await clock!.tickAsync(MINUTE);
    await d.idle();
    clock!.setSystemTime(Date.now() + 60 * MINUTE); // put right
    await step(d, MINUTE, 3);
    expect(runCycles(bot).length).toBeGreaterThan(before);
  });

  it("a cron timer that never fires is noticed, re-armed and its slot run; /live says so if re-arming does not help (a long-running operator's trial)", async () => {
    // /live followed only the scheduler's heartbeat, which the clock check and the TWAP watch beat
    // themselves: a cron timer that waited too long (any cause) left the bot doing nothing, live.
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "*/10 * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    let lost = 1; // the first timer armed is lost; those after work
    const flaky: ScheduleFn = (expr, onTick, o) =>
      lost-- > 0 ? { stop: () => undefined } : cronSchedule(expr, onTick, o);
    const { daemon: d, lines } = newDaemon(bot, { schedule: flaky });
    d.start();
    await step(d, MINUTE, 9);
    const first = runCycles(bot).length; // the start's catch-up, if any
    await step(d, MINUTE, 5); // the :10 slot passes, its tick never comes
    const warned = lines.filter((l) => /has not come/.test(String(l.msg)));
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toMatch(
      /cron tick of rebalance \(.*:10:00\.000Z\) has not come \d+ min after its slot/,
    );
    expect(runCycles(bot).length).toBe(first + 1); // the :10 slot, run late within the catch-up window
    expect(d.live()).toEqual({ ok: true });
    await step(d, MINUTE, 20); // the re-armed timer works: :20 and :30
    expect(runCycles(bot).length).toBe(first + 3);
    expect(lines.filter((l) => /has not come/.test(String(l.msg)))).toHaveLength(1);

    // Every timer lost: re-arming does not help, and /live says so after the second overdue tick.
    lost = 1_000;
    await d.stop(0);
    daemon = undefined;
    const again = newDaemon(bot, { schedule: flaky });
    const d2 = again.daemon;
    d2.start();
    await step(d2, MINUTE, 14);
    expect(d2.live()).toEqual({ ok: true }); // once: re-armed, not yet a stall
    await step(d2, MINUTE, 10);
    expect(d2.live()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(
        /scheduler stalled: the cron ticks of rebalance did not come, again after re-arming/,
      ),
    });
    expect(d2.alive().ok).toBe(false);
  });

  it("a slot that passed while the process did not run is re-armed, not a stall (an SRE's trial: two freezes turned /live red)", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "*/10 * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    // The monotonic clock as a frozen process sees it: each minute's check comes 5 minutes late.
    let mono = 0;
    const lost: ScheduleFn = () => ({ stop: () => undefined }); // no tick comes (the process is frozen)
    const { daemon: d, lines } = newDaemon(bot, {
      schedule: lost,
      clockWatch: { mono: () => mono },
    });
    d.start();
    for (let i = 0; i < 6; i++) {
      // Frozen 4 minutes (no timer runs, both clocks move), then a minute's check.
      mono += 5 * MINUTE;
      bot.sim.advance(4 * MINUTE);
      clock!.setSystemTime(Date.now() + 4 * MINUTE);
      await step(d, MINUTE);
    }
    expect(lines.filter((l) => /process did not run meanwhile/.test(String(l.msg))).length).toBeGreaterThan(
      1,
    );
    expect(d.live()).toEqual({ ok: true });
  });

  it("a daily strategy's timer is not taken for lost between its slots", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "0 9 * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    d.start();
    await step(d, 30 * MINUTE, 2 * 48 + 1); // two days and a half-hour
    expect(lines.filter((l) => /has not come/.test(String(l.msg)))).toEqual([]);
    expect(d.live()).toEqual({ ok: true });
    expect(runCycles(bot).filter((c) => c.status === "ok").length).toBeGreaterThanOrEqual(2);
  });

  it("retries a failed daily run after 1, 2, 4 … minutes within its slot, not at the next day's tick (issue #12 case 8)", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "5 0 * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { venue: { readAttempts: 1 } },
    });
    START = bot.sim.now();
    fakeTime(bot);
    bot.sim.setFaults({ info: { serverErrorRate: 1 } });
    const { daemon: d, lines, metrics } = newDaemon(bot);
    d.start();
    await step(d, MINUTE, 15);
    expect(d.ready()).toBe(false); // the venue never answered
    expect(d.health("rebalance")).toMatchObject({ failures: 4, retryAt: START + 20 * MINUTE });
    bot.sim.setFaults({});
    await step(d, MINUTE, 10);

    const cycles = runCycles(bot);
    expect(cycles.map((c) => c.minute)).toEqual([5, 6, 8, 12, 20]);
    expect(cycles.map((c) => c.status)).toEqual(["failed", "failed", "failed", "failed", "ok"]);
    const failed = lines.filter((l) => typeof l.msg === "string" && l.msg.startsWith("cycle failed"));
    expect(failed.map((l) => l.retryAt)).toEqual(
      [6, 8, 12, 20].map((m) => new Date(START + m * MINUTE).toISOString()),
    );
    expect(failed[0]?.msg).toMatch(/HTTP 500.*retrying in 1 min/);
    expect(failed.every((l) => typeof l.cycle === "string")).toBe(true);
    expect(d.health("rebalance")).toEqual({ failures: 0, retryAt: undefined, running: false });
    expect(d.ready()).toBe(true);
    expect(
      await metricValue(metrics, "hlbot_cycles_total", { strategy: "rebalance", outcome: "failed" }),
    ).toBe(4);
    expect(await metricValue(metrics, "hlbot_cycles_total", { strategy: "rebalance", outcome: "ok" })).toBe(
      1,
    );
  });

  it("never retries past the next slot: a per-minute strategy is tried at every tick", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { venue: { readAttempts: 1 } },
    });
    START = bot.sim.now();
    fakeTime(bot);
    bot.sim.setFaults({ info: { serverErrorRate: 1 } });
    const { daemon: d } = newDaemon(bot);
    d.start();
    await step(d, MINUTE, 6);
    bot.sim.setFaults({});
    await step(d, MINUTE, 2);
    const cycles = runCycles(bot);
    expect(cycles.map((c) => c.minute)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(cycles.map((c) => c.status)).toEqual([...Array(6).fill("failed"), "ok", "ok"]);
  });

  it("catches up at start a slot missed while it was down, once", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "5 0 * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    // Seen before (a run last night), then down over today's 00:05 slot until 00:40.
    // This bot runs dry: its slot memory is the dry run's own (a dry run never uses up a live slot).
    bot.runtime.journal.slotState(slotAccount(bot.address, "dry-run"), "rebalance", START - 60 * MINUTE);
    bot.sim.advance(40 * MINUTE);
    fakeTime(bot);
    const { daemon: d } = newDaemon(bot);
    d.start();
    await d.idle();
    await step(d, MINUTE, 3);
    expect(runCycles(bot).map((c) => [c.minute, c.status])).toEqual([[40, "ok"]]);
  });

  it("tells schedule.missed (live only) for a slot missed past the catch-up window with nothing run for it, once", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [{ ...REBALANCE, schedule: "5 0 * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    START = bot.sim.now();
    // Seen before (a run last night), then down over today's 00:05 slot until 03:00: past the 2 h window.
    bot.runtime.journal.slotState(bot.address, "rebalance", START - 60 * MINUTE);
    bot.sim.advance(3 * 60 * MINUTE);
    fakeTime(bot);
    const told: NotifyEvent[] = [];
    const notifier = new Notifier({
      channels: [
        {
          name: "record",
          events: new Set(["schedule.missed"]),
          send: async (e) => {
            told.push(e);
            return 200;
          },
        },
      ],
      logger: pino({ level: "silent" }),
      minIntervalMs: 0,
    });
    const notices = new DaemonNotices({
      notifier,
      info: bot.runtime.info,
      account: bot.address,
      network: "testnet",
      clock: () => bot!.sim.now(),
      logger: pino({ level: "silent" }),
    });
    const { daemon: d } = newDaemon(bot, { notices });
    d.start();
    await d.idle();
    await step(d, MINUTE, 3);
    await notifier.flush(1_000);
    expect(runCycles(bot)).toEqual([]);
    expect(told.map((e) => [e.type, e.data.strategies, e.data.catchUpMs])).toEqual([
      ["schedule.missed", ["rebalance"], 2 * 60 * MINUTE],
    ]);
    expect(told[0]?.text).toMatch(/^rebalance: 1 slot \(latest \S+T00:05:00\.000Z\)\n/);
  });

  it("cancels a 4-hourly sell DCA's TWAP within two minutes of the mid crossing its floor (issue #12 case 6)", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "sell-dca",
          kind: "twap-accumulate",
          schedule: "0 */4 * * *",
          params: {
            coin: "HYPE",
            quote: "USDC",
            side: "sell",
            amountUsd: 5000,
            limitPx: 22,
            twap: { minutes: 240, randomize: false },
          },
        },
      ],
      fund: { HYPE: "1000" },
    });
    bot.sim.setPrice("@107", "25");
    START = bot.sim.now();
    // Seen just before: the slot at START is due when the daemon starts.
    bot.runtime.journal.slotState(bot.address, "sell-dca", START - 1);
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    d.start();
    await d.idle();
    expect(twapsPlaced(bot)).toHaveLength(1);
    await step(d, MINUTE, 30);
    // The price slides half a unit a minute: 24.5, 24 … 21.5 at minute 37, below the floor.
    let crossedAt = 0;
    for (let i = 1; i <= 12; i++) {
      const px = 25 - i * 0.5;
      bot.sim.setPrice("@107", String(px));
      if (px < 22 && crossedAt === 0) crossedAt = bot.sim.now();
      await step(d, MINUTE);
    }
    const slices = bot.sim.ledger().filter((e) => e.kind === "twapSlice" && e.user === bot!.address);
    expect(slices.filter((e) => e.time < crossedAt).length).toBeGreaterThan(50); // it was selling
    expect(slices.filter((e) => e.time >= crossedAt + 2 * MINUTE)).toEqual([]); // then it stopped
    const cancels = bot.runtime.journal.recentSubmissions(10).filter((r) => r.actionType === "twapCancel");
    expect(cancels.map((r) => [r.strategy, r.status])).toEqual([["sell-dca", "accepted"]]);
    const decision = bot.runtime.journal
      .recentDecisions(50)
      .find((r) => r.kind === "twapCancel" && r.trigger === "watch");
    expect(decision?.reason).toMatch(/fell below the sell floor limitPx 22/);
    expect(lines.some((l) => /twapCancel accepted/.test(l.msg))).toBe(true);
    expect(bot.sim.twaps(bot.address).map((t) => t.status)).toEqual(["terminated"]);
  });

  it("stops for a configuration problem found while running (a multi-sig account)", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const real = bot.runtime;
    const multiSig: DaemonRuntime = {
      ...real,
      facts: async () => ({
        multiSig: {
          threshold: 2,
          authorizedUsers: [bot!.address, "0x0000000000000000000000000000000000000001"],
        },
      }),
    };
    const { daemon: d, lines } = newDaemon(bot, {}, multiSig);
    d.start();
    await step(d, MINUTE);
    const result = await d.done;
    expect(result.reason).toBe("fatal");
    expect(result.reason === "fatal" && result.error).toBeInstanceOf(ConfigError);
    expect(lines.some((l) => l.level === 60 && /multi-sig/.test(l.msg))).toBe(true);
    await step(d, MINUTE, 2); // nothing is scheduled any more
    expect(runCycles(bot).map((c) => c.status)).toEqual(["failed"]);
    expect(d.ready()).toBe(false);
  });

  it("stops when the state database can no longer be written", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000" },
    });
    fakeTime(bot);
    const { daemon: d } = newDaemon(bot);
    d.start();
    bot.runtime.db.pragma("query_only = ON");
    await step(d, MINUTE);
    const result = await d.done;
    expect(result.reason).toBe("fatal");
    expect(String((result as { error: Error }).error.message)).toMatch(/readonly/);
    bot.runtime.db.pragma("query_only = OFF");
  });

  it("a reload of unchanged files changes nothing: the defaults that depend on other strategies are the start's", async () => {
    // A rebalancer holding HYPE beside staking counts staked HYPE by default (resolved at load).
    bot = await startTestBot({
      strategies: [
        { ...REBALANCE, schedule: "*/2 * * * *" },
        { ...STAKING, schedule: "*/3 * * * *" },
      ],
      fund: { HYPE: "1000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    const countStaked = () =>
      (d.strategies().find((x) => x.name === "rebalance")!.params as { countStaked?: boolean }).countStaked;
    expect(countStaked()).toBe(true);
    d.start();
    expect(await d.reloadFrom(() => loadStrategySet(bot!.runtime.config, { TEST_BOT_KEY: bot!.key }))).toBe(
      true,
    );
    expect(countStaked()).toBe(true);
    const reloaded = lines.find((l) => /strategies reloaded/.test(l.msg));
    expect(reloaded).toMatchObject({ added: [], changed: [], removed: [] });
  });

  it("a budgeted DCA renamed by a reload keeps its used-up budget", async () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "* * * * *",
      params: {
        coin: "HYPE",
        side: "buy",
        amountUsd: 400,
        budgetUsd: 400,
        twap: { minutes: 5, randomize: false },
      },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d } = newDaemon(bot);
    d.start();
    await step(d, MINUTE, 10);
    expect(twapsPlaced(bot)).toHaveLength(1); // the budget used up by one TWAP
    // The file now names it dca-hype (a review's case: it bought its budget again after SIGHUP).
    writeFileSync(join(bot.dir, "strategy-0.yaml"), stringify({ ...dca, name: "dca-hype" }));
    const reload = () => d.reloadFrom(() => loadStrategySet(bot!.runtime.config, { TEST_BOT_KEY: bot!.key }));
    expect(await reload()).toBe(true);
    await step(d, MINUTE, 10);
    expect(twapsPlaced(bot)).toHaveLength(1);
    expect(d.strategies().map((s) => s.name)).toEqual(["dca-hype"]);
  });

  it("a reload that removes a strategy names the TWAP it placed that may still run, and how to cancel it", async () => {
    // An owner removed a strategy whose 2,000-USD buy ran on: the log said only "removed".
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "* * * * *",
      params: { coin: "HYPE", side: "buy", amountUsd: 400, twap: { minutes: 60, randomize: false } },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    d.start();
    await step(d, MINUTE, 2);
    const [placed] = twapsPlaced(bot);
    expect(placed).toBeDefined();
    const twapId = Number(placed!.data.twapId);
    writeFileSync(join(bot.dir, "strategy-0.yaml"), stringify({ ...dca, name: "dca-hype" }));
    expect(await d.reloadFrom(() => loadStrategySet(bot!.runtime.config, { TEST_BOT_KEY: bot!.key }))).toBe(
      true,
    );
    const told = lines.find((l) => l.twapId === twapId);
    expect(told?.msg).toMatch(
      new RegExp(
        `^dca was removed by the reload, and its TWAP #${twapId} may still run until \\d\\d:\\d\\d UTC: it keeps filling \\(its guards are still watched\\); \`hlbot twap-cancel --twap-id ${twapId}\` cancels it$`,
      ),
    );
    // A reload that leaves it alone says nothing of it.
    const before = lines.length;
    expect(await d.reloadFrom(() => loadStrategySet(bot!.runtime.config, { TEST_BOT_KEY: bot!.key }))).toBe(
      true,
    );
    expect(lines.slice(before).some((l) => l.twapId === twapId)).toBe(false);
  });

  it("reloads strategy files: a broken file is reported with file:line and the old set kept; a good set replaces it", async () => {
    bot = await startTestBot({
      strategies: [{ ...REBALANCE, schedule: "*/2 * * * *" }],
      fund: { HYPE: "1000" },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    const config = bot.runtime.config;
    const env = { TEST_BOT_KEY: bot.key };
    const file = join(bot.dir, "strategy-0.yaml");
    d.start();

    writeFileSync(
      file,
      stringify({
        ...REBALANCE,
        schedule: "*/2 * * * *",
        enabled: true,
        params: { ...REBALANCE.params, band: "lots" },
      }),
    );
    expect(await d.reloadFrom(() => loadStrategySet(config, env))).toBe(false);
    const problem = lines.find((l) => typeof l.problem === "string");
    expect(problem?.problem).toMatch(/strategy-0\.yaml:\d+: params\.band: /);
    expect(lines.some((l) => /strategy reload refused: keeping the 1 current strategy/.test(l.msg))).toBe(
      true,
    );
    expect(d.strategies().map((s) => s.name)).toEqual(["rebalance"]);

    await step(d, MINUTE, 2); // the old schedule still runs: minute 2
    expect(runCycles(bot).map((c) => [c.minute, c.strategies[0]])).toEqual([[2, "rebalance"]]);

    writeFileSync(
      file,
      stringify({ ...REBALANCE, name: "rebalance-fast", schedule: "* * * * *", enabled: true }),
    );
    expect(await d.reloadFrom(() => loadStrategySet(config, env))).toBe(true);
    expect(d.strategies().map((s) => [s.name, s.schedule])).toEqual([["rebalance-fast", "* * * * *"]]);
    expect(
      lines.some((l) =>
        /strategies reloaded: 1 scheduled; added rebalance-fast; removed rebalance/.test(l.msg),
      ),
    ).toBe(true);
    await step(d, MINUTE, 2);
    expect(runCycles(bot).map((c) => [c.minute, c.strategies[0]])).toEqual([
      [2, "rebalance"],
      [3, "rebalance-fast"],
      [4, "rebalance-fast"],
    ]);
  });
});

describe("daemon stop", () => {
  async function heldSubmission(latencyMs: number) {
    bot = await startTestBot({
      mode: "live",
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000 } },
    });
    bot.sim.setPrice("@107", "40");
    START = bot.sim.now();
    fakeTime(bot);
    const made = newDaemon(bot);
    bot.sim.setFaults({ exchange: { latencyMs } });
    made.daemon.start();
    bot.sim.advance(MINUTE);
    await clock!.tickAsync(MINUTE);
    const b = bot;
    await until("the TWAP to reach the venue", () => twapsPlaced(b).length === 1);
    return made;
  }

  it("lets the submission in flight finish within the grace period and journals its answer", async () => {
    const { daemon: d, lines } = await heldSubmission(20_000);
    const stopping = d.stop(30_000);
    expect(d.ready()).toBe(false);
    await clock!.tickAsync(20_000);
    expect(await stopping).toEqual({ reason: "stopped", clean: true });
    expect(await d.done).toEqual({ reason: "stopped", clean: true });
    expect(bot!.runtime.journal.recentSubmissions(5).map((s) => s.status)).toEqual(["accepted"]);
    expect(lines.some((l) => /waiting up to 30000 ms for the running cycle of rebalance/.test(l.msg))).toBe(
      true,
    );
    await clock!.tickAsync(5 * MINUTE); // no tick after the stop
    expect(runCycles(bot!)).toHaveLength(1);
    daemon = undefined;
  });

  it("sends nothing new after the stop: the request in flight finishes, the cycle's later actions are not sent", async () => {
    // One cycle with three actions: move idle HYPE into staking, then delegate to two validators.
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          ...STAKING,
          schedule: "* * * * *",
          params: { ...STAKING.params, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
        },
      ],
      fund: { HYPE: "1000" },
      configExtra: { venue: { timeoutMs: 600_000 } },
    });
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    bot.sim.setFaults({ exchange: { latencyMs: 20_000 } });
    d.start();
    bot.sim.advance(MINUTE);
    await clock!.tickAsync(MINUTE);
    const b = bot;
    await until("the first request to be sent", () => b.runtime.journal.recentSubmissions(5).length === 1);
    const stopping = d.stop(30_000); // Ctrl-C while the deposit is in flight
    await clock!.tickAsync(40_000);
    expect(await stopping).toEqual({ reason: "stopped", clean: true });
    const sent = bot.runtime.journal.recentSubmissions(5);
    expect(sent.map((s) => [s.actionType, s.status])).toEqual([["cDeposit", "accepted"]]);
    const decisions = bot.runtime.journal.recentDecisions(10);
    const notSent = decisions.filter((x) => /not sent: hlbot is stopping/.test(x.reason));
    expect(notSent.map((x) => x.kind)).toEqual(["skip", "skip"]);
    expect(lines.some((l) => /cycle cut short by the shutdown: 2 action\(s\) not sent/.test(l.msg))).toBe(
      true,
    );
    expect(bot.sim.ledger().filter((e) => e.kind === "delegate" && e.user === bot!.address)).toEqual([]);
    // The strategy sent something in this slot: the slot is settled, a restart does not act in it again.
    const slot = bot.runtime.journal.slotStates(slotAccount(bot.address, "live"), ["staking"], START);
    expect(slot.get("staking")?.lastSlot).toBe(START + MINUTE);
    daemon = undefined;
  });

  it("stops at once, cleanly, when the running cycle is still reading (nothing sent yet)", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [{ ...REBALANCE, schedule: "* * * * *" }],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000 } },
    });
    bot.sim.setPrice("@107", "40");
    START = bot.sim.now();
    fakeTime(bot);
    const { daemon: d, lines } = newDaemon(bot);
    d.start();
    await until("the account facts", () => d.ready());
    bot.sim.setFaults({ info: { latencyMs: 120_000 } }); // every read now hangs for two minutes
    bot.sim.advance(MINUTE);
    await clock!.tickAsync(MINUTE);
    const b = bot;
    await until("the cycle to start", () =>
      b.runtime.journal.recentCycles(5).some((c) => c.status === "running"),
    );
    const stopping = d.stop(30_000);
    await clock!.tickAsync(1); // far less than the grace period
    expect(await stopping).toEqual({ reason: "stopped", clean: true });
    expect(lines.some((l) => /cycle cut short by the shutdown/.test(l.msg))).toBe(true);
    expect(twapsPlaced(bot)).toHaveLength(0);
    expect(bot.runtime.journal.recentSubmissions(5)).toEqual([]);
    daemon = undefined;
  });

  it("aborts the submission when the grace period runs out (journaled unknown, not pending)", async () => {
    const { daemon: d, lines } = await heldSubmission(120_000);
    const stopping = d.stop(10_000);
    await clock!.tickAsync(10_000);
    expect(await stopping).toEqual({ reason: "stopped", clean: false });
    expect(d.signal.aborted).toBe(true);
    expect(lines.some((l) => /grace period of 10000 ms over: aborting/.test(l.msg))).toBe(true);
    const statuses = bot!.runtime.journal.recentSubmissions(5).map((s) => s.status);
    expect(statuses).toEqual(["unknown"]);
    daemon = undefined;
  });
});
