// The account gauges between the cycles that read them (a daemon operator's trial and a review of its
// fix): what the bot placed, cancelled or moved into staking since the last read.
import type sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
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

// A daemon operator's trial (fixed): hlbot_running_twaps / hlbot_twap_progress_ratio come from the cycle's snapshot, read
// before the cycle places its TWAP. A daily DCA's 2-hour TWAP is therefore never seen running on
// /metrics (0 before, 0 during, 0 at the next day's snapshot), while the venue shows it running.
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

// The running-TWAP gauge between reads (a review of its first fix, which added an accepted TWAP and
// took nothing off until a later cycle read the TWAPs): a daily DCA's 30-minute TWAP showed "1 running,
// 0% done" all day after it finished, and a cancel (the kill switch, a guard's watch) left it running.
// Each TWAP counts until its scheduled end, and a cancel takes it off.
describe("trial: the running TWAP gauge between reads", () => {
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
});

// A daemon operator's trial (fixed): after a staking cycle moves spot HYPE into staking, the next cycle of a strategy that
// does not read staking (a DCA, a rebalancer) refreshes the spot balances but values the stake "as last
// read" — which is the staking cycle's pre-action snapshot. The moved HYPE vanishes from
// hlbot_portfolio_value_usd and hlbot_balance{kind="staked"} until the next staking cycle (hours).
// README (Operations, Metrics): "the first cycle of a process also reads the stake, so the value never
// leaves it out".
describe("trial: account value after a staking deposit", () => {
  it("a DCA cycle after a staking cycle still counts the HYPE the staking cycle deposited", async () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "* * * * *",
      params: { coin: "HYPE", side: "buy", amountUsd: 150, twap: { minutes: 30, randomize: false } },
    };
    const staking = {
      name: "staking",
      kind: "validator-staking",
      schedule: "*/2 * * * *",
      params: {
        validators: 2,
        maxCommission: 0.05,
        stakeIdleSpot: { enabled: true, keepSpot: 100 },
      },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [dca, staking],
      fund: { USDC: "5000", HYPE: "1000" },
      limits: { maxStakeMovePerDay: 5000 },
    });
    bot.sim.setPrice("@107", "20");
    const sim = bot.sim;
    const metrics = new BotMetrics();
    const started = await startMetricsDaemon(bot, metrics);
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    daemon.start();
    await settle(daemon, clock);
    const body = async () => (await get(server!.port, "/metrics")).body;

    // 00:01: the DCA alone buys (a 30-minute TWAP).
    sim.advance(60_000);
    ticks.get("dca")!(new Date());
    await settle(daemon, clock);
    // 00:02: the staking slot (with the DCA's, which waits for its TWAP): 900 spot HYPE deposited and delegated.
    sim.advance(60_000);
    ticks.get("staking")!(new Date());
    await settle(daemon, clock);
    const afterStaking = sample(await body(), "hlbot_portfolio_value_usd")!;
    expect(afterStaking).toBeGreaterThan(20_000); // 5,000 USDC + 1,000 HYPE at ~20

    // 00:03: the DCA's slot alone (a strategy that reads no staking).
    sim.advance(60_000);
    ticks.get("dca")!(new Date());
    await settle(daemon, clock);
    const after = await body();
    // The venue: ~100 HYPE on spot, ~900 staked; the account is still worth ~25,000 USD.
    expect(sample(after, 'hlbot_balance{token="HYPE",kind="spot"}')).toBeLessThan(200);
    expect(sample(after, 'hlbot_balance{token="HYPE",kind="staked"}')).toBeGreaterThan(800);
    expect(sample(after, "hlbot_portfolio_value_usd")).toBeGreaterThan(afterStaking * 0.95);
    const stopping = daemon.stop(1_000);
    await clock.tickAsync(1_000);
    await stopping;
  });
});
