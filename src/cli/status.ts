// Collects and renders what `hlbot status` shows. Values stay exact (decimal strings) in the JSON form.

import { spotUniverse } from "../engine/readSnapshot.js";
import { Decimal, ZERO } from "../lib/decimal.js";
import { oneLine } from "../lib/text.js";
import type { InfoClient } from "../venue/info/client.js";

export interface AccountStatus {
  account: string;
  at: number;
  balances: Array<{ coin: string; total: string; hold: string; usd: string | null; weight: string | null }>;
  totalUsd: string;
  staking: { delegated: string; undelegated: string; pendingWithdrawal: string; nPendingWithdrawals: number };
  delegations: Array<{
    validator: string;
    name: string;
    amount: string;
    lockedUntil: number;
    locked: boolean;
    jailed: boolean;
    active: boolean;
    commission: string | null;
  }>;
  rewards: { total: string; last: { time: number; amount: string } | null };
  twaps: Array<{
    twapId: number | null;
    coin: string;
    side: string;
    size: string;
    executed: string;
    progress: string;
    minutes: number;
    startedAt: number;
  }>;
  isVip: boolean | null;
  referral: { referredBy: string | null; stage: string; unclaimedRewards: string };
  multiSig: { threshold: number; authorizedUsers: string[] } | null;
  subAccounts: Array<{ name: string; address: string }>;
  stakingLink: unknown;
  fees: { spotTaker: string; spotMaker: string };
}

export async function collectStatus(info: InfoClient, account: string, now: number): Promise<AccountStatus> {
  const user = account;
  const [
    meta,
    mids,
    spot,
    summary,
    delegations,
    validators,
    twaps,
    fees,
    isVip,
    referral,
    rewards,
    multiSig,
    subs,
    fills,
  ] = await Promise.all([
    info.spotMeta(),
    info.allMids(),
    info.spotClearinghouseState({ user }),
    info.delegatorSummary({ user }),
    info.delegations({ user }),
    info.validatorSummaries(),
    info.twapHistory({ user }),
    info.userFees({ user }),
    info.isVip({ user }),
    info.referral({ user }),
    info.delegatorRewards({ user }),
    info.userToMultiSigSigners({ user }),
    info.subAccounts2({ user }),
    info.userTwapSliceFills({ user }),
  ]);
  const { pairs } = spotUniverse(meta, mids);
  const priceOf = (coin: string): Decimal | undefined => {
    if (coin === "USDC") return new Decimal(1);
    for (const p of pairs.values())
      if (p.base.name === coin && p.quote.name === "USDC" && p.mid) return p.mid;
    return undefined;
  };
  const valued = spot.balances
    .filter((b) => b.token !== undefined)
    .map((b) => {
      const px = priceOf(b.coin);
      return { b, usd: px ? new Decimal(b.total).times(px) : undefined };
    });
  const totalUsd = valued.reduce((t, v) => (v.usd ? t.plus(v.usd) : t), ZERO);
  const names = new Map(validators.map((v) => [v.validator.toLowerCase(), v]));
  const latest = new Map<string, (typeof twaps)[number]>();
  for (const t of twaps) {
    const key = String(t.twapId ?? `${t.state.timestamp}`);
    const seen = latest.get(key);
    if (!seen || t.timeMs >= seen.timeMs) latest.set(key, t);
  }
  // twapHistory reports a TWAP's state at its status changes only; progress comes from its slice fills.
  const filled = new Map<number, Decimal>();
  for (const f of fills) {
    if (f.twapId === null || f.twapId === undefined) continue;
    filled.set(f.twapId, (filled.get(f.twapId) ?? ZERO).plus(new Decimal(f.fill.sz)));
  }
  const rewardTotal = rewards.reduce((t, r) => t.plus(new Decimal(r.totalAmount)), ZERO);
  const lastReward = rewards.reduce<(typeof rewards)[number] | undefined>(
    (a, r) => (!a || r.time > a.time ? r : a),
    undefined,
  );
  return {
    account,
    at: now,
    balances: valued.map(({ b, usd }) => ({
      coin: b.coin,
      total: b.total,
      hold: b.hold,
      usd: usd ? usd.toFixed(2) : null,
      weight: usd && totalUsd.gt(0) ? usd.div(totalUsd).toFixed(4) : null,
    })),
    totalUsd: totalUsd.toFixed(2),
    staking: {
      delegated: summary.delegated,
      undelegated: summary.undelegated,
      pendingWithdrawal: summary.totalPendingWithdrawal,
      nPendingWithdrawals: summary.nPendingWithdrawals,
    },
    delegations: delegations.map((d) => {
      const v = names.get(d.validator.toLowerCase());
      return {
        validator: d.validator,
        name: v?.name ?? "(unknown validator)",
        amount: d.amount,
        lockedUntil: d.lockedUntilTimestamp,
        locked: d.lockedUntilTimestamp > now,
        jailed: v?.isJailed ?? false,
        active: v?.isActive ?? false,
        commission: v?.commission ?? null,
      };
    }),
    rewards: {
      total: rewardTotal.toFixed(),
      last: lastReward ? { time: lastReward.time, amount: lastReward.totalAmount } : null,
    },
    twaps: [...latest.values()]
      .filter((t) => t.status.status === "activated")
      .map((t) => {
        const executed = Decimal.max(new Decimal(t.state.executedSz), filled.get(t.twapId ?? -1) ?? ZERO);
        const size = new Decimal(t.state.sz);
        return {
          twapId: t.twapId ?? null,
          coin: t.state.coin,
          side: t.state.side === "B" ? "buy" : "sell",
          size: t.state.sz,
          executed: executed.toFixed(),
          progress: size.gt(0) ? executed.div(size).times(100).toFixed(1) : "0",
          minutes: t.state.minutes,
          startedAt: t.state.timestamp,
        };
      }),
    isVip: isVip ?? null,
    referral: {
      referredBy: referral.referredBy?.code ?? null,
      stage: referral.referrerState.stage,
      unclaimedRewards: referral.unclaimedRewards,
    },
    multiSig: multiSig
      ? { threshold: multiSig.threshold, authorizedUsers: [...multiSig.authorizedUsers] }
      : null,
    subAccounts: (subs ?? []).map((s) => ({ name: s.name, address: s.subAccountUser })),
    stakingLink: fees.stakingLink ?? null,
    fees: { spotTaker: fees.userSpotCrossRate, spotMaker: fees.userSpotAddRate },
  };
}

export function formatStatus(s: AccountStatus, network: string): string {
  const out: string[] = [];
  const when = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
  out.push(`Account ${s.account} on ${network} at ${when(s.at)}`);
  out.push(`Spot (total ${s.totalUsd} USD):`);
  if (s.balances.length === 0) out.push("  no balances");
  for (const b of s.balances) {
    const usd =
      b.usd === null
        ? "no USD price"
        : `${b.usd} USD${b.weight ? `, ${(Number(b.weight) * 100).toFixed(1)}%` : ""}`;
    out.push(
      `  ${oneLine(b.coin).padEnd(8)} ${b.total}${b.hold !== "0.0" && b.hold !== "0" ? ` (on hold ${b.hold})` : ""}  ${usd}`,
    );
  }
  out.push(
    `Staking: delegated ${s.staking.delegated} HYPE, undelegated ${s.staking.undelegated} HYPE, ` +
      `pending withdrawal ${s.staking.pendingWithdrawal} HYPE (${s.staking.nPendingWithdrawals} pending)`,
  );
  for (const d of s.delegations) {
    const health = d.jailed ? "JAILED" : d.active ? "active" : "inactive";
    const lock = d.locked ? `locked until ${when(d.lockedUntil)}` : "unlocked";
    out.push(
      `  ${oneLine(d.name)} (${d.validator}): ${d.amount} HYPE, ${health}, commission ${d.commission ?? "?"}, ${lock}`,
    );
  }
  out.push(
    `Staking rewards: ${s.rewards.total} HYPE in total${s.rewards.last ? `, last ${s.rewards.last.amount} at ${when(s.rewards.last.time)}` : ""}`,
  );
  out.push(`Running TWAPs: ${s.twaps.length === 0 ? "none" : ""}`);
  for (const t of s.twaps) {
    out.push(
      `  #${t.twapId ?? "?"} ${t.side} ${t.size} ${oneLine(t.coin)} over ${t.minutes} min: ${t.executed} done (${t.progress}%), since ${when(t.startedAt)}`,
    );
  }
  out.push(
    `Fees: spot taker ${s.fees.spotTaker}, maker ${s.fees.spotMaker}; VIP: ${s.isVip === null ? "unknown" : s.isVip ? "yes" : "no"}`,
  );
  out.push(
    `Referral: ${s.referral.referredBy ? `referred with code ${oneLine(s.referral.referredBy)}` : "not referred"}; referrer stage ${s.referral.stage}; unclaimed rewards ${s.referral.unclaimedRewards}`,
  );
  out.push(
    `Multi-sig: ${s.multiSig ? `${s.multiSig.threshold} of ${s.multiSig.authorizedUsers.join(", ")}` : "no"}`,
  );
  out.push(
    `Sub-accounts: ${s.subAccounts.length === 0 ? "none" : s.subAccounts.map((a) => `${oneLine(a.name)} (${a.address})`).join(", ")}`,
  );
  const link = s.stakingLink as { type?: string; stakingUser?: string; tradingUser?: string } | null;
  out.push(`Staking link: ${link ? `${link.type} ${link.stakingUser ?? link.tradingUser ?? ""}` : "none"}`);
  return `${out.join("\n")}\n`;
}
