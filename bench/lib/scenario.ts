// The "large account" scenario of the decision-cycle and info benchmarks, generated deterministically:
// 200 validators (a few jailed or inactive, the biggest with stakes beyond 2^53 wei), 100 spot tokens
// held by the account, each traded against USDC, 50 delegations of the account, and a funded balance
// from which the bench places 10 running TWAPs. Written to YAML so a child process can load it too.
import { writeFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { stringify } from "yaml";
import type { ScenarioInput } from "../../src/simulator/index.js";

export const LARGE = {
  validators: 200,
  tokens: 100,
  delegations: 50,
  twaps: 10,
} as const;

/** A fixed address derived from a label (not a key: nothing can sign for it). */
export function labelAddress(label: string): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(label)).slice(12))}`;
}

/** Name of the i-th generated token (0 = USDC, 1 = HYPE). */
export function tokenName(i: number): string {
  if (i === 0) return "USDC";
  if (i === 1) return "HYPE";
  return `TK${String(i).padStart(3, "0")}`;
}

/** Spot pair index of the i-th token against USDC (HYPE keeps the venue's @107). */
export function pairIndex(i: number): number {
  return i === 1 ? 107 : 1000 + i;
}

export function largeScenario(account: string): ScenarioInput {
  const tokens: NonNullable<ScenarioInput["tokens"]> = [];
  const pairs: NonNullable<ScenarioInput["pairs"]> = [];
  const prices: NonNullable<ScenarioInput["prices"]> = {};
  const holdings: Record<string, string> = {};
  for (let i = 0; i < LARGE.tokens; i++) {
    const name = tokenName(i);
    const index = i === 0 ? 0 : i === 1 ? 150 : 1000 + i;
    tokens.push({
      name,
      index,
      szDecimals: i === 0 ? 8 : i % 5,
      weiDecimals: 8,
      tokenId: `0x${bytesToHex(keccak_256(utf8ToBytes(name)).slice(0, 16))}`,
      ...(i === 0 ? { isCanonical: true } : {}),
    });
    if (i > 0) {
      const px = i === 1 ? "25" : (0.05 * 1.07 ** i).toFixed(4);
      pairs.push({ index: pairIndex(i), base: name, quote: "USDC" });
      prices[`@${pairIndex(i)}`] = { start: px, drift: 0, volatility: 0.6 };
      // Worth roughly 20,000 USDC a token, so each can fund a TWAP of a few thousand.
      holdings[name] = (20_000 / Number(px)).toFixed(i % 5);
    }
  }
  holdings.USDC = "2000000";
  holdings.HYPE = "50000";

  const validators: NonNullable<ScenarioInput["validators"]> = [];
  for (let i = 0; i < LARGE.validators; i++) {
    // Stakes from 10 thousand to 200 million HYPE: the top ones exceed 2^53 wei, like mainnet's.
    const stake = (10_000 * 1.051 ** i).toFixed(8);
    validators.push({
      address: labelAddress(`bench validator ${i}`),
      name: `Validator ${String(i).padStart(3, "0")}`,
      description: `Generated validator number ${i} of the large benchmark scenario`,
      stake,
      commission: ((i % 10) / 100 + 0.01).toFixed(2),
      apr: (0.018 + ((i * 37) % 80) / 10_000).toFixed(4),
      uptime: (0.95 + ((i * 13) % 50) / 1000).toFixed(3),
      nRecentBlocks: i % 30,
      ...(i % 17 === 16 ? { isJailed: true, unjailableIn: "6h" } : {}),
      ...(i % 23 === 22 ? { isActive: false } : {}),
    });
  }
  const delegations = validators.slice(0, LARGE.delegations).map((v, i) => ({
    user: account,
    validator: v.address,
    amount: (100 + i * 10).toFixed(2),
  }));

  return {
    name: "bench-large",
    description: "benchmark: 200 validators, 100 spot tokens, 50 delegations (TWAPs placed at run time)",
    seed: 7,
    settings: {
      startTime: "2026-01-01T00:00:00Z",
      rateLimit: false,
      twapMaxMinutes: 43_200,
      delegationLock: 0,
    },
    tokens,
    pairs,
    prices,
    validators,
    accounts: [{ address: account, label: "bench" }],
    balances: { [account]: holdings },
    staking: { [account]: { undelegated: "1000" } },
    delegations,
  };
}

/** Writes the scenario as YAML (addresses quoted; big decimals as strings). */
export function writeScenarioYaml(file: string, scenario: ScenarioInput): void {
  writeFileSync(file, stringify(scenario));
}
