// A review: a TWAP running at the start of a simulation (a fork carries the account's, a scenario's
// `twaps:`) was not in the run's new journal, so a budgeted DCA on its pair and side held for the whole
// run ("the venue shows 1 TWAP(s) … this state folder's journal does not have … hlbot journal rebuild"),
// long after it ended. Such TWAPs are written to the journal as a rebuild would: the DCA waits while one
// runs, counts it in its budget, then buys.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/dist.js";

it("a budgeted DCA trades in a fork once the carried TWAP on its pair has ended", async () => {
  const config = await loadConfig(join(REPO_ROOT, "config/demo.yaml"), {});
  const dca = config.strategies.filter((s) => s.name === "hype-dca"); // budgetUsd: 1500, buys HYPE
  const base = parse(readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8"));
  const withTwap = {
    ...base,
    // a 60-minute HYPE buy placed 1 minute before the fork
    twaps: [
      {
        user: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        pair: "@107",
        side: "buy",
        size: "20",
        minutes: 60,
        startedAgo: "1m",
        id: 1000,
      },
    ],
  };
  const dcaTwaps = async (scenario: unknown) => {
    const r = await runSimulation({
      config: { ...config, strategies: dca },
      scenario: scenario as never,
      scenarioFile: "fork",
      days: 3,
    });
    const s = buildSummary(r.record);
    return {
      placed: s.twaps.filter((t) => t.strategy === "hype-dca").length,
      skips: s.skipped
        .filter((k) => k.strategy === "hype-dca")
        .map((k) => `${k.count}x ${k.reason.slice(0, 80)}`),
    };
  };
  const without = await dcaTwaps(base);
  expect(without.placed).toBeGreaterThan(0); // without a carried TWAP: it buys
  const carried = await dcaTwaps(withTwap);
  // It waited for the carried TWAP, not for a rebuild; and counted it in its budget, as a live bot's
  // rebuilt journal does (a second fork trial: the fork's DCA spent its whole budget again).
  expect(carried.skips.join("\n")).not.toMatch(/journal does not have/);
  expect(carried.skips.join("\n")).toMatch(/a TWAP #1000 of hype-dca is already running on HYPE\/USDC/);
  expect(carried.placed).toBeGreaterThan(0);
  expect(carried.placed).toBeLessThan(without.placed);
  expect(carried.skips.join("\n")).toMatch(/budget used up/);
}, 120_000);
