// A year-long trial: maxStaked lowered far below the stake (600 HYPE staked, cap 50) with
// maxStakeMovePerDay 60, so the excess leaves 30 HYPE a day through the venue's 5-place queue. README
// ("How validator-staking decides", maxStaked): the withdrawal takes "from the chosen validators by what
// each holds above its share of the stake that stays ... so no move follows to even them out, also when
// maxStakeMovePerDay spreads the withdrawal over days". While the queue is full, the run "goes on" and
// evens out the validators over the whole current stake (455 HYPE), not the 50 that stay: it moves stake
// from one validator to the other (using the day's stake-move budget, re-locking the receiver) only to
// withdraw it days later. Today: 2025-01-05 and 01-06, undelegate 30 from Hypurr Labs, delegate 30 to
// ValiDAO, while the account is still ~400 HYPE over its cap.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary, type SimulationSummary } from "../../src/simulate/summary.js";
import { scratchDir } from "../helpers/scratch.js";

let s: SimulationSummary;

beforeAll(async () => {
  const dir = scratchDir("hlbot-stakecut-");
  writeFileSync(
    join(dir, "stake-cut.yaml"),
    `name: hype-staking-cut
kind: validator-staking
schedule: "15 */6 * * *"
params:
  validators: 3
  statsPeriod: week
  maxCommission: 0.05
  minUptime: { period: week, fraction: 0.99 }
  maxStaked: 50
  rebalanceThreshold: 0.1
  stakeIdleSpot: { enabled: false }
`,
  );
  writeFileSync(
    join(dir, "bot.yaml"),
    `network: testnet
mode: dry-run
strategies:
  - ./stake-cut.yaml
limits:
  maxOrderUsd: 5000
  maxDailyNotionalUsd: 20000
  maxStakeMovePerDay: 60
log:
  level: warn
`,
  );
  const config = await loadConfig(join(dir, "bot.yaml"), {});
  const r = await runSimulation({ config, days: 10 });
  s = buildSummary(r.record);
}, 120_000);

it("delegates nothing while the stake is hundreds of HYPE above maxStaked, and says why", () => {
  const delegations = s.staking.changes.filter((c) => c.action === "delegate");
  // Every HYPE moved to another validator here is withdrawn days later anyway.
  expect(delegations.map((c) => `${c.at} ${c.amount} ${c.name}`)).toEqual([]);
  // The excess keeps leaving through the queue meanwhile.
  expect(Number(s.staking.withdrawals.initiated)).toBeGreaterThanOrEqual(150);
  expect(JSON.stringify(s.reasons)).toContain(
    "not evened out while the stake above maxStaked 50 waits to be withdrawn",
  );
});
