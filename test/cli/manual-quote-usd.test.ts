// A manual TWAP on a pair quoted in a token that is not a dollar is valued in USD, as a strategy's order is:
// `hlbot twap buy --asset 10200` (FOO/HYPE) was refused "priced in HYPE, which has no USD price" though
// HYPE/USDC has a mid, and its notional was journaled in HYPE (a review). The CLI in-process against the
// embedded simulator (real clock) on 127.0.0.1.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { stringify } from "yaml";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { parseScenarioYaml } from "../../src/simulator/scenario.js";
import { runCli } from "../helpers/cli.js";
import { demoWithFooHype } from "../helpers/scenario.js";
import { scratchDir } from "../helpers/scratch.js";

let sim: Simulator & { url: string };
const wallet = Wallet.createRandom();
const address = wallet.address.toLowerCase();
let config: string;

beforeAll(async () => {
  // FOO at 2 HYPE, HYPE at 25 USD: a FOO is worth 50 USD.
  sim = await startSimulator({
    clock: "real",
    rateLimit: false,
    scenario: parseScenarioYaml(
      demoWithFooHype({
        hype: [
          [0, 25],
          [30, 25],
        ],
      }),
    ),
  });
  sim.fund(address, "HYPE", "1000");
  const dir = scratchDir("hlbot-manual-quote-");
  writeFileSync(
    join(dir, "off.yaml"),
    stringify({
      name: "off",
      kind: "link-staking",
      schedule: "0 0 * * *",
      enabled: false,
      params: { counterparty: "0x3333333333333333333333333333333333333333" },
    }),
  );
  config = join(dir, "bot.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      baseUrl: sim.url,
      mode: "live",
      strategies: ["off.yaml"],
      state: "./state",
      limits: { maxOrderUsd: 4000, maxDailyNotionalUsd: 100000, maxStakeMovePerDay: 1000 },
    }),
  );
});
afterAll(async () => {
  await sim.stop();
});

it("values it at the quote's USD price against the limits", async () => {
  const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
  const twap = (size: string) =>
    runCli(
      ["twap", "buy", "--asset", "10200", "--size", size, "--minutes", "30", "--live", "--config", config],
      { env },
    );
  // 60 FOO = 120 HYPE ≈ 3,000 USD: within maxOrderUsd 4,000.
  const small = await twap("60");
  expect(small.code, small.stderr).toBe(0);
  expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
  // 100 FOO = 200 HYPE ≈ 5,000 USD: above it, said in USD.
  const large = await twap("100");
  expect(large.code).not.toBe(0);
  expect(`${large.stdout}${large.stderr}`).toMatch(/maxOrderUsd/);
  expect(`${large.stdout}${large.stderr}`).not.toMatch(/no USD price/);
  expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
}, 60_000);
