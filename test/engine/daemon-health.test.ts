// /health and the metrics as an operator relies on them (an operator's trial and a review): a strategy that
// threw while deciding at every run was an ok cycle to the daemon (/health 200, a fresh last success: the
// shipped alerts never fired); a journal another process kept locked left /health at 200 while nothing
// ran; and, once failures counted per strategy, a daily strategy whose slot went by failing held /health
// at 503 all day while the rest ran. A failure counts while its slot can still be retried.
import pino from "pino";
import type sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { BotMetrics, type MetricsServer } from "../../src/engine/metrics.js";
import type { Runtime } from "../../src/engine/runtime.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";
import { get, sample, settle, startMetricsDaemon } from "../helpers/metrics.js";

let bot: TestBot | undefined;
let runtime: Runtime | undefined;
let server: MetricsServer | undefined;
let clock: sinon.SinonFakeTimers | undefined;

afterEach(async () => {
  clock?.restore();
  await server?.close();
  await runtime?.close();
  await bot?.close();
  bot = runtime = server = clock = undefined;
});

describe("a strategy failing at every run", () => {
  it("shows on /health and in the metrics: failed cycles, no last success, 503; a run that works clears it; a restart keeps the last success", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          schedule: "* * * * *",
          params: {
            coin: "HYPE",
            side: "buy",
            amountUsd: 200,
            budgetUsd: 10000,
            twap: { minutes: 30, randomize: false },
          },
        },
      ],
      fund: { USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000, readAttempts: 2 } },
    });
    const metrics = new BotMetrics();
    const started = await startMetricsDaemon(bot, metrics);
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    // The strategy's read of the state folder fails at every run (as in test/engine/strategy-failure.test.ts).
    runtime.journal.budgetCandidates = () => {
      throw new Error("read failed");
    };
    daemon.start();
    // Each outcome's series is there at 0 from the start: Prometheus's increase() does not count a
    // series' first sample, so one born at 1 would hide the first failure from the shipped alert.
    const before = (await get(server.port, "/metrics")).body;
    for (const outcome of ["ok", "failed", "skipped"])
      expect(sample(before, `hlbot_cycles_total{strategy="dca",outcome="${outcome}"}`), outcome).toBe(0);
    await settle(daemon, clock);
    for (let i = 0; i < 5; i++) {
      bot.sim.advance(60_000);
      ticks.get("dca")!(new Date(bot.sim.now()));
      await settle(daemon, clock);
    }
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
    const { body } = await get(server.port, "/metrics");
    const health = await get(server.port, "/health");
    // Expected: a strategy that failed 5 runs in a row is not reported as succeeding.
    expect(sample(body, 'hlbot_last_success_timestamp_seconds{strategy="dca"}')).toBeUndefined();
    expect(sample(body, 'hlbot_cycles_total{strategy="dca",outcome="failed"}') ?? 0).toBeGreaterThanOrEqual(
      3,
    );
    expect(health.status).toBe(503);
    expect(health.body).toMatch(/cycles in a row failed; the last: dca: .*read failed/);
    // A restart now does not take those failed runs (cycles that ran) for successes (a review: each
    // restart during a hold reset the age the alerts watch).
    const probeMetrics = new BotMetrics();
    const probe = new Daemon({
      runtime,
      strategies: scheduledStrategies(runtime.config.strategies),
      logger: pino({ level: "silent" }),
      metrics: probeMetrics,
      schedule: () => ({ stop: () => undefined }),
    });
    probe.start();
    expect(
      (await probeMetrics.registry.getMetricsAsJSON()).find(
        (m) => m.name === "hlbot_last_success_timestamp_seconds",
      )?.values ?? [],
    ).toEqual([]);
    const probeStopped = probe.stop(0);
    await clock.tickAsync(10_000);
    await probeStopped;
    // The read works again: the next run buys, and health and the metrics say so.
    delete (runtime.journal as { budgetCandidates?: unknown }).budgetCandidates;
    bot.sim.advance(60_000);
    ticks.get("dca")!(new Date(bot.sim.now()));
    await settle(daemon, clock);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(1);
    expect((await get(server.port, "/health")).status).toBe(200);
    const after = (await get(server.port, "/metrics")).body;
    const lastSuccess = sample(after, 'hlbot_last_success_timestamp_seconds{strategy="dca"}');
    expect(lastSuccess).toBe(bot.sim.now() / 1000);
    // A restart (the venue down, say) keeps it: read from the journal at start, before any cycle.
    const stopping = daemon.stop(0);
    await clock.tickAsync(10_000);
    await stopping;
    const fresh = new BotMetrics();
    const again = new Daemon({
      runtime,
      strategies: scheduledStrategies(runtime.config.strategies),
      logger: pino({ level: "silent" }),
      metrics: fresh,
      schedule: () => ({ stop: () => undefined }),
    });
    again.start();
    const seeded = (await fresh.registry.getMetricsAsJSON()).find(
      (m) => m.name === "hlbot_last_success_timestamp_seconds",
    );
    expect(seeded?.values).toEqual([
      expect.objectContaining({ labels: { strategy: "dca" }, value: expect.closeTo(lastSuccess!, 0) }),
    ]);
    const stopped = again.stop(0);
    await clock.tickAsync(10_000);
    await stopped;
  });
});

describe("a locked journal", () => {
  it("turns /health unhealthy after several ticks in which nothing could run, and healthy again once it can", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          schedule: "* * * * *",
          params: { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 30, randomize: false } },
        },
      ],
      fund: { USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000, readAttempts: 2 } },
    });
    const metrics = new BotMetrics();
    const started = await startMetricsDaemon(bot, metrics);
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    daemon.start();
    await settle(daemon, clock);
    const busy = () => {
      throw Object.assign(new Error("database is locked"), { name: "SqliteError", code: "SQLITE_BUSY" });
    };
    runtime.journal.slotStates = busy;
    runtime.journal.slotState = busy;
    for (let i = 0; i < 10; i++) {
      bot.sim.advance(60_000);
      ticks.get("dca")!(new Date(bot.sim.now()));
      await settle(daemon, clock);
    }
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
    const health = await get(server.port, "/health");
    expect(health.status).toBe(503);
    expect(health.body).toMatch(/cycles in a row failed; the last: scheduling failed: database is locked/);
    // Released: the next tick schedules and runs, and health is back.
    delete (runtime.journal as { slotStates?: unknown }).slotStates;
    delete (runtime.journal as { slotState?: unknown }).slotState;
    bot.sim.advance(60_000);
    ticks.get("dca")!(new Date(bot.sim.now()));
    await settle(daemon, clock);
    expect((await get(server.port, "/health")).status).toBe(200);
  });
});

describe("a failing strategy whose slot is gone", () => {
  it("after a failing strategy's slot is gone, the other strategies' good cycles make /health 200 again; its next failure starts a new count", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          schedule: "0 0 * * *",
          params: {
            coin: "HYPE",
            side: "buy",
            amountUsd: 200,
            budgetUsd: 10000,
            twap: { minutes: 30, randomize: false },
          },
        },
        { ...REBALANCE, schedule: "* * * * *" },
      ],
      fund: { USDC: "5000", HYPE: "100" },
      configExtra: { venue: { timeoutMs: 600_000, readAttempts: 2 } },
    });
    const { logger, lines } = captureLogger();
    const started = await startMetricsDaemon(bot, new BotMetrics(), { logger });
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    runtime.journal.budgetCandidates = () => {
      throw new Error("read failed");
    };
    // Start at 23:59, a daily DCA at 00:00 that fails, retried after 1, 2, 4 minutes.
    const DAY = 86_400_000;
    bot.sim.advance(DAY - (bot.sim.now() % DAY) - 60_000);
    clock.setSystemTime(bot.sim.now());
    daemon.start();
    await settle(daemon, clock);
    for (const wait of [60_000, 60_000, 120_000, 240_000]) {
      bot.sim.advance(wait);
      ticks.get("dca")!(new Date(bot.sim.now()));
      await settle(daemon, clock);
    }
    expect((await get(server.port, "/health")).status).toBe(503);
    // The log says so at warn, not "cycle ok" at info (an operator's trial: runs held for the clock).
    const said = lines.filter(
      (l) => l.strategies !== undefined && /dca/.test(String(l.strategies)) && /^cycle/.test(l.msg),
    );
    expect(said.length).toBeGreaterThan(0);
    for (const l of said) {
      expect(l.msg).toMatch(
        /^cycle ran, 1 strategy run\(s\) failed \(dca: it failed while deciding: .*read failed/,
      );
      expect(l.level).toBe(40);
    }
    // The read works again, but dca's next slot is not now (a daily one: tomorrow); the rebalancer runs fine.
    delete (runtime.journal as { budgetCandidates?: unknown }).budgetCandidates;
    bot.sim.advance(3 * 3_600_000);
    for (let i = 0; i < 3; i++) {
      bot.sim.advance(60_000);
      ticks.get("rebalance")!(new Date(bot.sim.now()));
      await settle(daemon, clock);
    }
    const h = await get(server.port, "/health");
    expect(h.status, h.body).toBe(200);
    // The next day: the DCA's 00:00 slot fails ONCE (below --unhealthy-after 3).
    runtime.journal.budgetCandidates = () => {
      throw new Error("read failed again");
    };
    bot.sim.advance(DAY - (bot.sim.now() % DAY) + 1_000);
    clock.setSystemTime(bot.sim.now());
    ticks.get("dca")!(new Date(bot.sim.now()));
    await settle(daemon, clock);
    const next = await get(server.port, "/health");
    expect(next.status, next.body).toBe(200);
  });
});
