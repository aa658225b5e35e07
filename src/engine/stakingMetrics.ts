// Staking gauges for /metrics: the account's stake by state (delegated, locked, idle, pending withdrawal)
// and each delegation's amount and net APR, refreshed from every snapshot that read the staking state.
// Kept beside BotMetrics (registered lazily on its registry) so the daemon's metrics stay one registry.
import { Gauge } from "prom-client";
import { ZERO } from "../lib/decimal.js";
import type { BotMetrics } from "./metrics.js";
import type { Snapshot } from "./snapshot.js";
import { earningApr } from "./strategies/validatorStaking.js";

interface StakingGauges {
  stake: Gauge<"state">;
  delegation: Gauge<"validator" | "name">;
  netApr: Gauge<"validator" | "name">;
}

const gauges = new WeakMap<BotMetrics, StakingGauges>();
/**
 * The validators as last read, by lower-case address: a snapshot that read the staking balances but not
 * the validators (a DCA's cycle reading them for the metrics) labels and rates each delegation with
 * these (a consistency trial: names went blank and the net APR series vanished for hours after each
 * staking action, until the next staking cycle read the validators again).
 */
const lastValidators = new WeakMap<BotMetrics, ReadonlyMap<string, Snapshot["validators"][number]>>();

function gaugesOf(metrics: BotMetrics): StakingGauges {
  let g = gauges.get(metrics);
  if (!g) {
    const registers = [metrics.registry];
    g = {
      stake: new Gauge({
        name: "hlbot_stake_hype",
        help: "The account's staking balance by state: delegated, locked (delegated, within its lock), idle (undelegated, earning nothing), pending_withdrawal",
        labelNames: ["state"] as const,
        registers,
      }),
      delegation: new Gauge({
        name: "hlbot_delegation_hype",
        help: "HYPE delegated to each validator",
        labelNames: ["validator", "name"] as const,
        registers,
      }),
      netApr: new Gauge({
        name: "hlbot_delegation_net_apr",
        help: "Net APR of each delegation: the delegators' weekly rate (predictedApr, after commission; venue.predictedAprNet)",
        labelNames: ["validator", "name"] as const,
        registers,
      }),
    };
    gauges.set(metrics, g);
  }
  return g;
}

/** Sets the staking gauges from a snapshot that read the staking state. */
export function recordStake(metrics: BotMetrics | undefined, snapshot: Snapshot): void {
  if (!metrics) return;
  const g = gaugesOf(metrics);
  let delegated = ZERO;
  let locked = ZERO;
  for (const d of snapshot.delegations) {
    delegated = delegated.plus(d.amount);
    if (d.lockedUntil > snapshot.takenAt) locked = locked.plus(d.amount);
  }
  g.stake.set({ state: "delegated" }, delegated.toNumber());
  g.stake.set({ state: "locked" }, locked.toNumber());
  g.stake.set({ state: "idle" }, snapshot.staking.undelegated.toNumber());
  g.stake.set({ state: "pending_withdrawal" }, snapshot.staking.totalPendingWithdrawal.toNumber());
  g.delegation.reset();
  g.netApr.reset();
  if (snapshot.parts?.has("validators") !== false || !lastValidators.has(metrics))
    lastValidators.set(metrics, new Map(snapshot.validators.map((v) => [v.address.toLowerCase(), v])));
  const infos = lastValidators.get(metrics) ?? new Map();
  for (const d of snapshot.delegations) {
    const v = infos.get(d.validator.toLowerCase());
    const labels = { validator: d.validator, name: v?.name ?? "" };
    g.delegation.inc(labels, d.amount.toNumber());
    // 0 while jailed or inactive: an alert on a low rate fires when the delegation earns nothing.
    if (v) g.netApr.set(labels, earningApr(v, "week").toNumber());
  }
}
