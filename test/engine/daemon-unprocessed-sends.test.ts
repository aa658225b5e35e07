// A review: the daemon, every send refused before the venue looked at it (429 on /exchange only). The
// scheduler counted such a run as a failure for its back-off, but the daemon's metrics, /health and
// notices counted it as a success: an alert on the last success's age never fired.
import type sinon from "sinon";
import { afterEach, expect, it } from "vitest";
import { BotMetrics, type MetricsServer } from "../../src/engine/metrics.js";
import type { Runtime } from "../../src/engine/runtime.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
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

it("a DCA whose every send is rate limited (nothing bought for 10 runs) is no success to the metrics", async () => {
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
  });
  bot.sim.setPrice("@107", "25");
  const metrics = new BotMetrics();
  const started = await startMetricsDaemon(bot, metrics);
  ({ runtime, clock, server } = started);
  const { ticks, daemon } = started;
  bot.sim.setFaults({ exchange: { rateLimitRate: 1 } });
  daemon.start();
  await settle(daemon, clock);
  for (let i = 0; i < 10; i++) {
    bot.sim.advance(60_000);
    ticks.get("dca")!(new Date(bot.sim.now()));
    await settle(daemon, clock);
  }
  const { body } = await get(server.port, "/metrics");
  const health = await get(server.port, "/health");
  const info = {
    placed: bot.sim.ledger({ kind: "twapPlaced", user: bot.address }).length,
    lastSuccess: sample(body, 'hlbot_last_success_timestamp_seconds{strategy="dca"}'),
    okCycles: sample(body, 'hlbot_cycles_total{strategy="dca",outcome="ok"}'),
    failedCycles: sample(body, 'hlbot_cycles_total{strategy="dca",outcome="failed"}'),
    health: health.status,
    schedulerHealth: daemon.health("dca"),
    now: bot.sim.now() / 1000,
  };
  expect(info.placed).toBe(0);
  // Nothing was done in 10 runs: no fresh "last success" for an alert on its age to trust.
  expect(info.lastSuccess, JSON.stringify(info)).toBeUndefined();
}, 120_000);
