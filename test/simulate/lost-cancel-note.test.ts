// An accountant's trial: when the answer to a guard's cancel was lost and a later cycle found the cancel
// landed, the TWAP showed "terminated" with no reason, where every other cancelled TWAP says why
// ("cancelled: mid moved 1.01% against the buy …"). The cancel's TWAP is now known from its decision.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";

it("a TWAP cancelled by a guard whose cancel's answer was lost says why it was cancelled", async () => {
  const dir = scratchDir("hlbot-lost-cancel-");
  const scenario = join(dir, "scenario.yaml");
  // Every exchange answer of the first day is lost (the requests take effect).
  writeFileSync(
    scenario,
    `${readFileSync(DEMO_SCENARIO_PATH, "utf8")}\nevents:\n  - { at: 0s, type: outage, for: 1d, endpoint: exchange, faults: { dropRate: 1 } }\n`,
  );
  mkdirSync(join(dir, "strategies"));
  writeFileSync(
    join(dir, "strategies", "dca.yaml"),
    `name: hype-dca
kind: twap-accumulate
schedule: "30 */6 * * *"
params:
  coin: HYPE
  side: buy
  amountUsd: 300
  twap: { minutes: 60, randomize: false, maxDeviation: 0.01 }
`,
  );
  writeFileSync(
    join(dir, "bot.yaml"),
    `network: testnet
mode: dry-run
strategies: ./strategies
state: ./state
limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 2000 }
log: { level: silent }
`,
  );
  const config = await loadConfig(join(dir, "bot.yaml"), {});
  const result = await runSimulation({ config, scenarioFile: scenario, days: 1 });
  const s = buildSummary(result.record);
  const lostCancels = s.unknowns.submissions.filter(
    (u) => u.action === "twapCancel" && u.status === "landed",
  );
  expect(lostCancels.length).toBeGreaterThan(0);
  const terminated = s.twaps.filter((t) => t.status === "terminated");
  expect(terminated.length).toBeGreaterThanOrEqual(lostCancels.length);
  for (const t of terminated)
    expect({ twap: t.twapId, note: t.note }).toEqual({
      twap: t.twapId,
      note: expect.stringMatching(/^cancelled: mid [\d.]+ moved [\d.]+% against the buy/),
    });
}, 60_000);
