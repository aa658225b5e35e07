// Defaults that depend on the other strategies sharing the account, resolved once when the
// configuration is loaded (so every run mode, and every cycle of the daemon, sees the same value).
//
// twap-rebalance `countStaked`: unset, it is true when the rebalancer targets HYPE and an enabled
// validator-staking strategy shares the account (staking moves spot HYPE into staking; a rebalancer
// counting spot HYPE only would buy it back again and again), false otherwise. Set it to decide.
import type { LoadedStrategy } from "../config/loader.js";
import { STAKED_TOKEN } from "./twapRebalance.js";

export function resolveSharedDefaults(strategies: LoadedStrategy[]): LoadedStrategy[] {
  const staking = strategies.some((s) => s.enabled && s.kind === "validator-staking");
  return strategies.map((s) => {
    if (s.kind !== "twap-rebalance" || s.params.countStaked !== undefined) return s;
    const countStaked = staking && Object.hasOwn(s.params.targets, STAKED_TOKEN);
    return { ...s, params: { ...s.params, countStaked } };
  });
}
