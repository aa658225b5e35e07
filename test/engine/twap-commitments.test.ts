// What running TWAPs may still take is kept out of new orders, whether or not the venue holds it. The
// venue's docs do not say that a spot TWAP puts its remaining size on hold (the simulator did, so every
// simulation showed a tidy allocation); on a venue that holds nothing, hlbot sized a second DCA from USDC
// the first one's TWAP still needed: both ended partly unfilled, hundreds of slices skipped, and two
// TWAPs together could spend through a keepOnSpot floor (a review of the simulations).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";

/** Two 240-minute DCAs buying 20,000 USD each, an hour apart, from the demo account's 25,000 USDC. */
async function twoDcas(o: { holds: boolean; keepUsdc?: number }) {
  const dir = scratchDir("hlbot-commitments-");
  const strategy = (name: string, coin: string, schedule: string) => {
    const file = join(dir, `${name}.yaml`);
    const params = { coin, side: "buy", amountUsd: 20_000, twap: { minutes: 240, randomize: false } };
    writeFileSync(file, stringify({ name, kind: "twap-accumulate", schedule, params }));
    return file;
  };
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    stringify({
      network: "testnet",
      strategies: [strategy("a-hype", "HYPE", "0 0 * * *"), strategy("b-ubtc", "UBTC", "0 1 * * *")],
      state: "./state",
      limits: {
        maxOrderUsd: 50_000,
        maxDailyNotionalUsd: 100_000,
        maxStakeMovePerDay: 2000,
        ...(o.keepUsdc === undefined ? {} : { keepOnSpot: { USDC: o.keepUsdc } }),
      },
    }),
  );
  const scenario = join(dir, "scenario.yaml");
  const text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  writeFileSync(scenario, text.replace("settings:\n", `settings:\n  twapHolds: ${o.holds}\n`));
  const { record } = await runSimulation({
    config: await loadConfig(bot, {}),
    scenarioFile: scenario,
    days: 1,
  });
  const skipped = record.ledger.filter(
    (e) => e.kind === "twapSliceSkipped" && e.data.reason === "insufficient balance",
  ).length;
  const placed = record.ledger.filter((e) => e.kind === "twapPlaced");
  return { record, skipped, placed };
}

describe("running TWAPs' commitments", () => {
  it("keep a second DCA to what the first TWAP does not still need, on a venue that holds nothing", async () => {
    const held = await twoDcas({ holds: true });
    const unheld = await twoDcas({ holds: false });
    expect(held.skipped).toBe(0);
    expect(unheld.skipped).toBe(0);
    // The same two orders either way: the second sized to the USDC the first one leaves.
    expect(unheld.placed.map((e) => e.data.sz)).toEqual(held.placed.map((e) => e.data.sz));
    expect(unheld.placed).toHaveLength(2);
  }, 120_000);

  it("keep two TWAPs together above a keepOnSpot floor", async () => {
    const { record, skipped } = await twoDcas({ holds: false, keepUsdc: 5_000 });
    expect(skipped).toBe(0);
    // The demo account starts with 25,000 USDC: what the slices paid (with fees taken in USDC) stays
    // within the 20,000 above the floor.
    let paid = 0;
    for (const e of record.ledger) {
      if (e.kind !== "twapSlice" || e.data.side !== "B") continue;
      paid += Number(e.data.ntl) + (e.data.feeToken === "USDC" ? Number(e.data.fee) : 0);
    }
    expect(paid).toBeGreaterThan(15_000);
    expect(paid).toBeLessThanOrEqual(20_000);
  }, 120_000);
});
