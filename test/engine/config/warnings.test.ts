// Warnings about one strategy (config validate, and every command that loads the file).
import { describe, expect, it } from "vitest";
import { strategyWarnings } from "../../../src/engine/config/warnings.js";
import { parseDecimal } from "../../../src/lib/decimal.js";

const rebalancer = (params: Record<string, unknown>, capital?: Record<string, string>) =>
  ({
    name: "rebal",
    kind: "twap-rebalance",
    enabled: true,
    schedule: "0 * * * *",
    params,
    ...(capital ? { capital: new Map(Object.entries(capital).map(([k, v]) => [k, parseDecimal(v)])) } : {}),
  }) as never;

describe("strategyWarnings", () => {
  it("warns of refillFloors with capital: each rebalancer counts the whole deficit", () => {
    expect(strategyWarnings(rebalancer({ refillFloors: true }, { USDC: "5000" }))).toEqual([
      expect.stringMatching(
        /^strategy rebal: refillFloors with capital: each rebalancer counts the account's whole floor deficit/,
      ),
    ]);
    expect(strategyWarnings(rebalancer({ refillFloors: true }))).toEqual([]);
    expect(strategyWarnings(rebalancer({}, { USDC: "5000" }))).toEqual([]);
  });
});
