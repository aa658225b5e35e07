// A strategy's runs are counted beside the slots they were for: a run retried while deferred (behind its
// own TWAP still running) is another run of the same slot. A newcomer read "16 runs" of a daily DCA in a
// day and a half as 16 chances to buy.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { Decimal } from "../../src/lib/decimal.js";
import { formatSummary } from "../../src/simulate/format.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

describe("simulate: runs and slots", () => {
  it("a DCA whose TWAP outlasts its period retries its next slot: N runs in M slots", async () => {
    const demo = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    // hype-dca runs at 00:30 and 12:30; a 15-hour TWAP (3,000 USDC: its slices are whole lots) is still
    // running at 12:30.
    const config = {
      ...demo,
      strategies: demo.strategies.map((s) =>
        s.name === "hype-dca" && s.kind === "twap-accumulate"
          ? {
              ...s,
              params: {
                ...s.params,
                amountUsd: new Decimal(3000),
                budgetUsd: undefined,
                twap: { ...s.params.twap, minutes: 900 },
              },
            }
          : s,
      ),
    };
    const { record } = await runSimulation({ config, days: 1 });
    const summary = buildSummary(record);
    const dca = summary.strategies.find((s) => s.name === "hype-dca")!;
    expect(dca.slots).toBe(2);
    expect(dca.runs).toBeGreaterThan(dca.slots);
    expect(formatSummary(summary)).toContain(
      `hype-dca (twap-accumulate, "30 0,12 * * *", ${dca.runs} runs in 2 slots`,
    );
    // The hourly rebalancer ran each slot once: runs alone.
    const hourly = summary.strategies.find((s) => s.name === "purr-allocation")!;
    expect([hourly.runs, hourly.slots]).toEqual([24, 24]);
    expect(formatSummary(summary)).toContain(`purr-allocation (twap-rebalance, "0 * * * *", 24 runs)`);
  }, 60_000);
});
