// The shipped configurations work together (issue #12): config/default.yaml with strategies/ (the
// Docker image ships the same strategies) and config/demo.yaml with config/demo-strategies/, simulated
// on the demo scenario, end with every rebalancer target within its band, no rejected action, and USDC
// still a material share of the portfolio. `config validate` finds no fight among them. (The CLI runs
// them for 30 days; 7 keep this test short.)
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation, STAKED_HYPE } from "../../src/engine/simulate/runner.js";
import { buildSummary } from "../../src/engine/simulate/summary.js";
import { strategyConflicts } from "../../src/engine/strategies/shared.js";
import { Decimal, ZERO } from "../../src/lib/decimal.js";
import { REPO_ROOT } from "../helpers/build.js";

const DAYS = 7;

describe.each(["config/default.yaml", "config/demo.yaml"])("%s", (file) => {
  it(`over ${DAYS} simulated days: targets within their bands, nothing rejected, USDC kept`, async () => {
    const config = await loadConfig(`${REPO_ROOT}/${file}`, {});
    expect(strategyConflicts(config.strategies)).toEqual([]);
    const { record } = await runSimulation({ config, days: DAYS });
    const summary = buildSummary(record);

    expect(summary.cycles.failed).toBe(0);
    expect(summary.rejections).toEqual([]);
    const value = (asset: string) =>
      new Decimal(summary.portfolio.end.assets.find((a) => a.asset === asset)?.value ?? "0");
    const total = new Decimal(summary.portfolio.end.value);
    expect(value("USDC").div(total).toNumber()).toBeGreaterThan(0.15);

    const rebalancers = config.strategies.filter((s) => s.enabled && s.kind === "twap-rebalance");
    expect(rebalancers.length).toBeGreaterThan(0);
    for (const r of rebalancers) {
      if (r.kind !== "twap-rebalance") continue;
      const worth = (token: string) =>
        value(token).plus(r.params.countStaked === true && token === "HYPE" ? value(STAKED_HYPE) : ZERO);
      const portfolio = Object.keys(r.params.targets).reduce((a, t) => a.plus(worth(t)), ZERO);
      for (const [token, target] of Object.entries(r.params.targets)) {
        const weight = worth(token).div(portfolio);
        expect(
          weight.minus(target).abs().lte(r.params.band),
          `${r.name}: ${token} at ${weight.toFixed(4)}, target ${target} ± ${r.params.band}`,
        ).toBe(true);
      }
    }
  }, 60_000);
});
