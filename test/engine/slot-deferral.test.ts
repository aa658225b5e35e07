// A slot stays due when nothing of the strategy went out and something of it waits (a daily-limit block:
// its room comes back as the window moves on), whatever its other decisions: a three-token rebalancer's
// "within band" for a second token settled its blocked sale's slot (a review of 2026-11-27). A strategy
// that throws while deciding counts as failing (back-off, health), and a slot it loses is missed, not
// "superseded while it waited".
import { afterEach, expect, it } from "vitest";
import { oncePass, runDueSlots, Scheduler } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function run(targets: Record<string, number>, fund: Record<string, string>) {
  const reb = {
    name: "reb",
    kind: "twap-rebalance",
    schedule: "0 8 * * 1",
    params: { targets, quote: "USDC", band: 0.05, twap: { minutes: 60, randomize: false }, minOrderUsd: 10 },
  };
  bot = await startTestBot({ mode: "live", strategies: [reb], fund, limits: { maxDailyNotionalUsd: 5 } });
  const b = bot;
  b.sim.setPrice("@107", "40");
  b.sim.setPrice("PURR/USDC", "0.2");
  const pass = async () => oncePass(b.runtime.cycleDeps(await b.runtime.facts()), b.runtime.strategies());
  await pass(); // first sight
  const week = 7 * 24 * 60 * 60_000;
  // next Monday 08:00 UTC (epoch was a Thursday)
  const mon = Math.ceil((b.sim.now() + 1 - 4 * 86400_000) / week) * week + 4 * 86400_000 + 8 * 3600_000;
  b.sim.advance(mon + 30_000 - b.sim.now());
  const r = await pass();
  return r.runs[0]!;
}

it("control: a HYPE/USDC rebalancer's sale blocked by the daily limit keeps its slot due", async () => {
  const r = await run({ HYPE: 0.4, USDC: 0.6 }, { HYPE: "60", USDC: "2600" });
  expect(r.report?.decisions.map((d) => d.decision.reason).join("\n")).toMatch(/maxDailyNotionalUsd/);
  expect(r.deferred).toEqual(["reb"]);
});

it("a HYPE/PURR/USDC rebalancer's sale blocked by the daily limit keeps its slot due", async () => {
  const r = await run({ HYPE: 0.4, PURR: 0.1, USDC: 0.5 }, { HYPE: "60", PURR: "2500", USDC: "2100" });
  const reasons = r.report?.decisions.map((d) => d.decision.reason).join("\n");
  expect(reasons).toMatch(/maxDailyNotionalUsd.*; the slot stays due/);
  expect(reasons).toMatch(/PURR is .*: within band/);
  expect(r.deferred).toEqual(["reb"]);
});

const DAY = 24 * 60 * 60_000;

it("a slot lost to a strategy that keeps throwing is a failure, not a deferral", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "dca",
        kind: "twap-accumulate",
        schedule: "0 8 * * *",
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
  const b = bot;
  const scheduler = new Scheduler({
    journal: b.runtime.journal,
    account: b.address,
    mode: "live",
    strategies: b.runtime.strategies(),
  });
  scheduler.register(b.sim.now());
  b.sim.advance(Math.ceil((b.sim.now() + 1) / DAY) * DAY + 8 * 3600_000 + 30_000 - b.sim.now());
  b.runtime.journal.budgetCandidates = () => {
    throw new Error("bug in the budget read");
  };
  const r = await runDueSlots(scheduler, b.runtime.cycleDeps(await b.runtime.facts()), { trigger: "run" });
  expect(r.runs[0]!.deferred).toEqual(["dca"]);
  // The daemon's /health and the strategy's health: a failing strategy should count as failing.
  const health = scheduler.health("dca")!;
  // Past the catch-up window: the slot is missed.
  b.sim.advance(3 * 3600_000);
  const plan = scheduler.plan(b.sim.now());
  expect(plan.missed).toHaveLength(1);
  expect({ failures: health.failures, whileDeferred: plan.missed[0]!.whileDeferred }).toEqual({
    failures: 1,
    whileDeferred: false,
  });
});
