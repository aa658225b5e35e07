import { describe, expect, it } from "vitest";
import {
  isStrategyKind,
  runStrategy,
  STRATEGIES,
  STRATEGY_KINDS,
  snapshotParts,
} from "../../../src/engine/strategies/registry.js";
import { buildSnapshot, T0 } from "../../helpers/snapshots.js";

describe("strategy registry", () => {
  it("knows the four kinds", () => {
    expect(STRATEGY_KINDS).toEqual([
      "twap-rebalance",
      "twap-accumulate",
      "validator-staking",
      "link-staking",
    ]);
    expect(isStrategyKind("twap-rebalance")).toBe(true);
    expect(isStrategyKind("toString")).toBe(false);
  });

  it("runs a strategy by kind and stamps its name on every decision", () => {
    const params = STRATEGIES["twap-rebalance"].paramsSchema.parse({
      targets: { HYPE: 0.5, USDC: 0.5 },
      twap: { minutes: 60 },
    });
    const snapshot = buildSnapshot({ balances: { HYPE: 1000, USDC: 5000 } });
    const decisions = runStrategy({ name: "my-rebalance", kind: "twap-rebalance", params }, snapshot, T0, {});
    expect(decisions.map((d) => [d.kind, d.strategy])).toEqual([["twapOrder", "my-rebalance"]]);
  });

  it("reads for a cycle what its strategies' definitions declare, and nothing more", () => {
    // A staking-only cycle reads no fees (its running TWAPs: no HYPE is staked while a TWAP sells it);
    // a rebalancer reads no staking.
    expect([...snapshotParts(["validator-staking"])].sort()).toEqual([
      "staking",
      "stakingHistory",
      "twaps",
      "validators",
    ]);
    expect([...snapshotParts(["twap-rebalance", "link-staking"])].sort()).toEqual(["fees", "twaps"]);
    expect([...snapshotParts([])]).toEqual([]);
    for (const kind of STRATEGY_KINDS) expect(STRATEGIES[kind].reads.length).toBeGreaterThan(0);
  });
});
