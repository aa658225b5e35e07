import type sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { BotMetrics, type MetricsServer } from "../../src/engine/metrics.js";
import type { Runtime } from "../../src/engine/runtime.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { get, realSetTimeout, sample, settle, startMetricsDaemon } from "../helpers/metrics.js";

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

describe("daemon metrics endpoint", () => {
  it("serves health, readiness and the counters of real cycles", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "rebalance",
          kind: "twap-rebalance",
          schedule: "* * * * *",
          params: {
            targets: { HYPE: 0.5, USDC: 0.5 },
            quote: "USDC",
            band: 0.05,
            twap: { minutes: 60, randomize: false },
            minOrderUsd: 10,
          },
        },
      ],
      fund: { HYPE: "1000", USDC: "5000" },
      // A small weight budget, so the cycle has to wait for it; long timeouts, as time is faked.
      configExtra: { venue: { weightPerMinute: 100, timeoutMs: 600_000, readAttempts: 2 } },
    });
    bot.sim.setPrice("@107", "40");
    const sim = bot.sim;
    const metrics = new BotMetrics();
    // Ticks are fired by the test: this suite is about what the metrics say, not about when runs happen.
    const started = await startMetricsDaemon(bot, metrics);
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    const port = server.port;

    expect(await get(port, "/health")).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(await get(port, "/ready")).toEqual({ status: 503, body: '{"ready":false}' });
    daemon.start();
    await settle(daemon, clock);
    for (let i = 0; i < 500 && !daemon.ready(); i++) await new Promise((r) => realSetTimeout(r, 10));
    expect(await get(port, "/ready")).toEqual({ status: 200, body: '{"ready":true}' });

    sim.advance(60_000); // the strategy's first slot after the daemon first saw it
    ticks.get("rebalance")!(new Date());
    await settle(daemon, clock);
    const successAt = sim.now();
    sim.setFaults({ info: { serverErrorRate: 1 } });
    sim.advance(60_000);
    ticks.get("rebalance")!(new Date());
    await settle(daemon, clock);

    const { status, body } = await get(port, "/metrics");
    expect(status).toBe(200);
    expect(sample(body, 'hlbot_cycles_total{strategy="rebalance",outcome="ok"}')).toBe(1);
    expect(sample(body, 'hlbot_cycles_total{strategy="rebalance",outcome="failed"}')).toBe(1);
    expect(sample(body, 'hlbot_intents_total{strategy="rebalance",kind="twapOrder",guard="allowed"}')).toBe(
      1,
    );
    expect(sample(body, 'hlbot_submissions_total{action="twapOrder",outcome="accepted"}')).toBe(1);
    expect(sample(body, 'hlbot_venue_request_duration_seconds_count{endpoint="exchange"}')).toBe(1);
    expect(sample(body, 'hlbot_venue_request_duration_seconds_count{endpoint="info"}')).toBeGreaterThan(5);
    // Two attempts of the failing read (readAttempts 2), each a 500.
    expect(
      sample(body, 'hlbot_venue_errors_total{endpoint="info",code="SERVER_ERROR"}'),
    ).toBeGreaterThanOrEqual(2);
    expect(sample(body, "hlbot_rate_limit_wait_seconds_total")).toBeGreaterThan(0);
    expect(sample(body, 'hlbot_last_success_timestamp_seconds{strategy="rebalance"}')).toBe(successAt / 1000);

    const stopping = daemon.stop(1_000);
    expect(await get(port, "/ready")).toEqual({ status: 503, body: '{"ready":false}' });
    await clock.tickAsync(1_000);
    expect(await stopping).toEqual({ reason: "stopped", clean: true });
  });
});
