// Fills a Snapshot from the info client. Only the queries the running strategies need are made (each
// costs request weight against the venue's per-minute budget), in parallel, and every answer has been
// validated by its schema before it gets here. Any failed or invalid read fails the whole snapshot:
// nothing is ever decided on partial data.
import type { Logger } from "pino";
import { Decimal, ZERO } from "../lib/decimal.js";
import { describeError, InternalError } from "../lib/errors.js";
import { delegatorApr, PREDICTED_APR_NET_DEFAULT, SPOT_ASSET_OFFSET } from "../venue/constants.js";
import type { InfoClient } from "../venue/info/client.js";
import {
  type DelegatorHistoryResponse,
  filledByTwap,
  latestTwapEntries,
  type OpenOrdersResponse,
  type SpotMetaAndAssetCtxsResponse,
  type SpotMetaResponse,
  stakingLinkPeer,
  type TwapHistoryEntry,
  type TwapHistoryResponse,
  twapHasEnded,
  twapIsWaiting,
  twapMayTrade,
  VALIDATOR_STATS_PERIODS,
  type StakingLink as VenueStakingLink,
  validatorPeriodStats,
} from "../venue/info/methods/index.js";
import { perAnswer } from "../venue/info/query.js";
import type { NetworkName } from "../venue/networks.js";
import { DEFAULT_TWAP_BUY_RESERVE } from "./allocate.js";
import type {
  Delegation,
  MultiSigInfo,
  PairMarks,
  RunningTwap,
  Snapshot,
  SnapshotPart,
  SpotBalance,
  SpotPair,
  SpotToken,
  StakingEvent,
  StakingLink,
  StakingSummary,
  ValidatorInfo,
  VenueRules,
} from "./snapshot.js";

/** Groups of reads; each strategy kind declares which it needs (`reads` in its definition). */
export type { SnapshotPart } from "./snapshot.js";

/**
 * Facts about the account that change rarely and that the cycle acts on; read once at start-up (see
 * readAccountFacts). Only what a cycle uses: the multi-sig refusal. VIP status and sub-accounts are
 * shown by `hlbot status` and never read by a cycle (no strategy uses them, and each read costs weight
 * and is one more answer that could stop trading).
 */
export interface AccountFacts {
  multiSig: MultiSigInfo | null;
}

export interface ReadSnapshotOptions {
  account: string;
  network: NetworkName;
  rules: VenueRules;
  parts: ReadonlySet<SnapshotPart>;
  facts: AccountFacts;
  now: number;
  /**
   * The venue's time (VenueClock.now), when known: a TWAP counts as running until its scheduled end by the
   * earlier of the two clocks, so a local clock ahead does not end it early (the kill switch would not
   * cancel it, and a second TWAP would go beside it).
   */
  venueNow?: (() => number | undefined) | undefined;
  signal?: AbortSignal;
  /** Copied into the snapshot (limits.validatorAllowlist). */
  validatorAllowlist?: readonly string[] | undefined;
  /** Told of a read that failed without failing the snapshot (the running TWAPs' slice fills). */
  logger?: Logger | undefined;
  /**
   * Read the staking balances too, for what is only shown (the metrics), when `parts` lacks "staking":
   * a failed read leaves them unread (not in the snapshot's parts) and fails nothing. A review: read as
   * a required part for the metrics, a failing `delegations` held every cycle of a DCA-only daemon and
   * its kill switch's cancels.
   */
  stakingIfReadable?: boolean;
}

export async function readAccountFacts(
  info: InfoClient,
  account: string,
  signal?: AbortSignal,
): Promise<AccountFacts> {
  const multiSig = await info.userToMultiSigSigners({ user: account }, signal);
  return {
    multiSig: multiSig
      ? { authorizedUsers: [...multiSig.authorizedUsers], threshold: multiSig.threshold }
      : null,
  };
}

export async function readSnapshot(info: InfoClient, o: ReadSnapshotOptions): Promise<Snapshot> {
  const user = o.account;
  const s = o.signal;
  const want = (p: SnapshotPart) => o.parts.has(p);
  const optionalStaking = !want("staking") && o.stakingIfReadable === true;
  // Both or neither: a summary without its delegations would value the stake without its locks.
  const stakingRead = optionalStaking
    ? Promise.all([info.delegatorSummary({ user }, o.signal), info.delegations({ user }, o.signal)]).catch(
        (err: unknown) => {
          o.logger?.warn(
            { err: describeError(err) },
            "staking balances unreadable this cycle (read for the metrics only): the gauges keep the last ones",
          );
          return undefined;
        },
      )
    : undefined;
  // spotMetaAndAssetCtxs answers spotMeta too (its first element): when the marks are needed, one read
  // gives both, for the weight of one.
  const withMarks = want("twaps");
  const [
    metaAlone,
    mids,
    spot,
    twapHistory,
    fees,
    required,
    requiredDelegations,
    validators,
    ctxs,
    history,
    optional,
  ] = await Promise.all([
    withMarks ? undefined : info.spotMeta({}, s),
    info.allMids({}, s),
    info.spotClearinghouseState({ user }, s),
    want("twaps") ? info.twapHistory({ user }, s) : undefined,
    // Only for what sizes orders (the TWAP strategies declare "fees"): a cancel-only cycle (the kill
    // switch's, the watch's) and a staking cycle do without it, so an answer there cannot hold a cancel
    // (an audit: a userFees answer hlbot refused failed `hlbot stop --cancel-twaps`).
    want("fees") ? info.userFees({ user }, s) : undefined,
    want("staking") ? info.delegatorSummary({ user }, s) : undefined,
    want("staking") ? info.delegations({ user }, s) : undefined,
    want("validators") ? info.validatorSummaries({}, s) : undefined,
    // The mark and previous-day prices that TWAP prices are cross-checked against (priceSanity.ts).
    withMarks ? info.spotMetaAndAssetCtxs({}, s) : undefined,
    want("stakingHistory") ? info.delegatorHistory({ user }, s) : undefined,
    stakingRead,
  ]);

  const meta = metaAlone ?? ctxs?.[0];
  if (meta === undefined)
    throw new InternalError("spotMeta was read neither alone nor with the asset contexts");
  const { tokens, pairs } = spotUniverse(meta, mids);
  const balances = new Map<string, SpotBalance>();
  for (const b of spotBalances(spot.balances)) {
    // A name means the token its pairs trade (the lowest index: tokensOfAnswer): the balance of a token
    // deployed later under the same name is not that token's (a tokens trial: a lookalike's 7 "UBTC"
    // listed after the real 0.1 were taken for UBTC, and a rebalancer sold real UBTC against them).
    if (isLookalike(tokens, b)) continue;
    balances.set(b.coin, b);
  }
  const twaps = twapHistory ? runningTwaps(twapHistory, pairs, Math.min(o.now, o.venueNow?.() ?? o.now)) : [];
  // What running TWAPs filled so far (twapHistory says 0 while they run): read only while one runs. An
  // answer that cannot be read fails nothing (the kill switch's cancels need this snapshot): every running
  // TWAP then keeps its whole size out of new orders (fail closed).
  let twapFilled: Map<number, Decimal> | undefined;
  if (twaps.length > 0) {
    try {
      twapFilled = filledByTwap(await info.userTwapSliceFills({ user }, s));
    } catch (err) {
      if (s?.aborted) throw err;
      o.logger?.warn(
        { err: describeError(err) },
        "running TWAPs' slice fills unreadable: each keeps its whole size out of new orders this cycle",
      );
    }
    const committed = twapCommitments(
      balances,
      twaps,
      twapFilled ?? new Map(),
      pairs,
      o.rules.twapBuyReserve ?? DEFAULT_TWAP_BUY_RESERVE,
    );
    // The venue's hold is not the TWAPs' unless the venue is known to hold for them (venue.twapHolds):
    // it holds resting orders and, on unified and portfolio-margin accounts, perp margin too, so by
    // default the commitment goes on top of all of it (reviews: a 3,000-USDC resting buy, then perp
    // margin, hid 3,000 of a TWAP's 5,150). When the venue does hold for TWAPs, what of its hold is
    // resting orders' is read (openOrders) and the commitment held beside it; unreadable, the whole hold
    // is taken as orders' (fail closed). Nothing is read by default: an emergency stop's cancels do not
    // wait for it.
    let resting: Map<string, Decimal> | undefined;
    if (o.rules.twapHolds === true && [...committed].some(([coin]) => balances.get(coin)?.hold.gt(0))) {
      try {
        resting = restingOrderHolds(await info.openOrders({ user }, s), pairs);
      } catch (err) {
        if (s?.aborted) throw err;
        o.logger?.warn(
          { err: describeError(err) },
          "open orders unreadable: running TWAPs' commitments are held on top of the venue's whole hold this cycle",
        );
      }
    }
    holdTwapCommitments(balances, committed, resting);
  }

  const summary = required ?? optional?.[0];
  const delegations = requiredDelegations ?? optional?.[1];
  const staking: StakingSummary = summary
    ? {
        delegated: new Decimal(summary.delegated),
        undelegated: new Decimal(summary.undelegated),
        totalPendingWithdrawal: new Decimal(summary.totalPendingWithdrawal),
        nPendingWithdrawals: summary.nPendingWithdrawals,
      }
    : { delegated: ZERO, undelegated: ZERO, totalPendingWithdrawal: ZERO, nPendingWithdrawals: 0 };

  const delegationList: Delegation[] = (delegations ?? []).map((d) => ({
    validator: d.validator.toLowerCase(),
    amount: new Decimal(d.amount),
    lockedUntil: d.lockedUntilTimestamp,
  }));

  const validatorList: ValidatorInfo[] = (validators ?? []).map((v) => {
    // The periods hlbot reads, by name (the venue may list them in any order, and others beside them).
    const stats = Object.fromEntries(
      VALIDATOR_STATS_PERIODS.map((period) => {
        const st = validatorPeriodStats(v.stats, period);
        return [
          period,
          {
            uptimeFraction: new Decimal(st.uptimeFraction),
            predictedApr: new Decimal(st.predictedApr),
            delegatorApr: delegatorApr(
              new Decimal(st.predictedApr),
              new Decimal(v.commission),
              o.rules.predictedAprNet ?? PREDICTED_APR_NET_DEFAULT,
            ),
            nSamples: st.nSamples,
          },
        ];
      }),
    ) as ValidatorInfo["stats"];
    return {
      address: v.validator.toLowerCase(),
      name: v.name,
      stake: v.stake,
      isJailed: v.isJailed,
      isActive: v.isActive,
      commission: new Decimal(v.commission),
      unjailableAfter: v.unjailableAfter,
      stats,
    };
  });

  return {
    takenAt: o.now,
    network: o.network,
    account: user.toLowerCase(),
    tokens,
    pairs,
    balances,
    staking,
    delegations: delegationList,
    validators: validatorList,
    parts: optional === undefined ? o.parts : new Set([...o.parts, "staking"]),
    twaps,
    ...(twapFilled === undefined ? {} : { twapFilled }),
    ...(twapHistory ? { recentTwaps: recentTwaps(twapHistory, pairs, o.now - DAY_MS), twapHistory } : {}),
    stakingLink: snapshotLink(fees?.stakingLink ?? null),
    spotTakerFee: fees ? new Decimal(fees.userSpotCrossRate) : ZERO,
    multiSig: o.facts.multiSig,
    rules: o.rules,
    ...(ctxs ? { marks: pairMarks(ctxs[1]) } : {}),
    ...(history ? { stakingHistory: stakingEvents(history) } : {}),
    ...(o.validatorAllowlist && o.validatorAllowlist.length > 0
      ? { validatorAllowlist: o.validatorAllowlist.map((a) => a.toLowerCase()) }
      : {}),
  };
}

/** The venue's link as strategies see it: a kind or address hlbot cannot read becomes "unknown". */
function snapshotLink(link: VenueStakingLink): StakingLink {
  if (link === null) return null;
  const peer = stakingLinkPeer(link);
  if (peer === undefined) return { type: "unknown", venueType: link.type };
  if (link.type === "requested") return { type: "requested", stakingUser: peer };
  if (link.type === "tradingUser") return { type: "tradingUser", stakingUser: peer };
  if (link.type === "stakingUser") return { type: "stakingUser", tradingUser: peer };
  return { type: "unknown", venueType: link.type, peer };
}

function pairMarks(ctxs: SpotMetaAndAssetCtxsResponse[1]): Map<string, PairMarks> {
  const marks = new Map<string, PairMarks>();
  for (const c of ctxs) {
    marks.set(c.coin, {
      markPx: new Decimal(c.markPx),
      midPx: c.midPx === null ? undefined : new Decimal(c.midPx),
      prevDayPx: new Decimal(c.prevDayPx),
      dayNtlVlm: new Decimal(c.dayNtlVlm),
    });
  }
  return marks;
}

const DAY_MS = 24 * 60 * 60_000;

/** delegatorHistory (newest first, unknown kinds kept) as staking events, oldest first. */
export function stakingEvents(history: DelegatorHistoryResponse): StakingEvent[] {
  const events: StakingEvent[] = [];
  for (const e of history) {
    const d = e.delta;
    if (d.delegate) {
      events.push({
        time: e.time,
        kind: d.delegate.isUndelegate ? "undelegate" : "delegate",
        validator: d.delegate.validator.toLowerCase(),
        amount: new Decimal(d.delegate.amount),
      });
    } else if (d.cDeposit) {
      events.push({ time: e.time, kind: "deposit", amount: new Decimal(d.cDeposit.amount) });
    } else if (d.withdrawal) {
      events.push({
        time: e.time,
        kind: d.withdrawal.phase === "initiated" ? "withdrawalInitiated" : "withdrawalFinalized",
        amount: new Decimal(d.withdrawal.amount),
      });
    }
  }
  // Newest first on the wire; reversed before the (stable) sort so equal times keep their real order.
  return events.reverse().sort((a, b) => a.time - b.time);
}

/** Tokens by name and pairs by venue name. A duplicated token name keeps its canonical (lowest) index. */
/**
 * Whether a balance is of a token deployed later under the name of another (the name's token is the one
 * its pairs trade, the lowest index: tokensOfAnswer): not that token's, nor valued at its price.
 */
export function isLookalike(
  tokens: ReadonlyMap<string, { index: number }>,
  balance: { coin: string; token?: number | undefined },
): boolean {
  const named = tokens.get(balance.coin);
  return named !== undefined && named.index !== balance.token;
}

export function spotUniverse(
  meta: SpotMetaResponse,
  mids: Record<string, string>,
): { tokens: Map<string, SpotToken>; pairs: Map<string, SpotPair> } {
  const { tokens, byIndex } = tokensOf(meta);
  const pairs = new Map<string, SpotPair>();
  for (const p of meta.universe) {
    const base = byIndex.get(p.tokens[0]);
    const quote = byIndex.get(p.tokens[1]);
    if (base === undefined || quote === undefined) continue;
    const mid = mids[p.name];
    pairs.set(p.name, {
      name: p.name,
      index: p.index,
      assetId: SPOT_ASSET_OFFSET + p.index,
      base,
      quote,
      mid: mid === undefined ? undefined : new Decimal(mid),
    });
  }
  return { tokens, pairs };
}

/**
 * The tokens of a metadata answer by name and by index, kept per answer object (mainnet lists hundreds).
 * The tokens are frozen: every snapshot made of that answer shares them (in a map of its own).
 */
const tokensOfAnswer = perAnswer((meta: SpotMetaResponse) => {
  const byIndex = new Map<number, SpotToken>();
  const tokens = new Map<string, SpotToken>();
  for (const t of meta.tokens) {
    const token: SpotToken = Object.freeze({
      name: t.name,
      index: t.index,
      tokenId: t.tokenId,
      szDecimals: t.szDecimals,
      weiDecimals: t.weiDecimals,
    });
    byIndex.set(t.index, token);
    const known = tokens.get(t.name);
    if (known === undefined || t.index < known.index) tokens.set(t.name, token);
  }
  return { tokens, byIndex };
});

function tokensOf(meta: SpotMetaResponse): {
  tokens: Map<string, SpotToken>;
  byIndex: ReadonlyMap<number, SpotToken>;
} {
  const kept = tokensOfAnswer(meta);
  return { tokens: new Map(kept.tokens), byIndex: kept.byIndex };
}

type VenueBalances = Awaited<ReturnType<InfoClient["spotClearinghouseState"]>>["balances"];

/**
 * The spot balances of a spotClearinghouseState answer as Decimals, kept per answer object (balances
 * change only with fills). Outcome-market balances (no token) are not spot tokens.
 */
const spotBalances = perAnswer((list: VenueBalances): readonly SpotBalance[] =>
  list.flatMap((b) => {
    if (b.token === undefined) return [];
    const total = new Decimal(b.total);
    // Under portfolio margin `hold` is said to be net of what the account could borrow against its
    // collateral, and `spotHold` the same reserve before that netting (JKorf/HyperLiquid.Net PR #102,
    // not in the venue's docs): total − hold would then include borrowable funds, and a buy sized from it
    // would borrow. The larger of the two is held (fail closed); `spotHold` is absent when it is 0. A
    // negative hold (the venue's docs allow it) holds nothing, rather than adding to what is available.
    const hold = Decimal.max(ZERO, b.hold, b.spotHold ?? ZERO);
    const available = Decimal.max(ZERO, total.minus(hold));
    return [Object.freeze({ coin: b.coin, token: b.token, total, hold, available })];
  }),
);

/**
 * What the account's running TWAPs may still take, per token: a sell its remaining size of the base, a
 * buy its remaining size × mid × (1 + reserve) of the quote (each slice may fill up to 3% from the mid;
 * `venue.twapBuyReserve`). Progress is the larger of twapHistory's executed size and the slice fills'
 * (`filled`). The venue's docs do not say that a spot TWAP puts anything on hold (the simulator can be
 * run either way: its `twapHolds` setting); without this, a second strategy was sized from quote the
 * first one's TWAP still needed, both ended partly unfilled, and two TWAPs together could spend through
 * a keepOnSpot floor. A buy whose pair has no mid commits its whole quote balance (it cannot be valued:
 * fail closed).
 */
function twapCommitments(
  balances: ReadonlyMap<string, SpotBalance>,
  twaps: readonly RunningTwap[],
  filled: ReadonlyMap<number, Decimal>,
  pairs: ReadonlyMap<string, SpotPair>,
  reserve: Decimal,
): Map<string, Decimal> {
  const committed = new Map<string, Decimal>();
  const add = (coin: string, amount: Decimal) =>
    committed.set(coin, (committed.get(coin) ?? ZERO).plus(amount));
  for (const t of twaps) {
    const pair = pairs.get(t.coin);
    if (pair === undefined) continue;
    const executed = Decimal.max(
      t.executedSize,
      (t.twapId === undefined ? undefined : filled.get(t.twapId)) ?? ZERO,
    );
    const remaining = Decimal.max(ZERO, t.size.minus(executed));
    if (t.side === "sell") add(pair.base.name, remaining);
    else
      add(
        pair.quote.name,
        pair.mid === undefined
          ? (balances.get(pair.quote.name)?.total ?? ZERO)
          : remaining.times(pair.mid).times(reserve.plus(1)),
      );
  }
  return committed;
}

/**
 * What the account's resting spot orders hold, per token: a buy its quote (size × limit price), a sell
 * its base. A side hlbot does not know is counted on both (the hold it explains is then the larger).
 */
function restingOrderHolds(
  orders: OpenOrdersResponse,
  pairs: ReadonlyMap<string, SpotPair>,
): Map<string, Decimal> {
  const out = new Map<string, Decimal>();
  const add = (coin: string, amount: Decimal) => out.set(coin, (out.get(coin) ?? ZERO).plus(amount));
  for (const o of orders) {
    const pair = pairs.get(o.coin);
    if (pair === undefined) continue;
    const size = new Decimal(o.sz);
    if (o.side !== "A") add(pair.quote.name, size.times(o.limitPx));
    if (o.side !== "B") add(pair.base.name, size);
  }
  return out;
}

/**
 * Holds what running TWAPs may still take (`committed`) beside what else the venue holds. With `resting`
 * (the venue known to hold for TWAPs, venue.twapHolds): the venue's hold less the resting orders' part is
 * what it holds for TWAPs, and the larger of that and the commitment is held. Without it (the default,
 * or openOrders unreadable): the whole hold is taken as others' (orders, perp margin) and the commitment
 * goes on top (fail closed). Balances are replaced, never changed in place.
 */
function holdTwapCommitments(
  balances: Map<string, SpotBalance>,
  committed: ReadonlyMap<string, Decimal>,
  resting: ReadonlyMap<string, Decimal> | undefined,
): void {
  for (const [coin, amount] of committed) {
    const b = balances.get(coin);
    if (b === undefined || !amount.gt(0)) continue;
    const orders = resting === undefined ? b.hold : Decimal.min(b.hold, resting.get(coin) ?? ZERO);
    const hold = Decimal.min(
      orders.plus(Decimal.max(b.hold.minus(orders), amount)),
      Decimal.max(ZERO, b.total),
    );
    if (!hold.gt(b.hold)) continue;
    balances.set(coin, Object.freeze({ ...b, hold, available: Decimal.max(ZERO, b.total.minus(hold)) }));
  }
}

/**
 * The latest record of each TWAP that may trade at some time, kept per answer object: ended ones never
 * do, and the time test with the earliest possible `now` keeps every other status, known or not, and
 * those waiting for their trigger (a year's history holds hundreds of ended TWAPs and a handful of live
 * ones).
 */
const latestMayRunEntries = perAnswer((history: TwapHistoryResponse) =>
  latestTwapEntries(history).filter((e) => twapMayTrade(e, Number.NEGATIVE_INFINITY)),
);

function runningTwaps(
  history: TwapHistoryResponse,
  pairs: ReadonlyMap<string, SpotPair>,
  now: number,
): RunningTwap[] {
  return latestMayRunEntries(history)
    .filter((entry) => twapMayTrade(entry, now))
    .map((entry) => runningTwapOf(entry, pairs))
    .sort((a, b) => a.startedAt - b.startedAt);
}

/** A twapHistory record as the snapshot keeps a TWAP. */
function runningTwapOf(entry: TwapHistoryEntry, pairs: ReadonlyMap<string, SpotPair>): RunningTwap {
  const st = entry.state;
  return {
    twapId: entry.twapId,
    coin: st.coin,
    assetId: pairs.get(st.coin)?.assetId,
    side: st.side === "B" ? "buy" : "sell",
    size: new Decimal(st.sz),
    executedSize: new Decimal(st.executedSz),
    executedNotional: new Decimal(st.executedNtl),
    minutes: st.minutes,
    startedAt: st.timestamp,
    ...(twapIsWaiting(entry) ? { waiting: true } : {}),
  };
}

/**
 * Every TWAP of the account started at or after `sinceMs` (its latest record, whatever its status): what
 * the venue says was placed in the last 24 h, for the limits (src/engine/risk.ts venueUsage).
 */
function recentTwaps(
  history: TwapHistoryResponse,
  pairs: ReadonlyMap<string, SpotPair>,
  sinceMs: number,
): RunningTwap[] {
  return latestTwapEntries(history)
    .filter((entry) => entry.state.timestamp >= sinceMs)
    .map((entry) => ({ ...runningTwapOf(entry, pairs), ended: twapHasEnded(entry) }));
}

/** A compact, JSON-safe summary of a snapshot for the journal and logs. */
export function summarizeSnapshot(snapshot: Snapshot): Record<string, unknown> {
  return {
    takenAt: snapshot.takenAt,
    account: snapshot.account,
    balances: Object.fromEntries([...snapshot.balances.values()].map((b) => [b.coin, b.total.toFixed()])),
    staking: {
      delegated: snapshot.staking.delegated.toFixed(),
      undelegated: snapshot.staking.undelegated.toFixed(),
      pendingWithdrawal: snapshot.staking.totalPendingWithdrawal.toFixed(),
    },
    delegations: snapshot.delegations.length,
    validators: snapshot.validators.length,
    runningTwaps: snapshot.twaps.map((t) => t.twapId ?? t.coin),
    stakingLink: snapshot.stakingLink?.type ?? null,
  };
}
