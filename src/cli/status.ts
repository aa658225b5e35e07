// Collects and renders what `hlbot status` shows. Values stay exact (decimal strings) in the JSON form.
//
// Each section is read on its own: a query that fails (the venue is down for it, or answers something
// hlbot refuses) leaves its section empty (`null` in the JSON) and is named under `unavailable`, and
// every other section is still shown. Only venue failures are absorbed this way; a bad argument or an
// abort still ends the command. The caller decides the exit code from `coreUnavailable` (the spot
// balances, without which there is no account overview).

import { isLookalike, spotUniverse, stakingEvents } from "../engine/readSnapshot.js";
import { labelWithVenueName, pairLabel } from "../engine/snapshot.js";
import { type AccountValue, valueAccount } from "../engine/valuation.js";
import { Decimal, ZERO } from "../lib/decimal.js";
import { describeError, VenueError } from "../lib/errors.js";
import { netAprText, oneLine } from "../lib/text.js";
import {
  delegatorApr,
  PREDICTED_APR_NET_DEFAULT,
  UNSTAKING_QUEUE_MS,
  USER_FILLS_MAX,
} from "../venue/constants.js";
import type { InfoClient } from "../venue/info/client.js";
import {
  filledByTwap,
  latestTwapEntries,
  type StakingLink,
  stakingLinkPeer,
  twapMayTrade,
  type ValidatorSummary,
  validatorPeriodStats,
} from "../venue/info/methods/index.js";
import type { NetworkName } from "../venue/networks.js";

export interface AccountStatus {
  account: string;
  at: number;
  /** null when the spot balances could not be read. */
  balances: Array<{
    coin: string;
    total: string;
    hold: string;
    usd: string | null;
    weight: string | null;
  }> | null;
  /** USD value of the spot balances that have a USD price (src/engine/valuation.ts). */
  totalUsd: string | null;
  /**
   * The account's value in USD: the spot balances plus all HYPE in staking, as the bot's metrics and
   * notices value it (src/engine/valuation.ts). null when the balances or the staking balance could not
   * be read, or when HYPE is staked but has no USD price.
   */
  valueUsd: string | null;
  staking: {
    delegated: string;
    undelegated: string;
    pendingWithdrawal: string;
    nPendingWithdrawals: number;
    /**
     * The pending withdrawals, oldest first, dated from the staking history (the newest
     * nPendingWithdrawals withdrawals started): `backOnSpotAbout` is the start plus the network's
     * unstaking queue (null where the queue is not known). null when the history could not be read;
     * shorter than nPendingWithdrawals when the history no longer reaches back to them.
     */
    pendingWithdrawals: Array<{ amount: string; startedAt: number; backOnSpotAbout: number | null }> | null;
    /** Delegated HYPE still within its lock (sum of the locked delegations); null when the delegations could not be read. */
    locked: string | null;
    /** Delegated, idle and pending-withdrawal HYPE in USD; null when HYPE's USD price is not known. */
    usd: string | null;
  } | null;
  delegations: Array<{
    validator: string;
    /** null when the validator list could not be read. */
    name: string | null;
    amount: string;
    lockedUntil: number;
    locked: boolean;
    jailed: boolean | null;
    active: boolean | null;
    commission: string | null;
    /** What the delegator earns: the week's predictedApr read by delegatorApr; null when unknown. */
    netApr: string | null;
  }> | null;
  rewards: { total: string; last: { time: number; amount: string } | null } | null;
  twaps: Array<{
    twapId: number | null;
    /** As the venue names it: a pair ("@107", "PURR/USDC") or a base token. */
    coin: string;
    /** BASE/QUOTE of that pair from the spot metadata, when known ("HYPE/USDC" for "@107"). */
    pair: string | null;
    side: string;
    size: string;
    /**
     * null when the slice fills could not be read and the TWAP still runs (twapHistory says 0 while it
     * runs: shown, it read "0 done (0.0%)" for a TWAP 3% done, beside "progress not shown").
     */
    executed: string | null;
    progress: string | null;
    /** The fills answer was full (the venue's latest 2,000): `executed` may be short of what filled. */
    atLeast: boolean;
    minutes: number;
    startedAt: number;
    /** The venue's status word, shown as-is (an unknown one counts as running until the TWAP's end). */
    status: string;
    /** A trigger TWAP's price condition (waitingForTrigger until the mid crosses it); null otherwise. */
    trigger: { px: string; above: boolean } | null;
    /**
     * Who placed it, from the bot's journal (`hlbot status` of the bot file's own account): a strategy's
     * name ("(no longer configured)" when the bot file has it no more), "by hand" for a manual action;
     * null when the journal does not know it (another tool, another state folder) or was not read.
     */
    placedBy?: string | null;
  }> | null;
  isVip: boolean | null;
  referral: { referredBy: string | null; stage: string; unclaimedRewards: string } | null;
  multiSig: { threshold: number; authorizedUsers: string[] } | null;
  subAccounts: Array<{ name: string; address: string; abstraction: string | null }> | null;
  stakingLink: StakingLink;
  fees: { spotTaker: string; spotMaker: string } | null;
  /** Sections that could not be read: which query failed, and why. Empty when everything was read. */
  unavailable: Array<{ section: StatusSection; query: string; error: string }>;
  /** True when the spot balances could not be read. */
  coreUnavailable: boolean;
}

export type StatusSection =
  | "balances"
  | "staking"
  | "delegations"
  | "validator names"
  | "withdrawal dates"
  | "rewards"
  | "twaps"
  | "twap progress"
  | "fees and staking link"
  | "vip"
  | "referral"
  | "multi-sig"
  | "sub-accounts";

type Read<T> = { ok: true; value: T } | { ok: false; query: string; error: string };

/** Runs one query; a venue failure becomes a value naming the query instead of an exception. */
async function read<T>(query: string, run: () => Promise<T>): Promise<Read<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    if (!(err instanceof VenueError)) throw err;
    return { ok: false, query, error: errorLine(err) };
  }
}

/** The error's message already names the query and, for a refused answer, every wrong path. */
function errorLine(err: VenueError): string {
  return describeError(err);
}

export async function collectStatus(
  info: InfoClient,
  account: string,
  now: number,
  network: NetworkName,
  /** How predictedApr reads (venue.predictedAprNet; src/venue/constants.ts). */
  predictedAprNet = PREDICTED_APR_NET_DEFAULT,
  /**
   * The venue's time (its answers' Date header), when known: a TWAP is shown running until its end by the
   * earlier of the two clocks, as the engine counts it (readSnapshot).
   */
  venueNow?: () => number | undefined,
): Promise<AccountStatus> {
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
    read("spotMeta", () => info.spotMeta()),
    read("allMids", () => info.allMids()),
    read("spotClearinghouseState", () => info.spotClearinghouseState({ user })),
    read("delegatorSummary", () => info.delegatorSummary({ user })),
    read("delegations", () => info.delegations({ user })),
    read("validatorSummaries", () => info.validatorSummaries()),
    read("twapHistory", () => info.twapHistory({ user })),
    read("userFees", () => info.userFees({ user })),
    read("isVip", () => info.isVip({ user })),
    read("referral", () => info.referral({ user })),
    read("delegatorRewards", () => info.delegatorRewards({ user })),
    read("userToMultiSigSigners", () => info.userToMultiSigSigners({ user })),
    read("subAccounts2", () => info.subAccounts2({ user })),
    read("userTwapSliceFills", () => info.userTwapSliceFills({ user })),
  ]);

  const unavailable: AccountStatus["unavailable"] = [];
  /** The value of a read, or undefined after naming the section it leaves empty. */
  const got = <T>(section: StatusSection, r: Read<T>): T | undefined => {
    if (r.ok) return r.value;
    unavailable.push({ section, query: r.query, error: r.error });
    return undefined;
  };

  // Balances need the spot universe and prices too: the first of the three that failed is named.
  const metaV = got("balances", meta);
  const midsV = metaV === undefined ? undefined : got("balances", mids);
  const spotV = midsV === undefined ? undefined : got("balances", spot);
  const summaryV = got("staking", summary);
  // When withdrawals are pending, the staking history dates them (one more read, only then).
  let pendingWithdrawals: NonNullable<AccountStatus["staking"]>["pendingWithdrawals"] = [];
  if (summaryV !== undefined && summaryV.nPendingWithdrawals > 0) {
    const history = got(
      "withdrawal dates",
      await read("delegatorHistory", () => info.delegatorHistory({ user })),
    );
    const queue = UNSTAKING_QUEUE_MS[network];
    pendingWithdrawals =
      history === undefined
        ? null
        : stakingEvents(history)
            // Not filtered by the local clock: one behind the venue's would drop the newest withdrawal
            // and date an older, finished one instead.
            .filter((e) => e.kind === "withdrawalInitiated")
            .slice(-summaryV.nPendingWithdrawals)
            .map((e) => ({
              amount: e.amount.toFixed(),
              startedAt: e.time,
              backOnSpotAbout: queue === undefined ? null : e.time + queue,
            }));
  }
  let balances: AccountStatus["balances"] = null;
  let totalUsd: string | null = null;
  let value: AccountValue | undefined;
  // TWAPs name a pair by its venue name ("@107"): shown by its tokens too, when the metadata has it.
  const pairs = metaV === undefined ? undefined : spotUniverse(metaV, {}).pairs;
  const pairOf = (coin: string) => {
    const pair = pairs?.get(coin);
    return pair === undefined ? null : pairLabel(pair);
  };
  if (metaV !== undefined && midsV !== undefined && spotV !== undefined) {
    // Outcome-market balances are not spot tokens.
    const listed = spotV.balances.filter((b) => b.token !== undefined);
    const universe = spotUniverse(metaV, midsV);
    // A token deployed later under another's name is not valued at that token's price (readSnapshot).
    const valued = listed.filter((b) => !isLookalike(universe.tokens, b));
    const v = valueAccount(universe, {
      spot: valued.map((b) => ({ coin: b.coin, total: new Decimal(b.total) })),
      staking: summaryV && {
        delegated: new Decimal(summaryV.delegated),
        undelegated: new Decimal(summaryV.undelegated),
        pendingWithdrawal: new Decimal(summaryV.totalPendingWithdrawal),
      },
    });
    value = v;
    totalUsd = v.spotUsd.toFixed(2);
    balances = listed.map((b) => {
      const i = valued.indexOf(b);
      const usd = i < 0 ? undefined : v.spot[i]?.usd;
      return {
        coin: i < 0 ? `${b.coin} (token ${b.token}, another token of this name)` : b.coin,
        total: b.total,
        hold: b.hold,
        usd: usd ? usd.toFixed(2) : null,
        weight: usd && v.spotUsd.gt(0) ? usd.div(v.spotUsd).toFixed(4) : null,
      };
    });
  }

  const delegationsV = got("delegations", delegations);
  const validatorsV = delegationsV === undefined ? undefined : got("validator names", validators);
  const names = new Map((validatorsV ?? []).map((v) => [v.validator.toLowerCase(), v]));

  const rewardsV = got("rewards", rewards);
  const rewardTotal = (rewardsV ?? []).reduce((t, r) => t.plus(new Decimal(r.totalAmount)), ZERO);
  const lastReward = (rewardsV ?? []).reduce<NonNullable<typeof rewardsV>[number] | undefined>(
    (a, r) => (!a || r.time > a.time ? r : a),
    undefined,
  );

  const twapsV = got("twaps", twaps);
  const fillsV = twapsV === undefined ? undefined : got("twap progress", fills);
  // Each TWAP's latest record as the engine takes it (latestTwapEntries: records of one second ordered
  // by status, whatever order the venue lists them in): by time alone, a TWAP cancelled in the second it
  // started showed as running when the venue listed the newest first (a consistency trial).
  const latest = twapsV === undefined ? [] : latestTwapEntries(twapsV);
  // twapHistory reports a TWAP's state at its status changes only; progress comes from its slice fills.
  const filled = filledByTwap(fillsV ?? []);
  const fillsCapped = (fillsV?.length ?? 0) >= USER_FILLS_MAX;

  const feesV = got("fees and staking link", fees);
  const isVipV = got("vip", isVip);
  const referralV = got("referral", referral);
  const multiSigV = got("multi-sig", multiSig);
  const subsV = got("sub-accounts", subs);

  return {
    account,
    at: now,
    balances,
    totalUsd,
    valueUsd: value !== undefined && summaryV !== undefined ? (value.totalUsd?.toFixed(2) ?? null) : null,
    staking: summaryV
      ? {
          delegated: summaryV.delegated,
          undelegated: summaryV.undelegated,
          pendingWithdrawal: summaryV.totalPendingWithdrawal,
          nPendingWithdrawals: summaryV.nPendingWithdrawals,
          pendingWithdrawals,
          // Unknown without the delegations (a failed read is not "0 locked").
          locked: delegationsV
            ? delegationsV
                .filter((d) => d.lockedUntilTimestamp > now)
                .reduce((t, d) => t.plus(new Decimal(d.amount)), ZERO)
                .toFixed()
            : null,
          usd: value?.staked?.usd?.toFixed(2) ?? null,
        }
      : null,
    delegations: delegationsV
      ? delegationsV.map((d) => {
          const v = names.get(d.validator.toLowerCase());
          const known = validatorsV !== undefined;
          return {
            validator: d.validator,
            name: known ? (v?.name ?? "(unknown validator)") : null,
            amount: d.amount,
            lockedUntil: d.lockedUntilTimestamp,
            locked: d.lockedUntilTimestamp > now,
            jailed: known ? (v?.isJailed ?? false) : null,
            active: known ? (v?.isActive ?? false) : null,
            commission: v?.commission ?? null,
            netApr: netAprOf(v, predictedAprNet),
          };
        })
      : null,
    rewards: rewardsV
      ? {
          total: rewardTotal.toFixed(),
          last: lastReward ? { time: lastReward.time, amount: lastReward.totalAmount } : null,
        }
      : null,
    twaps: twapsV
      ? [...latest]
          .filter((t) => twapMayTrade(t, Math.min(now, venueNow?.() ?? now)))
          .map((t) => {
            const counted = filled.get(t.twapId ?? -1) ?? ZERO;
            const executed = Decimal.max(new Decimal(t.state.executedSz), counted);
            const size = new Decimal(t.state.sz);
            return {
              twapId: t.twapId ?? null,
              coin: t.state.coin,
              pair: pairOf(t.state.coin),
              side: t.state.side === "B" ? "buy" : "sell",
              size: t.state.sz,
              ...(fillsV === undefined && t.status.status === "activated"
                ? { executed: null, progress: null }
                : {
                    executed: executed.toFixed(),
                    progress: size.gt(0) ? executed.div(size).times(100).toFixed(1) : "0",
                  }),
              // A full fills answer (the venue's latest 2,000) may have left this TWAP's older fills out.
              atLeast: fillsCapped && counted.gt(0),
              minutes: t.state.minutes,
              startedAt: t.state.timestamp,
              status: t.status.status,
              trigger: t.state.trigger ? { px: t.state.trigger.px, above: t.state.trigger.above } : null,
            };
          })
      : null,
    isVip: isVipV ?? null,
    referral: referralV
      ? {
          referredBy: referralV.referredBy?.code ?? null,
          stage: referralV.referrerState.stage,
          unclaimedRewards: referralV.unclaimedRewards,
        }
      : null,
    multiSig: multiSigV
      ? { threshold: multiSigV.threshold, authorizedUsers: [...multiSigV.authorizedUsers] }
      : null,
    subAccounts:
      subsV === undefined
        ? null
        : (subsV ?? []).map((s) => ({
            name: s.name,
            address: s.subAccountUser,
            abstraction: s.abstraction ?? null,
          })),
    stakingLink: feesV ? (feesV.stakingLink ?? null) : null,
    fees: feesV ? { spotTaker: feesV.userSpotCrossRate, spotMaker: feesV.userSpotAddRate } : null,
    unavailable,
    coreUnavailable: balances === null,
  };
}

/** The delegator's APR of a validator: the week's predictedApr, read by delegatorApr. */
function netAprOf(v: Pick<ValidatorSummary, "commission" | "stats"> | undefined, net: boolean) {
  if (!v) return null;
  const week = validatorPeriodStats(v.stats, "week");
  return delegatorApr(new Decimal(week.predictedApr), new Decimal(v.commission), net).toFixed();
}

export function formatStatus(s: AccountStatus, network: string): string {
  const out: string[] = [];
  const when = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
  const missing = (section: StatusSection) => {
    const u = s.unavailable.find((x) => x.section === section);
    return u ? `not available (${u.query} failed)` : "not available";
  };
  out.push(`Account ${s.account} on ${network} at ${when(s.at)}`);
  if (s.balances === null) {
    out.push(`Spot: ${missing("balances")}`);
  } else {
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
  }
  out.push(
    s.staking === null
      ? `Staking: ${missing("staking")}`
      : `Staking: delegated ${s.staking.delegated} HYPE (${s.staking.locked === null ? "locked: unknown, the delegations could not be read" : `${s.staking.locked} locked`}), ` +
          `idle (undelegated, earning nothing) ${s.staking.undelegated} HYPE, ` +
          `pending withdrawal ${s.staking.pendingWithdrawal} HYPE (${s.staking.nPendingWithdrawals} pending)`,
  );
  if (s.staking !== null && s.staking.nPendingWithdrawals > 0) {
    const dated = s.staking.pendingWithdrawals;
    if (dated === null) out.push(`  withdrawal dates: ${missing("withdrawal dates")}`);
    for (const w of dated ?? [])
      out.push(
        `  withdrawal of ${w.amount} HYPE started ${when(w.startedAt)}, ` +
          (w.backOnSpotAbout === null
            ? "back on spot when the venue's unstaking queue ends (its length on this network is not known to hlbot)"
            : `back on spot about ${when(w.backOnSpotAbout)} (the venue's unstaking queue of ${Math.round((w.backOnSpotAbout - w.startedAt) / 86_400_000)} days)`),
      );
    if (dated !== null && dated.length < s.staking.nPendingWithdrawals)
      out.push(
        `  ${s.staking.nPendingWithdrawals - dated.length}${dated.length === 0 ? ` pending withdrawal${s.staking.nPendingWithdrawals - dated.length === 1 ? "" : "s"}` : " more"} started before the staking history the venue returns (no date known)`,
      );
  }
  out.push(`Account value: ${accountValueLine(s)}`);
  // Headed always: under "Account value" unheaded, they read as a breakdown of it (a consistency trial).
  out.push(
    s.delegations === null
      ? `Delegations: ${missing("delegations")}`
      : `Delegations:${s.delegations.length === 0 ? " none" : ""}`,
  );
  for (const d of s.delegations ?? []) {
    const health =
      d.jailed === null ? "health unknown" : d.jailed ? "JAILED" : d.active ? "active" : "inactive";
    const lock = d.locked ? `locked until ${when(d.lockedUntil)}` : "unlocked";
    out.push(
      `  ${d.name === null ? "(name not available)" : oneLine(d.name)} (${d.validator}): ${d.amount} HYPE, ${health}, commission ${d.commission ?? "?"}, ` +
        `net APR ${netAprText(d.netApr, d.jailed ? "jailed: earns nothing" : d.active === false ? "inactive: earns nothing" : null)}, ${lock}`,
    );
  }
  out.push(
    s.rewards === null
      ? `Staking rewards: ${missing("rewards")}`
      : `Staking rewards: ${s.rewards.total} HYPE in total${s.rewards.last ? `, last ${s.rewards.last.amount} at ${when(s.rewards.last.time)}` : ""}`,
  );
  if (s.twaps === null) {
    out.push(`Running TWAPs: ${missing("twaps")}`);
  } else {
    out.push(s.twaps.length === 0 ? "Running TWAPs: none" : "Running TWAPs:");
    for (const t of s.twaps) {
      const status =
        t.status === "activated"
          ? ""
          : t.status === "waitingForTrigger"
            ? ` [waiting for its trigger${t.trigger === null ? "" : `: mid ${t.trigger.above ? "above" : "below"} ${t.trigger.px}`}]`
            : ` [status ${t.status}]`;
      out.push(
        `  #${t.twapId ?? "?"} ${t.side} ${t.size} ${oneLine(t.pair === null ? t.coin : labelWithVenueName(t.pair, t.coin))} over ${t.minutes} min${t.placedBy ? `, placed ${t.placedBy === "by hand" ? "by hand" : `by ${oneLine(t.placedBy)}`}` : ""}: ${t.executed === null ? "progress not available (userTwapSliceFills could not be read)" : t.atLeast ? `at least ${t.executed} done (${t.progress}% or more: the venue answers an account's latest ${USER_FILLS_MAX} fills)` : `${t.executed} done (${t.progress}%)`}, since ${when(t.startedAt)}${status}`,
      );
    }
  }
  const vip = s.unavailable.some((u) => u.section === "vip")
    ? missing("vip")
    : s.isVip === null
      ? "unknown"
      : s.isVip
        ? "yes"
        : "no";
  out.push(
    s.fees === null
      ? `Fee rates: ${missing("fees and staking link")}; VIP: ${vip}`
      : // Rates, not amounts paid, in percent (an accountant read "Fees: spot taker 0.0006048" as a sum).
        `Fee rates: spot taker ${percentText(s.fees.spotTaker)}, maker ${percentText(s.fees.spotMaker)} of the notional; VIP: ${vip}`,
  );
  out.push(
    s.referral === null
      ? `Referral: ${missing("referral")}`
      : `Referral: ${s.referral.referredBy ? `referred with code ${oneLine(s.referral.referredBy)}` : "not referred"}; referrer stage ${s.referral.stage}; unclaimed rewards ${s.referral.unclaimedRewards}`,
  );
  out.push(
    s.unavailable.some((u) => u.section === "multi-sig")
      ? `Multi-sig: ${missing("multi-sig")}`
      : `Multi-sig: ${s.multiSig ? `${s.multiSig.threshold} of ${s.multiSig.authorizedUsers.join(", ")}` : "no"}`,
  );
  out.push(
    s.subAccounts === null
      ? `Sub-accounts: ${missing("sub-accounts")}`
      : `Sub-accounts: ${
          s.subAccounts.length === 0
            ? "none"
            : s.subAccounts
                .map((a) => `${oneLine(a.name)} (${a.address}${a.abstraction ? `, ${a.abstraction}` : ""})`)
                .join(", ")
        }`,
  );
  if (s.fees === null) {
    out.push(`Staking link: ${missing("fees and staking link")}`);
  } else {
    const link = s.stakingLink;
    // The venue names this account's role and the other account (whichever field carries it:
    // stakingLinkPeer): said the way round a person reads it.
    const peer = link === null ? undefined : (stakingLinkPeer(link) ?? "?");
    const text =
      link === null
        ? "none"
        : link.type === "requested"
          ? `requested to staking account ${peer}, not finalized yet`
          : link.type === "tradingUser"
            ? `this trading account is linked to staking account ${peer}`
            : link.type === "stakingUser"
              ? `this staking account is linked to trading account ${peer}`
              : `${link.type} ${link.tradingUser ?? link.stakingUser ?? ""}`.trimEnd();
    out.push(`Staking link: ${text}`);
  }
  return `${out.join("\n")}\n`;
}

/** The account's value, spot and staking, or why it is not known. */
function accountValueLine(s: AccountStatus): string {
  if (s.valueUsd !== null && s.staking !== null) {
    const staked = new Decimal(s.staking.delegated)
      .plus(s.staking.undelegated)
      .plus(s.staking.pendingWithdrawal);
    return staked.isZero()
      ? `${s.valueUsd} USD (spot)`
      : `${s.valueUsd} USD (spot ${s.totalUsd} USD, staking ${staked.toFixed()} HYPE ${s.staking.usd} USD)`;
  }
  if (s.balances === null) return "not available (no balances)";
  if (s.staking === null) return "not available (no staking balance)";
  return "not available (staked HYPE has no USD price)";
}

/** One warning line per section that could not be read, for stderr. */
export function unavailableLines(s: AccountStatus): string[] {
  return s.unavailable.map((u) => `hlbot: warning: ${u.section} not shown: ${u.error}`);
}

/**
 * Each running TWAP's placer from the bot's journal in `stateDir` (read only if the folder has one: a
 * status never creates a state folder). An owner who removed a strategy could not tell whose TWAP still
 * ran (a trial of edits while TWAPs run).
 */
export async function withPlacers(
  status: AccountStatus,
  stateDir: string,
  configured: ReadonlySet<string>,
): Promise<AccountStatus> {
  if (status.twaps === null || status.twaps.length === 0) return status;
  const { existsSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { STATE_DB_FILE } = await import("../lib/stateDb.js");
  if (!existsSync(join(stateDir, STATE_DB_FILE))) return status;
  const { openJournal } = await import("../engine/journal.js");
  const { MANUAL_STRATEGY } = await import("../engine/intents.js");
  const { KILL_SWITCH_STRATEGY } = await import("../engine/killSwitch.js");
  const { VENUE_HISTORY_STRATEGY } = await import("../engine/journal.js");
  let opened: Awaited<ReturnType<typeof openJournal>>;
  try {
    opened = await openJournal(stateDir);
  } catch {
    return status; // shown without: the journal's own commands say what is wrong with it
  }
  try {
    const twaps = status.twaps.map((t) => {
      const by = t.twapId === null ? undefined : opened.journal.twapPlacedBy(status.account, t.twapId);
      const placedBy =
        by === undefined || by === VENUE_HISTORY_STRATEGY || by === KILL_SWITCH_STRATEGY
          ? null
          : by === MANUAL_STRATEGY
            ? "by hand"
            : configured.has(by)
              ? by
              : `${by} (no longer configured)`;
      return { ...t, placedBy };
    });
    return { ...status, twaps };
  } finally {
    opened.close();
  }
}

/** A fraction as a percentage, exactly ("0.0006048" → "0.06048%"); the text as given when not a number. */
function percentText(fraction: string): string {
  try {
    return `${new Decimal(fraction).times(100).toFixed()}%`;
  } catch {
    return fraction;
  }
}
