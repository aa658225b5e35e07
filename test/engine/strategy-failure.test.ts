// A strategy that throws while deciding fails its run: said, its slot stays due and is retried within
// schedule.catchUp (a daily DCA does not lose that day's buy to one error), and `once` counts it as a
// failure; a state database that can no longer be read fails the whole cycle, as every other read of
// it does (review of 2026-11-27: both were a plain skip, the slot settled as acted, exit 0). The
// journal's budget read is made to fail; the cycle and scheduler are the real ones, on the simulator.
import { afterEach, describe, expect, it } from "vitest";
import { oncePass } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const DAY = 24 * 60 * 60_000;

async function dueDca(): Promise<TestBot> {
  const b = await startTestBot({
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
  // First sight of the strategy, then 08:00:30 of the next day: the slot is due.
  await oncePass(b.runtime.cycleDeps(await b.runtime.facts()), b.runtime.strategies());
  const next8 = Math.ceil((b.sim.now() + 1) / DAY) * DAY + 8 * 60 * 60_000 + 30_000;
  b.sim.advance(next8 - b.sim.now());
  return b;
}

async function passWithFailingBudgetRead(b: TestBot, err: Error) {
  const journal = b.runtime.journal;
  const original = journal.budgetCandidates.bind(journal);
  journal.budgetCandidates = () => {
    throw err;
  };
  try {
    return await oncePass(b.runtime.cycleDeps(await b.runtime.facts()), b.runtime.strategies());
  } finally {
    journal.budgetCandidates = original;
  }
}

async function retryAfter(b: TestBot, ms: number) {
  b.sim.advance(ms);
  await oncePass(b.runtime.cycleDeps(await b.runtime.facts()), b.runtime.strategies());
  return b.sim.ledger({ kind: "twapPlaced", user: b.address }).length;
}

describe("a strategy that throws while deciding", () => {
  it("fails its run, said and counted; the slot stays due and the buy goes out at the retry", async () => {
    bot = await dueDca();
    const pass = await passWithFailingBudgetRead(bot, new Error("read failed"));
    const run = pass.runs[0]!;
    const failed = run.report!.decisions.filter((d) => d.decision.kind === "skip" && d.decision.failed);
    expect(failed.map((d) => d.decision.reason)).toEqual(["strategy failed: read failed"]);
    expect(run.acted).toEqual([]);
    expect(run.deferred).toEqual(["dca"]);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
    // The retry comes after the scheduler's back-off, within the catch-up window.
    expect(await retryAfter(bot, 10 * 60_000)).toBe(1);
  });

  it("fails the cycle when the state database is broken; the slot stays due", async () => {
    bot = await dueDca();
    const corrupt = Object.assign(new Error("database disk image is malformed"), {
      name: "SqliteError",
      code: "SQLITE_CORRUPT",
    });
    const pass = await passWithFailingBudgetRead(bot, corrupt);
    expect(pass.runs[0]!.report).toBeUndefined();
    expect(pass.runs[0]!.error).toMatch(/malformed/);
    expect(await retryAfter(bot, 60_000)).toBe(1);
  });
});
