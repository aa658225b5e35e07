// A limit tester's trial: a DCA written `coin: "@107"` (the pair's venue name, which the schema allows)
// was matched nowhere the rules compare a TWAP with a strategy's market by its base token: its running
// sale had no watch and sold through its limitPx (HYPE falling 25 → 18: 255 HYPE sold under the floor
// where `coin: HYPE` was cancelled at 19.5), and on a fresh state folder its budget skipped the TWAPs the
// journal does not have. The same strategy written either way now decides the same.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { demoWithHypeSteps } from "../helpers/scenario.js";
import { scratchDir } from "../helpers/scratch.js";

// HYPE/USDC stepping down through 20 while a 470-minute sale runs, then back.
const STEPS = demoWithHypeSteps([
  ["0s", "25"],
  ["90m", "22"],
  ["150m", "20.5"],
  ["210m", "19.5"],
  ["270m", "18"],
  ["6h", "25"],
]);

async function sell(coin: string) {
  const dir = scratchDir("hlbot-market-name-");
  const scenario = join(dir, "scenario.yaml");
  writeFileSync(scenario, STEPS);
  const strategy = join(dir, "dca.yaml");
  writeFileSync(
    strategy,
    stringify({
      name: "dca-sell",
      kind: "twap-accumulate",
      schedule: "0 */8 * * *",
      params: { coin, side: "sell", amountUsd: 20000, limitPx: 20, twap: { minutes: 470, randomize: false } },
    }),
  );
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    stringify({
      network: "testnet",
      mode: "dry-run",
      strategies: [strategy],
      limits: { maxOrderUsd: 20000, maxDailyNotionalUsd: 100000, maxStakeMovePerDay: 3000 },
      log: { level: "silent" },
    }),
  );
  const { record } = await runSimulation({
    config: await loadConfig(bot, {}),
    scenarioFile: scenario,
    days: 0.25,
  });
  return buildSummary(record).twaps.filter((t) => t.strategy === "dca-sell");
}

it("a DCA naming its market by the pair's name is cancelled at its limitPx like one naming the token", async () => {
  const [byToken, byPair] = [await sell("HYPE"), await sell("@107")];
  for (const twaps of [byToken, byPair]) {
    expect(twaps).toHaveLength(1);
    expect(twaps[0]?.status).toBe("terminated");
    expect(twaps[0]?.note ?? "").toMatch(/mid 19\.5 fell below the sell floor limitPx 20/);
  }
  expect(byPair[0]?.executedSize).toBe(byToken[0]?.executedSize);
}, 60_000);
