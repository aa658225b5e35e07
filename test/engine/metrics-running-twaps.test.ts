// A daemon operator's trial (fixed): hlbot_running_twaps / hlbot_twap_progress_ratio come from the cycle's snapshot, read
// before the cycle places its TWAP. A daily DCA's 2-hour TWAP is therefore never seen running on
// /metrics (0 before, 0 during, 0 at the next day's snapshot), while the venue shows it running.
import type sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
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

describe("trial: running TWAP gauge", () => {
  it("counts the TWAP the daemon just placed while it runs", async () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "* * * * *",
      params: { coin: "HYPE", side: "buy", amountUsd: 300, twap: { minutes: 120, randomize: false } },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "5000" } });
    const metrics = new BotMetrics();
    const started = await startMetricsDaemon(bot, metrics);
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    daemon.start();
    await settle(daemon, clock);
    bot.sim.advance(60_000);
    ticks.get("dca")!(new Date());
    await settle(daemon, clock);
    // Ten minutes later, with no further cycle (a daily schedule): the TWAP runs on the venue.
    bot.sim.advance(10 * 60_000);
    await clock.tickAsync(10 * 60_000);
    const body = (await get(server!.port, "/metrics")).body;
    // The order was placed (and counts against the daily limit) ...
    expect(sample(body, 'hlbot_daily_notional_usd{kind="used"}')).toBeGreaterThan(290);
    // ... and is running on the venue (120 minutes, 10 in).
    expect([...bot.sim.core.twaps.running(bot.address)].length).toBe(1);
    expect(sample(body, "hlbot_running_twaps")).toBe(1);
    const stopping = daemon.stop(1_000);
    await clock.tickAsync(1_000);
    await stopping;
  });
});
