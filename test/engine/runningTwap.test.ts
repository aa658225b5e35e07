// A running TWAP is recognised whether twapHistory names its coin by pair ("@107") or by base token
// ("HYPE"): one rule (twapCoinIsPair) for the strategies and the reconciler, so a TWAP reported by
// token name is not placed again every run.
import { describe, expect, it } from "vitest";
import { twapCoinIsPair } from "../../src/engine/snapshot.js";
import { runningTwapOn } from "../../src/engine/strategies/common.js";
import { twapAccumulate, twapAccumulateParams } from "../../src/engine/strategies/twapAccumulate.js";
import { buildSnapshot, T0 } from "../helpers/snapshots.js";

const params = twapAccumulateParams.parse({
  coin: "HYPE",
  side: "buy",
  amountUsd: 1000,
  twap: { minutes: 30, randomize: false },
});

describe("running-TWAP detection", () => {
  it("matches the pair name or the base token's name, nothing else", () => {
    const pair = { name: "@107", base: { name: "HYPE" } };
    expect(twapCoinIsPair("@107", pair)).toBe(true);
    expect(twapCoinIsPair("HYPE", pair)).toBe(true);
    expect(twapCoinIsPair("PURR", pair)).toBe(false);
    expect(twapCoinIsPair("@108", pair)).toBe(false);
    expect(twapCoinIsPair("HYPE", { name: "@107", base: undefined })).toBe(false);
  });

  for (const coin of ["@107", "HYPE"]) {
    it(`a strategy does not place a second TWAP while one reported as ${coin} runs`, () => {
      const snapshot = buildSnapshot({
        balances: { USDC: 50_000 },
        twaps: [{ coin, assetId: undefined, twapId: 7, side: "buy" }],
      });
      const pair = snapshot.pairs.get("@107")!;
      expect(runningTwapOn(snapshot, pair)?.twapId).toBe(7);
      const decisions = twapAccumulate.decide(snapshot, params, T0, {}, "dca");
      expect(decisions.map((d) => [d.kind, d.reason])).toEqual([
        ["skip", "a TWAP #7 is already running on HYPE/USDC (@107)"],
      ]);
    });
  }
});
