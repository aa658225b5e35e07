// Helpers shared by the strategies: the TWAP parameter block, the venue's minimum-value rules, number
// formatting for reasons a person reads, and small constructors for decisions.
import * as z from "zod";
import { Decimal, truncateDecimals } from "../../lib/decimal.js";
import { TWAP_MAX_MINUTES_CEILING, TWAP_MIN_MINUTES } from "../../venue/constants.js";
import { decimal, integer } from "../config/fields.js";
import { type Intent, MANUAL_STRATEGY, type Skip } from "../intents.js";
import {
  pairLabel,
  pairText,
  type RunningTwap,
  type Snapshot,
  type SpotPair,
  twapCoinIsPair,
  type VenueRules,
} from "../snapshot.js";

/**
 * The `twap:` block of TWAP strategies. The bounds here are the widest any bot file may configure; the
 * loader checks minutes and maxMinutes against the bot file's venue.twapMinMinutes..twapMaxMinutes
 * (twapMinutesIssues).
 */
export const twapSchema = z
  .strictObject({
    minutes: integer({ min: TWAP_MIN_MINUTES, max: TWAP_MAX_MINUTES_CEILING }).describe(
      "Duration of each TWAP in minutes, within the bot file's venue.twapMinMinutes..venue.twapMaxMinutes (5 to 10,080 by default); shortened when slices would be too small",
    ),
    randomize: z.boolean().default(true).describe("Let the venue randomize slice timing and size"),
    // Above 0: at 0 any tick against the order cancels it, and a trial's rebalancer placed 53 TWAPs in
    // three days, each cancelled after a slice or two (fees paid, little traded).
    maxDeviation: decimal({ gt: 0, max: 1 })
      .optional()
      .describe(
        "While the TWAP runs, cancel it when the mid moves more than this fraction against it from the mid at decision time (0.05 = 5%: above for buys, below for sells); checked every minute. Above 0; under 0.5% ordinary moves cancel most TWAPs (config validate warns)",
      ),
    maxParticipation: decimal({ gt: 0, max: 1 })
      .optional()
      .describe(
        "Stretch a TWAP so it trades at most this fraction of its pair's volume over its run (0.1 = 10%), at the pace of the last 24 hours (the venue's dayNtlVlm), up to maxMinutes; without it a TWAP larger than the whole volume over its run is only said in its reason",
      ),
    maxMinutes: integer({ min: TWAP_MIN_MINUTES, max: TWAP_MAX_MINUTES_CEILING })
      .optional()
      .describe(
        "Longest a TWAP is stretched to by maxParticipation (default 1440: a day; at least minutes, at most venue.twapMaxMinutes). A TWAP still running holds its strategy's next order on that pair",
      ),
  })
  .refine((t) => t.maxMinutes === undefined || t.maxMinutes >= t.minutes, {
    message: "maxMinutes is the longest a TWAP is stretched to: at least minutes",
    path: ["maxMinutes"],
  });

/** What a TWAP's duration is fitted to besides the venue's rules: its pair's traded volume. */
export interface TwapLiquidity {
  /** The pair, in words ("HYPE/USDC"). */
  pair: string;
  /**
   * Quote traded on it by others in the last 24 hours: the venue's dayNtlVlm less the account's own
   * TWAPs' fills there (a bot's own volume is no liquidity for its next order). Undefined: not known,
   * nothing is fitted; 0 with `allOwn`: all of it was the account's.
   */
  dayVolume: Decimal | undefined;
  allOwn?: boolean;
  maxParticipation?: Decimal;
  maxMinutes?: number;
}

/** A TWAP above this share of its pair's volume over its run is said to be large against the market. */
const LARGE_PARTICIPATION = new Decimal(1);
/** Default of twap.maxMinutes: the longest maxParticipation stretches a TWAP to. */
export const DEFAULT_STRETCH_MINUTES = 1440;

/** The liquidity fit of a TWAP strategy's order on `pair` (its twap block and the pair's 24-hour volume). */
export function twapLiquidity(
  snapshot: Snapshot,
  pair: SpotPair,
  twap: { maxParticipation?: Decimal | undefined; maxMinutes?: number | undefined },
): TwapLiquidity {
  const total = snapshot.marks?.get(pair.name)?.dayNtlVlm;
  const own = (snapshot.recentTwaps ?? snapshot.twaps)
    .filter((t) => t.coin === pair.name)
    .reduce((a, t) => a.plus(t.executedNotional), new Decimal(0));
  const others = total?.minus(own);
  const allOwn = total?.gt(0) === true && others !== undefined && !others.gt(0);
  return {
    pair: pairLabel(pair),
    dayVolume: others === undefined ? undefined : Decimal.max(others, 0),
    ...(allOwn ? { allOwn } : {}),
    ...(twap.maxParticipation === undefined ? {} : { maxParticipation: twap.maxParticipation }),
    ...(twap.maxMinutes === undefined ? {} : { maxMinutes: twap.maxMinutes }),
  };
}

export type FitResult =
  | { ok: true; minutes: number; note: string | undefined }
  | { ok: false; reason: string };

/**
 * Chooses the TWAP duration for an order of `notional` quote units. The venue wants the whole order to
 * be worth at least `twapMinOrderValue` (100), whatever its duration. When a per-slice minimum is set
 * (`twapMinSliceValue`, off by default; a slice every `twapSliceSeconds`), a too-long TWAP is
 * shortened so each slice is still worth it, never below the venue's minimum duration; only an order
 * too small even for the shortest TWAP fails.
 *
 * With the order's size in `lots`, a too-long TWAP is also shortened so each slice is at least one lot
 * of the base token (10^-szDecimals). What the venue does with a slice below one lot is not documented:
 * if it rounds the slice down, and catches up at most 3× a slice, such a TWAP fills nothing (the
 * simulator's model). A day-long 200-USD HYPE buy has 0.002-HYPE slices against a 0.01 lot.
 */
export function fitTwapDuration(
  notional: Decimal,
  wanted: number,
  rules: VenueRules,
  quote: string,
  lots?: { size: Decimal; szDecimals: number; base: string },
  liquidity?: TwapLiquidity,
): FitResult {
  let minutes = Math.min(Math.max(wanted, rules.twapMinMinutes), rules.twapMaxMinutes);
  const notes: string[] = [];
  if (minutes !== wanted) notes.push(`duration ${wanted} min adjusted to the venue's range: ${minutes} min`);
  const minOrder = rules.twapMinOrderValue;
  if (notional.lt(minOrder)) {
    return {
      ok: false,
      reason: `${fmt(notional)} ${quote} is below the venue minimum for a TWAP: at least ${fmt(minOrder)} ${quote} in all`,
    };
  }
  // Against the pair's traded volume (a whale's 250,000-USDC DCA over 120 min on a thin pair paid 155
  // bps of spread and impact where 1,380 min cost 28: a trial's case). The volume is the venue's
  // dayNtlVlm, the last 24 hours' pace; the bot reads no book.
  const dayVolume = liquidity?.dayVolume;
  // The longest a TWAP is stretched to: twap.maxMinutes (default a day), within the venue's range.
  const longest = Math.max(
    minutes,
    Math.min(liquidity?.maxMinutes ?? DEFAULT_STRETCH_MINUTES, rules.twapMaxMinutes),
  );
  if (liquidity?.allOwn === true) {
    const stretch = liquidity.maxParticipation !== undefined && longest > minutes;
    notes.push(
      `large against the market: all of ${liquidity.pair}'s volume in the last 24 h was this account's own; expect a costly fill` +
        (stretch ? ` (stretched from ${minutes} to ${longest} min, twap.maxMinutes)` : ""),
    );
    if (stretch) minutes = longest;
  } else if (liquidity !== undefined && dayVolume?.gt(0)) {
    const perMinute = dayVolume.div(24 * 60);
    const share = (m: number) => notional.div(perMinute.times(m));
    const volumeText = `${fmt(dayVolume, 0)} ${quote} traded by others in the last 24 h`;
    const cap = liquidity.maxParticipation;
    if (cap !== undefined && share(minutes).gt(cap)) {
      // notional × 1440 / (cap × dayVolume): one division, so an exact 720 stays 720.
      const needed = notional
        .times(24 * 60)
        .div(cap.times(dayVolume))
        .ceil()
        .toNumber();
      const stretched = Math.min(needed, longest);
      if (stretched > minutes) {
        notes.push(
          `stretched from ${minutes} to ${stretched} min to trade at most ${pct(cap)} of ${liquidity.pair}'s volume over its run (twap.maxParticipation; ${volumeText})`,
        );
        minutes = stretched;
      }
      if (share(minutes).gt(cap))
        notes.push(
          `still ${pct(share(minutes))} of that volume at ${minutes} min (twap.maxMinutes ${longest})`,
        );
    } else if (cap === undefined && share(minutes).gt(LARGE_PARTICIPATION)) {
      notes.push(
        `large against the market: ${pct(share(minutes))} of ${liquidity.pair}'s volume over its ${minutes} min at the last 24 h's pace (${volumeText}); expect a costly fill (twap.maxParticipation stretches such a TWAP)`,
      );
    }
  }
  const minSlice = rules.twapMinSliceValue;
  if (minSlice.gt(0)) {
    const slicesPerMinute = 60 / rules.twapSliceSeconds;
    // Longest duration whose slices are each still worth the minimum.
    const longest = notional.div(minSlice.times(slicesPerMinute)).floor().toNumber();
    if (longest < rules.twapMinMinutes) {
      const floorValue = minSlice.times(slicesPerMinute).times(rules.twapMinMinutes);
      return {
        ok: false,
        reason:
          `${fmt(notional)} ${quote} is below the venue minimum for a TWAP ` +
          `(${fmt(minSlice)} ${quote} per ${rules.twapSliceSeconds}-s slice, so at least ${fmt(floorValue)} ${quote} ` +
          `over the shortest ${rules.twapMinMinutes}-min TWAP)`,
      };
    }
    if (longest < minutes) {
      notes.push(
        `shortened from ${minutes} to ${longest} min so each ${rules.twapSliceSeconds}-s slice is worth at least ${fmt(minSlice)} ${quote}`,
      );
      minutes = longest;
    }
  }
  if (lots !== undefined) {
    const slicesPerMinute = 60 / rules.twapSliceSeconds;
    const lot = new Decimal(1).div(new Decimal(10).pow(lots.szDecimals));
    // Longest duration whose slices are each at least one lot.
    const longest = lots.size.div(lot.times(slicesPerMinute)).floor().toNumber();
    const slice = `${rules.twapSliceSeconds}-s slice`;
    if (longest < rules.twapMinMinutes) {
      return {
        ok: false,
        reason:
          `${fmt(lots.size)} ${lots.base} is too few lots for a TWAP: each ${slice} of the shortest ` +
          `${rules.twapMinMinutes}-min TWAP would be below one lot (${fmt(lot)} ${lots.base})`,
      };
    }
    if (longest < minutes) {
      notes.push(
        `shortened from ${minutes} to ${longest} min so each ${slice} is at least one lot (${fmt(lot)} ${lots.base}; smaller slices may fill nothing)`,
      );
      minutes = longest;
    }
  }
  return { ok: true, minutes, note: notes.length ? notes.join("; ") : undefined };
}

/**
 * The running TWAP of the account on this pair, if any (by asset id or pair name; a perp's never). A
 * trigger TWAP waiting for its price is not one: it may wait for months (a stop-loss placed in the app),
 * and what it will take is held from the balances meanwhile (twapCommitments); waiting for it held a DCA
 * beside a resting stop-loss for ever (a review).
 */
export function runningTwapOn(snapshot: Snapshot, pair: SpotPair) {
  return snapshot.twaps.find((t) => !t.waiting && onPair(t, pair));
}

/** Whether a running TWAP trades `pair` (by asset id or pair name; a perp's never). */
function onPair(t: RunningTwap, pair: SpotPair): boolean {
  return t.assetId === pair.assetId || twapCoinIsPair(t.coin, pair);
}

/**
 * The running TWAP on this pair (runningTwapOn) a strategy about to place a TWAP of `side` waits for: its
 * own (its pace, its budget's rest) unless about to end (OWN_TWAP_ENDING_MS), any on the other side (the
 * two would trade against each other, fees both ways), and one no strategy enabled now placed (by hand,
 * another tool's or instance's, a strategy renamed or removed since: its successor would double its pace).
 * Not another enabled strategy's on the same side: what it still takes is held from the balances
 * (twapCommitments), as when both go out in one cycle (a trader: a 09:00 DCA never bought while an 08:00
 * DCA's 3-hour TWAP ran on the pair, each day).
 */
export function blockingTwapOn(
  snapshot: Snapshot,
  pair: SpotPair,
  strategy: string,
  side: "buy" | "sell",
  now: number,
) {
  return snapshot.twaps.find(
    (t) =>
      !t.waiting &&
      onPair(t, pair) &&
      !(
        t.side === side &&
        t.peer === true &&
        (t.placedBy !== strategy || endsWithin(t, now, OWN_TWAP_ENDING_MS))
      ),
  );
}

/** Whether a running TWAP's schedule ends within `ms`: on the venue's clock when the cycle knew it. */
function endsWithin(t: RunningTwap, now: number, ms: number): boolean {
  return (t.remainingMs ?? t.startedAt + t.minutes * 60_000 - now) <= ms;
}

/**
 * How close to its scheduled end a strategy's own TWAP no longer holds its next run back. A run reads the
 * venue a moment after its slot, while the TWAP placed a moment after the last slot still has its last
 * slice or its final record to come: an hourly DCA of 60-minute TWAPs waited for it each hour, and under a
 * 15-minute cron bought every 75 minutes (9 buys in 11 slots; a cron trial). Two minutes of overlap at the
 * same pace; what the old one still takes is held from the balances.
 */
const OWN_TWAP_ENDING_MS = 2 * 60_000;

/**
 * "a TWAP #12 of dca-hype is already running on HYPE/USDC": who placed it, when the journal knows
 * (`placedBy`); "not placed by this bot" when it does not (the user's, another bot's, or from before
 * this journal).
 */
export function runningTwapText(running: RunningTwap, pair: SpotPair): string {
  const id = running.twapId === undefined ? "" : ` #${running.twapId}`;
  const by =
    running.placedBy === undefined
      ? ""
      : running.placedBy === null
        ? " (not placed by this bot)"
        : running.placedBy === MANUAL_STRATEGY
          ? " (placed by hand: hlbot twap)"
          : ` of ${running.placedBy}`;
  return running.waiting
    ? `a TWAP${id}${by} waiting for its trigger price is already running on ${pairText(pair)}`
    : `a TWAP${id}${by} is already running on ${pairText(pair)}`;
}

/** A decimal for a reason: at most `dp` decimals (truncated), no trailing zeros, no exponent. */
export function fmt(value: Decimal, dp = 8): string {
  const t = truncateDecimals(value, dp);
  return t.isZero() ? "0" : t.toFixed();
}

/** A fraction as a percentage for a reason: 0.88889 → "88.88%". */
export function pct(value: Decimal): string {
  return `${fmt(value.times(100), 2)}%`;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function skip(strategy: string, reason: string, considered?: Intent["kind"]): Skip {
  return considered === undefined
    ? { kind: "skip", strategy, reason }
    : { kind: "skip", strategy, reason, considered };
}

export const ONE = new Decimal(1);

/** " above limits.keepOnSpot 500 USDC" when the account keeps a floor of the balance, for reasons. */
export function floorText(balance: { coin: string; floor?: Decimal } | undefined): string {
  return balance?.floor === undefined ? "" : ` above limits.keepOnSpot ${fmt(balance.floor)} ${balance.coin}`;
}
