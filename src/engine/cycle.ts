// One cycle of the bot: reconcile what is in flight, read the account, let strategies decide, apply the
// risk limits, then sign and (live) submit, journaling each step. It is the single path every run mode
// takes (plan, once, the daemon, simulate), so dry-run and live differ only in the exchange client.
// Sends are sequential; after any action of a strategy is not accepted, the rest of that strategy's
// actions in this cycle are skipped (a delegation must not go out when the deposit funding it failed).
import type { Logger } from "pino";
import { Decimal, ZERO } from "../lib/decimal.js";
import { ConfigError, describeError, isFatalError } from "../lib/errors.js";
import { stringifyJson } from "../lib/json.js";
import { linkSignals } from "../lib/signals.js";
import { duration } from "../lib/text.js";
import { skewText } from "../venue/clockSkew.js";
import { LONGEST_UNSTAKING_QUEUE_MS } from "../venue/constants.js";
import type { ExchangeClient } from "../venue/exchange/client.js";
import type { InfoClient } from "../venue/info/client.js";
import { latestTwapEntries } from "../venue/info/methods/index.js";
import type { NetworkName } from "../venue/networks.js";
import {
  metricsNeedStaking,
  recordAccount,
  recordJournal,
  recordSent,
  recordTwapProgress,
} from "./accountMetrics.js";
import { allocate, STAKING_KINDS, type UnresolvedTouches } from "./allocate.js";
import {
  budgetMemory,
  lastEndedTwap,
  lastRefusedTwaps,
  twapFillsForBudgets,
  type UnjournaledTwaps,
} from "./budget.js";
import { capitalView, floorView, unseenByCapital } from "./capital.js";
import { executeIntent } from "./executor.js";
import { guardOf } from "./guards.js";
import type { Decision, Intent, Skip, TwapOrderIntent } from "./intents.js";
import { isIntent } from "./intents.js";
import type { Guard, Journal } from "./journal.js";
import { newCycleId, VENUE_HISTORY_STRATEGY } from "./journal.js";
import { type KillSwitchState, killSwitchCancels, killSwitchState } from "./killSwitch.js";
import type { BotMetrics } from "./metrics.js";
import {
  checkPriceSanity,
  DEFAULT_PRICE_SANITY,
  lastMidBound,
  type PairMemory,
  pairPriceDoubt,
} from "./priceSanity.js";
import { type AccountFacts, readSnapshot, summarizeSnapshot } from "./readSnapshot.js";
import { type ReconcileResult, reconcile } from "./reconcile.js";
import { applyLimits, dayUsage, endedTwapFills, type RiskLimits } from "./risk.js";
import { CronSchedule, DEFAULT_MAX_CLOCK_SKEW_MS } from "./schedule.js";
import {
  isMarketPair,
  marketPair,
  type PlannedSale,
  pairFor,
  pairLabel,
  type RunningTwap,
  type Snapshot,
  type SpotPair,
  spotSellsOf,
  type VenueRules,
} from "./snapshot.js";
import { recordStake } from "./stakingMetrics.js";
import {
  remembers,
  runStrategy,
  type Strategy,
  snapshotParts,
  strategyMarkets,
} from "./strategies/registry.js";
import {
  excessOverTarget,
  raisedToSmallestTwap,
  type TwapRebalanceParams,
} from "./strategies/twapRebalance.js";
import type { StrategyMemory } from "./strategies/types.js";
import type { ValidatorStakingParams } from "./strategies/validatorStaking.js";
import { PAIRED_WITHIN_MS, SALE_PACE_HORIZON_DAYS } from "./strategies/validatorStaking.js";
import { usdPerUnit } from "./usd.js";

const DAY_MS = 24 * 60 * 60_000;
const MINUTE_MS = 60_000;
/** The size range, as shares of amountUsd, of a TWAP taken as a DCA's own run by another instance. */
const SAME_RUN_LOW = 0.7;
const SAME_RUN_HIGH = 1.3;

/** The executor's helpers, still importable from here. */
export { callFor } from "./executor.js";

export interface CycleDeps {
  info: InfoClient;
  /** Live or dry-run client; undefined for an unsigned plan (no key: actions are shown unsigned). */
  exchange: ExchangeClient | undefined;
  journal: Journal;
  account: string;
  network: NetworkName;
  rules: VenueRules;
  limits: RiskLimits;
  facts: AccountFacts;
  clock: () => number;
  logger: Logger;
  metrics?: BotMetrics;
  userSignedGraceMs?: number;
  /** How far the local clock may be from the venue's for strategies to decide (schedule.maxClockSkew). */
  maxClockSkewMs?: number;
  /** The venue's time (VenueClock.now), for judging expiry by the venue's clock rather than ours. */
  venueNow?: () => number | undefined;
  /**
   * Reads the venue once so that `venueNow` is dated now, not by the last answer (the local clock may
   * have been stepped since): before the schedule moves a state back (scheduler.ts).
   */
  refreshVenueClock?: () => Promise<void>;
  /**
   * Every enabled strategy of the account (not only this cycle's): a staking deposit keeps on spot what
   * a rebalancer of the account would sell now (plannedHypeSales).
   */
  peers?: ReadonlyArray<Pick<Strategy, "name" | "kind" | "params" | "capital">>;
  /** Every strategy of the configuration, disabled ones included (budget.ts budgetMemory). */
  configured?: ReadonlyArray<Pick<Strategy, "name" | "kind" | "params">>;
  /**
   * Test hook for the crash tests, never set in production: wait this long between journaling a
   * submission as pending and sending it, to widen that window. openRuntime sets it only when
   * HLBOT_TEST=1 and HLBOT_TEST_PAUSE_BEFORE_SEND=<ms> are both in the environment.
   */
  pauseBeforeSendMs?: number;
}

export type ActionOutcome = "accepted" | "rejected" | "unknown" | "dry-run" | "unsigned" | "skipped";

export interface CycleAction {
  strategy: string;
  /** The venue action type (twapOrder, tokenDelegate, …). */
  action: Intent["kind"];
  reason: string;
  guard: Guard;
  /** The exact body that is (or would be) POSTed to /exchange; unsigned plans have no signature. */
  request: Record<string, unknown>;
  outcome: ActionOutcome;
  /** The venue's reason for a rejection, or what was lost for an unknown outcome. */
  detail?: string;
  /** For accepted TWAPs. */
  twapId?: number;
  /** A rejection before anything left the process (refused by the client, expired unsent). */
  notSent?: true;
  /**
   * A rejection the venue never looked at (every attempt rate limited, or it could not be reached):
   * nothing about the order was judged, so its slot stays due (Scheduler.settle).
   */
  unprocessed?: true;
}

export interface CycleReport {
  cycleId: string;
  trigger: string;
  startedAt: number;
  reconciled: ReconcileResult[];
  snapshot: Snapshot;
  /** Every decision, with its guard verdict; intents that were acted on also appear in `actions`. */
  decisions: Array<{ decision: Decision; guard: Guard; guardReason?: string; action?: CycleAction }>;
  actions: CycleAction[];
  /**
   * Set when a stop came between actions: how many were not sent, and the strategies that had one
   * left. A strategy that sent nothing in this cycle stays due (Scheduler.settle); one that sent keeps
   * its slot settled, so a restart does not act in it twice.
   */
  cutShort?: { notSent: number; strategies: ReadonlySet<string> };
  /**
   * Set when the kill switch was engaged for this cycle: what it blocked was not decided against, so a
   * strategy that sent nothing stays due (a brief stop across a slot does not lose the slot's buy).
   */
  killSwitchEngaged?: boolean;
}

export interface CycleOptions {
  trigger: "plan" | "once" | "run" | "simulate" | "stop" | "watch";
  /** The strategies to run (of a loaded strategy, a cycle uses its name, kind, params, priority and capital). */
  strategies: ReadonlyArray<Pick<Strategy, "name" | "kind" | "params" | "priority" | "capital">>;
  /**
   * Decides instead of a strategy's kind, by strategy name (the TWAP watch, src/engine/guards.ts: cancels
   * under the strategy's name); the kind still chooses the snapshot parts read.
   */
  decide?: ReadonlyMap<string, (snapshot: Snapshot, now: number) => Decision[]>;
  cycleId?: string;
  /**
   * The cron slot this run is for (local unix ms; a scheduled run's): a DCA holds when the venue shows a
   * TWAP on its pair and side placed since then that the journal does not have (slotTwapsElsewhere).
   */
  slot?: number;
  /** Aborts the whole cycle, sends included (the daemon's grace period is over). */
  signal?: AbortSignal;
  /** Aborts only the reads (reconciliation, snapshot): nothing has been sent yet at that point. */
  readSignal?: AbortSignal;
  /** Set while this cycle's kill switch is checked; default: anything is at the limits' killSwitchFile. */
  killSwitchActive?: boolean;
  /** While the kill switch is engaged, cancel the account's running TWAPs (default: limits.killSwitchCancelRunning). */
  cancelRunning?: boolean;
}

/**
 * What each rebalancer of the account would sell of HYPE now: its decision on this snapshot (pure, so
 * asking costs nothing and sends nothing), whether or not its slot is due. A staking strategy keeps that
 * on spot: a trial's 2,800-HYPE deposit at 00:15 left the rebalancer, blocked until 05:00, 1,000 HYPE to
 * sell, and HYPE 5 points over target for days. A rebalancer that fails to decide is left out.
 */
export function plannedHypeSales(
  peers: ReadonlyArray<Pick<Strategy, "name" | "kind" | "params" | "capital"> & { schedule?: string }>,
  snapshot: Snapshot,
  now: number,
  o: {
    /** This cycle's strategies: a DCA among them that sells HYPE sells in this very cycle. */
    dueNow?: ReadonlyArray<Pick<Strategy, "name" | "kind" | "params" | "capital">>;
    /** What a strategy remembers (its budget spent, its last TWAP), as it is asked in the cycle. */
    memoryOf?: (s: Pick<Strategy, "name" | "kind" | "params" | "capital">) => StrategyMemory;
    /** The highest mid the price checks accept now for a pair, by label (from the journal's price memory). */
    acceptedMid?: (label: string) => Decimal | undefined;
    /** Why the price checks would not accept a pair's prices now (priceSanity.ts pairPriceDoubt). */
    priceDoubt?: (pair: SpotPair) => string | undefined;
    /** limits.maxOrderUsd: a sale larger than this goes out in pieces, a cycle each. */
    maxOrderUsd?: Decimal;
    /** limits.maxDailyNotionalUsd: what all TWAPs of the account may trade in 24 h. */
    maxDailyNotionalUsd?: Decimal;
  } = {},
): PlannedSale[] {
  const {
    dueNow = [],
    memoryOf = () => ({}),
    acceptedMid = () => undefined,
    priceDoubt = () => undefined,
    maxOrderUsd,
    maxDailyNotionalUsd,
  } = o;
  const out: PlannedSale[] = [];
  // A DCA selling HYPE in this cycle (its TWAP not running yet): what it decides to sell stays on spot,
  // or the deposit decided beside it took the HYPE it sells (a new user's trial: 100 HYPE staked under
  // keepSpot with the sale beside it; staking allocated first, the sale found nothing to sell). Asked with
  // its memory, as it decides (a review: asked without its budget, a DCA whose budget was spent held a
  // whole run of HYPE off staking at every run).
  for (const peer of dueNow) {
    if (peer.kind !== "twap-accumulate") continue;
    let decisions: Decision[];
    try {
      decisions = runStrategy(peer as Strategy, capitalView(snapshot, peer.capital), now, memoryOf(peer));
    } catch {
      continue;
    }
    for (const d of decisions)
      if (d.kind === "twapOrder" && d.side === "sell" && d.label.split("/")[0] === "HYPE")
        out.push({ strategy: peer.name, size: d.size });
  }
  // What the HYPE sales already running will still sell.
  const selling = spotSellsOf(snapshot, "HYPE").reduce(
    (a, t) => a.plus(Decimal.max(ZERO, t.size.minus(t.executedSize))),
    ZERO,
  );
  for (const peer of peers) {
    if (peer.kind !== "twap-rebalance") continue;
    // Asked without its HYPE sell floor: a sale the floor holds now goes out once the price is back, and
    // staked HYPE could not (a trader's floor at 18 with HYPE at 17.9 let 5,762 HYPE be staked; back at
    // 24, the rebalancer stayed 20 points over target with nothing on spot to sell).
    const params = peer.params as TwapRebalanceParams;
    const floor = params.priceLimits?.HYPE?.sellFloor;
    const asked =
      floor === undefined
        ? peer
        : {
            ...peer,
            params: {
              ...params,
              priceLimits: {
                ...params.priceLimits,
                HYPE: { ...params.priceLimits?.HYPE, sellFloor: undefined },
              },
            },
          };
    let decisions: Decision[];
    try {
      decisions = runStrategy(asked, capitalView(snapshot, peer.capital), now, {});
    } catch {
      continue;
    }
    // What it is over target by, less what HYPE sales already running will sell (the staking strategy
    // keeps their part at their pace).
    const over = excessOverTarget(capitalView(snapshot, peer.capital), params, "HYPE");
    const excess = over?.size.minus(selling);
    // What a withdrawal is sized from (withdrawForSales): the same at a mid no higher than the price
    // checks accept now. A withdrawal takes 7 days and no price guard stands before it: a 35-minute wick
    // of +40% withdrew 158 HYPE for a sale the rebalancer, back within its band at its next run, never
    // made (a review).
    const sane = withLowerMid(snapshot, "HYPE", params.quote, acceptedMid);
    const overSane =
      sane === snapshot ? over : excessOverTarget(capitalView(sane, peer.capital), params, "HYPE");
    const excessSane = overSane?.size.minus(selling);
    // A sale its floor holds is not one to withdraw stake for: the price may stay under the floor for
    // months, the withdrawn HYPE earning nothing on spot meanwhile.
    const floorHolds = floor !== undefined && over?.mid.lt(floor) === true;
    const spotAvailable = snapshot.balances.get("HYPE")?.available ?? ZERO;
    // Nor a sale smaller than the venue's smallest TWAP or the rebalancer's minOrderUsd: it would not go
    // out, the withdrawn HYPE earning nothing on spot (a small account's trial: 1.06 HYPE withdrawn for a
    // 33.77-USDC excess, twice in 90 days, the rebalancer selling nothing).
    // What it would sell with the HYPE on spot: a correction below that minimum is raised to it when the
    // weight still ends within its band (a review: without this, a staker's rebalancer that would sell
    // 1.27 HYPE with it on spot stayed out of band, nothing withdrawn for it).
    const hypePair = pairFor(snapshot, "HYPE", params.quote);
    const raised =
      excessSane !== undefined && overSane !== undefined && hypePair !== undefined
        ? raisedToSmallestTwap(snapshot, hypePair.base.szDecimals, overSane.mid, excessSane, overSane.band)
        : undefined;
    const saleSize = raised ?? excessSane;
    const tooSmall =
      saleSize !== undefined &&
      overSane !== undefined &&
      saleBelowMinimum(snapshot, params, saleSize.times(overSane.mid));
    // Nor when a price its other tokens are valued at is one the checks reject now: a wick down in PURR
    // read as HYPE over its target (a risk trial: 123 HYPE withdrawn, the rebalancer within band again
    // 30 minutes later).
    const doubted = Object.keys(params.targets)
      .filter((t) => t !== "HYPE" && t !== params.quote && snapshot.balances.get(t)?.total.gt(0) === true)
      .map((t) => pairFor(snapshot, t, params.quote))
      .find((p) => p !== undefined && priceDoubt(p) !== undefined);
    const overTarget =
      excessSane?.gt(0) && !floorHolds && !tooSmall && doubted === undefined && overSane !== undefined
        ? {
            overTarget: saleSize ?? excessSane,
            spotAvailable,
            bandSize: overSane.band,
            // The quote valued as USD (USDC): a piece's size, approximately.
            ...(maxOrderUsd?.gt(0) ? { pieceSize: maxOrderUsd.div(overSane.mid) } : {}),
            ...paceOf(peer, params, overSane.mid, now, maxOrderUsd, maxDailyNotionalUsd),
          }
        : {};
    let sells = false;
    for (const d of decisions)
      if (d.kind === "twapOrder" && d.side === "sell" && d.label.split("/")[0] === "HYPE") {
        const held = floor !== undefined && d.midPx.lt(floor);
        out.push({
          strategy: peer.name,
          size: d.size,
          ...(held ? { heldBy: "its sell floor" } : overTarget),
        });
        sells = true;
      }
    if (sells) continue;
    // Over target but not selling now (a DCA's TWAP running on the pair, a floor of the account under
    // its keepOnSpot, its minimum order, nothing on spot to sell): what it is over target by goes out
    // once that passes, and staked it could not (a trader's rebalancer waiting behind a 200-USD DCA TWAP
    // found all 1,523 spot HYPE staked at :15, and ended at 75.9% HYPE against a 40% target).
    if (excess?.gt(0)) {
      // Its HYPE decision's words ("HYPE is 72% of …: a TWAP … is already running"), or its whole run's.
      const skips = decisions.filter((d) => d.kind === "skip").map((d) => d.reason);
      const hype = skips.filter((r) => r.startsWith("HYPE is "));
      const reasons = hype.length > 0 ? hype : skips;
      const said = (text: string) => reasons.some((r) => r.includes(text));
      const heldBy = said("is already running on")
        ? "a TWAP running on its pair"
        : said("limits.keepOnSpot floor")
          ? "a token under its limits.keepOnSpot floor"
          : said("minOrderUsd")
            ? "its minOrderUsd"
            : floorHolds
              ? "its sell floor"
              : tooSmall
                ? "the venue's smallest TWAP (what it is over by is worth less)"
                : doubted !== undefined
                  ? `a price of ${doubted.base.name} the price checks do not accept now`
                  : "its decision now";
      // Nor for a rebalancer that holds everything while a token is under its keepOnSpot floor: that
      // lasts until the owner tops it up, and its weights are of a view without the floored quote (a
      // review: 901 HYPE withdrawn for a sale that never came, "999 HYPE over" where it was 400).
      const floorBound = heldBy === "a token under its limits.keepOnSpot floor";
      out.push({ strategy: peer.name, size: excess, heldBy, ...(floorBound ? {} : overTarget) });
    }
  }
  return out;
}

/**
 * Whether a strategy trades `pair` on `side`: one of its markets is the pair (by its venue name, or its
 * base against its quote), and a DCA's side is that one.
 */
function tradesPair(
  s: Pick<Strategy, "kind" | "params">,
  pair: { name: string; base: { name: string }; quote: { name: string } },
  side: "buy" | "sell",
): boolean {
  if (s.kind === "twap-accumulate" && (s.params as { side?: string }).side !== side) return false;
  return strategyMarkets(s).some((m) => isMarketPair(m, pair));
}

/**
 * A schedule's slots within `horizonMs` from now, counting no further than `most`: counted once a day
 * per expression (a cycle asks at every run, a simulation thousands of times).
 */
function slotsAhead(expression: string, now: number, horizonMs: number, most: number): number {
  const day = Math.floor(now / DAY_MS);
  const key = `${expression}\u0000${most}`;
  const known = paceSlots.get(key);
  if (known?.day === day) return known.slots;
  let cron = paceCrons.get(expression);
  if (cron === undefined) {
    cron = new CronSchedule(expression);
    paceCrons.set(expression, cron);
  }
  let slots = 0;
  for (let t = cron.next(now); t !== undefined && t <= now + horizonMs && slots < most; t = cron.next(t))
    slots++;
  paceSlots.set(key, { day, slots });
  return slots;
}
const paceCrons = new Map<string, CronSchedule>();
const paceSlots = new Map<string, { day: number; slots: number }>();

/**
 * The most a rebalancer can sell in a day at its pace (pacePerDay): a TWAP a run at most, each a piece
 * (limits.maxOrderUsd) and no longer than its runs leave time for (one TWAP on its pair at a time), and
 * all of them within limits.maxDailyNotionalUsd. withdrawForSales withdraws no more than that pace sells
 * by the time a withdrawal is back (validatorStaking saleShortfall). Nothing when neither limit binds (no
 * daily limit, and no schedule to count runs by).
 */
function paceOf(
  peer: { schedule?: string },
  params: TwapRebalanceParams,
  mid: Decimal,
  now: number,
  maxOrderUsd: Decimal | undefined,
  maxDailyNotionalUsd: Decimal | undefined,
): { pacePerDay?: Decimal } {
  if (!mid.gt(0)) return {};
  const byDailyLimit = maxDailyNotionalUsd?.gt(0) ? maxDailyNotionalUsd.div(mid) : undefined;
  let byPieces: Decimal | undefined;
  if (peer.schedule !== undefined && maxOrderUsd?.gt(0)) {
    // Over the whole horizon a withdrawal is sized for, not a day: a weekly rebalancer (one run in 7
    // days) or one of 3-day TWAPs counted as a piece a day withdrew 10 pieces for 1 to 4 (a review).
    const horizonMinutes = SALE_PACE_HORIZON_DAYS * 1_440;
    const most = Math.ceil(horizonMinutes / Math.max(1, params.twap.minutes));
    const runs = Math.min(most, slotsAhead(peer.schedule, now, horizonMinutes * 60_000, most));
    byPieces = maxOrderUsd.div(mid).times(runs).div(SALE_PACE_HORIZON_DAYS);
  }
  const perDay =
    byDailyLimit === undefined
      ? byPieces
      : byPieces === undefined
        ? byDailyLimit
        : Decimal.min(byDailyLimit, byPieces);
  return perDay === undefined ? {} : { pacePerDay: perDay };
}

/**
 * Whether a sale worth `value` in the rebalancer's quote is below the venue's smallest TWAP
 * (venue.twapMinOrderValue, in quote units) or the rebalancer's minOrderUsd (at the quote's USD price).
 */
function saleBelowMinimum(snapshot: Snapshot, params: TwapRebalanceParams, value: Decimal): boolean {
  if (value.lt(snapshot.rules.twapMinOrderValue)) return true;
  if (params.minOrderUsd === undefined) return false;
  const quoteUsd = usdPerUnit(snapshot, params.quote);
  return quoteUsd !== undefined && value.times(quoteUsd).lt(params.minOrderUsd);
}

/** A validator-staking strategy's params (undefined for another kind). */
function stakingOf(s: Pick<Strategy, "kind" | "params">): ValidatorStakingParams | undefined {
  return s.kind === "validator-staking" ? (s.params as ValidatorStakingParams) : undefined;
}

/** `snapshot` with the pair of `base`/`quote` at the lower of its mid and `lower(label)`, if lower. */
function withLowerMid(
  snapshot: Snapshot,
  base: string,
  quote: string,
  lower: (label: string) => Decimal | undefined,
): Snapshot {
  const pair = pairFor<SpotPair>(snapshot, base, quote);
  const other = pair === undefined ? undefined : lower(pairLabel(pair));
  if (
    pair === undefined ||
    other === undefined ||
    pair.mid === undefined ||
    !other.lt(pair.mid) ||
    !other.gt(0)
  )
    return snapshot;
  return { ...snapshot, pairs: new Map(snapshot.pairs).set(pair.name, { ...pair, mid: other }) };
}

/** How far a clock in sync may read ahead of the venue's: its Date header's second and a round trip. */
const DATE_HEADER_SLACK_MS = 2_000;

/**
 * The decisions of strategies that failed their run in a cycle that ran (they threw while deciding, or
 * were held for the clock): their slot stays due, and `once`, `plan` and the daemon count them as failures.
 */
export function failedRuns(report: Pick<CycleReport, "decisions">): CycleReport["decisions"] {
  return report.decisions.filter((d) => d.decision.kind === "skip" && d.decision.failed === true);
}

/**
 * The actions of a report the venue refused, or whose outcome is still not known: an answer lost in one
 * cycle of a pass may be reconciled as landed by a later cycle of the same pass (a cron user's mail
 * said a guard's cancel had failed when the next cycle had found it done).
 */
export function troubledActions(
  report: Pick<CycleReport, "actions">,
  journal: Pick<Journal, "submissionStatus">,
  account: string,
): CycleAction[] {
  return report.actions.filter(
    (a) => a.outcome === "rejected" || (a.outcome === "unknown" && !landedSince(a, journal, account)),
  );
}

/** Whether an action whose answer was lost has since been found landed by reconciliation (its nonce's row). */
export function landedSince(
  a: Pick<CycleAction, "request">,
  journal: Pick<Journal, "submissionStatus">,
  account: string,
): boolean {
  const nonce = a.request.nonce;
  return typeof nonce === "number" && journal.submissionStatus(account, nonce) === "landed";
}

/**
 * The strategies of `names` whose every send in the report was refused before the venue looked at it
 * (rate limited, unreachable): nothing happened, and the slot stays due.
 */
export function unprocessedOnly(report: Pick<CycleReport, "actions">, names?: readonly string[]): string[] {
  const by = new Map<string, boolean>();
  for (const a of report.actions)
    by.set(a.strategy, (by.get(a.strategy) ?? true) && a.outcome === "rejected" && a.unprocessed === true);
  return [...by].filter(([n, only]) => only && (names === undefined || names.includes(n))).map(([n]) => n);
}

/** "strategy: not processed (detail)" of each strategy of `names` whose sends the venue never processed. */
export function unprocessedText(report: Pick<CycleReport, "actions">, names?: readonly string[]): string {
  return unprocessedOnly(report, names)
    .map((n) => {
      const detail = report.actions.find((a) => a.strategy === n)?.detail;
      return `${n}: nothing it sent was processed${detail ? ` (${detail})` : ""}; its slot stays due`;
    })
    .join("; ");
}

/**
 * Why a strategy of a report left its slot due, in words (once --json gave a held strategy's name with no
 * reason: a cron user's trial). Mirrors the rules of Scheduler.settle.
 */
export function deferralReason(
  report: Pick<CycleReport, "actions" | "decisions" | "killSwitchEngaged" | "cutShort">,
  name: string,
): string {
  const own = report.decisions.filter((d) => d.decision.strategy === name);
  const threw = own.find((d) => d.decision.kind === "skip" && d.decision.failed === true);
  if (threw) return `it failed while deciding: ${threw.decision.reason}`;
  const unprocessed = unprocessedText(report, [name]);
  if (unprocessed !== "") return unprocessed.slice(name.length + 2);
  const sent = report.actions.some((a) => a.strategy === name);
  if (report.cutShort?.strategies.has(name) === true && !sent)
    return "the pass was stopped before it sent anything";
  if (report.killSwitchEngaged === true && !sent) return "the kill switch is engaged";
  const waits = own.filter((d) => d.decision.kind === "skip" && d.decision.defer === true);
  if (waits.length > 0) return waits.map((d) => d.decision.reason).join("; ");
  return "its slot stays due";
}

/** "strategy: reason" of each failed run, for a notice or a log line. */
export function failedRunsText(runs: CycleReport["decisions"]): string {
  return runs.map((d) => `${d.decision.strategy}: ${d.decision.reason}`).join("; ");
}

/** Runs one cycle. Journals everything; a failure is journaled and rethrown with nothing further sent. */
export async function runCycle(deps: CycleDeps, o: CycleOptions): Promise<CycleReport> {
  const startedAt = deps.clock();
  const cycleId = o.cycleId ?? newCycleId(startedAt);
  const log = deps.logger.child({ cycle: cycleId });
  const mode = deps.exchange?.mode ?? "unsigned";
  deps.journal.startCycle({
    id: cycleId,
    trigger: o.trigger,
    mode,
    account: deps.account,
    strategies: o.strategies.map((s) => s.name),
  });
  const linked = linkSignals(o.signal, o.readSignal);
  const reads = linked.signal;
  try {
    if (deps.facts.multiSig) {
      throw new ConfigError(
        `account ${deps.account} is a multi-sig account (threshold ${deps.facts.multiSig.threshold} of ${deps.facts.multiSig.authorizedUsers.length}); hlbot does not act for multi-sig accounts`,
      );
    }
    const reconciled = await reconcile(deps.info, deps.journal, {
      account: deps.account,
      now: startedAt,
      userSignedGraceMs: deps.userSignedGraceMs,
      ...(deps.venueNow ? { venueNow: deps.venueNow } : {}),
      signal: reads,
    });
    // Settled either way: info. Still unknown (its strategy waits, up to the nonce window): a warning.
    for (const r of reconciled)
      log[r.verdict === "landed" || r.verdict === "absent" ? "info" : "warn"](
        { submission: r.submissionId, verdict: r.verdict },
        `reconcile ${r.actionType}: ${r.detail}`,
      );

    // Checked before the reads: when engaged with cancelRunning, the running TWAPs are read to be cancelled.
    const killSwitch: KillSwitchState =
      o.killSwitchActive !== undefined
        ? { engaged: o.killSwitchActive }
        : deps.limits.killSwitchFile
          ? killSwitchState(deps.limits.killSwitchFile)
          : { engaged: false };
    const cancelRunning =
      killSwitch.engaged && (o.cancelRunning ?? deps.limits.killSwitchCancelRunning === true);
    const parts = snapshotParts(o.strategies.map((s) => s.kind));
    if (cancelRunning) parts.add("twaps");
    // A rebalancer that counts staked HYPE needs the staking balances.
    if (
      o.strategies.some(
        (s) => s.kind === "twap-rebalance" && "countStaked" in s.params && s.params.countStaked,
      )
    )
      parts.add("staking");
    const read = await readSnapshot(deps.info, {
      account: deps.account,
      network: deps.network,
      rules: deps.rules,
      parts,
      facts: deps.facts,
      now: startedAt,
      venueNow: deps.venueNow,
      signal: reads,
      validatorAllowlist: deps.limits.validatorAllowlist,
      logger: log,
      // The metrics value the stake too, whatever runs: read as they can be, never holding the cycle; not
      // in a cancel-only cycle (the kill switch's), which waits for nothing it does not need.
      stakingIfReadable: metricsNeedStaking(deps.metrics) && o.strategies.length > 0,
    });
    // Beside the venue's staking history, the journal's own moves over the same period (the oldest
    // event's time): what the bot did is not what the user did by hand. The history is dated by the
    // venue's clock, and so is each move journaled with the venue's time; an older row has only the
    // local time, moved onto the venue's clock by the skew measured now (this cycle's Date headers),
    // so a local clock minutes off does not turn the bot's own moves into the user's.
    const history = read.stakingHistory;
    const venueNow = deps.venueNow?.();
    const localToVenue = venueNow === undefined ? 0 : venueNow - deps.clock();
    // Who placed each running TWAP: the venue does not say; this bot's journal does (shown in reasons,
    // and a DCA does not wait for an enabled strategy's TWAP on its side), and how long it still runs on
    // the venue's clock (its start is the venue's time).
    // An enabled strategy of that name that still trades the TWAP's pair (and side, for a DCA): a name
    // given to another strategy in the same edit that renamed its holder (a DCA renamed, its old name
    // reused for a HYPE DCA) made the PURR TWAP a peer's, and the renamed DCA placed a second one
    // beside it, doubling its pace (a trial of an owner editing the bot file while TWAPs run).
    const enabledNow = new Map((deps.peers ?? o.strategies).map((s) => [s.name, s] as const));
    const peerOf = (name: string, t: RunningTwap) => {
      const s = enabledNow.get(name);
      const pair = read.pairs.get(t.coin);
      return s !== undefined && pair !== undefined && tradesPair(s, pair, t.side);
    };
    const owned =
      read.twaps.length === 0
        ? read
        : {
            ...read,
            twaps: read.twaps.map((t) => {
              const by =
                t.twapId === undefined ? null : placedBy(deps.journal.twapPlacedBy(deps.account, t.twapId));
              return {
                ...t,
                placedBy: by,
                ...(by !== null && peerOf(by, t) ? { peer: true as const } : {}),
                remainingMs: t.startedAt + t.minutes * 60_000 - (startedAt + localToVenue),
              };
            }),
          };
    // An hour more than the pairing window: a local clock corrected since a move was sent.
    const ownSince =
      history === undefined
        ? 0
        : history.reduce((t, e) => Math.min(t, e.time), startedAt + localToVenue) -
          localToVenue -
          PAIRED_WITHIN_MS -
          60 * 60_000;
    const snapshot =
      history === undefined
        ? owned
        : {
            ...owned,
            ownStakingMoves: deps.journal
              .ownStakingMoves(deps.account, ownSince)
              .map((m) => (m.onVenueClock ? m : { ...m, time: m.time + localToVenue })),
            // A withdrawal lands the unstaking queue after it was sent.
            ownWithdrawals: deps.journal
              .ownWithdrawals(deps.account, ownSince - LONGEST_UNSTAKING_QUEUE_MS)
              .map((m) => (m.onVenueClock ? m : { ...m, time: m.time + localToVenue })),
          };
    deps.journal.recordSnapshot(cycleId, summarizeSnapshot(snapshot));
    // Only the journal's first cycle: later ones see its own TWAPs and moves.
    if (deps.journal.takeFreshNotice())
      noticeUnjournaledActivity(deps, log, snapshot, startedAt + localToVenue);
    const stakingRead = snapshot.parts?.has("staking") === true;
    if (stakingRead) recordStake(deps.metrics, snapshot);
    recordAccount(deps.metrics, {
      snapshot,
      staking: stakingRead,
      twaps: parts.has("twaps"),
      journal: deps.journal,
      account: deps.account,
      maxDailyNotionalUsd: deps.limits.maxDailyNotionalUsd,
      killSwitchEngaged: killSwitch.engaged,
      strategies: o.strategies,
      floors: deps.limits.keepOnSpot,
      now: startedAt,
      clock: deps.clock,
    });
    recordTwapProgress(deps.metrics, snapshot);

    const report: CycleReport = {
      cycleId,
      trigger: o.trigger,
      startedAt,
      reconciled,
      snapshot,
      decisions: [],
      actions: [],
      ...(killSwitch.engaged ? { killSwitchEngaged: true } : {}),
    };
    // Strategies with a submission reconciliation left unresolved must not act again yet. Reconciliation
    // judged every unresolved row of the account, and nothing of this cycle has been sent since.
    const blocked = new Set(reconciled.filter((r) => r.verdict === "unresolved").map((r) => r.strategy));
    const budgets = await twapFillsForBudgets(deps, o.strategies, snapshot, reads);
    const fills = budgets?.fills;
    const skips: Skip[] = [];
    const intents: Intent[] = [];
    // Strategies see only what is above the account's floors (the allocator keeps them too).
    // The configuration's strategies by name: this cycle's and the peers as they are now, over the
    // configuration as loaded.
    const configured = new Map(
      [...(deps.configured ?? []), ...(deps.peers ?? []), ...o.strategies].map((s) => [s.name, s]),
    );
    /** What a strategy remembers when it decides: its budget spent, its last ended TWAP. */
    const memoryFor = (strategy: {
      name: string;
      kind: Strategy["kind"];
      params: unknown;
    }): StrategyMemory =>
      remembers(strategy.kind)
        ? {
            ...budgetMemory(deps, strategy, configured, snapshot, fills),
            ...lastEndedTwap(deps.journal, strategy.name, fills),
          }
        : {};
    /** The journal's price memory of a pair, as it was before this cycle (read once, when first asked). */
    let memories: Map<string, PairMemory> | undefined;
    const pairMemory = (label: string): PairMemory | undefined => {
      memories ??= deps.journal.pairMemories();
      return memories.get(label);
    };
    let floored = floorView(snapshot, deps.limits.keepOnSpot);
    const withdrawer = (deps.peers ?? o.strategies).find((s) => stakingOf(s)?.withdrawForSales === true);
    if (withdrawer !== undefined) floored = { ...floored, withdrawsForSales: withdrawer.name };
    // Only a staking strategy that deposits spot HYPE (stakeIdleSpot) or withdraws for sales needs it.
    if (
      o.strategies.some((s) => {
        const p = stakingOf(s);
        return p?.stakeIdleSpot?.enabled === true || p?.withdrawForSales === true;
      })
    ) {
      // The highest mid the price checks' "last mid seen" bound accepts now: a wick they reject is not
      // what a withdrawal is sized from (a review: held to memories of the last hour, a 35-minute wick
      // across a run withdrew 52 HYPE, the checks having left the memory older exactly while rejecting it).
      const acceptedMid = (label: string) => {
        const last = lastMidBound(
          pairMemory(label),
          deps.limits.priceSanity ?? DEFAULT_PRICE_SANITY,
          startedAt,
        );
        return last?.mid.times(last.bound.plus(1));
      };
      const planned = plannedHypeSales(deps.peers ?? o.strategies, floored, startedAt, {
        dueNow: o.strategies,
        memoryOf: memoryFor,
        acceptedMid,
        priceDoubt: (pair) =>
          pairPriceDoubt(
            pair,
            floored,
            pairMemory(pairLabel(pair)),
            deps.limits.priceSanity ?? DEFAULT_PRICE_SANITY,
            startedAt,
          ),
        maxOrderUsd: deps.limits.maxOrderUsd,
        maxDailyNotionalUsd: deps.limits.maxDailyNotionalUsd,
      });
      if (planned.length > 0) floored = { ...floored, plannedHypeSales: planned };
    }
    // Schedules follow the local clock: one far from the venue's runs strategies in slots that are not
    // due (13 h ahead, a daily DCA bought the next day's run in the evening, and again the next morning
    // once the clock was corrected: a review). Nothing is decided until it is corrected, as a failure
    // (the slot stays due, retried; the daemon's health says so); cancels of running TWAPs still go.
    const maxSkew = deps.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
    const skewMs = venueNow === undefined ? 0 : -localToVenue;
    // The venue's time is known to its Date header's second, read after the answer's round trip: always
    // a little behind, so a clock in sync reads up to about that much ahead (a review: "0.7 s ahead" held
    // a synchronised bot under a small maxClockSkew).
    const clockHold =
      skewMs - DATE_HEADER_SLACK_MS > maxSkew || skewMs < -maxSkew
        ? `holding: the local clock is ${skewText(skewMs)} the venue's (its answers' Date headers), more than schedule.maxClockSkew (${duration(maxSkew)}): schedules follow the local clock, so strategies act again once it is corrected. Synchronise it (NTP)`
        : undefined;
    for (const strategy of o.strategies) {
      if (clockHold !== undefined && o.decide?.get(strategy.name) === undefined) {
        skips.push({ kind: "skip", strategy: strategy.name, reason: clockHold, defer: true, failed: true });
        continue;
      }
      const earlier = budgets?.unjournaled.get(strategy.name);
      const inSlot =
        o.slot === undefined || earlier !== undefined
          ? undefined
          : slotTwapsElsewhere(deps.journal, deps.account, strategy, snapshot, o.slot + localToVenue);
      const hold = blocked.has(strategy.name)
        ? "waiting: an earlier submission of this strategy is not reconciled yet (see `hlbot history`)"
        : earlier !== undefined
          ? unjournaledReason(earlier)
          : inSlot !== undefined
            ? slotTwapsReason(inSlot, o.slot ?? 0)
            : undefined;
      // A hold keeps new orders back; a watch's cancel of a TWAP already running (its price guard) only
      // takes exposure off and goes through it (a TWAP placed by hand on the DCA's pair held its guard,
      // and its TWAP bought on above its ceiling: review of 2026-11-27).
      const override = o.decide?.get(strategy.name);
      if (hold !== undefined && override === undefined) {
        skips.push({ kind: "skip", strategy: strategy.name, reason: hold, defer: true });
        continue;
      }
      let decisions: Decision[];
      try {
        const view = capitalView(floored, strategy.capital);
        decisions = override
          ? override(view, startedAt)
          : runStrategy(strategy, view, startedAt, memoryFor(strategy));
      } catch (err) {
        // A state database that can no longer be read fails the cycle (the daemon stops, as for every
        // other read of it); anything else fails this strategy's run: said, counted as a failure by
        // `once`, and its slot stays due (retried within schedule.catchUp), as a failed cycle's does.
        // Settled as acted, a daily DCA lost that day's buy to one error (review of 2026-11-27).
        if (isFatalError(err)) throw err;
        log.error({ strategy: strategy.name, err: describeError(err) }, "strategy failed");
        skips.push({
          kind: "skip",
          strategy: strategy.name,
          reason: `strategy failed: ${describeError(err)}`,
          defer: true,
          failed: true,
        });
        continue;
      }
      for (const d of decisions) {
        // Only a rebalancer decides from what its capital shows (a DCA buys its amount each run, bounded by
        // its budget: a review's DCA with capital on both tokens never bought).
        const unseen =
          d.kind === "twapOrder" && strategy.kind === "twap-rebalance"
            ? unseenByCapital(d, floored, strategy.capital)
            : undefined;
        if (!isIntent(d)) skips.push(d);
        else if (hold !== undefined && d.kind !== "twapCancel") {
          skips.push({ kind: "skip", strategy: strategy.name, reason: hold, defer: true });
        } else if (unseen !== undefined) {
          skips.push({
            kind: "skip",
            strategy: strategy.name,
            considered: "twapOrder",
            reason: `${d.reason}; not sent: ${unseen}`,
          });
        } else intents.push(d.kind === "twapOrder" ? stamped(d, strategy) : d);
      }
    }
    // One allocator per account: the strategies' intents are fitted to the balances together.
    const allocation = allocate(intents, snapshot, {
      strategies: o.strategies,
      buyReserve: deps.rules.twapBuyReserve,
      keepOnSpot: deps.limits.keepOnSpot,
      lastRefused: lastRefusedTwaps(deps.journal, intents),
      unresolved: unresolvedTouches(reconciled),
    });
    // A side netted away is covered by the opposing TWAP only if that one goes out: journaled after the
    // sends (a DCA's buy netted against a rebalancer's sale that the daily limit then blocked lost the
    // DCA's day: a trader's trial).
    const covered = allocation.skipped.filter((s) => s.coveredOn !== undefined);
    skips.push(...allocation.skipped.filter((s) => s.coveredOn === undefined));

    // Decisions nothing is done about are written in one commit each batch (a large account has
    // dozens; a commit per row costs an fsync each).
    if (skips.length > 0)
      deps.journal.batch(() => {
        for (const skip of skips) record(deps, report, cycleId, skip, "skipped");
      });
    // The journal's usage, or the venue's where it shows more (another instance, a lost state folder);
    // a TWAP the venue shows as ended counts at what it executed (the gauge below counts the same).
    const ended = endedTwapFills(snapshot);
    const usage = dayUsage(
      (since, fills) => deps.journal.usage(deps.account, since, fills),
      snapshot,
      ended,
      startedAt,
      localToVenue,
      (twapId) => deps.journal.twapPlacedBy(deps.account, twapId) !== undefined,
    );
    // Prices and metadata cross-checked once, right before the limits that are valued with them.
    const sane = checkPriceSanity({
      intents: allocation.intents,
      snapshot,
      limits: deps.limits.priceSanity ?? DEFAULT_PRICE_SANITY,
      memory: pairMemory,
      now: startedAt,
    });
    for (const alarm of sane.alarms) log.error({ alarm }, `venue metadata changed: ${alarm}`);
    deps.journal.rememberPairs(sane.observed);
    if (sane.blocked.length > 0)
      deps.journal.batch(() => {
        for (const b of sane.blocked) record(deps, report, cycleId, b, "blocked");
      });
    const limited = applyLimits(sane.allowed, deps.limits, usage, {
      killSwitchActive: killSwitch.engaged,
      rules: deps.rules,
    });
    if (limited.blocked.length > 0)
      deps.journal.batch(() => {
        for (const b of limited.blocked) record(deps, report, cycleId, b, "blocked");
      });

    // The kill switch's own cancellations go first and pass the limits: they only reduce exposure.
    const cancels: Intent[] = [];
    if (cancelRunning) {
      const why = `kill switch engaged${killSwitch.detail ? ` (${killSwitch.detail})` : ""}`;
      // Each running TWAP's cancel is sent, also while an earlier cancel's outcome is unknown: a second
      // cancel of one TWAP is harmless (the venue refuses whichever comes after it ended), and waiting
      // for a lost one held every cancel of an urgent stop (a seller's trial: two sales kept selling
      // while `hlbot stop --cancel-twaps` exited 0).
      for (const d of killSwitchCancels(snapshot.twaps, why, snapshot.pairs)) {
        if (d.kind === "skip") record(deps, report, cycleId, d, "skipped");
        else cancels.push(d);
      }
    }

    const failedStrategies = new Set<string>();
    const cutShort = new Set<string>();
    let notSent = 0;
    // A TWAP the kill switch cancels in this cycle is not cancelled again by its guard (the second was
    // refused, and its strategy counted as failed: a review).
    const cancelled = new Set(cancels.flatMap((c) => (c.kind === "twapCancel" ? [c.twapId] : [])));
    // The daily limits are checked again as each submission is written (another process may have sent).
    const execDeps = {
      ...deps,
      dayLimits: {
        maxNotionalUsd: deps.limits.maxDailyNotionalUsd,
        maxStakeMove: deps.limits.maxStakeMovePerDay,
        fills: ended,
      },
    };
    for (const intent of [...cancels, ...limited.allowed]) {
      if (intent.kind === "twapCancel" && cancelled.has(intent.twapId) && !cancels.includes(intent)) {
        record(
          deps,
          report,
          cycleId,
          {
            kind: "skip",
            strategy: intent.strategy,
            considered: intent.kind,
            reason: `${intent.reason}; not sent: the kill switch cancels TWAP #${intent.twapId} in this cycle`,
          },
          "skipped",
        );
        continue;
      }
      // The allocator's cut (or netting) of a TWAP the price checks then revalued (a new object) is a
      // reduction too (a DCA cut to what another left of the USDC was journaled "allowed": a trial).
      const guard: Guard =
        limited.reduced.includes(intent) || allocation.changed.includes(sane.revalued.get(intent) ?? intent)
          ? "reduced"
          : "allowed";
      // A stop (SIGINT, SIGTERM) lets the request in flight finish and sends nothing new but cancels
      // (they only reduce exposure, and the bot is about to stop watching): the other actions are
      // journaled as not sent (a deferred skip), and the report says the cycle was cut short.
      const notSentSkip = (why: string, defer: boolean) =>
        record(
          deps,
          report,
          cycleId,
          {
            kind: "skip",
            strategy: intent.strategy,
            considered: intent.kind,
            reason: `${intent.reason}; not sent: ${why}`,
            ...(defer ? { defer: true } : {}),
          },
          "skipped",
        );
      if (o.readSignal?.aborted && intent.kind !== "twapCancel" && !failedStrategies.has(intent.strategy)) {
        notSent++;
        cutShort.add(intent.strategy);
        notSentSkip("hlbot is stopping", true);
        continue;
      }
      // Cancels go on: each stops a TWAP of its own, and one cancel lost in an outage held the kill
      // switch's cancel of every other TWAP (a seller's trial: a PURR sale kept selling).
      if (failedStrategies.has(intent.strategy) && intent.kind !== "twapCancel") {
        notSentSkip("an earlier action of this strategy in this cycle was not accepted", false);
        continue;
      }
      // An `hlbot stop` while this cycle read the account or sent its earlier actions: read again before
      // each send (one lstat), as the switch promises that nothing new is submitted once it is engaged.
      // Deferred, so a slot resumed within schedule.catchUp still acts. Cancels go through.
      if (intent.kind !== "twapCancel" && stoppedSince(deps, o, killSwitch)) {
        log.warn(
          { strategy: intent.strategy, action: intent.kind },
          "kill switch engaged during the cycle: not sent",
        );
        notSentSkip("the kill switch was engaged during this cycle", true);
        continue;
      }
      const decisionId = record(deps, report, cycleId, intent, guard);
      // Resends too: the switch engaged after the first copy stops the next ones (cancels go on).
      const mayResend =
        intent.kind === "twapCancel"
          ? undefined
          : () => (stoppedSince(deps, o, killSwitch) ? "the kill switch was engaged" : undefined);
      const action = await executeIntent(
        execDeps,
        { cycleId, decisionId, ...(mayResend ? { mayResend } : {}) },
        intent,
        guard,
        o.signal,
      );
      report.actions.push(action);
      const entry = report.decisions[report.decisions.length - 1];
      if (entry) entry.action = action;
      deps.metrics?.submissions.inc({ action: intent.kind, outcome: action.outcome });
      recordSent(deps.metrics, intent, action);
      // A lost answer (money may have moved unconfirmed) and a refusal are warnings: an operator
      // reading warn and above at 3 am must see them (an unknown outcome was logged at info).
      const level = action.outcome === "unknown" || action.outcome === "rejected" ? "warn" : "info";
      log[level](
        { strategy: intent.strategy, action: intent.kind, outcome: action.outcome, detail: action.detail },
        `${intent.kind} ${action.outcome}: ${intent.reason}`,
      );
      if (action.outcome === "rejected" || action.outcome === "unknown")
        failedStrategies.add(intent.strategy);
    }
    if (covered.length > 0)
      deps.journal.batch(() => {
        for (const s of covered) {
          const { coveredOn, ...skip } = s;
          /** How a strategy's TWAP on the pair went out: not at all, smaller than netted (cut), or as netted. */
          const wentOut = (strategy: string): "no" | "cut" | "yes" => {
            const sent = report.decisions.find(
              (d) =>
                d.decision.kind === "twapOrder" &&
                d.decision.assetId === coveredOn &&
                d.decision.strategy === strategy &&
                d.action !== undefined &&
                d.action.outcome !== "rejected" &&
                d.action.outcome !== "skipped",
            );
            if (sent === undefined || sent.decision.kind !== "twapOrder") return "no";
            const planned = allocation.intents.find(
              (i) => i.kind === "twapOrder" && i.assetId === coveredOn && i.strategy === strategy,
            );
            return planned?.kind === "twapOrder" && sent.decision.size.lt(planned.size) ? "cut" : "yes";
          };
          // The part a larger side netted away is covered by its own TWAP: if that did not go out as
          // netted, the part is not counted (its own TWAP's decision says why); nothing more to defer.
          if (skip.netted?.part === true) {
            const { netted: _part, ...plain } = skip;
            record(deps, report, cycleId, wentOut(skip.strategy) === "yes" ? skip : plain, "skipped");
            continue;
          }
          // A side netted away is covered only if every TWAP left on the larger side goes out as netted
          // (a review: with two sellers, the first sale that went out was taken for the one carrying the
          // netting, which maxOrderUsd had cut). Cut by a limit after the netting, a TWAP may have gone
          // out as large as without it: what it covered did not trade (a cron user's trial: a sale of 493
          // HYPE cut to 200 by maxOrderUsd "covered" a DCA's 6, and the DCA's day was lost).
          const carrierSide =
            skip.netted === undefined || skip.netted.absorbed === true
              ? skip.netted?.side
              : skip.netted.side === "buy"
                ? "sell"
                : "buy";
          const carriers = allocation.intents.filter(
            (i) =>
              i.kind === "twapOrder" &&
              i.assetId === coveredOn &&
              (carrierSide === undefined || i.side === carrierSide),
          );
          const outcomes = carriers.map((c) => ({ strategy: c.strategy, went: wentOut(c.strategy) }));
          const missing = outcomes.length === 0 || outcomes.some((o) => o.went === "no");
          const cut = outcomes.find((o) => o.went === "cut");
          record(
            deps,
            report,
            cycleId,
            missing
              ? {
                  ...skip,
                  reason: `${skip.reason}; that TWAP did not go out (blocked or refused): not traded, the slot stays due`,
                  defer: true,
                }
              : cut !== undefined
                ? {
                    ...skip,
                    reason: `${skip.reason}; that TWAP went out reduced by a limit (${cut.strategy}'s reason says which): what it covered may not have traded, the slot stays due`,
                    defer: true,
                  }
                : skip,
            "skipped",
          );
        }
      });
    if (report.actions.length > 0)
      recordJournal(deps.metrics, {
        journal: deps.journal,
        account: deps.account,
        now: deps.clock(),
        maxDailyNotionalUsd: deps.limits.maxDailyNotionalUsd,
        fills: ended,
        snapshot,
      });
    if (notSent > 0) {
      report.cutShort = { notSent, strategies: cutShort };
      deps.journal.finishCycle(
        cycleId,
        "failed",
        `hlbot is stopping: ${notSent} action(s) of this cycle not sent`,
      );
      return report;
    }
    deps.journal.finishCycle(cycleId, "ok");
    return report;
  } catch (err) {
    deps.journal.finishCycle(cycleId, "failed", describeError(err));
    throw err;
  } finally {
    linked.release();
  }
}

function record(
  deps: CycleDeps,
  report: CycleReport,
  cycleId: string,
  decision: Decision,
  guard: Guard,
): number {
  const guardReason = guard === "blocked" || guard === "reduced" ? decision.reason : undefined;
  report.decisions.push({ decision, guard, ...(guardReason ? { guardReason } : {}) });
  deps.metrics?.intents.inc({
    strategy: decision.strategy,
    kind: decision.kind === "skip" ? (decision.considered ?? "none") : decision.kind,
    guard,
  });
  return deps.journal.recordDecision(cycleId, {
    strategy: decision.strategy,
    kind: decision.kind,
    reason: decision.reason,
    guard,
    guardReason,
    // Decisions hold Decimals (written as strings) and may hold bigints (written as exact digits).
    intent: stringifyJson(decision),
  });
}

/**
 * A TWAP with what is journaled with its decision about the strategy that decided it: the watch's guard
 * its strategy puts on it now (guards.ts), and whether a DCA decided it (budget.ts).
 */
function stamped(intent: TwapOrderIntent, strategy: Pick<Strategy, "kind" | "params">): TwapOrderIntent {
  const guard = guardOf(strategy, intent.side, intent.label, intent.coin);
  return { ...intent, ...(guard === undefined ? {} : { guard }), byDca: strategy.kind === "twap-accumulate" };
}

/**
 * What the unresolved submissions touch, whoever sent them: their pairs and staking. Their own strategy
 * waits by name; another strategy (the same one renamed in the configuration, or a new one on the pair)
 * must not send what may double it when the lost one lands.
 */
function unresolvedTouches(reconciled: readonly ReconcileResult[]): UnresolvedTouches | undefined {
  const assets = new Map<number, string>();
  let staking: string | undefined;
  for (const r of reconciled) {
    if (r.verdict !== "unresolved") continue;
    if (r.actionType === "twapOrder" && r.asset !== null) assets.set(r.asset, r.strategy);
    else if (STAKING_KINDS.has(r.actionType)) staking ??= r.strategy;
  }
  return assets.size === 0 && staking === undefined ? undefined : { assets, staking };
}

/**
 * Whether the kill switch was engaged after the cycle read it: live sends only (a dry run or an unsigned
 * plan sends nothing), and only from the switch file (a caller that decides the switch itself, as the
 * simulation does, passes killSwitchActive).
 */
function stoppedSince(deps: CycleDeps, o: CycleOptions, read: KillSwitchState): boolean {
  if (read.engaged || o.killSwitchActive !== undefined || deps.exchange?.mode !== "live") return false;
  const file = deps.limits.killSwitchFile;
  return file !== undefined && killSwitchState(file).engaged;
}

/** Why a budgeted strategy holds while the journal lacks TWAPs the venue shows on its market. */
function unjournaledReason(t: UnjournaledTwaps): string {
  const done = t.count - t.running;
  const executed =
    t.executedUsd === undefined || done === 0
      ? ""
      : `, ${t.executedUsd.toFixed(2)} USD executed${t.running > 0 ? ` by the ${done} ended` : ""}`;
  const running =
    t.running > 0
      ? `; ${t.running} still running: the venue says what ${t.running === 1 ? "it executes" : "they execute"} once ${t.running === 1 ? "it ends" : "they end"}`
      : "";
  return (
    `holding: the venue shows ${t.count} TWAP(s) on this strategy's pair and side ` +
    `(the first on ${new Date(t.first).toISOString().slice(0, 10)}${executed}${running}) that this state folder's journal does not have ` +
    "(a new or restored state folder, another instance of this account, or a TWAP placed by hand), so its budget " +
    "would not count them and could be spent again. `hlbot journal rebuild` imports them and counts them against the budget " +
    "(then, if they were not this strategy's, raise budgetUsd by what they executed)"
  );
}

/**
 * The venue's TWAPs on a DCA's pair and side placed since its slot began (`sinceVenue`, venue unix ms,
 * less a minute for the clocks' difference) that this journal does not have: another instance of the
 * account acted in this slot (a second state folder: a bot file without `state:` run from a shell and from
 * cron, each with its own folder, bought twice in every slot; a trial), or a TWAP placed by hand. A DCA
 * with a budget is held by the stronger rule (budget.ts unjournaledTwaps).
 */
function slotTwapsElsewhere(
  journal: Journal,
  account: string,
  strategy: Pick<Strategy, "kind" | "params">,
  snapshot: Snapshot,
  sinceVenue: number,
): { count: number; first: number } | undefined {
  if (strategy.kind !== "twap-accumulate" || snapshot.twapHistory === undefined) return undefined;
  const p = strategy.params as {
    coin: string;
    quote: string;
    side: "buy" | "sell";
    amountUsd: Decimal;
    twap: { minutes: number; maxMinutes?: number };
  };
  const pair = marketPair(snapshot, p.coin, p.quote);
  if (pair === undefined) return undefined;
  // Its own run elsewhere looks like it: its size at about its amountUsd and no longer than its TWAPs
  // run (shortened for lots, lengthened up to maxMinutes). Another strategy's TWAP there (another
  // instance's hourly DCA beside this daily one) is waited for while it runs, not taken as this slot's
  // run (a review: the daily DCA never bought). Unvalued (no mid): taken as its run, failing closed.
  const quoteUsd = usdPerUnit(snapshot, pair.quote.name);
  const longest = Math.max(p.twap.minutes, p.twap.maxMinutes ?? 0);
  const likeItsRun = (sz: string, minutes: number) => {
    if (minutes > longest) return false;
    if (pair.mid === undefined || quoteUsd === undefined) return true;
    const usd = new Decimal(sz).times(pair.mid).times(quoteUsd);
    return usd.gte(p.amountUsd.times(SAME_RUN_LOW)) && usd.lte(p.amountUsd.times(SAME_RUN_HIGH));
  };
  let count = 0;
  let first = Number.POSITIVE_INFINITY;
  for (const entry of latestTwapEntries(snapshot.twapHistory)) {
    if (entry.state.timestamp < sinceVenue - MINUTE_MS) continue;
    if ((entry.state.side === "B" ? "buy" : "sell") !== p.side) continue;
    if (entry.state.coin !== pair.name && snapshot.pairs.get(entry.state.coin)?.assetId !== pair.assetId)
      continue;
    if (!likeItsRun(entry.state.sz, entry.state.minutes)) continue;
    if (journal.hasVenueTwap(account, entry)) continue;
    count++;
    first = Math.min(first, entry.state.timestamp);
  }
  return count === 0 ? undefined : { count, first };
}

function slotTwapsReason(t: { count: number; first: number }, slot: number): string {
  return (
    `holding: the venue shows ${t.count} TWAP(s) on this strategy's pair and side placed since its slot of ` +
    `${new Date(slot).toISOString()} (the first at ${new Date(t.first).toISOString()}) that this state folder's journal does not have: ` +
    "another hlbot of this account with its own state folder may have acted in this slot (a bot file without `state:` " +
    "takes $HLBOT_STATE_DIR or ~/.local/state/hlbot, which a cron job's environment may not share), or a TWAP was placed by hand. " +
    "It acts again in its next slot; give every hlbot of the account the same `state:`"
  );
}

/** A running TWAP's owner for reasons: a strategy, "manual", or null (not placed by this bot's strategies:
 * unknown to the journal, or imported from the venue's history with no strategy of its pair and side). */
function placedBy(strategy: string | undefined): string | null {
  return strategy === undefined || strategy === VENUE_HISTORY_STRATEGY ? null : strategy;
}

/**
 * A new state folder for an account the venue shows activity of (another instance, a lost folder): the
 * daily limits count the venue's last 24 h, and a budgeted strategy holds while earlier TWAPs on its
 * market are missing (budget.ts). Said at the journal's first cycle; `venueNow` is the venue's time.
 */
function noticeUnjournaledActivity(deps: CycleDeps, log: Logger, snapshot: Snapshot, venueNow: number): void {
  // Only what this cycle read is counted and said (a bot without staking strategies reads no staking
  // history: "0 staking moves" was said beside 13 on the venue).
  const recentMoves = snapshot.stakingHistory?.filter(
    (e) => e.time >= venueNow - 7 * DAY_MS && e.kind !== "withdrawalFinalized",
  ).length;
  // TWAPs the journal knows already (imported before the first cycle: a simulation's carried ones) are
  // not news (a fork trial: told to run a rebuild a simulation cannot run).
  const recentTwaps = snapshot.recentTwaps?.filter(
    (t) => t.twapId === undefined || deps.journal.twapPlacedBy(deps.account, t.twapId) === undefined,
  ).length;
  if (!recentMoves && !recentTwaps) return;
  const seen = [
    ...(recentTwaps === undefined ? [] : [`${recentTwaps} TWAP(s) of ${deps.account} in the last 24 h`]),
    ...(recentMoves === undefined ? [] : [`${recentMoves} staking move(s) in the last 7 days`]),
  ].join(" and ");
  log.warn(
    { recentTwaps, recentStakingMoves: recentMoves },
    `this state folder's journal was empty, but the venue shows ${seen}: ` +
      "if an earlier state folder of this account was lost or another instance runs with its own, this journal does not have it (the daily limits count the venue's history; a strategy with budgetUsd holds while the venue shows TWAPs on its pair and side this journal does not have). `hlbot journal rebuild` imports what the venue shows",
  );
}
