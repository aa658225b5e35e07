// journal.keepDays prunes what only tells the past: the bot must decide exactly as with the whole journal
// (budgets, limits, schedules), while its journal keeps only the last days of held cycles.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import type { Journal } from "../../src/engine/journal.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/dist.js";

const DAY = 86_400_000;

async function run(file: string) {
  let cycles: Array<{ startedAt: number }> = [];
  const config = await loadConfig(file, {});
  const { record } = await runSimulation({
    config,
    days: 30,
    onFinished: (_sim, _account, journal: Journal) => {
      cycles = journal.recentCycles(1_000_000);
    },
  });
  const { wallMs: _, ...summary } = buildSummary(record) as unknown as Record<string, unknown>;
  return { summary, cycles, end: record.end.at };
}

it("the demo decides the same for 30 days with keepDays: 7, and its journal keeps about 8 days of cycles", async () => {
  const demo = join(REPO_ROOT, "config/demo.yaml");
  // Beside the demo's file, so its relative strategy folder resolves the same.
  const kept = join(REPO_ROOT, "config/.journal-keep-days.test.yaml");
  writeFileSync(kept, `${readFileSync(demo, "utf8")}\njournal:\n  keepDays: 7\n`);
  try {
    const whole = await run(demo);
    const pruned = await run(kept);
    expect(pruned.summary).toEqual({ ...whole.summary, configFile: pruned.summary.configFile });
    // The demo's strategies run every hour at least: 30 days are more than 720 cycles.
    expect(whole.cycles.length).toBeGreaterThan(720);
    const old = pruned.cycles.filter((c) => c.startedAt < pruned.end - 8 * DAY);
    // What stays older than 7 days and an hour of pruning: cycles that sent something, and the first.
    expect(old.length).toBeLessThan(60);
    expect(pruned.cycles.length).toBeLessThan(whole.cycles.length / 2);
  } finally {
    rmSync(kept, { force: true });
  }
}, 60_000);
