// A daemon operator's trial (fixed): after a staking cycle moves spot HYPE into staking, the next cycle of a strategy that
// does not read staking (a DCA, a rebalancer) refreshes the spot balances but values the stake "as last
// read" — which is the staking cycle's pre-action snapshot. The moved HYPE vanishes from
// hlbot_portfolio_value_usd and hlbot_balance{kind="staked"} until the next staking cycle (hours).
// README (Operations, Metrics): "the first cycle of a process also reads the stake, so the value never
// leaves it out".
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
