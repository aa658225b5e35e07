// Shared fixtures of the simulator tests: a small scenario with round numbers, and the public Anvil
// development keys (published everywhere; never funded on a real chain).
import type { ScenarioInput } from "../../src/simulator/scenario.js";

export const KEYS = {
  trader: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  staker: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  agent: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  stranger: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
} as const;

export const ADDR = {
  trader: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  staker: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  agent: "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  stranger: "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
  sub: "0x1111111111111111111111111111111111111111",
} as const;

export const VALIDATORS = {
  a: "0x5ac99df645f3414876c816caa18b2d234024b487",
  b: "0xb8f45222a3246a2b0104696a1df26842007c5bc5",
  jailed: "0x1ab1fd8c2b4cf7f0c8e1e6a9e3d1b0c0a8f7e6d5",
  inactive: "0x9c5f2b7a1e4d3c6b8a0f9e8d7c6b5a4938271605",
} as const;

export const START = Date.UTC(2025, 0, 1, 12); // noon, so the first reward payout is 12 h away
export const HYPE_ASSET = 10107;

/** Constant prices, fee 0.1 % without discounts, apr 3.65 % (0.01 %/day): every number is round. */
export function testScenario(overrides: Partial<ScenarioInput> = {}): ScenarioInput {
  return {
    name: "test",
    seed: 5,
    settings: {
      startTime: START,
      fees: { spotCross: "0.001", stakingDiscount: false, referralDiscount: "0" },
      // The simulator's TWAP holds are what these tests check (the simulator's default is not to hold).
      twapHolds: true,
    },
    tokens: [
      { name: "USDC", index: 0, szDecimals: 8, weiDecimals: 8 },
      { name: "HYPE", index: 150, szDecimals: 2, weiDecimals: 8 },
    ],
    pairs: [{ index: 107, base: "HYPE", quote: "USDC" }],
    prices: { "@107": { start: "25", volatility: 0 } },
    validators: [
      { address: VALIDATORS.a, name: "A", commission: "0.1", apr: "0.0365", stake: "1000000" },
      { address: VALIDATORS.b, name: "B", commission: "0", apr: "0.0365", stake: "95000000" },
      { address: VALIDATORS.jailed, name: "J", isJailed: true, apr: "0.0365" },
      { address: VALIDATORS.inactive, name: "I", isActive: false, apr: "0.0365" },
    ],
    accounts: [{ address: ADDR.trader, subAccounts: [{ address: ADDR.sub, name: "sub" }] }],
    balances: {
      [ADDR.trader]: { USDC: "10000", HYPE: "1000" },
      [ADDR.staker]: { HYPE: "500" },
    },
    ...overrides,
  };
}
