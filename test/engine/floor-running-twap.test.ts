// limits.keepOnSpot is a "spot balance per token the strategies never take the account below". A TWAP
// sized above the floor when decided kept spending after a withdrawal left the account near it: a
// trader's trial ended 32 USDC above nothing under a floor of 5,000. The watch now sets what this bot's
// running TWAPs may still spend of a floored token against the account's total, and cancels them when the
// rest would fall under the floor.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";

const DEMO = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

describe("a running DCA TWAP after a withdrawal", () => {
  it.each([
    ["", "17000", /the account holds 6666\.59\d* USDC/],
    ["capital: { USDC: 3000 }\n", "18000", /the account holds 65\d\d\.\d+ USDC/],
  ])(
    "is cancelled before it takes the quote below limits.keepOnSpot %s",
    async (capital, withdrawn, held) => {
      const dir = scratchDir("hlbot-review-floor-");
      const scenario = join(dir, "scenario.yaml");
      writeFileSync(
        scenario,
        readFileSync(DEMO_SCENARIO_PATH, "utf8").replace(
          '"@107": { start: "25.0", drift: 0.0, volatility: 0.8 }',
          '"@107": { start: "25.0", drift: 0.0, volatility: 0.0 }',
        ) +
          `\nevents:\n  - { at: 20m, type: withdrawal, account: "${DEMO}", coin: USDC, amount: "${withdrawn}" }\n`,
      );
      mkdirSync(join(dir, "strategies"));
      writeFileSync(
        join(dir, "strategies", "dca.yaml"),
        `name: hype-dca
kind: twap-accumulate
schedule: "0 */4 * * *"
${capital}params:
  coin: HYPE
  side: buy
  amountUsd: 8000
  twap: { minutes: 120, randomize: false }
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
  maxDailyNotionalUsd: 50000
  maxStakeMovePerDay: 2000
  keepOnSpot: { USDC: 5000 }
log: { level: silent }
`,
      );
      const config = await loadConfig(join(dir, "bot.yaml"), {});
      let usdc: string | undefined;
      let twaps: Array<{ executed: string; status: string }> = [];
      const result = await runSimulation({
        config,
        scenarioFile: scenario,
        days: 0.25,
        onFinished: (sim, account) => {
          usdc = sim.balance(account, "USDC").total.toFixed();
          twaps = sim
            .twaps(account)
            .map((t) => ({ executed: t.executedSz.toFixed(), status: String(t.status) }));
        },
      });
      // After the withdrawal ~6,670 USDC are left, above the 5,000 floor, and the TWAP had 100 of its 120
      // minutes (about 6,670 USDC) to go: it is cancelled, and the account keeps its floor.
      expect(Number(usdc)).toBeGreaterThanOrEqual(5000);
      // The next run (04:00) buys only what is above the floor.
      expect(twaps.map((t) => t.status)).toEqual(["terminated", "finished"]);
      // The account's total, not the strategy's capital (a review: "the account holds 3000 USDC").
      const cancel = result.record.cycles.flatMap((c) => c.decisions).find((d) => d.kind === "twapCancel");
      expect(cancel?.reason).toMatch(held);
    },
    120_000,
  );
});
