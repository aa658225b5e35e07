// A running TWAP is recognised by its pair name ("@107", "PURR/USDC"), the way twapHistory names a spot
// TWAP; a coin named like a token ("HYPE") is a perp TWAP of the account (twapHistory lists both), which
// neither holds a spot strategy back nor is taken for its lost order. One rule (twapCoinIsPair) for the
// strategies and the reconciler.
import { describe, expect, it } from "vitest";
import { INTENT_KINDS } from "../../src/engine/intentKinds.js";
import { twapCoinIsPair } from "../../src/engine/snapshot.js";
import { runningTwapOn } from "../../src/engine/strategies/common.js";
import { twapAccumulate, twapAccumulateParams } from "../../src/engine/strategies/twapAccumulate.js";
import { TwapHistoryResponse } from "../../src/venue/info/methods/twapHistory.js";
import { buildSnapshot, T0 } from "../helpers/snapshots.js";

const params = twapAccumulateParams.parse({
  coin: "HYPE",
  side: "buy",
  amountUsd: 1000,
  twap: { minutes: 30, randomize: false },
});

describe("running-TWAP detection", () => {
  it("matches the pair name, nothing else", () => {
    const pair = { name: "@107" };
    expect(twapCoinIsPair("@107", pair)).toBe(true);
    expect(twapCoinIsPair("HYPE", pair)).toBe(false);
    expect(twapCoinIsPair("PURR", { name: "PURR/USDC" })).toBe(false);
    expect(twapCoinIsPair("PURR/USDC", { name: "PURR/USDC" })).toBe(true);
    expect(twapCoinIsPair("@108", pair)).toBe(false);
  });

  it("a strategy does not place a second TWAP while one runs on its pair", () => {
    const snapshot = buildSnapshot({
      balances: { USDC: 50_000 },
      twaps: [{ coin: "@107", assetId: undefined, twapId: 7, side: "buy" }],
    });
    const pair = snapshot.pairs.get("@107")!;
    expect(runningTwapOn(snapshot, pair)?.twapId).toBe(7);
    const decisions = twapAccumulate.decide(snapshot, params, T0, {}, "dca");
    expect(decisions.map((d) => [d.kind, d.reason])).toEqual([
      ["skip", "a TWAP #7 is already running on HYPE/USDC (@107)"],
    ]);
  });

  it('a perp TWAP on the same token (coin "HYPE") does not hold the spot DCA back', () => {
    const snapshot = buildSnapshot({
      balances: { USDC: 50_000 },
      twaps: [{ coin: "HYPE", assetId: undefined, twapId: 7, side: "buy" }],
    });
    expect(runningTwapOn(snapshot, snapshot.pairs.get("@107")!)).toBeUndefined();
    const decisions = twapAccumulate.decide(snapshot, params, T0, {}, "dca");
    expect(decisions.map((d) => d.kind)).toEqual(["twapOrder"]);
  });

  it("a lost spot order is not reconciled as landed on a perp TWAP of the same side, minutes and size", () => {
    const at = T0 - 60_000;
    const entry = (coin: string, twapId: number) => ({
      time: Math.floor(at / 1000),
      state: {
        coin,
        user: "0x5ac99df645f3414876c816caa18b2d234024b487",
        side: "B",
        sz: "3.0",
        executedSz: "0.0",
        executedNtl: "0.0",
        minutes: 10,
        reduceOnly: false,
        randomize: false,
        timestamp: at,
        trigger: null,
        stopPx: null,
      },
      status: { status: "activated" },
      twapId,
    });
    const match = (coin: string) =>
      INTENT_KINDS.twapOrder.reconcile.match(
        { type: "twapOrder", twap: { a: 10107, b: true, s: "3", r: false, m: 10, t: false } },
        {
          nonce: at - 1_000,
          from: at - 60_000,
          until: at + 60_000,
          claimed: new Set(),
          evidence: {
            twaps: TwapHistoryResponse.parse([entry(coin, 777)]),
            pairNames: new Map([[10107, { name: "@107", base: { name: "HYPE" } }]]),
          },
        } as never,
      );
    expect(match("HYPE")).toBeUndefined();
    expect(match("@107")).toBeDefined();
  });
});
