// A budget counts what was spent valued when it was spent. A DCA paid in HYPE (FOO/HYPE) had its ended
// TWAPs re-valued at each cycle's HYPE price: as HYPE fell from 25 to 15, what it had spent "shrank" in USD
// and the DCA bought again, about 12,600 USD against a 9,000 budget, its reason still saying "budget used
// up (7683.26 of 9000 USD)" (a trader's trial). maxDailyNotionalUsd counted the same way.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { demoWithFooHype } from "../helpers/scenario.js";
import { scratchDir } from "../helpers/scratch.js";

const START = Date.parse("2025-01-01T00:00:00Z");
const DAY = 86_400_000;
/** HYPE/USDC in the scenario: linear through these (day, price) points. */
const HYPE: Array<[number, number]> = [
  [0, 25],
  [1, 24],
  [2, 20],
  [3, 17],
  [4, 15],
];
function hypeUsdAt(t: number): number {
  const d = (t - START) / DAY;
  for (let i = 1; i < HYPE.length; i++) {
    const [d0, p0] = HYPE[i - 1]!;
    const [d1, p1] = HYPE[i]!;
    if (d <= d1) return p0 + ((p1 - p0) * (d - d0)) / (d1 - d0);
  }
  return HYPE[HYPE.length - 1]![1];
}

/** The demo scenario with FOO/HYPE flat at 2 and HYPE falling from 25 to 15 over 4 days, in `dir`. */
function scenario(dir: string): string {
  const file = join(dir, "scenario.yaml");
  writeFileSync(file, demoWithFooHype({ hype: HYPE }));
  return file;
}

describe("a DCA's budget in a pair quoted in HYPE", () => {
  it("counts each TWAP at the quote's USD price when it was placed, not today's", async () => {
    const dir = scratchDir("hlbot-budget-quote-");
    writeFileSync(
      join(dir, "dca.yaml"),
      'name: foo-dca\nkind: twap-accumulate\nschedule: "0 */8 * * *"\nparams:\n  coin: FOO\n  quote: HYPE\n  side: buy\n  amountUsd: 3000\n  budgetUsd: 9000\n  twap: { minutes: 30, randomize: false }\n',
    );
    writeFileSync(
      join(dir, "bot.yaml"),
      "network: testnet\nstrategies: [./dca.yaml]\nstate: ./state\nlimits:\n  maxOrderUsd: 30000\n  maxDailyNotionalUsd: 100000\n  maxStakeMovePerDay: 2000\n",
    );
    const config = await loadConfig(join(dir, "bot.yaml"), {});
    const { record } = await runSimulation({ config, scenarioFile: scenario(dir), days: 4 });
    let spentUsd = 0;
    for (const e of record.ledger) {
      if (e.kind === "twapSlice" && e.data.coin === "@200")
        spentUsd += Number(e.data.ntl) * hypeUsdAt(e.time);
    }
    // The last run is sized to what is left (a few % under it): close to 9,000, never past it.
    expect(spentUsd).toBeGreaterThan(8_000);
    expect(spentUsd).toBeLessThanOrEqual(9_000);
    const last = record.cycles
      .flatMap((c) => c.decisions)
      .filter((d) => d.strategy === "foo-dca")
      .at(-1);
    expect(last?.reason).toMatch(/budget/);
  }, 120_000);
});
