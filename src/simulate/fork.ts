// `hlbot simulate --fork`: a scenario that starts from a real account as it is now, like a local fork of
// a chain. One read, through the same info client the bot uses, of the spot metadata and mids, the
// validators, and the account's spot balances, staking (balance, delegations, pending withdrawals,
// history, link) and running TWAPs; the result is a plain scenario in which that account is the one
// labelled "demo", so the simulation adopts its holdings. Given an API wallet's address (userRole
// "agent"), it forks the master's account, which the wallet trades for, and says so.
//
// What a fork cannot know or carry, and what it does instead (said in `notes`, each thing by name):
// - prices after the fork moment: each pair holds its mid at the fork (a flat path) unless the caller
//   replaces `prices` (price history or a random walk); a pair without a mid is left out;
// - when pending withdrawals land: delegatorHistory dates each start, and each lands the unstaking queue
//   after it (venue/constants.ts; testnet's is not known: the longest known is taken); one the history
//   does not date lands after the full queue from the fork (the latest it can);
// - TWAPs running on the account are carried (twapHistory, their progress from userTwapSliceFills) and
//   continue on their schedule; one that cannot be (its pair has no mid, its schedule is over) is not;
// - the staking history is carried, but the fork's journal is new: hlbot's own past moves read as manual;
// - the staking link (userFees.stakingLink) is carried, the linked account's stake is not (fees are fixed);
// - a negative spot balance (a borrow) and an outcome-market balance are left out;
// - order books: modelled from each pair's 24-hour volume (a liquidity class), not read;
// - fees: the account's own rates (userFees, its discounts applied) are charged throughout, so staking
//   during the run does not change them.

import { stakingEvents } from "../engine/readSnapshot.js";
import { Decimal, toWei } from "../lib/decimal.js";
import type { ScenarioInput } from "../simulator/scenario.js";
import { HYPE_WEI_DECIMALS, LONGEST_UNSTAKING_QUEUE_MS, UNSTAKING_QUEUE_MS } from "../venue/constants.js";
import { masterOfAgent } from "../venue/exchange/authority.js";
import type { InfoClient } from "../venue/info/client.js";
import type {
  DelegatorHistoryResponse,
  DelegatorSummaryResponse,
  TwapHistoryResponse,
  UserFeesResponse,
  UserTwapSliceFillsResponse,
} from "../venue/info/methods/index.js";
import {
  latestTwapEntries,
  progressByTwap,
  stakingLinkPeer,
  twapHasEnded,
  twapIsWaiting,
  twapMayTrade,
  VALIDATOR_STATS_PERIODS,
  validatorPeriodStats,
  WITHDRAWAL_PHASES,
} from "../venue/info/methods/index.js";
import type { NetworkName } from "../venue/networks.js";

/** HYPE is 8 decimals in the venue's stake figures (validatorSummaries.stake is HYPE × 1e8). */
const STAKE_UNIT = 10n ** BigInt(HYPE_WEI_DECIMALS);

/**
 * 24-hour notional volume (quote units) from which a pair's book is modelled as deep or medium. An
 * assumption of hlbot, not a venue figure: the fork cannot read the book's depth over time.
 */
const DEEP_VOLUME = 10_000_000;
const MEDIUM_VOLUME = 250_000;

function liquidityClass(dayVolume: number): "deep" | "medium" | "thin" {
  return dayVolume >= DEEP_VOLUME ? "deep" : dayVolume >= MEDIUM_VOLUME ? "medium" : "thin";
}

export interface ForkResult {
  /** The account read (lower case; an API wallet's master when given an API wallet); the demo account. */
  account: string;
  scenario: ScenarioInput;
  /** The fork moment (the venue's clock if it sent one, else the local clock). */
  at: number;
  /** What the fork approximated, one sentence each. */
  notes: string[];
  /**
   * The account's TWAPs that had ended by the fork moment (twapHistory's latest record of each): what a
   * budgeted DCA spent before the fork and what the daily limit counts, imported into the simulation's
   * journal as `hlbot journal rebuild` imports them (a fork trial: the fork's DCA spent 502 USD of its
   * budget again that a live bot's rebuilt journal counted).
   */
  endedTwaps: TwapHistoryResponse;
  holdings: {
    spot: Record<string, string>;
    delegated: string;
    undelegated: string;
    pendingWithdrawal: string;
  };
}

const DAY_MS = 24 * 60 * 60_000;

/** Items a note names one by one before it says "and N more". */
const MAX_NAMED = 20;

/**
 * The scenario's accounts: the forked one (the demo account) with its staking link, and the trading
 * account when it is the staking side of one. A link hlbot cannot read is said, not guessed.
 */
function stakingLinkAccounts(
  user: `0x${string}`,
  link: UserFeesResponse["stakingLink"],
  notes: string[],
): NonNullable<ScenarioInput["accounts"]> {
  const me = { address: user, label: "demo" };
  if (link === null) return [me];
  const peer = stakingLinkPeer(link);
  const carried = (text: string) =>
    notes.push(`${text}; that account's own stake is not carried (fees hold the account's rates)`);
  if (peer !== undefined && (link.type === "tradingUser" || link.type === "requested")) {
    const status = link.type === "tradingUser" ? "linked" : "requested";
    carried(`staking link to staking account ${peer} (${status}) carried`);
    return [{ ...me, stakingLink: { stakingUser: peer, status } }];
  }
  if (peer !== undefined && link.type === "stakingUser") {
    carried(`staking link carried: this account stakes for trading account ${peer}`);
    return [me, { address: peer, stakingLink: { stakingUser: user, status: "linked" } }];
  }
  notes.push(
    `staking link ${JSON.stringify(link)} is not carried: hlbot cannot read it; the fork has no link`,
  );
  return [me];
}

/**
 * The pending withdrawals, one entry each (the venue queues a limited number: the count matters), each
 * landing the unstaking queue after it started: the latest `nPendingWithdrawals` starts in the staking
 * history. When the history does not account for them all (it no longer reaches back, or its amounts
 * differ from the total), the undated rest lands after the full queue from the fork, said in `notes`.
 */
function pendingWithdrawals(
  summary: DelegatorSummaryResponse,
  history: DelegatorHistoryResponse,
  at: number,
  queue: number,
  notes: string[],
): Array<{ amount: string; finalizesIn: number }> {
  const n = summary.nPendingWithdrawals;
  const total = new Decimal(summary.totalPendingWithdrawal);
  if (n <= 0 || total.lte(0)) return [];
  const started = stakingEvents(history)
    .filter((e) => e.kind === "withdrawalInitiated")
    .slice(-n);
  const dated = started.reduce((sum, e) => sum.plus(e.amount), new Decimal(0));
  if (started.length === n && dated.eq(total))
    return started.map((e) => ({
      amount: e.amount.toFixed(),
      finalizesIn: Math.max(0, e.time + queue - at),
    }));
  // The history does not date them all: the dated ones keep their dates when they fit in the total.
  const keep = dated.lte(total) && started.length < n ? started : [];
  const rest = total.minus(keep.reduce((sum, e) => sum.plus(e.amount), new Decimal(0)));
  const undated = n - keep.length;
  const share = rest.div(undated).toDecimalPlaces(8, Decimal.ROUND_DOWN);
  notes.push(
    `${rest.toFixed()} HYPE of ${total.toFixed()} pending withdrawal (${undated} of ${n}) is not dated by the staking history: it lands after the full queue from the fork, the latest it can`,
  );
  return [
    ...keep.map((e) => ({ amount: e.amount.toFixed(), finalizesIn: Math.max(0, e.time + queue - at) })),
    ...Array.from({ length: undated }, (_, i) => ({
      amount: (i === undated - 1 ? rest.minus(share.times(undated - 1)) : share).toFixed(),
      finalizesIn: queue,
    })),
  ];
}

type StakingEntry = NonNullable<NonNullable<ScenarioInput["staking"]>[string]["history"]>[number];

/**
 * delegatorHistory as scenario entries, so a strategy reading it (validator-staking's respectManualDays)
 * sees the account's past. The fork's journal is new, so the bot's own past moves read as by hand: said.
 */
function stakingHistoryEntries(history: DelegatorHistoryResponse, notes: string[]): StakingEntry[] {
  const out: StakingEntry[] = [];
  for (const e of history) {
    const d = e.delta;
    const phase = WITHDRAWAL_PHASES.find((p) => p === d.withdrawal?.phase);
    const delta: StakingEntry["delta"] | undefined = d.delegate
      ? {
          delegate: {
            validator: d.delegate.validator,
            amount: d.delegate.amount,
            isUndelegate: d.delegate.isUndelegate,
          },
        }
      : d.cDeposit
        ? { cDeposit: { amount: d.cDeposit.amount } }
        : d.withdrawal && phase !== undefined
          ? { withdrawal: { amount: d.withdrawal.amount, phase } }
          : undefined;
    if (delta === undefined)
      notes.push(`a staking history event hlbot cannot read is not carried: ${JSON.stringify(e)}`);
    else out.push({ time: e.time, hash: e.hash, delta });
  }
  if (out.length > 0)
    notes.push(
      `the staking history (${out.length} event(s) of delegatorHistory) is carried; the fork's journal is new, so hlbot's own past moves in it count as done by hand (validator-staking's respectManualDays): its first staking decisions may differ from a live bot's, which knows its own moves from its journal (a delegation hlbot made, read as yours, can make the fork delegate stake you undelegated by hand; an undelegation it made is held as yours)`,
    );
  return out;
}

type CarriedTwap = Omit<NonNullable<ScenarioInput["twaps"]>[number], "user">;

/**
 * The account's TWAPs still running at `at` as scenario entries: each TWAP's latest record, its progress
 * from the slice fills (twapHistory states the executed size only at status changes). One that cannot be
 * carried (its pair has no mid here, its schedule is over but its final record not written yet, a status
 * hlbot does not know) is said in `notes`.
 */
function runningTwaps(
  history: TwapHistoryResponse,
  fills: UserTwapSliceFillsResponse,
  at: number,
  pairs: ReadonlySet<string>,
  notes: string[],
): CarriedTwap[] {
  const done = progressByTwap(fills);
  const out: CarriedTwap[] = [];
  for (const entry of latestTwapEntries(history)) {
    if (twapHasEnded(entry) || !twapMayTrade(entry, at)) continue;
    const st = entry.state;
    const name = `TWAP ${entry.twapId === undefined ? "" : `#${entry.twapId} `}(${st.side === "B" ? "buy" : "sell"} ${st.sz} on ${st.coin} over ${st.minutes} min, started ${new Date(st.timestamp).toISOString()})`;
    const size = new Decimal(st.sz);
    const progress = entry.twapId === undefined ? undefined : done.get(entry.twapId);
    const executedSz = Decimal.max(new Decimal(st.executedSz), progress?.sz ?? 0);
    const executedNtl = Decimal.max(new Decimal(st.executedNtl), progress?.ntl ?? 0);
    const startedAgo = Math.max(0, at - st.timestamp);
    const why = twapIsWaiting(entry)
      ? `it waits for its trigger price${st.trigger ? ` (mid ${st.trigger.above ? "above" : "below"} ${st.trigger.px})` : ""}, which the simulator does not model`
      : entry.status.status !== "activated"
        ? `its status is "${entry.status.status}", which hlbot does not know`
        : !pairs.has(st.coin)
          ? "its pair is not in the fork (no mid)"
          : startedAgo >= st.minutes * 60_000 || executedSz.gte(size)
            ? "its schedule is over (its final record not written yet)"
            : undefined;
    if (why !== undefined) {
      notes.push(`${name} is not carried: ${why}; what it may still execute stays on spot`);
      continue;
    }
    out.push({
      pair: st.coin,
      side: st.side === "B" ? "buy" : "sell",
      size: st.sz,
      minutes: st.minutes,
      startedAgo,
      executedSz: executedSz.toFixed(),
      executedNtl: executedNtl.toFixed(),
      randomize: st.randomize,
      ...(entry.twapId === undefined ? {} : { id: entry.twapId }),
    });
    notes.push(
      `${name} is carried: it continues with ${size.minus(executedSz).toFixed()} left over ${Math.max(0, Math.round((st.timestamp + st.minutes * 60_000 - at) / 60_000))} min`,
    );
  }
  return out;
}

/** Quote notional of the account's TWAP slice fills per coin in the 24 h before `at` (each fill once). */
function ownDayVolume(fills: UserTwapSliceFillsResponse, at: number): Map<string, number> {
  const out = new Map<string, number>();
  const seen = new Set<number>();
  for (const { fill } of fills) {
    if (seen.has(fill.tid) || fill.time < at - DAY_MS || fill.coin === undefined || fill.px === undefined)
      continue;
    seen.add(fill.tid);
    out.set(fill.coin, (out.get(fill.coin) ?? 0) + Number(fill.px) * Number(fill.sz));
  }
  return out;
}

export async function forkAccount(
  info: InfoClient,
  account: string,
  opts: { network: string; now: () => number; signal?: AbortSignal; predictedAprNet?: boolean },
): Promise<ForkResult> {
  const { signal } = opts;
  const notes: string[] = [];
  const given = account.toLowerCase() as `0x${string}`;
  // An API wallet holds nothing: the account it trades for is the one to fork (as `hlbot status` shows).
  const role = await info.userRole({ user: given }, signal);
  const master = await masterOfAgent({ userRole: async () => role }, given); // the answer read once
  const user = (master ?? given) as `0x${string}`;
  if (master !== undefined)
    notes.push(`${given} is an API wallet of ${master}: forked ${master}, the account it trades for`);
  else if (role.role === "missing")
    notes.push(
      `${given} is not known to the venue (userRole "missing"): the fork starts from an empty account`,
    );
  const [meta, ctxs] = await info.spotMetaAndAssetCtxs({}, signal);
  const volumes = new Map(ctxs.map((c) => [c.coin, Number(c.dayNtlVlm)]));
  const mids = await info.allMids({}, signal);
  const validators = await info.validatorSummaries({}, signal);
  const spot = await info.spotClearinghouseState({ user }, signal);
  const staking = await info.delegatorSummary({ user }, signal);
  const delegations = await info.delegations({ user }, signal);
  const fees = await info.userFees({ user }, signal);
  const stakingHistory = await info.delegatorHistory({ user }, signal);
  const twapHistory = await info.twapHistory({ user }, signal);
  const sliceFills = await info.userTwapSliceFills({ user }, signal);
  const at = info.transport.lastServerDate()?.getTime() ?? opts.now();
  // Token names need not be unique on the venue (hummingbot PR #7202): of two alike, the first (lowest
  // index) is kept, as the snapshot does.
  const tokens = new Map<number, (typeof meta.tokens)[number]>();
  const names = new Set<string>();
  for (const t of [...meta.tokens].sort((a, b) => a.index - b.index)) {
    if (names.has(t.name)) continue;
    names.add(t.name);
    tokens.set(t.index, t);
  }
  // The venue's day volume includes the account's own trades: a book sized from it is deeper than the
  // others' trading makes it (a fork trial: 60,918 USDC of the account's own TWAP on a thin pair moved it
  // to "medium", and the bot's 5,000-USDC buy cost 6 bps instead of 32). Its TWAP fills of the last 24 h
  // are taken out (its other trades are not read).
  for (const [coin, own] of ownDayVolume(sliceFills, at)) {
    const venue = volumes.get(coin);
    if (venue === undefined || own <= 0) continue;
    volumes.set(coin, Math.max(0, venue - own));
    const pair = meta.universe.find((u) => u.name === coin);
    const label =
      pair === undefined ? coin : `${tokens.get(pair.tokens[0])?.name}/${tokens.get(pair.tokens[1])?.name}`;
    notes.push(
      `${label}: the venue's 24-h volume of ${venue.toFixed(2)} includes ${own.toFixed(2)} of this account's own TWAP fills; the book is sized from the rest (its other own trades are not taken out)`,
    );
  }

  const pairs = meta.universe.filter(
    (p) => tokens.has(p.tokens[0]) && tokens.has(p.tokens[1]) && mids[p.name] !== undefined,
  );
  const left = meta.universe.filter((p) => !pairs.includes(p));
  if (left.length > 0) {
    const named = left.map((p) => {
      const [base, quote] = p.tokens.map((i) => tokens.get(i)?.name ?? `token ${i}`);
      return `${p.name} (${base}/${quote}${mids[p.name] === undefined ? "" : ", a token not listed"})`;
    });
    const shown =
      named.length > MAX_NAMED
        ? [...named.slice(0, MAX_NAMED), `and ${named.length - MAX_NAMED} more`]
        : named;
    notes.push(
      `${left.length} pair(s) without a mid at the fork are left out (not traded, not priced): ${shown.join(", ")}`,
    );
  }

  const balances: Record<string, string> = {};
  for (const b of spot.balances) {
    if (b.token === undefined) {
      notes.push(`${b.total} ${b.coin} (an outcome-market balance, not a spot token) is not carried`);
      continue;
    }
    const amount = new Decimal(b.total);
    if (amount.isZero()) continue;
    const token = tokens.get(b.token);
    if (token === undefined)
      notes.push(
        `${b.total} ${b.coin} (token ${b.token}) is left out: its token is not in the fork's metadata`,
      );
    else if (amount.isNegative())
      notes.push(
        `${b.total} ${b.coin} (a negative balance: a borrow) is left out: the fork starts with 0 ${b.coin} and owes nothing`,
      );
    else balances[token.name] = b.total;
  }
  const twaps = runningTwaps(twapHistory, sliceFills, at, new Set(pairs.map((p) => p.name)), notes);
  const held = spot.balances.filter((b) => Number(b.hold) > 0).map((b) => b.coin);
  if (held.length > 0)
    notes.push(
      `balances held on the venue (${held.join(", ")}) start free, but for what the carried TWAPs hold when settings.twapHolds is on: open orders are not carried over`,
    );

  const queue = UNSTAKING_QUEUE_MS[opts.network as NetworkName] ?? LONGEST_UNSTAKING_QUEUE_MS;
  const withdrawals = pendingWithdrawals(staking, stakingHistory, at, queue, notes);
  if (withdrawals.length > 0 && UNSTAKING_QUEUE_MS[opts.network as NetworkName] === undefined)
    notes.push(
      `the unstaking queue of ${opts.network} is not known: pending withdrawals land ${queue / DAY_MS} days after they started (the longest known queue)`,
    );
  const carriedHistory = stakingHistoryEntries(stakingHistory, notes);
  const linked = stakingLinkAccounts(user, fees.stakingLink, notes);
  notes.push("prices hold the fork's mids (flat) unless replaced");
  // The account's own rates (userFees: its volume tier, staking and referral discounts applied), fixed.
  const pct = (rate: string) => `${Number((Number(rate) * 100).toPrecision(6))}%`;
  notes.push(
    `fees are the account's own rates from userFees, spot taker ${pct(fees.userSpotCrossRate)} and maker ${pct(fees.userSpotAddRate)} ` +
      `(staking discount ${fees.activeStakingDiscount === undefined ? "not stated" : pct(fees.activeStakingDiscount.discount)}, referral discount ${fees.activeReferralDiscount === undefined ? "not stated" : pct(fees.activeReferralDiscount)} included), ` +
      "held for the whole run: staking more during it does not lower them",
  );
  notes.push(
    `order books are modelled by each pair's 24-hour volume (deep from ${DEEP_VOLUME.toLocaleString("en-US")} USDC, medium from ${MEDIUM_VOLUME.toLocaleString("en-US")}, else thin): assumptions, not the real books`,
  );

  const own = new Map(
    delegations.map((d) => [d.validator.toLowerCase(), toWei(new Decimal(d.amount), 8, "delegation")]),
  );
  const scenario: ScenarioInput = {
    name: `fork of ${user} on ${opts.network}`,
    description: `Read from ${opts.network} at ${new Date(at).toISOString()}`,
    settings: {
      startTime: at,
      withdrawalDelay: queue,
      fees: {
        cross: fees.userCrossRate,
        add: fees.userAddRate,
        spotCross: fees.userSpotCrossRate,
        spotAdd: fees.userSpotAddRate,
        stakingDiscount: false,
        referralDiscount: "0",
      },
    },
    tokens: [...tokens.values()].map((t) => ({
      name: t.name,
      index: t.index,
      szDecimals: t.szDecimals,
      weiDecimals: t.weiDecimals,
      tokenId: t.tokenId,
      fullName: t.fullName,
      isCanonical: t.isCanonical,
    })),
    pairs: pairs.map((p) => ({
      index: p.index,
      base: tokens.get(p.tokens[0])!.name,
      quote: tokens.get(p.tokens[1])!.name,
      isCanonical: p.isCanonical,
      name: p.name,
      dayNtlVlm: String(volumes.get(p.name) ?? 0),
      book: { class: liquidityClass(volumes.get(p.name) ?? 0) },
    })),
    prices: Object.fromEntries(pairs.map((p) => [p.name, { start: mids[p.name]!, volatility: 0 }])),
    validators: validators.map((v) => {
      // The venue's stake includes the account's own delegation, which the simulator adds again from
      // `delegations`: the scenario's stake is the others'.
      const others = v.stake - (own.get(v.validator.toLowerCase()) ?? 0n);
      const stake = others < 0n ? 0n : others;
      return {
        address: v.validator,
        signer: v.signer,
        name: v.name,
        description: v.description,
        stake: `${stake / STAKE_UNIT}.${(stake % STAKE_UNIT).toString().padStart(8, "0")}`,
        commission: v.commission,
        isJailed: v.isJailed,
        unjailableAfter: v.unjailableAfter,
        isActive: v.isActive,
        nRecentBlocks: v.nRecentBlocks,
        // By name: the venue may list the periods in any order, and others beside them.
        stats: Object.fromEntries(
          VALIDATOR_STATS_PERIODS.map((name) => {
            const st = validatorPeriodStats(v.stats, name);
            // The simulator's rate is before commission; the venue's, after it (src/venue/constants.ts;
            // read as before commission when the bot file says venue.predictedAprNet: false).
            const keep = new Decimal(1).minus(v.commission);
            const stated = new Decimal(st.predictedApr);
            const before =
              (opts.predictedAprNet ?? true) === false
                ? stated
                : keep.gt(0)
                  ? stated.div(keep)
                  : new Decimal(0);
            return [
              name,
              {
                uptimeFraction: st.uptimeFraction,
                predictedApr: before.toSignificantDigits(12).toFixed(),
                nSamples: st.nSamples,
              },
            ];
          }),
        ),
      };
    }),
    accounts: linked,
    balances: { [user]: balances },
    staking: {
      [user]: {
        undelegated: staking.undelegated,
        pendingWithdrawals: withdrawals,
        history: carriedHistory,
      },
    },
    twaps: twaps.map((t) => ({ ...t, user })),
    delegations: delegations
      .filter((d) => Number(d.amount) > 0)
      .map((d) => ({
        user,
        validator: d.validator,
        amount: d.amount,
        lockedFor: Math.max(0, d.lockedUntilTimestamp - at),
      })),
  };
  return {
    account: user,
    scenario,
    at,
    notes,
    endedTwaps: latestTwapEntries(twapHistory).filter((e) => twapHasEnded(e)),
    holdings: {
      spot: balances,
      delegated: staking.delegated,
      undelegated: staking.undelegated,
      pendingWithdrawal: staking.totalPendingWithdrawal,
    },
  };
}
