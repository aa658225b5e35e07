// A rebalancer with capital on both tokens of its pair (as README advises to bound it on both sides) sees
// each capped at its capital: a trade that leaves both at or above their capital changes nothing it sees.
// A trader's trial: after a 20% fall it bought 500 USDC of HYPE every hour, 9,500 USDC in a day on a
// capital of 5,000, its purchases never seen; after a rise it sold 78% of the account's HYPE. Such a
// trade is not made now, and the reason says why.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";

async function setup(capital: string, move: "fall" | "rise") {
  const dir = scratchDir("hlbot-review-capital-");
  const scenario = join(dir, "scenario.yaml");
  writeFileSync(
    scenario,
    readFileSync(DEMO_SCENARIO_PATH, "utf8").replace(
      '"@107": { start: "25.0", drift: 0.0, volatility: 0.8 }',
      `"@107": { interpolate: linear, points: [{ at: 0s, px: "25" }, { at: 1h, px: "25" }, { at: 5h, px: "${move === "fall" ? "20" : "32"}" }, { at: 3d, px: "${move === "fall" ? "20" : "32"}" }] }`,
    ),
  );
  mkdirSync(join(dir, "strategies"));
  writeFileSync(
    join(dir, "strategies", "reb.yaml"),
    `name: hype-reb
kind: twap-rebalance
schedule: "0 * * * *"
capital: ${capital}
params:
  targets: { HYPE: 0.5, USDC: 0.5 }
  band: 0.05
  twap: { minutes: 30 }
  minOrderUsd: 100
`,
  );
  writeFileSync(
    join(dir, "bot.yaml"),
    `network: testnet
mode: dry-run
strategies: ./strategies
state: ./state
limits:
  maxOrderUsd: 10000
  maxDailyNotionalUsd: 100000
  maxStakeMovePerDay: 5000
log: { level: silent }
`,
  );
  return { config: await loadConfig(join(dir, "bot.yaml"), {}), scenario };
}

describe("a rebalancer with capital on both tokens", () => {
  it.each([
    ["fall", "USDC", "buy"],
    ["rise", "HYPE", "sell"],
  ] as const)(
    "after a %s, makes no trade it could not see: the account keeps its %s",
    async (move, _, side) => {
      const { config, scenario } = await setup("{ USDC: 5000, HYPE: 200 }", move);
      let end: { usdc: number; hype: number } | undefined;
      const result = await runSimulation({
        config,
        scenarioFile: scenario,
        days: 1,
        onFinished: (sim, account) => {
          end = {
            usdc: Number(sim.balance(account, "USDC").total.toFixed()),
            hype: Number(sim.balance(account, "HYPE").total.toFixed()),
          };
        },
      });
      // Started with 25,000 USDC and 1,200 HYPE; capital 5,000 USDC and 200 HYPE: both far above it.
      expect(end).toEqual({ usdc: 25000, hype: 1200 });
      const reasons = result.record.cycles.flatMap((c) => c.decisions.map((d) => d.reason)).join("\n");
      expect(reasons).toMatch(
        new RegExp(
          `${side} .*not sent: it would change nothing this strategy sees: its capital caps both tokens`,
        ),
      );
    },
    120_000,
  );
});

describe("a DCA with capital on both tokens", () => {
  it("buys its amount each run: only a rebalancer decides from what its capital shows (a review)", async () => {
    const { config, scenario } = await setup("{ USDC: 3000, HYPE: 500 }", "fall");
    const dca = join(config.file, "..", "strategies", "reb.yaml");
    writeFileSync(
      dca,
      `name: hype-dca
kind: twap-accumulate
schedule: "0 */6 * * *"
capital: { USDC: 3000, HYPE: 500 }
params:
  coin: HYPE
  side: buy
  amountUsd: 300
  budgetUsd: 1500
  twap: { minutes: 10, randomize: false }
`,
    );
    const result = await runSimulation({
      config: await loadConfig(config.file, {}),
      scenarioFile: scenario,
      days: 1,
    });
    const accepted = result.record.cycles.flatMap((c) => c.decisions).filter((d) => d.outcome === "accepted");
    expect(accepted.length).toBe(4);
  }, 120_000);
});
