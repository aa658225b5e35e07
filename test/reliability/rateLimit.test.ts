// Promise 6, "rate limits respected": a day of simulated operation, in virtual time, of every strategy
// kind on its cron schedule (one cycle per strategy run, as the daemon does) plus regular `hlbot status`
// reads, against the simulator with its per-IP rate limiter on (1200 weight per minute, refilled with
// the virtual clock) and no fault injected. Every request's weight is recorded at the venue: the
// busiest 60-second window must stay under the budget and the venue must never answer 429. A stress
// variant runs every strategy and a status read every minute.
//
// The client's own weight budget is off here (it follows the wall clock, and time is virtual): what is
// measured is the load the bot's schedule itself puts on the venue.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { collectStatus } from "../../src/cli/status.js";
import { runCycle } from "../../src/engine/cycle.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { HlbotError } from "../../src/lib/errors.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const FULL = process.env.HLBOT_SOAK === "1";
const BUDGET = 1200;
const MINUTE = 60_000;

/** The shipped example strategies, read from strategies/*.yaml as they are, with the link strategy switched on. */
const STRATEGIES_DIR = join(import.meta.dirname, "../../strategies");
const SHIPPED = readdirSync(STRATEGIES_DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map(
    (f) =>
      parse(readFileSync(join(STRATEGIES_DIR, f), "utf8")) as {
        name: string;
        kind: string;
        enabled?: boolean;
      },
  )
  .map((s) => (s.kind === "link-staking" ? { ...s, enabled: true } : s));

interface Load {
  requests: number;
  weight: number;
  peakWindowWeight: number;
  peakWindowAt: string;
  rateLimited: number;
  cycles: number;
  failedCycles: number;
  statusCalls: number;
  actions: Record<string, number>;
  virtualHours: number;
  wallSeconds: number;
}

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

/** Runs `hours` of virtual time: each strategy at its cron ticks, a status read every `statusEveryMs`. */
async function operate(
  b: TestBot,
  hours: number,
  statusEveryMs: number,
  strategyOverrides: Record<string, string> = {},
): Promise<Load> {
  const wallStart = Date.now();
  const { sim, runtime } = b;
  // Record the weight of every request where the venue counts it.
  const spent: Array<{ at: number; weight: number }> = [];
  let rateLimited = 0;
  const limiter = sim.core.rateLimiter;
  const take = limiter.take.bind(limiter);
  const charge = limiter.charge.bind(limiter);
  limiter.take = (key, weight, now) => {
    const ok = take(key, weight, now);
    if (ok) spent.push({ at: now, weight });
    else rateLimited++;
    return ok;
  };
  limiter.charge = (key, weight, now) => {
    spent.push({ at: now, weight });
    charge(key, weight, now);
  };

  const strategies = runtime.strategies();
  const schedules = new Map(
    strategies.map((s) => {
      const file = runtime.config.strategies.find((f) => f.name === s.name)!;
      return [s.name, new CronSchedule(strategyOverrides[s.name] ?? file.schedule)];
    }),
  );
  const start = sim.now();
  const end = start + hours * 60 * MINUTE;
  const next = new Map(
    [...schedules].map(([name, cron]) => [name, cron.next(start) ?? Number.POSITIVE_INFINITY]),
  );
  let nextStatus = start + statusEveryMs;
  let cycles = 0;
  let failedCycles = 0;
  let statusCalls = 0;
  const actions: Record<string, number> = {};
  const facts = await runtime.facts();
  for (;;) {
    const due = Math.min(nextStatus, ...next.values());
    if (due > end) break;
    sim.advanceTo(due);
    // Due strategies run one after another, each in its own cycle, as the daemon runs them.
    for (const s of strategies) {
      if (next.get(s.name) !== due) continue;
      cycles++;
      try {
        const report = await runCycle(runtime.cycleDeps(facts), { trigger: "run", strategies: [s] });
        for (const a of report.actions)
          actions[`${a.action} ${a.outcome}`] = (actions[`${a.action} ${a.outcome}`] ?? 0) + 1;
      } catch (err) {
        if (!(err instanceof HlbotError)) throw err;
        failedCycles++;
      }
      next.set(s.name, schedules.get(s.name)!.next(due) ?? Number.POSITIVE_INFINITY);
    }
    if (nextStatus === due) {
      statusCalls++;
      await collectStatus(runtime.info, runtime.account, sim.now(), "testnet");
      nextStatus += statusEveryMs;
    }
  }

  // The busiest sliding 60-second window of weight.
  let peak = 0;
  let peakAt = start;
  let sum = 0;
  let from = 0;
  for (let i = 0; i < spent.length; i++) {
    sum += spent[i]!.weight;
    while (spent[i]!.at - spent[from]!.at >= MINUTE) sum -= spent[from++]!.weight;
    if (sum > peak) {
      peak = sum;
      peakAt = spent[i]!.at;
    }
  }
  return {
    requests: spent.length,
    weight: spent.reduce((a, s) => a + s.weight, 0),
    peakWindowWeight: peak,
    peakWindowAt: new Date(peakAt).toISOString(),
    rateLimited,
    cycles,
    failedCycles,
    statusCalls,
    actions,
    virtualHours: hours,
    wallSeconds: Number(((Date.now() - wallStart) / 1000).toFixed(1)),
  };
}

function report(name: string, load: Load): void {
  console.log(`rate-limit figures ${name} ${JSON.stringify(load)}`);
  if (process.env.HLBOT_RELIABILITY_OUT) {
    mkdirSync(process.env.HLBOT_RELIABILITY_OUT, { recursive: true });
    writeFileSync(
      join(process.env.HLBOT_RELIABILITY_OUT, `rate-limit-${name}.json`),
      `${JSON.stringify(load, null, 2)}\n`,
    );
  }
}

describe("rate limits respected in virtual time, no fault injected", () => {
  it("a day of the shipped strategies on their schedules plus a status read every 5 minutes: no 429, peak under 1200/min", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: SHIPPED,
      fund: { HYPE: "1500", USDC: "40000" },
      sim: { rateLimit: { capacity: BUDGET, windowMs: MINUTE } },
      limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 10000 },
    });
    const load = await operate(bot, 24, 5 * MINUTE);
    report("day", load);
    expect(load.rateLimited).toBe(0);
    expect(load.peakWindowWeight).toBeLessThan(BUDGET);
    expect(load.failedCycles).toBe(0);
    expect(load.cycles).toBeGreaterThanOrEqual(24 + 1 + 4 + 1);
    expect(load.statusCalls).toBe(24 * 12);
    expect(Object.keys(load.actions).length).toBeGreaterThan(0);
  }, 120_000);

  it("stress: every strategy every minute and a status read every minute: still no 429", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: SHIPPED,
      fund: { HYPE: "1500", USDC: "40000" },
      sim: { rateLimit: { capacity: BUDGET, windowMs: MINUTE } },
      limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 10000 },
    });
    const everyMinute = Object.fromEntries(SHIPPED.map((s) => [s.name, "* * * * *"]));
    const load = await operate(bot, FULL ? 12 : 3, MINUTE, everyMinute);
    report("stress", load);
    expect(load.rateLimited).toBe(0);
    expect(load.peakWindowWeight).toBeLessThan(BUDGET);
    expect(load.failedCycles).toBe(0);
  }, 600_000);
});
