// Issue #17 item 15: clock steps. A step back stalls node-cron's ticks (its next slot now lies that far
// ahead) and /health must say so; a step forward floods "a tick came late" lines, which are collapsed to
// one; the skew against the venue is checked every minute, logged once per episode; a scheduler that
// stopped running makes /health answer 503.
import pino from "pino";
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { ClockWatch } from "../../src/engine/clockWatch.js";
import { cronSchedule, Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { BotMetrics, type MetricsServer, startMetricsServer } from "../../src/engine/metrics.js";
import { DaemonNotices } from "../../src/engine/notify/daemonNotices.js";
import { channelsFromConfig, Notifier } from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { VenueClock } from "../../src/venue/clockSkew.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import { captureLogger } from "../helpers/logs.js";
import { get } from "../helpers/metrics.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.UTC(2026, 0, 5, 12, 0, 30);

let clock: sinon.SinonFakeTimers | undefined;
let server: MetricsServer | undefined;
let bot: TestBot | undefined;
let daemon: Daemon | undefined;
let watch: ClockWatch | undefined;
let hook: TestHttpServer | undefined;

afterEach(async () => {
  watch?.stop();
  if (daemon) {
    const stopping = daemon.stop(0);
    await clock?.tickAsync(10_000);
    await stopping;
  }
  clock?.restore();
  await server?.close();
  await bot?.close();
  await hook?.close();
  clock = server = bot = daemon = watch = hook = undefined;
});

/** Fake wall clock, timers and monotonic clock; setSystemTime steps the wall clock only. */
function fakeTime(now = START): sinon.SinonFakeTimers {
  clock = sinon.useFakeTimers({
    now,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  return clock;
}

describe("clock watch", () => {
  it("reports a step back once, and /health answers 503 until the wall clock has caught up", async () => {
    const c = fakeTime();
    const { logger, lines, warnings } = captureLogger();
    watch = new ClockWatch({ logger });
    watch.start();
    server = await startMetricsServer(
      new BotMetrics(),
      { ready: () => true, alive: () => watch!.health() },
      0,
    );
    await c.tickAsync(MINUTE);
    expect(warnings()).toEqual([]);
    expect(await get(server.port, "/health")).toEqual({ status: 200, body: '{"status":"ok"}' });

    c.setSystemTime(Date.now() - HOUR);
    await c.tickAsync(5 * MINUTE);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]!.msg).toMatch(/wall clock stepped back 3600\.0 s: scheduled runs do not come until/);
    const health = await get(server.port, "/health");
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({
      status: "unhealthy",
      reason: expect.stringMatching(
        /wall clock stepped back: scheduled runs do not come until it reaches 2026-01-05T12:02:30.000Z again/,
      ),
    });

    await c.tickAsync(HOUR);
    expect(warnings()).toHaveLength(1);
    expect(lines.some((l) => /caught up after stepping back/.test(l.msg))).toBe(true);
    expect(await get(server.port, "/health")).toEqual({ status: 200, body: '{"status":"ok"}' });
  });

  it("reports a step forward once, and a small drift not at all", async () => {
    const c = fakeTime();
    const { logger, warnings } = captureLogger();
    watch = new ClockWatch({ logger });
    watch.start();
    c.setSystemTime(Date.now() + 5_000); // below the 10 s step threshold
    await c.tickAsync(2 * MINUTE);
    expect(warnings()).toEqual([]);
    c.setSystemTime(Date.now() + 2 * HOUR);
    await c.tickAsync(10 * MINUTE);
    expect(warnings().map((l) => l.msg)).toEqual([
      expect.stringMatching(/wall clock stepped forward 7200\.0 s: the slots skipped over count as missed/),
    ]);
    expect(watch.health()).toEqual({ ok: true });
  });

  it("checks the skew against the venue every minute and warns once per episode", async () => {
    const c = fakeTime();
    const { logger, lines, warnings } = captureLogger();
    // The venue's clock as hlbot reads it: each answer's Date header (whole seconds), sampled on receipt.
    let header: Date | undefined;
    const venue = new VenueClock(() => header, Date.now);
    const answer = (skewMs: number, roundTripMs = 40) => {
      header = new Date(Math.floor((Date.now() - skewMs) / 1000) * 1000);
      venue.sample(roundTripMs);
    };
    watch = new ClockWatch({ logger, venueSkew: () => venue.skew });
    watch.start();
    await c.tickAsync(MINUTE);
    answer(900); // within the 5 s threshold (the Date header is truncated to the second)
    await c.tickAsync(MINUTE);
    expect(warnings()).toEqual([]);
    answer(20_500);
    await c.tickAsync(5 * MINUTE);
    expect(warnings().map((l) => l.msg)).toEqual([
      expect.stringMatching(/local clock is 20\.\d s ahead of the venue's/),
    ]);
    answer(700);
    await c.tickAsync(MINUTE);
    expect(lines.some((l) => /agrees with the venue's again/.test(l.msg))).toBe(true);
    answer(-9_500);
    await c.tickAsync(3 * MINUTE);
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]!.msg).toMatch(/local clock is (9|10)\.\d s behind the venue's/);
  });

  it("does not take a slow answer for a skewed clock: the Date header may be from any moment of the round trip", async () => {
    // A daemon behind a slow link: answers take 12 s, and the venue wrote its Date header as the request
    // arrived. The header is then 12 s old on receipt while the clocks agree.
    const c = fakeTime();
    const { logger, warnings } = captureLogger();
    let header: Date | undefined;
    const venue = new VenueClock(() => header, Date.now);
    watch = new ClockWatch({ logger, venueSkew: () => venue.skew });
    watch.start();
    const slowAnswer = (skewMs: number) => {
      header = new Date(Math.floor((Date.now() - 12_000 - skewMs) / 1000) * 1000);
      venue.sample(12_000);
    };
    slowAnswer(0);
    await c.tickAsync(2 * MINUTE);
    expect(warnings()).toEqual([]);
    // The same round trip with a clock 20 s ahead: no reading of the answer puts the skew within 5 s.
    slowAnswer(20_000);
    await c.tickAsync(MINUTE);
    expect(warnings().map((l) => l.msg)).toEqual([expect.stringMatching(/local clock is 2\d\.\d s ahead/)]);
    // Read on receipt alone (no round trip), the first slow answer would have been a 12-second skew.
    header = new Date(Math.floor((Date.now() - 12_000) / 1000) * 1000);
    venue.sample(0);
    expect(venue.skew!.low).toBeGreaterThan(5_000);
  });

  it("answers 503 on /health when the scheduler has not run for three intervals", async () => {
    const c = fakeTime();
    const { logger } = captureLogger();
    watch = new ClockWatch({ logger }); // not started: nothing beats
    server = await startMetricsServer(
      new BotMetrics(),
      { ready: () => true, alive: () => watch!.health() },
      0,
    );
    await c.tickAsync(3 * MINUTE);
    expect((await get(server.port, "/health")).status).toBe(200);
    await c.tickAsync(MINUTE);
    const health = await get(server.port, "/health");
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toEqual({
      status: "unhealthy",
      reason: "scheduler stalled: it last ran 240.0 s ago (bound 180.0 s)",
    });
    watch.beat();
    expect((await get(server.port, "/health")).status).toBe(200);
  });

  it("answers 503 on /live when the current cycle has run for more than 15 minutes, though the check still beats (a review)", async () => {
    const c = fakeTime();
    const { logger } = captureLogger();
    let busySince: number | undefined;
    watch = new ClockWatch({ logger, busySince: () => busySince });
    watch.start(); // its own check beats every minute
    server = await startMetricsServer(
      new BotMetrics(),
      { ready: () => true, live: () => watch!.health() },
      0,
    );
    busySince = watch.monoNow(); // a cycle begins, and never returns
    await c.tickAsync(15 * MINUTE);
    expect((await get(server.port, "/live")).status).toBe(200);
    await c.tickAsync(MINUTE);
    const live = await get(server.port, "/live");
    expect(live.status).toBe(503);
    expect(JSON.parse(live.body).reason).toBe(
      "scheduler stuck: its current cycle has run for 960.0 s (bound 900.0 s)",
    );
    busySince = undefined; // it ended
    expect((await get(server.port, "/live")).status).toBe(200);
  });
});

describe("node-cron after a forward step", () => {
  it("collapses the missed ticks into one line", async () => {
    const c = fakeTime();
    const { logger, warnings } = captureLogger();
    const ticks: string[] = [];
    const job = cronSchedule("* * * * *", (at) => ticks.push(at.toISOString()), {
      name: "every-minute",
      logger,
    });
    try {
      await c.tickAsync(MINUTE);
      expect(ticks).toEqual(["2026-01-05T12:01:00.000Z"]);
      c.setSystemTime(Date.now() + 3 * HOUR);
      await c.tickAsync(MINUTE);
      const missed = warnings().filter((l) => /came late/.test(l.msg));
      expect(missed).toHaveLength(1);
      expect(missed[0]).toMatchObject({ strategy: "every-minute", ticks: expect.any(Number) });
      expect(missed[0]!.ticks as number).toBeGreaterThan(170);
      expect(missed[0]!.msg).toMatch(
        /^\d+ ticks came late, from 2026-01-05T12:02:00.000Z to .*clock stepped forward\): the latest one's slot runs now if within schedule.catchUp/,
      );
      // The latest late tick is delivered, once (the scheduler runs its slot if within catch-up), not
      // the 180 others.
      expect(ticks.filter((t) => t === missed[0]!.last)).toHaveLength(1);
      expect(ticks.length).toBeLessThanOrEqual(3);
    } finally {
      job.stop();
    }
  });
});

describe("daemon /health after a clock step back", () => {
  it("answers 503 naming the step while cron ticks cannot come", async () => {
    bot = await startTestBot({
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          schedule: "0 0 * * *",
          params: {
            validators: 2,
            rankBy: "predictedApr",
            maxCommission: 0.05,
            rebalanceThreshold: 0.05,
            maxMovePerRun: 10000,
          },
        },
      ],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    const c = fakeTime(bot.sim.now());
    const { logger, warnings } = captureLogger();
    daemon = new Daemon({
      runtime: bot.runtime,
      strategies: scheduledStrategies(bot.runtime.config.strategies),
      logger,
      watchIntervalMs: 0,
    });
    server = await startMetricsServer(new BotMetrics(), daemon, 0);
    daemon.start();
    await c.tickAsync(MINUTE);
    expect(await get(server.port, "/health")).toEqual({ status: 200, body: '{"status":"ok"}' });
    c.setSystemTime(Date.now() - 2 * HOUR);
    await c.tickAsync(MINUTE);
    const health = await get(server.port, "/health");
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body).reason).toMatch(/wall clock stepped back/);
    expect(warnings().filter((l) => /stepped back 7200\.0 s/.test(l.msg))).toHaveLength(1);
  });

  it("tells the owner through notify: runs held until the old time, with what to do (and a forward step too)", async () => {
    hook = await startHttpServer([{ json: {} }]);
    bot = await startTestBot({
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          // Not due within the test: only the clock watch acts.
          schedule: "0 0 1 1 *",
          params: {
            validators: 2,
            rankBy: "predictedApr",
            maxCommission: 0.05,
            rebalanceThreshold: 0.05,
            maxMovePerRun: 10000,
          },
        },
      ],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    const c = fakeTime(bot.sim.now());
    const notifier = new Notifier({
      channels: channelsFromConfig(
        { timeoutMs: 2000, retries: 0, minIntervalMs: 0, webhook: { url: `${hook.url}/hook` } },
        {},
      ),
      logger: pino({ level: "silent" }),
      minIntervalMs: 0,
    });
    const notices = new DaemonNotices({
      notifier,
      info: bot.runtime.info,
      account: bot.runtime.account,
      network: "testnet",
      clock: () => Date.now(),
      logger: pino({ level: "silent" }),
    });
    daemon = new Daemon({
      runtime: bot.runtime,
      strategies: scheduledStrategies(bot.runtime.config.strategies),
      logger: pino({ level: "silent" }),
      notices,
      watchIntervalMs: 0,
    });
    daemon.start();
    await c.tickAsync(MINUTE);
    const before = Date.now();
    c.setSystemTime(before - 2 * HOUR);
    await c.tickAsync(MINUTE);
    c.setSystemTime(Date.now() + 3 * HOUR);
    await c.tickAsync(MINUTE);
    const sent = notifier.flush(5000);
    await c.tickAsync(100);
    await sent;
    // One event per step; a delivery whose answer came after the fake timers' timeout is sent again with
    // its id (receivers drop repeats by it).
    const byId = new Map(hook.requests.map((r) => [(r.json as NotifyEvent).id, r.json as NotifyEvent]));
    const steps = [...byId.values()].filter((e) => e.type === "clock.stepped");
    expect(steps.map((e) => e.data.direction)).toEqual(["back", "forward"]);
    const back = steps[0]!;
    expect(back.data.stepMs).toBe(-2 * HOUR);
    // Cron ticks come again once the wall clock is back where it was (a minute into the step's check).
    expect(Date.parse(back.data.resumeAt as string)).toBe(before + MINUTE);
    expect(back.title).toBe(`the local clock stepped back 2 h: no scheduled run until ${back.data.resumeAt}`);
    expect(back.text).toMatch(
      /restart hlbot to schedule from it at once; if not, synchronise the clock \(NTP\)/,
    );
    expect(steps[1]!.title).toMatch(
      /^the local clock stepped forward 3 h: slots skipped over count as missed$/,
    );
  });
});
