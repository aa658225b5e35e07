// A cron user's trial, cases that held (kept as guards): a removed strategy's running TWAP stays
// guarded under `once`; after 3 days off each strategy catches up at most once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { openRuntime } from "../../src/engine/runtime.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { silentLogger } from "../../src/lib/log.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});
async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {
    ...(b.runtime.config.schedule ? { catchUpMs: b.runtime.config.schedule.catchUpMs } : {}),
  });
}
const twaps = (b: TestBot) => b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);

describe("cron user, good behaviour", () => {
  it("after 3 days off, an hourly DCA buys once, not 72 times", async () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "0 * * * *",
      params: {
        coin: "HYPE",
        quote: "USDC",
        side: "buy",
        amountUsd: 250,
        twap: { minutes: 30, randomize: false },
      },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "50000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(dca.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    await once(bot);
    bot.sim.advanceTo(slot + 72 * HOUR + 20 * MINUTE);
    const back = await once(bot);
    expect(twaps(bot)).toHaveLength(2);
    expect(back.plan.missed.find((m) => m.strategy === "dca")?.count ?? 0).toBeGreaterThan(60);
  });

  it("a rebalancer removed from the config while its TWAP runs keeps its maxDeviation guard under once", async () => {
    const rebalance = {
      name: "rebalance",
      kind: "twap-rebalance",
      schedule: "0 */4 * * *",
      params: {
        targets: { HYPE: 0.5, USDC: 0.5 },
        quote: "USDC",
        band: 0.05,
        twap: { minutes: 120, randomize: false, maxDeviation: 0.05 },
        minOrderUsd: 10,
      },
    };
    const other = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "30 8 * * *",
      params: {
        coin: "PURR",
        quote: "USDC",
        side: "buy",
        amountUsd: 150,
        twap: { minutes: 30, randomize: false },
      },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [rebalance, other],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    await once(bot);
    const slot = new CronSchedule(rebalance.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    await once(bot);
    expect(twaps(bot)).toHaveLength(1);
    // The user removes the rebalancer from the bot file (only the DCA is left) between two cron runs.
    const cfgFile = join(bot.dir, "bot.yaml");
    const { readFileSync } = await import("node:fs");
    const { parse } = await import("yaml");
    const cfg = parse(readFileSync(cfgFile, "utf8"));
    cfg.strategies = [join(bot.dir, "strategy-1.yaml")];
    writeFileSync(cfgFile, stringify(cfg));
    const env = { TEST_BOT_KEY: bot.key };
    const config = await loadConfig(cfgFile, env);
    expect(config.strategies.map((s) => s.name)).toEqual(["dca"]);
    const sim = bot.sim;
    const rt = await openRuntime({
      config,
      env,
      mode: "live",
      logger: silentLogger(),
      clock: () => sim.now(),
      budget: null,
    });
    bot.sim.advanceTo(slot + 5 * MINUTE);
    bot.sim.setPrice("@107", "34");
    bot.sim.advanceTo(slot + 15 * MINUTE);
    let p: Awaited<ReturnType<typeof oncePass>>;
    try {
      p = await oncePass(rt.cycleDeps(await rt.facts()), scheduledStrategies(rt.config.strategies), {});
    } finally {
      await rt.close();
    }
    expect(p.watch.report?.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
  });
});
