// A trigger TWAP waiting for its price (placed in the app or by another tool: hlbot places none) is
// "waitingForTrigger" in twapHistory (nktkas/hyperliquid src/api/info/_methods/twapHistory.ts). A review
// against the public schemas: hlbot took it as taking nothing, so staking staked the HYPE a waiting
// stop-loss sale needs (into the 7-day queue), and a rebalancer sold it beside it; `status` and the kill
// switch did not see it. The simulator places no trigger TWAP: a proxy adds one to its answers.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { runCycle } from "../../src/engine/cycle.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
});

const STAKING = {
  name: "staking",
  kind: "validator-staking",
  params: {
    validators: 3,
    rankBy: "predictedApr",
    statsPeriod: "week",
    maxCommission: 0.05,
    minUptime: { period: "week", fraction: 0.99 },
    allocation: "equal",
    minMove: 1,
    maxMovePerRun: 5000,
    stakeIdleSpot: { enabled: true, keepSpot: 100 },
  },
};

/** twapHistory with a hand-placed trigger sale of 800 HYPE (below 20), in the status given. */
function withTriggerSale(status: string, now: () => number) {
  return (answer: unknown) => [
    ...(answer as unknown[]),
    {
      time: Math.floor(now() / 1000) - 60,
      state: {
        coin: "@107",
        user: bot!.address,
        side: "A",
        sz: "800",
        executedSz: "0",
        executedNtl: "0",
        minutes: 60,
        reduceOnly: false,
        randomize: false,
        timestamp: now() - 60_000,
        trigger: { px: "20", above: false },
        stopPx: null,
      },
      status: { status },
      twapId: 424242,
    },
  ];
}

async function start(strategies: Array<Record<string, unknown>>, fund: Record<string, string>) {
  proxy = await startRewritingProxy();
  bot = await startTestBot({ mode: "dry-run", strategies, fund, configExtra: { baseUrl: proxy.url } });
  proxy.target = bot.sim.url;
  const sim = bot.sim;
  proxy.rewriteInfo(
    "twapHistory",
    withTriggerSale("waitingForTrigger", () => sim.now()),
  );
  return () =>
    runCycle(bot!.runtime.cycleDeps({ multiSig: null }), {
      trigger: "once",
      strategies: bot!.runtime.strategies(),
    });
}

it("staking leaves spot the HYPE a waiting trigger sale will sell", async () => {
  const cycle = await start([STAKING], { HYPE: "1000" });
  const report = await cycle();
  expect(report.actions.filter((a) => a.action === "cDeposit")).toEqual([]);
  expect(report.decisions.map((d) => d.decision.reason).join("\n")).toMatch(
    /#424242: 800 HYPE over 60 min once its trigger price is reached/,
  );
});

it("a rebalancer sells only what a waiting trigger sale leaves on spot", async () => {
  const cycle = await start([REBALANCE], { HYPE: "1000", USDC: "100" });
  const report = await cycle();
  const sells = report.decisions.filter((d) => d.decision.kind === "twapOrder");
  // 800 of the 1000 HYPE are the stop-loss's: at most 200 go into the rebalancer's sale.
  for (const d of sells)
    expect(Number((d.decision as { size: { toString(): string } }).size.toString())).toBeLessThanOrEqual(200);
  expect(sells).toHaveLength(1);
});

it("a DCA keeps buying beside a stop-loss waiting for its price (it may wait for months)", async () => {
  // A review: waiting for it held a buy DCA protected by a resting stop-loss for ever.
  const dca = {
    name: "dca",
    kind: "twap-accumulate",
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "buy",
      amountUsd: 200,
      twap: { minutes: 30, randomize: false },
    },
  };
  const cycle = await start([dca], { HYPE: "1000", USDC: "1000" });
  const report = await cycle();
  expect(report.actions.map((a) => a.action)).toEqual(["twapOrder"]);
});

it("the kill switch cancels a waiting trigger TWAP with the running ones", async () => {
  const cycle = await start([REBALANCE], { HYPE: "1000", USDC: "100" });
  const { killSwitchCancels } = await import("../../src/engine/killSwitch.js");
  const report = await cycle();
  const cancels = killSwitchCancels(report.snapshot.twaps, "stopped");
  expect(cancels).toEqual([expect.objectContaining({ kind: "twapCancel", twapId: 424242 })]);
});

it("status lists a waiting trigger TWAP with its condition", async () => {
  await start([REBALANCE], { HYPE: "1000", USDC: "100" });
  const config = join(bot!.dir, "status.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      baseUrl: proxy!.url,
      account: bot!.address,
      strategies: [join(bot!.dir, "strategy-0.yaml")],
      state: join(bot!.dir, "status-state"),
      limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
    }),
  );
  let out = "";
  const code = await main(["status", "--config", config], {
    stdout: (t) => {
      out += t;
    },
    stderr: () => undefined,
    env: {},
    isTTY: false,
  });
  expect(code).toBe(0);
  expect(out).toMatch(
    /Running TWAPs:\n {2}#424242 sell 800 HYPE\/USDC.* over 60 min: .*\[waiting for its trigger: mid below 20\]/,
  );
});
