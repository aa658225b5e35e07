// The account as strategies see it: one consistent, validated, immutable read of the venue, in domain
// terms (Decimals, ms timestamps, resolved asset ids) rather than wire shapes. Strategies receive only
// this; they never touch the network. The builder that fills it from the info client lives beside it.
import { Decimal } from "../lib/decimal.js";
import {
  TWAP_MAX_MINUTES_DEFAULT,
  TWAP_MIN_MINUTES,
  TWAP_MIN_ORDER_VALUE_DEFAULT,
  TWAP_SLICE_SECONDS,
} from "../venue/constants.js";
import type { TwapHistoryResponse } from "../venue/info/methods/index.js";
import type { NetworkName } from "../venue/networks.js";

export interface SpotToken {
  name: string;
  index: number;
  tokenId: string;
  szDecimals: number;
  weiDecimals: number;
}

export interface SpotPair {
  /** Venue pair name: "PURR/USDC" for canonical pairs, "@107" otherwise. The key of `allMids`. */
  name: string;
  index: number;
  /** 10000 + index. */
  assetId: number;
  base: SpotToken;
  quote: SpotToken;
  /** Mid price in quote units, when the venue reports one. */
  mid: Decimal | undefined;
}

/** A pair's market context from spotMetaAndAssetCtxs: the prices its allMids mid is checked against. */
export interface PairMarks {
  markPx: Decimal;
  /** null when the book is empty. */
  midPx: Decimal | undefined;
  prevDayPx: Decimal;
  /** Quote traded on the pair in the last 24 hours (the venue's dayNtlVlm; the account's fills included). */
  dayNtlVlm?: Decimal;
}

export interface SpotBalance {
  coin: string;
  token: number;
  total: Decimal;
  /**
   * Reserved by open orders and running TWAPs: the venue's hold, or what the running TWAPs may still take
   * where that is more (readSnapshot: the venue's docs do not say a TWAP holds anything).
   */
  hold: Decimal;
  /** total − hold (− floor), never below zero. */
  available: Decimal;
  /** The account's floor for this token (`limits.keepOnSpot`), already out of `available` (floorView). */
  floor?: Decimal;
  /**
   * With a floor: what is held above it, total − floor, negative while below it (floorView), capped by
   * a strategy's capital (capitalView): the holding a strategy weighs, hold included. Without: total.
   */
  aboveFloor?: Decimal;
  /** With a floor: how far the total is below it, max(floor − total, 0). */
  floorShortfall?: Decimal;
}

export type ValidatorPeriod = "day" | "week" | "month";

export interface ValidatorStats {
  uptimeFraction: Decimal;
  /** As the venue states it (see delegatorApr). */
  predictedApr: Decimal;
  /** What a delegator earns: predictedApr read through delegatorApr (src/venue/constants.ts). */
  delegatorApr: Decimal;
  nSamples: number;
}

export interface ValidatorInfo {
  address: string;
  name: string;
  /** HYPE × 1e8, may exceed 2^53. */
  stake: bigint;
  isJailed: boolean;
  isActive: boolean;
  commission: Decimal;
  unjailableAfter: number | null;
  stats: Record<ValidatorPeriod, ValidatorStats>;
}

export interface Delegation {
  validator: string;
  amount: Decimal;
  /** ms; the stake cannot be undelegated before this time. */
  lockedUntil: number;
}

export interface StakingSummary {
  delegated: Decimal;
  undelegated: Decimal;
  totalPendingWithdrawal: Decimal;
  nPendingWithdrawals: number;
}

/** A tokenDelegate hlbot sent (journal): when, to or from which validator, how much HYPE. */
export interface OwnStakingMove {
  /**
   * ms: when it was sent, on the venue's clock: as journaled with it, or (older rows, no venue time
   * known then) the local time moved by the skew measured now.
   */
  time: number;
  /** Whether `time` was journaled on the venue's clock (else it is the local clock's until moved). */
  onVenueClock?: boolean;
  validator: string;
  amount: Decimal;
  isUndelegate: boolean;
  /** An undelegation of a move for yield (its intent's forYield), not one that had to leave. */
  forYield?: true;
}

/** A withdrawal from staking to spot the bot sent (journaled), dated as an OwnStakingMove. */
export interface OwnWithdrawal {
  time: number;
  onVenueClock?: boolean;
  amount: Decimal;
}

/** One entry of the account's staking history (delegatorHistory), oldest first. */
export interface StakingEvent {
  /** ms. */
  time: number;
  kind: "delegate" | "undelegate" | "deposit" | "withdrawalInitiated" | "withdrawalFinalized";
  /** For delegate / undelegate (lower-case). */
  validator?: string;
  /** HYPE. */
  amount: Decimal;
}

export interface RunningTwap {
  twapId: number | undefined;
  /** Venue coin name as reported by twapHistory (a spot pair name such as "@107"). */
  coin: string;
  /** Resolved spot asset id, when the coin matches a known pair. */
  assetId: number | undefined;
  side: "buy" | "sell";
  size: Decimal;
  executedSize: Decimal;
  executedNotional: Decimal;
  minutes: number;
  /** ms: when it was placed (a waiting one's run starts when its trigger fires). */
  startedAt: number;
  /**
   * A trigger TWAP waiting for its price (placed in the app or by another tool): not started, no
   * scheduled end; it counts as running, taking its whole size, until it ends or is cancelled.
   */
  waiting?: true;
  /**
   * Set on `recentTwaps` only: the venue's latest record of it is not "activated" (finished, terminated
   * or refused): what it executed is all it will.
   */
  ended?: boolean;
  /**
   * Set on `twaps` by the cycle from its journal (the venue does not say): the strategy that placed it
   * ("manual" for `hlbot twap`), or null when this bot's journal has no record of it.
   */
  placedBy?: string | null;
  /** Set on `twaps` by the cycle: `placedBy` is a strategy of the configuration enabled now. */
  peer?: true;
  /** Set on `twaps` by the cycle: how long its schedule still runs, on the venue's clock (ms; ≤ 0: over). */
  remainingMs?: number;
}

export type StakingLink =
  | null
  | { type: "requested"; stakingUser: string }
  | { type: "tradingUser"; stakingUser: string }
  | { type: "stakingUser"; tradingUser: string }
  /** A link the venue reports in a form hlbot does not know (type or address): never acted on. */
  | { type: "unknown"; venueType: string; peer?: string };

export interface MultiSigInfo {
  authorizedUsers: string[];
  threshold: number;
}

/**
 * Venue rules strategies plan against. Several are unconfirmed facts about the venue,
 * so they come from the bot configuration (`venue:`) rather than being constants; a TWAP the venue
 * refuses as too small teaches a stricter minimum (src/venue/exchange/twapMinimum.ts).
 */
export interface VenueRules {
  /** Shortest TWAP the venue accepts, in minutes (5). */
  twapMinMinutes: number;
  /** Longest TWAP, in minutes (10,080 per the current docs; 1,440 per older SDKs). */
  twapMaxMinutes: number;
  /** Seconds between two TWAP slices (30), so a TWAP of m minutes has 60·m / 30 = 2·m slices. */
  twapSliceSeconds: number;
  /**
   * Minimum value of a whole TWAP in quote units (100). The venue's own refusal "TWAP order value too
   * small. Min is $100." (measured on mainnet, as a public client's tests record), and independent
   * integrations (e.g. the docs.rs crate df-hyperliquid-core, `MINIMUM_TWAP_VALUE`; the
   * OneKey wallet, which replaced its per-slice estimate with this total check, "support upgraded
   * Hyperliquid TWAP orders", OneKeyHQ/app-monorepo#12849, 2026-08). Not confirmed against the venue
   * itself: a refusal stating another minimum is learnt from (twapMinimum.ts), and config can set it.
   */
  twapMinOrderValue: Decimal;
  /**
   * Minimum value of one slice in quote units; 0 (default) turns the per-slice rule off. An older venue
   * rule read "Min is $1200, which is $10 per minute", i.e. 5 per 30-s slice.
   */
  twapMinSliceValue: Decimal;
  /** Share of a spot TWAP buy's notional kept beyond size × mid (slippage; default 0.03). */
  twapBuyReserve?: Decimal;
  /**
   * Whether the venue holds what a running spot TWAP may still take (venue.twapHolds; unconfirmed, default
   * false: readSnapshot holds it on top of the venue's hold).
   */
  twapHolds?: boolean;
  /** validatorSummaries' predictedApr is after commission (default; src/venue/constants.ts). */
  predictedAprNet?: boolean;
}

export const DEFAULT_VENUE_RULES: Readonly<VenueRules> = Object.freeze({
  twapMinMinutes: TWAP_MIN_MINUTES,
  twapMaxMinutes: TWAP_MAX_MINUTES_DEFAULT,
  twapSliceSeconds: TWAP_SLICE_SECONDS,
  twapMinOrderValue: new Decimal(TWAP_MIN_ORDER_VALUE_DEFAULT),
  twapMinSliceValue: new Decimal(0),
});

/** The optional parts of a snapshot: read only when a strategy of the cycle needs them. */
export type SnapshotPart = "twaps" | "staking" | "validators" | "fees" | "stakingHistory";

export interface Snapshot {
  /** ms, when the reads started. */
  takenAt: number;
  network: NetworkName;
  /** The account acted for (lower-case master or sub-account address). */
  account: string;
  tokens: ReadonlyMap<string, SpotToken>;
  /** Spot pairs by pair name ("@107", "PURR/USDC"). */
  pairs: ReadonlyMap<string, SpotPair>;
  balances: ReadonlyMap<string, SpotBalance>;
  staking: StakingSummary;
  delegations: readonly Delegation[];
  validators: readonly ValidatorInfo[];
  /** TWAPs of this account currently running (status activated). */
  twaps: readonly RunningTwap[];
  /**
   * Base size each running TWAP filled so far, by twapId, from its slice fills (twapHistory says 0 while
   * a TWAP runs); absent when no TWAP runs or the fills could not be read (then no progress is assumed).
   */
  twapFilled?: ReadonlyMap<number, Decimal>;
  stakingLink: StakingLink;
  /** The account's spot taker fee rate (e.g. 0.0007). */
  spotTakerFee: Decimal;
  multiSig: MultiSigInfo | null;
  /** The venue rules in force (from the configuration), so strategies need no other input. */
  rules: VenueRules;
  /** Market contexts by pair name, read when a TWAP strategy runs (for price sanity). */
  marks?: ReadonlyMap<string, PairMarks>;
  /** Staking history, when a strategy needs it (validator-staking: what the user did by hand). */
  stakingHistory?: readonly StakingEvent[];
  /** The optional parts this snapshot read (readSnapshot); a part not read is empty, not zero. */
  parts?: ReadonlySet<SnapshotPart>;
  /**
   * Every TWAP of the account the venue shows started in the last 24 h, whatever its status (read with
   * `twaps`): limits count them besides the journal's (another instance, a lost state folder).
   */
  recentTwaps?: readonly RunningTwap[];
  /**
   * The twapHistory answer `twaps` was read from: a budget counts its TWAPs' fills from it rather than
   * from a second read in the same cycle (the heaviest read of an account with a long TWAP history).
   */
  twapHistory?: TwapHistoryResponse;
  /**
   * With the staking history: hlbot's own delegations and undelegations over the same period (sent and
   * not refused, from the journal), so that what the bot did is not taken for what the user did.
   */
  ownStakingMoves?: readonly OwnStakingMove[];
  /**
   * And its own withdrawals to spot, from the unstaking queue's length earlier: what comes back from
   * them is not a withdrawal the user made (respectManualDays).
   */
  ownWithdrawals?: readonly OwnWithdrawal[];
  /**
   * HYPE a rebalancer of the account would sell now (its decision on this snapshot, whether or not it
   * is due in this cycle): a staking deposit keeps it on spot (staked, it takes the unstaking queue to
   * come back, and the rebalancer finds nothing to sell). Set for cycles with a staking strategy.
   */
  plannedHypeSales?: ReadonlyArray<PlannedSale>;
  /**
   * The enabled validator-staking strategy of the account with withdrawForSales, if any: a rebalancer
   * with nothing on spot to sell says the stake it lacks is being withdrawn for it, not what to do by hand.
   */
  withdrawsForSales?: string;
  /** limits.validatorAllowlist (lower-case), so strategies choose only what the limits allow. */
  validatorAllowlist?: readonly string[];
}

/**
 * Whether a twapHistory `coin` names this spot pair: its pair name ("@107", "PURR/USDC"), nothing else.
 * twapHistory lists the account's perp and spot TWAPs together, and a perp TWAP's coin is the perp's
 * name ("HYPE", "xyz:NVDA"): a base token's name is a perp, not this pair (Allium's Hyperliquid TWAP
 * table: "For perpetuals the token symbol (e.g. HYPE). For spot, an ID representing a pair (e.g. @4)";
 * QuickNode's TWAP dataset: "HYPE" for a perp TWAP, "@107" for spot; nktkas/hyperliquid's tests read
 * perp SOL TWAPs back as "SOL"). Read as spot, a perp HYPE TWAP placed by hand held a spot DCA back,
 * kept idle HYPE from staking, and could be taken for a lost spot order (review of 2026-11-27).
 */
export function twapCoinIsPair(coin: string, pair: { name: string }): boolean {
  return coin === pair.name;
}

/** The account's running spot TWAPs selling `token` (a perp's TWAP names no spot pair: twapCoinIsPair). */
export function spotSellsOf(snapshot: Pick<Snapshot, "twaps" | "pairs">, token: string): RunningTwap[] {
  return snapshot.twaps.filter(
    (t) => t.side === "sell" && t.minutes > 0 && snapshot.pairs.get(t.coin)?.base.name === token,
  );
}

/**
 * The spot pair a strategy's market names: by the pair's venue name ("@107", "PURR/USDC"; the loader
 * checks its quote is the pair's) or by its base token against its quote ("HYPE" and "USDC").
 */
export function marketPair<P extends PricedPair & { name: string }>(
  snapshot: PriceSource<P>,
  coin: string,
  quote: string,
): P | undefined {
  return snapshot.pairs.get(coin) ?? pairFor(snapshot, coin, quote);
}

/**
 * Whether a strategy's market (`coin`, `quote`) is this pair, named either way (marketPair). Every rule
 * that asks "is this TWAP on the strategy's market" asks it here: a DCA written `coin: "@107"` was not
 * matched by its base-name comparisons, so its running TWAP had no watch (limitPx never cancelled it)
 * and its budget skipped the TWAPs a lost journal does not have (a limit tester's trial).
 */
export function isMarketPair(
  market: { coin: string; quote: string },
  pair: { name: string; base: { name: string }; quote: { name: string } },
): boolean {
  return market.coin === pair.name || (market.coin === pair.base.name && market.quote === pair.quote.name);
}

/** What a price lookup needs of a pair (a snapshot's SpotPair has it; so can a simulator's view). */
export type PricedPair = Pick<SpotPair, "index" | "mid"> & {
  base: { name: string };
  quote: { name: string };
};

/** Pairs by name: a snapshot, or any other view of the venue's pairs and mids. */
export interface PriceSource<P extends PricedPair = PricedPair> {
  pairs: ReadonlyMap<string, P>;
}

/** HYPE a rebalancer of the account would sell (cycle.ts, plannedHypeSales). */
export interface PlannedSale {
  strategy: string;
  size: Decimal;
  /**
   * Set when something holds the sale now ("its sell floor", "a TWAP running on its pair"): it goes out
   * once that passes (the size is then what the rebalancer is over target by).
   */
  heldBy?: string;
  /**
   * What the rebalancer is over its target by in HYPE, less what the account's running HYPE sales will
   * still sell (not set for a sale its sell floor holds): a staking strategy with withdrawForSales
   * withdraws what spot and the pending withdrawals lack of it.
   */
  overTarget?: Decimal;
  /** The account's available spot HYPE above its floors, as the rebalancer sells from it (with overTarget). */
  spotAvailable?: Decimal;
  /** The rebalancer's band in HYPE (with overTarget): within it, it sells no more. */
  bandSize?: Decimal;
  /** The most one of its TWAPs sells, in HYPE (limits.maxOrderUsd at the mid), with overTarget. */
  pieceSize?: Decimal;
  /**
   * The most it can sell in a day, in HYPE, at its pace (its runs a day, a piece each, within
   * limits.maxDailyNotionalUsd), with overTarget; undefined when neither limit binds.
   */
  pacePerDay?: Decimal;
}

/** A pair by its tokens, BASE/QUOTE ("HYPE/USDC" for "@107"): how people and the journal name it. */
export function pairLabel(pair: { base: { name: string }; quote: { name: string } }): string {
  return `${pair.base.name}/${pair.quote.name}`;
}

/** A pair for a person: its BASE/QUOTE label, with the venue's name beside it when that differs. */
export function pairText(pair: { name: string; base: { name: string }; quote: { name: string } }): string {
  return labelWithVenueName(pairLabel(pair), pair.name);
}

/** "HYPE/USDC (@107)"; just the label when the venue names the pair by it ("PURR/USDC"). */
export function labelWithVenueName(label: string, venueName: string): string {
  return label === venueName ? label : `${label} (${venueName})`;
}

/**
 * The pair that trades `base` against `quote` (by token name), e.g. pairFor(s, "HYPE", "USDC"). When
 * several pairs match, the canonical one (lowest index) wins.
 */
export function pairFor<P extends PricedPair = SpotPair>(
  snapshot: PriceSource<P>,
  base: string,
  quote: string,
): P | undefined {
  let best: P | undefined;
  for (const pair of snapshot.pairs.values()) {
    if (
      pair.base.name === base &&
      pair.quote.name === quote &&
      (best === undefined || pair.index < best.index)
    ) {
      best = pair;
    }
  }
  return best;
}

/** "HYPE/USDC" for the venue's "@107" when the snapshot knows the pair; the venue's name otherwise. */
export function labelOf(
  coin: string,
  pairs: ReadonlyMap<string, { base: { name: string }; quote: { name: string } }> | undefined,
): string {
  const pair = pairs?.get(coin);
  return pair === undefined ? coin : pairLabel(pair);
}
