// A review: /health's failure count is kept per strategy. A daily strategy whose slot went by failing
// (an outage past schedule.catchUp) kept /health at 503 until its next slot while the others ran fine
// (the Kubernetes livenessProbe restarting the pod meanwhile): a failure counts only while its slot can
// still be retried.
import type sinon from "sinon";
import { afterEach, expect, it } from "vitest";
import { BotMetrics, type MetricsServer } from "../../src/engine/metrics.js";
import type { Runtime } from "../../src/engine/runtime.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { get, settle, startMetricsDaemon } from "../helpers/metrics.js";

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

it("after a failing strategy's slot is gone, the other strategies' good cycles make /health 200 again", async () => {
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
  const started = await startMetricsDaemon(bot, new BotMetrics());
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
});
