// A guard's cancel lost to an exchange outage (HTTP 500 from the exchange while the price crosses a DCA's
// buy ceiling) was journaled "unknown" and counted as done: the watch dropped the TWAP and never sent the
// cancel again, so it bought above limitPx to its end once the venue answered (a trader's trial). An
// unanswered cancel now counts for UNANSWERED_CANCEL_WAIT_MS only.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";

describe("a guard's cancel lost to an exchange outage", () => {
  it.each([
    ["with expiresAfter (again once reconciled absent)", ""],
    ["without expiresAfter (again after a minute)", "venue: { expiresAfterMs: null }\n"],
  ])(
    "is retried once the exchange answers again, %s: the TWAP does not buy above the ceiling to its end",
    async (_, venue) => {
      const dir = scratchDir("hlbot-review-lostcancel-");
      const scenario = join(dir, "scenario.yaml");
      writeFileSync(
        scenario,
        `${readFileSync(DEMO_SCENARIO_PATH, "utf8").replace(
          '"@107": { start: "25.0", drift: 0.0, volatility: 0.8 }',
          '"@107": { start: "25.0", drift: 0.0, volatility: 0.0 }',
        )}
events:
  - { at: 9m, type: outage, for: 30m, endpoint: exchange }
  - { at: 10m, type: price, pair: "@107", change: 0.1 }
`,
      );
      mkdirSync(join(dir, "strategies"));
      writeFileSync(
        join(dir, "strategies", "dca.yaml"),
        `name: hype-dca
kind: twap-accumulate
schedule: "0 */2 * * *"
params:
  coin: HYPE
  side: buy
  amountUsd: 3000
  limitPx: 26
  twap: { minutes: 60, randomize: false }
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
${venue}`,
      );
      const config = await loadConfig(join(dir, "bot.yaml"), {});
      let twaps: { size: string; executed: string; status: string }[] = [];
      await runSimulation({
        config,
        scenarioFile: scenario,
        days: 0.25,
        onFinished: (sim, account) => {
          twaps = sim.twaps(account).map((t) => ({
            size: t.size.toFixed(),
            executed: t.executedSz.toFixed(),
            status: String(t.status),
          }));
        },
      });
      expect(twaps).toHaveLength(1);
      // 20 of 120 slices filled before the crossing; the exchange is back at 00:39, 21 minutes before the
      // TWAP's end: a retried cancel stops it well before all 120 HYPE are bought at 27.5 (ceiling 26).
      expect(Number(twaps[0]!.executed)).toBeLessThan(90);
    },
    120_000,
  );
});
