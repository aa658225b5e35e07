// Risk limits: the last check between what strategies want and what the executor may send. Pure and
// fail closed: anything that cannot be checked (unknown usage, an unfamiliar intent, a non-positive
// amount) is blocked with a reason, and the kill switch blocks everything. Intents are checked in the
// order given, so usage accumulates across one cycle's intents exactly as they would be sent.
import { Decimal, truncateDecimals, ZERO } from "../lib/decimal.js";
import { intentKindSpec, type LimitFacts } from "./intentKinds.js";
import {
  blockedBy,
  type Intent,
  MANUAL_STRATEGY,
  minimumCheckPx,
  never,
  type Skip,
  type TwapOrderIntent,
} from "./intents.js";
import type { TwapFill } from "./journal.js";
import type { PriceSanityLimits } from "./priceSanity.js";
import { DEFAULT_VENUE_RULES, type Snapshot, type VenueRules } from "./snapshot.js";
import { fitTwapDuration, fmt } from "./strategies/common.js";
import { isUsdStablecoin, usdPerUnit } from "./usd.js";

export interface RiskLimits {
  /** Largest TWAP notional in USD (quote converted at its USDC mid); a larger TWAP is reduced to it. */
  maxOrderUsd: Decimal;
  /** Largest TWAP notional submitted over any rolling 24 h. */
  maxDailyNotionalUsd: Decimal;
  /**
   * Largest amount of HYPE moved by tokenDelegate (either direction) and cWithdraw over a rolling 24 h; a
   * larger move is reduced to what is left.
   */
  maxStakeMovePerDay: Decimal;
  /** When set, delegations (not undelegations) to any other validator are blocked. Lower-case addresses. */
  validatorAllowlist?: readonly string[] | undefined;
  /** While this file exists nothing new is submitted (read at the start of a cycle and again before each live send; shown in reasons). */
  killSwitchFile?: string | undefined;
  /** While the kill switch is engaged, each cycle cancels the account's running TWAPs. */
  killSwitchCancelRunning?: boolean | undefined;
  /** Price cross-check bounds (src/engine/priceSanity.ts); defaults when absent. */
  priceSanity?: PriceSanityLimits | undefined;
  /** Spot balance per token no TWAP or staking deposit takes the account below (the allocator applies it). */
  keepOnSpot?: ReadonlyMap<string, Decimal> | undefined;
}

/** Rolling 24-h usage from the journal (`Journal.usage`). Anything missing blocks what it governs. */
export interface RiskUsage {
  notionalUsd?: Decimal | undefined;
  stakeMoved?: Decimal | undefined;
  /**
   * Where `notionalUsd` comes from when the venue shows more than the journal (mergeUsage): a limit used
   * up by a TWAP placed by hand read "25285.3 used" of a bot that had traded nothing (a fork trial).
   */
  notionalNote?: string;
  /**
   * Venue usage only (venueUsage given `known`): of notionalUsd, what TWAPs this bot's journal does not
   * have account for.
   */
  foreignNotionalUsd?: Decimal;
}

/**
 * Rolling 24-h usage as the venue shows it in the snapshot (the staking history's moves and withdrawals,
 * the TWAPs started, valued at today's mids): what another instance of the bot, a lost state folder or
 * a move by hand did is counted too. Undefined where the snapshot did not read it. `sinceVenueMs` is on
 * the venue's clock.
 */
export function venueUsage(
  snapshot: Snapshot,
  sinceVenueMs: number,
  /** Whether this bot's journal has TWAP `twapId` (placed, or imported by a rebuild). */
  known?: (twapId: number) => boolean,
): RiskUsage {
  const out: RiskUsage = {};
  if (snapshot.stakingHistory !== undefined) {
    out.stakeMoved = snapshot.stakingHistory
      .filter(
        (e) =>
          e.time >= sinceVenueMs &&
          (e.kind === "delegate" || e.kind === "undelegate" || e.kind === "withdrawalInitiated"),
      )
      .reduce((a, e) => a.plus(e.amount), ZERO);
  }
  if (snapshot.recentTwaps !== undefined) {
    let notional = ZERO;
    let foreign = ZERO;
    for (const t of snapshot.recentTwaps) {
      if (t.startedAt < sinceVenueMs) continue;
      const pair = snapshot.pairs.get(t.coin);
      const usd = pair === undefined ? undefined : usdPerUnit(snapshot, pair.quote.name);
      // A pair it cannot value is left out here; the journal still counts the bot's own. What filled
      // counts at what it cost, the rest at today's mid (all of it at today's mid counted a trial's
      // 8,901 USD of orders as 10,802 after a rally, above the limit); an ended TWAP has no rest.
      if (pair?.mid !== undefined && usd !== undefined) {
        const rest = t.ended === true ? ZERO : Decimal.max(t.size.minus(t.executedSize), ZERO);
        const worth = t.executedNotional.plus(rest.times(pair.mid)).times(usd);
        notional = notional.plus(worth);
        if (known !== undefined && (t.twapId === undefined || !known(t.twapId)))
          foreign = foreign.plus(worth);
      }
    }
    out.notionalUsd = notional;
    if (known !== undefined) out.foreignNotionalUsd = foreign;
  }
  return out;
}

/**
 * The rolling window of the daily limits: a day, less five minutes. A daily schedule's run of the day
 * before starts at the same slot and submits seconds after it, so a full day counted it against today's
 * run: a trial's daily DCA and daily staking were blocked every other day (the limit worked as one per
 * 30 h or 48 h). At most five minutes' submissions beyond a day can therefore count twice less.
 */
export const LIMIT_WINDOW_MS = 24 * 3_600_000 - 5 * 60_000;

/**
 * What each TWAP the venue shows as ended within the limits' window executed, in USD, by twapId: the
 * journal counts such a submission at that instead of its full notional (a TWAP cancelled after two
 * slices traded two slices' worth; counting all of it, a trial's 53 cancelled TWAPs used up a day's
 * 50,000 USD with 3,976 traded). Valued at its decision's quote price (filledUsd), else today's; one
 * valued by neither counts in full.
 */
export function endedTwapFills(snapshot: Snapshot): Map<number, TwapFill> {
  const out = new Map<number, TwapFill>();
  for (const t of snapshot.recentTwaps ?? []) {
    if (t.ended !== true || t.twapId === undefined) continue;
    const pair = snapshot.pairs.get(t.coin);
    const usd = pair === undefined ? undefined : usdPerUnit(snapshot, pair.quote.name);
    out.set(t.twapId, { ended: true, executedNtl: t.executedNotional, quoteUsdNow: usd });
  }
  return out;
}

/**
 * The larger of the journal's and the venue's usage, per limit: the journal knows what is pending or
 * unknown, the venue what anyone did. Missing journal usage stays missing (fail closed).
 */
export function mergeUsage(journal: RiskUsage, venue: RiskUsage): RiskUsage {
  const larger = (a: Decimal | undefined, b: Decimal | undefined) =>
    a === undefined ? undefined : b === undefined ? a : Decimal.max(a, b);
  const own = journal.notionalUsd;
  const venueMore = own !== undefined && venue.notionalUsd?.gt(own) === true;
  // Who the rest is: TWAPs the journal does not have, or the venue's value of the bot's own (what filled
  // at its cost, the rest at today's mid) above the journal's. A limit tester's trial read "the rest TWAPs
  // it did not place" of a bot whose only TWAP was its own, revalued after a rise: an operator hunts for
  // a rogue bot that does not exist.
  const foreign = venue.foreignNotionalUsd;
  const note =
    own === undefined || !venueMore
      ? undefined
      : foreign === undefined
        ? `as the venue shows it: ${fmt(own, 2)} USD of it by this bot's journal, the rest TWAPs it did not place (by hand, another bot or state folder) or the venue's value of its own at today's mid`
        : foreign.gt(0)
          ? `as the venue shows it: ${fmt(own, 2)} USD by this bot's journal, ${fmt(foreign, 2)} USD of it TWAPs this bot did not place (by hand, another bot or state folder)`
          : `as the venue values this bot's own TWAPs (what filled at its cost, the rest at today's mid); ${fmt(own, 2)} USD by its journal`;
  return {
    notionalUsd: larger(journal.notionalUsd, venue.notionalUsd),
    stakeMoved: larger(journal.stakeMoved, venue.stakeMoved),
    ...(note === undefined ? {} : { notionalNote: note }),
  };
}

/**
 * The daily limits' usage over LIMIT_WINDOW_MS to `now` (local clock): the journal's (what is pending or
 * unknown counts) or the venue's history in `snapshot` where it shows more (another instance, a lost
 * state folder); a TWAP the venue shows as ended counts at what it executed (`ended`, endedTwapFills).
 * `localToVenue`: the venue's clock less ours. The rule of a cycle and of a manual action alike.
 */
export function dayUsage(
  journaled: (sinceMs: number, fills: ReadonlyMap<number, TwapFill>) => RiskUsage,
  snapshot: Snapshot,
  ended: ReadonlyMap<number, TwapFill>,
  now: number,
  localToVenue: number,
  /** Whether the journal has TWAP `twapId`: the reason then says whose the venue's extra usage is. */
  known?: (twapId: number) => boolean,
): RiskUsage {
  const own = journaled(now - LIMIT_WINDOW_MS, ended);
  const since = now + localToVenue - LIMIT_WINDOW_MS;
  let venue = venueUsage(snapshot, since);
  // Whose the venue's extra usage is, asked of the journal only when there is some (a query per TWAP).
  if (known !== undefined && own.notionalUsd !== undefined && venue.notionalUsd?.gt(own.notionalUsd))
    venue = venueUsage(snapshot, since, known);
  return mergeUsage(own, venue);
}

export interface RiskOptions {
  killSwitchActive: boolean;
  /** For re-fitting a reduced TWAP to the venue's minimum slice value (default: DEFAULT_VENUE_RULES). */
  rules?: VenueRules;
}

export interface RiskResult {
  /** Intents that may be sent, in order; reduced ones carry the reduction in their reason. */
  allowed: Intent[];
  /** Blocked intents as skips naming the limit. */
  blocked: Skip[];
  /** The intents of `allowed` that limits changed (same objects), for the journal's "reduced" guard. */
  reduced: Intent[];
}

/** The limit that governs an intent (from the engine's table, ./intentKinds.ts); undefined for an unknown kind. */
function limitOf(intent: Intent | undefined): LimitFacts | undefined {
  return intent === undefined ? undefined : intentKindSpec(intent.kind)?.limit(intent);
}

/** What a submitted intent counts against the rolling 24-h limits (the journal's usage columns). */
export function usageOf(intent: Intent): { notionalUsd?: Decimal; asset?: number; stakeMove?: Decimal } {
  const facts = limitOf(intent);
  if (facts?.limit === "twap") return { notionalUsd: facts.intent.notionalUsd, asset: facts.intent.assetId };
  if (facts?.limit === "stakeMove") return { stakeMove: facts.intent.amount };
  return {};
}

function positive(value: unknown): value is Decimal {
  return value instanceof Decimal && value.isFinite() && value.gt(0);
}

/**
 * A block by a daily limit (or its unknown usage): the day's room comes back as the 24-h window moves
 * on, so the slot stays due and is retried within schedule.catchUp, as after a kill-switch block (a
 * weekly sale blocked by what another strategy used of the day lost its week: a trader's trial).
 */
function dailyBlock(intent: Intent, why: string): Skip {
  // A manual command has no slot (a staker's refused `hlbot undelegate` was told its slot stayed due).
  const then =
    intent.strategy === MANUAL_STRATEGY
      ? "try again once what it counts leaves the 24-h window"
      : "the slot stays due";
  return { ...blockedBy(intent, `${why}; ${then}`), defer: true };
}

export function applyLimits(
  intents: readonly Intent[],
  limits: RiskLimits,
  usage: RiskUsage | undefined,
  options: RiskOptions,
): RiskResult {
  const allowed: Intent[] = [];
  const blocked: Skip[] = [];
  const reduced: Intent[] = [];
  const rules = options.rules ?? DEFAULT_VENUE_RULES;

  if (options.killSwitchActive) {
    // Nothing new goes out; a cancel of a running TWAP (a watch's price guard) only takes exposure off
    // and is the one action the switch lets through (a stop without --cancel-twaps blocked the guard, and
    // a sale went on below its floor: review of 2026-11-27).
    const file = limits.killSwitchFile ? ` (${limits.killSwitchFile} exists)` : "";
    for (const intent of intents) {
      if (intent.kind === "twapCancel") allowed.push(intent);
      else blocked.push(blockedBy(intent, `kill switch is on${file}`));
    }
    return { allowed, blocked, reduced };
  }

  let notional = usage?.notionalUsd;
  let moved = usage?.stakeMoved;
  const allowlist =
    limits.validatorAllowlist && limits.validatorAllowlist.length > 0
      ? new Set(limits.validatorAllowlist.map((a) => a.toLowerCase()))
      : undefined;

  const handled = new Set<number>();
  // A strategy's cDeposit funds the delegations it plans after it from idle stake: what the limits take
  // off those delegations is taken off the deposit too, so HYPE is not moved off spot to sit idle.
  const deposits: Array<{ at: number; intent: Intent; amount: Decimal }> = [];
  const cuts = new Map<string, Decimal>();
  const cut = (strategy: string, amount: Decimal) => {
    if (deposits.some((d) => d.intent.strategy === strategy))
      cuts.set(strategy, (cuts.get(strategy) ?? ZERO).plus(amount));
  };
  for (const [i, intent] of intents.entries()) {
    const facts = limitOf(intent);
    if (facts === undefined) {
      // Unreachable for well-typed input; an unknown action is never let through.
      blocked.push(
        blockedBy(intent, `unknown action ${JSON.stringify((intent as { kind?: unknown }).kind)}`),
      );
      continue;
    }
    switch (facts.limit) {
      case "twap": {
        const result = limitTwap(facts.intent, limits, rules);
        if (typeof result === "string") {
          blocked.push(blockedBy(intent, result));
          break;
        }
        if (notional === undefined) {
          blocked.push(dailyBlock(intent, "24-h notional usage is unknown (failing closed)"));
          break;
        }
        let sent = result;
        const after = notional.plus(result.notionalUsd);
        if (after.gt(limits.maxDailyNotionalUsd)) {
          // Reduced to what is left of the day's budget, as maxOrderUsd reduces (a trial's 3,000-USD
          // corrections were blocked for hours with 1,000 USD left), when that is still an order the
          // venue takes; else blocked, saying what the order was cut to first.
          const left = limits.maxDailyNotionalUsd.minus(notional);
          const note = usage?.notionalNote === undefined ? "" : `, ${usage.notionalNote}`;
          const by = `maxDailyNotionalUsd ${fmt(limits.maxDailyNotionalUsd)} (${fmt(notional, 2)} USD used in the last 24 h${note})`;
          const shrunk = left.gt(0) ? shrinkTwap(result, left, by, rules) : "nothing is left of it";
          if (typeof shrunk === "string") {
            const cut =
              result === intent
                ? ""
                : `; the order was first reduced to ${fmt(result.notionalUsd, 2)} USD by maxOrderUsd ${fmt(limits.maxOrderUsd)}`;
            blocked.push(
              dailyBlock(
                intent,
                `24-h notional would reach ${fmt(after, 2)} USD, above maxDailyNotionalUsd ${fmt(limits.maxDailyNotionalUsd)} ` +
                  `(${fmt(notional, 2)} used${note}${cut}); what is left of it is too small: ${shrunk}`,
              ),
            );
            break;
          }
          sent = shrunk;
        }
        notional = notional.plus(sent.notionalUsd);
        allowed.push(sent);
        if (sent !== intent) reduced.push(sent);
        break;
      }
      case "stakeMove": {
        if (handled.has(i)) break;
        const group = stakeGroup(facts, intents, i);
        for (let k = 1; k < group.length; k++) handled.add(i + k);
        const verdict = limitStakeMove(group, limits, allowlist, moved);
        // An unpaired delegation is funded from idle stake (a deposit of its strategy included).
        const fromIdle = group.length === 1 && facts.move === "delegate";
        if ("blocked" in verdict) {
          const { blocked: why, daily } = verdict;
          for (const g of group) blocked.push(daily ? dailyBlock(g.intent, why) : blockedBy(g.intent, why));
          if (fromIdle && positive(facts.intent.amount)) cut(intent.strategy, facts.intent.amount);
          break;
        }
        moved = verdict.moved;
        // Not deferred: the rest of its group went out, so its slot acted.
        for (const g of verdict.leftOut?.intents ?? []) blocked.push(blockedBy(g, verdict.leftOut!.why));
        for (const [k, g] of verdict.intents.entries()) {
          allowed.push(g);
          if (g !== group[k]?.intent) reduced.push(g);
        }
        if (fromIdle && verdict.intents[0] !== undefined)
          cut(intent.strategy, facts.intent.amount.minus(verdict.intents[0].amount));
        break;
      }
      case "positiveAmount":
        // Spot → staking within the same account: no validator and no market exposure involved.
        if (!positive(facts.amount)) blocked.push(blockedBy(intent, "amount must be positive"));
        else {
          if (intent.kind === "cDeposit") deposits.push({ at: allowed.length, intent, amount: facts.amount });
          allowed.push(intent);
        }
        break;
      case "none":
        allowed.push(intent);
        break;
      default:
        never(facts);
    }
  }
  // Last first: removing a deposit does not move the places of those before it.
  for (const d of [...deposits].reverse()) {
    const less = cuts.get(d.intent.strategy);
    if (less === undefined || !less.gt(0) || d.intent.kind !== "cDeposit") continue;
    const left = truncateDecimals(Decimal.max(d.amount.minus(less), 0), 8);
    const why = `the delegations it funds were cut by ${fmt(less)} HYPE by the limits`;
    // Whatever is left funds delegations that go out: only nothing left blocks the deposit (the
    // 1-HYPE rule is for stake moves, and the strategy's minMove already kept dust deposits out).
    if (!left.gt(0)) {
      allowed.splice(d.at, 1);
      blocked.push(blockedBy(d.intent, `${why}: nothing to stake, the HYPE stays on spot`));
      continue;
    }
    const smaller = {
      ...d.intent,
      amount: left,
      reason: `${d.intent.reason}; reduced from ${fmt(d.amount)} to ${fmt(left)} HYPE: ${why} (the rest stays on spot)`,
    };
    allowed[d.at] = smaller;
    reduced.push(smaller);
  }
  return { allowed, blocked, reduced };
}

/** A stake move reduced below this many HYPE by maxStakeMovePerDay is blocked instead (dust). */
export const MIN_REDUCED_STAKE_MOVE = new Decimal(1);

type StakeMove = Extract<LimitFacts, { limit: "stakeMove" }>;

/**
 * The stake move `first` (at `at`), with what it funds when it is an undelegation marked `fundsNext`: the
 * strategy's next delegation or cWithdraw, after any further `fundsNext` undelegations of it (a withdrawal
 * funded from several validators). Such a group is limited as one; anything else stands alone.
 */
function stakeGroup(first: StakeMove, intents: readonly Intent[], at: number): StakeMove[] {
  if (first.move !== "undelegate" || !first.fundsNext) return [first];
  const group: StakeMove[] = [first];
  for (let k = at + 1; k < intents.length; k++) {
    const next = limitOf(intents[k]);
    if (next?.limit !== "stakeMove" || next.intent.strategy !== first.intent.strategy) break;
    group.push(next);
    if (next.move !== "undelegate") {
      // Funded by the undelegations before it: a delegation by one (a move), a withdrawal by any number.
      if (next.move === "delegate" && group.length > 2) break;
      return group;
    }
    if (!next.fundsNext) break;
  }
  return [first];
}

/**
 * maxStakeMovePerDay and the allowlist for one stake move or one funding group (stakeGroup). A move beyond
 * the 24-h budget is reduced to what is left, each part in proportion (a pair half and half, so the
 * undelegation never frees more than its delegation uses; a withdrawal takes what its reduced
 * undelegations free), as maxOrderUsd reduces a TWAP; what is left over moves another day. Blocked (the
 * reason is returned) when the allowlist refuses, usage is unknown, or less than MIN_REDUCED_STAKE_MOVE
 * is left. A group is blocked or reduced together.
 */
function limitStakeMove(
  group: StakeMove[],
  limits: RiskLimits,
  allowlist: ReadonlySet<string> | undefined,
  moved: Decimal | undefined,
):
  | {
      intents: StakeMove["intent"][];
      moved: Decimal;
      leftOut?: { intents: StakeMove["intent"][]; why: string };
    }
  | { blocked: string; daily?: true } {
  const paired = group.length > 1 ? " (with the undelegation that funds it)" : "";
  for (const g of group) {
    if (!positive(g.intent.amount)) return { blocked: "amount must be positive" };
    if (g.move === "delegate" && allowlist && !allowlist.has(String(g.validator).toLowerCase()))
      return { blocked: `validator ${g.validator} is not in limits.validatorAllowlist${paired}` };
  }
  // The daily limit's blocks are `daily`: its room comes back as the window moves on (dailyBlock).
  if (moved === undefined) return { blocked: "24-h stake movement is unknown (failing closed)", daily: true };
  const want = group.reduce((sum, g) => sum.plus(g.intent.amount), new Decimal(0));
  const max = limits.maxStakeMovePerDay;
  if (moved.plus(want).lte(max)) return { intents: group.map((g) => g.intent), moved: moved.plus(want) };
  const left = Decimal.max(max.minus(moved), 0);
  // Each part in proportion (a pair half and half); the funded move, last, is what its undelegations
  // still free plus its own share of idle stake. A withdrawal's undelegation reduced below the minimum
  // is left out, the withdrawal taking less.
  const scaled = (x: Decimal) => truncateDecimals(x.times(left).div(want), 8);
  const funded = group.length > 1 ? group[group.length - 1]! : undefined;
  const legs = funded === undefined ? group : group.slice(0, -1);
  const kept = legs
    .map((g) => ({ g, amount: scaled(g.intent.amount) }))
    .filter((x) => x.amount.gte(MIN_REDUCED_STAKE_MOVE));
  const freed = kept.reduce((sum, x) => sum.plus(x.amount), new Decimal(0));
  const own =
    funded === undefined
      ? undefined
      : freed.plus(
          scaled(
            Decimal.max(
              funded.intent.amount.minus(legs.reduce((sum, g) => sum.plus(g.intent.amount), new Decimal(0))),
              0,
            ),
          ),
        );
  if ((funded === undefined && kept.length === 0) || own?.lt(MIN_REDUCED_STAKE_MOVE)) {
    return {
      blocked:
        `24-h stake moved would reach ${fmt(moved.plus(want))} HYPE, above maxStakeMovePerDay ${fmt(max)} ` +
        `(${fmt(moved)} used; less than ${fmt(MIN_REDUCED_STAKE_MOVE)} HYPE left${paired})`,
      daily: true,
    };
  }
  const parts = [...kept, ...(funded !== undefined && own !== undefined ? [{ g: funded, amount: own }] : [])];
  const counts =
    funded === undefined
      ? ""
      : funded.move === "withdraw"
        ? "; HYPE withdrawn from a validator counts twice, undelegated and withdrawn"
        : `; a move between validators counts twice, ${fmt(own!)} undelegated and ${fmt(own!)} delegated`;
  const dropped = legs.length - kept.length;
  const intents = parts.map(({ g: { intent: g }, amount }) => ({
    ...g,
    amount,
    reason:
      `${g.reason}; reduced from ${fmt(g.amount)} to ${fmt(amount)} HYPE by maxStakeMovePerDay ${fmt(max)} ` +
      `(${fmt(moved)} moved in the last 24 h or planned earlier in this cycle${counts}${
        dropped > 0 && g === funded?.intent
          ? `; ${dropped} undelegation(s) below ${fmt(MIN_REDUCED_STAKE_MOVE)} HYPE left out`
          : ""
      }; the rest moves later)`,
  }));
  const total = parts.reduce((sum, x) => sum.plus(x.amount), new Decimal(0));
  const out = legs.filter((g) => !kept.some((x) => x.g === g)).map((g) => g.intent);
  return {
    intents,
    moved: moved.plus(total),
    ...(out.length > 0
      ? {
          leftOut: {
            intents: out,
            why: `reduced by maxStakeMovePerDay ${fmt(max)} below ${fmt(MIN_REDUCED_STAKE_MOVE)} HYPE (${fmt(moved)} moved in the last 24 h or planned earlier in this cycle); the withdrawal it funded takes less, the rest moves later`,
          },
        }
      : {}),
  };
}

/**
 * Applies maxOrderUsd to one TWAP: the same intent, a reduced copy, or the reason it is blocked. The
 * order is valued in USD (size × mid × USD per quote unit): a pair quoted in a non-stablecoin without a
 * USD price is refused rather than counted in quote units.
 */
function limitTwap(intent: TwapOrderIntent, limits: RiskLimits, rules: VenueRules): TwapOrderIntent | string {
  if (!positive(intent.size) || !positive(intent.midPx)) {
    return "size, price and notional must be positive";
  }
  const quote = intent.label.split("/")[1] ?? "USD";
  const quoteUsd = intent.quoteUsd ?? (isUsdStablecoin(quote) ? new Decimal(1) : undefined);
  if (!positive(quoteUsd)) {
    return `the order is priced in ${quote}, which has no USD price: limits are in USD (failing closed)`;
  }
  const usdPx = intent.midPx.times(quoteUsd);
  const valued = intent.size.times(usdPx);
  if (!positive(intent.notionalUsd) || !valued.eq(intent.notionalUsd)) {
    // Never trust a notional that is not size × mid in USD (e.g. one counted in quote units).
    intent = { ...intent, notionalUsd: valued, quoteUsd };
  }
  if (intent.notionalUsd.lte(limits.maxOrderUsd)) return intent;
  return shrinkTwap(intent, limits.maxOrderUsd, `maxOrderUsd ${fmt(limits.maxOrderUsd)}`, rules);
}

/**
 * A valued TWAP (notionalUsd = size × mid × USD per quote unit) reduced to at most `capUsd`, refitted to
 * the venue's minimum slice, with `by` (the limit, in words) in its reason; or why it cannot be.
 */
function shrinkTwap(
  intent: TwapOrderIntent,
  capUsd: Decimal,
  by: string,
  rules: VenueRules,
): TwapOrderIntent | string {
  const usdPx = intent.notionalUsd.div(intent.size);
  const quote = intent.label.split("/")[1] ?? "USD";
  const size = truncateDecimals(capUsd.div(usdPx), intent.szDecimals);
  if (!size.gt(0)) return `${fmt(capUsd, 2)} USD (${by}) is less than one lot`;
  const notionalUsd = size.times(usdPx);
  const fit = fitTwapDuration(size.times(minimumCheckPx(intent)), intent.minutes, rules, quote, {
    size,
    szDecimals: intent.szDecimals,
    base: intent.label.split("/")[0] ?? intent.coin,
  });
  if (!fit.ok) return `reduced to ${fmt(capUsd, 2)} USD by ${by}, it is too small: ${fit.reason}`;
  // Valued above the mid (price sanity's highest recent price, after a fall): both values, or "≈6000
  // USD" reads as the order's size when 150 HYPE at 19 is 2,850.
  const decided = intent.decisionMidPx;
  const atMid =
    decided !== undefined && !decided.eq(intent.midPx)
      ? ` valued at ${fmt(intent.midPx)}; ≈${fmt(size.times(decided).times(usdPx.div(intent.midPx)), 2)} USD at the mid ${fmt(decided)}`
      : "";
  const change =
    `reduced from ${fmt(intent.size)} to ${fmt(size)} (≈${fmt(notionalUsd, 2)} USD${atMid}) by ${by}` +
    (fit.minutes !== intent.minutes ? `, over ${fit.minutes} min` : "");
  return { ...intent, size, notionalUsd, minutes: fit.minutes, reason: `${intent.reason}; ${change}` };
}
