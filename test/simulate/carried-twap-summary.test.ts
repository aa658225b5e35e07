// A review: a TWAP carried into a fork (the bot did not place it; buy and hold runs it too) was in the
// bot's fees, execution costs and trades, and the breakdown of bot − buy and hold charged its costs to
// the bot, then gave them back as "timing and other". It is listed, marked, and kept out of those.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/dist.js";

it("a carried TWAP is listed but kept out of the bot's fees, costs, trades and breakdown", async () => {
  const config = await loadConfig(join(REPO_ROOT, "config/demo.yaml"), {});
  const scenario = {
    ...parse(readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8")),
    twaps: [
      {
        user: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        pair: "@107",
        side: "buy",
        size: "20",
        minutes: 60,
        startedAgo: "10m",
        executedSz: "3",
        executedNtl: "75",
        id: 1000,
      },
    ],
  };
  const r = await runSimulation({
    config: { ...config, strategies: [] },
    scenario: scenario as never,
    scenarioFile: "fork",
    days: 1,
  });
  const s = buildSummary(r.record);
  const t = s.twaps.find((x) => x.twapId === 1000)!;
  expect(t.note).toMatch(/^running at the start \(carried from the forked account\)/);
  expect(t.strategy).toBeNull();
  expect(t.carried).toBe(true);
  expect(s.twaps.filter((x) => x.carried !== true)).toEqual([]);
  // It filled what was left: 17 HYPE, with a fee, on the venue.
  expect(Number(t.executedSize)).toBeCloseTo(17, 6);
  expect(Number(t.fee)).toBeGreaterThan(0);
  // None of it is the bot's.
  expect(s.trades).toEqual([]);
  expect(s.fees.value).toBe("0");
  expect(s.execution.notional).toBe("0");
  expect(s.benchmark.breakdown.fees).toBe("0");
  expect(s.benchmark.breakdown.spreadAndImpact).toBe("0");
  // Buy and hold ran it too: with no strategy, the bot is buy and hold.
  expect(s.benchmark.botMinusBenchmark).toBe("0");
}, 60_000);
