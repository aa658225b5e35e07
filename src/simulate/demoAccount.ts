// The simulated account of `hlbot simulate`: a key derived from the seed (so no key is needed and the
// same seed gives the same account, nonces and signatures), holding what the scenario gives its demo
// account. The key never leaves this module except inside a Signer, which keeps it in a closure.
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { parseDecimal } from "../lib/decimal.js";
import type { Scenario } from "../simulator/index.js";
import { privateKeySigner, type Signer } from "../venue/signing/signer.js";

/** Label of the scenario account whose holdings the simulated account takes over. */
export const DEMO_ACCOUNT_LABEL = "demo";

/** Spot holdings given to the simulated account when the scenario has no account labelled "demo". */
export const DEFAULT_DEMO_HOLDINGS: Readonly<Record<string, string>> = Object.freeze({
  USDC: "10000",
  HYPE: "100",
});

/** A signer for the demo key of `seed`: keccak-256 of a fixed label and the seed. */
export function demoSigner(seed: number): Signer {
  for (let attempt = 0; ; attempt++) {
    const digest = keccak_256(utf8ToBytes(`hlbot simulate demo account\nseed ${seed}\nattempt ${attempt}`));
    // A digest outside the curve order is astronomically unlikely; hash again rather than fail.
    if (secp256k1.utils.isValidSecretKey(digest)) return privateKeySigner(bytesToHex(digest), "demo key");
  }
}

export interface DemoHoldings {
  /** The scenario address whose holdings were moved to the simulated account, if any. */
  from: string | undefined;
  /** What the simulated account starts with, as the scenario describes it (spot coin → amount). */
  spot: Record<string, string>;
}

/**
 * Moves the demo account of a parsed scenario (its spot balances, staking balance, delegations, running
 * TWAPs, agents, account settings and timed deposits/withdrawals) to `address`, in place. Without a demo account, `address` gets the default
 * holdings (the coins of DEFAULT_DEMO_HOLDINGS the scenario lists).
 */
export function adoptDemoAccount(scenario: Scenario, address: string): DemoHoldings {
  const to = address.toLowerCase();
  const demo = scenario.accounts.find((a) => a.label === DEMO_ACCOUNT_LABEL);
  if (demo === undefined) {
    const spot: Record<string, string> = {};
    const balances: Record<string, ReturnType<typeof parseDecimal>> = {};
    for (const [coin, amount] of Object.entries(DEFAULT_DEMO_HOLDINGS)) {
      if (!scenario.tokens.some((t) => t.name === coin)) continue;
      balances[coin] = parseDecimal(amount);
      spot[coin] = amount;
    }
    scenario.balances[to] = balances;
    return { from: undefined, spot };
  }

  const from = demo.address.toLowerCase();
  demo.address = to;
  const moveKey = <T>(record: Record<string, T>) => {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() !== from) continue;
      record[to] = record[key] as T;
      delete record[key];
    }
  };
  moveKey(scenario.balances);
  moveKey(scenario.staking);
  for (const d of scenario.delegations) if (d.user === from) d.user = to;
  for (const a of scenario.agents) if (a.user === from) a.user = to;
  for (const t of scenario.twaps) if (t.user === from) t.user = to;
  // A trading account the demo account stakes for (a staking link) names it as its staking user.
  for (const a of scenario.accounts) if (a.stakingLink?.stakingUser === from) a.stakingLink.stakingUser = to;
  // Money the scenario moves in or out of the demo account during the run follows it too.
  for (const e of scenario.events)
    if ((e.type === "deposit" || e.type === "withdrawal") && e.account === from) e.account = to;
  const spot: Record<string, string> = {};
  for (const [coin, amount] of Object.entries(scenario.balances[to] ?? {})) spot[coin] = amount.toFixed();
  return { from, spot };
}
