// A simulation learns what the venue says as a live bot does: the deps of each cycle carry the TWAP
// minimum the venue stated when it refused an order. Built once, a simulation of the shipped default
// bot on a venue with the "$10 per minute" minimum refused its daily 150-USDC, 120-minute DCA 30 times
// in 30 days, where a live bot re-sizes it after the first refusal.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

describe("a venue minimum stated in a refusal", () => {
  it("shortens the next TWAPs within the same simulation, after one refusal", async () => {
    const scenario = readFileSync(DEMO_SCENARIO_PATH, "utf8");
    expect(scenario).toContain('twapMinValuePerMinute: "0"');
    const file = join(scratchDir("hlbot-learns-"), "scenario.yaml");
    writeFileSync(file, scenario.replace('twapMinValuePerMinute: "0"', 'twapMinValuePerMinute: "10"'));
    const config = await loadConfig(`${REPO_ROOT}/config/default.yaml`, {});
    const r = await runSimulation({ config, scenarioFile: file, days: 4 });
    const dca = r.record.cycles
      .flatMap((c) => c.decisions)
      .filter((d) => d.strategy === "purr-dca" && d.outcome !== undefined);
    expect(dca.map((d) => d.outcome)).toEqual(["rejected", "accepted", "accepted", "accepted"]);
    const placed = r.record.ledger.filter((e) => e.kind === "twapPlaced");
    expect(placed.length).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
