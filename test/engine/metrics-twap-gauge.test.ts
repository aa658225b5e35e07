// The running-TWAP gauge between reads (a review of its first fix, which added an accepted TWAP and
// took nothing off until a later cycle read the TWAPs): a daily DCA's 30-minute TWAP showed "1 running,
// 0% done" all day after it finished, and a cancel (the kill switch, a guard's watch) left it running.
// Each TWAP counts until its scheduled end, and a cancel takes it off.
import type sinon from "sinon";
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { BotMetrics, type MetricsServer } from "../../src/engine/metrics.js";
import type { Runtime } from "../../src/engine/runtime.js";
import { oncePass } from "../../src/engine/scheduler.js";
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

const dca = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "* * * * *",
  params: { coin: "HYPE", side: "buy", amountUsd: 300, twap: { minutes: 30, randomize: false } },
};

it("a TWAP the daemon placed is not shown running (at 0%) hours after it ended", async () => {
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
  // Three hours later, no further cycle (a daily schedule): the 30-minute TWAP ended long ago.
  bot.sim.advance(3 * 60 * 60_000);
  await clock.tickAsync(3 * 60 * 60_000);
  expect([...bot.sim.core.twaps.running(bot.address)].length).toBe(0);
  const body = (await get(server!.port, "/metrics")).body;
  const progress = body.split("\n").filter((l) => l.startsWith("hlbot_twap_progress_ratio{"));
  expect({ running: sample(body, "hlbot_running_twaps"), progress }).toEqual({ running: 0, progress: [] });
  const stopping = daemon.stop(1_000);
  await clock.tickAsync(1_000);
  await stopping;
});

it("a TWAP cancelled by the kill switch is no longer counted as running", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [{ ...dca, params: { ...dca.params, twap: { minutes: 120, randomize: false } } }],
    fund: { USDC: "5000" },
  });
  const metrics = new BotMetrics();
  const deps = async () => ({ ...bot!.runtime.cycleDeps(await bot!.runtime.facts()), metrics });
  const strategies = scheduledStrategies(bot.runtime.config.strategies);
  await oncePass(await deps(), strategies, {});
  bot.sim.advance(60_000);
  await oncePass(await deps(), strategies, {});
  expect([...bot.sim.core.twaps.running(bot.address)].length).toBe(1);
  expect(sample(await metrics.registry.metrics(), "hlbot_running_twaps")).toBe(1);
  bot.sim.advance(60_000);
  const report = await runCycle(await deps(), {
    trigger: "run",
    strategies,
    killSwitchActive: true,
    cancelRunning: true,
  });
  expect(report.actions.map((a) => `${a.action}:${a.outcome}`)).toEqual(["twapCancel:accepted"]);
  expect([...bot.sim.core.twaps.running(bot.address)].length).toBe(0);
  // Before the fix: still 1 (until the next cycle that read the TWAPs).
  expect(sample(await metrics.registry.metrics(), "hlbot_running_twaps")).toBe(0);
});
