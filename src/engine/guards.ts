// Guards that hold for the whole TWAP: a light watch of the account's running TWAPs, independent of the
// strategies' own schedules. A TWAP placed by a strategy with a price limit (`limitPx` of
// twap-accumulate: a ceiling for buys, a floor for sells; `priceLimits` of twap-rebalance, per token)
// or a `twap.maxDeviation` (from the mid at
// decision time, against the order's side) is checked at each watch: the daemon every minute, simulate
// every virtual minute, `once` at each call. Which running TWAP belongs to which strategy comes from the
// journal only (accepted twapOrder submissions with a venue twapId), never from guessing on the pair;
// its guard is journaled with its decision, so a strategy renamed or removed since still guards it
// (and a limit tightened in the file since applies too).
// When a limit is crossed, a `twapCancel` goes out through the normal cycle and executor (trigger
// "watch", journaled under the strategy's name with the reason). Nothing is read from the venue while no
// guarded TWAP runs; otherwise one allMids read, and a full cycle only when a limit is crossed.
import type { Logger } from "pino";
import { Decimal } from "../lib/decimal.js";
import { describeError } from "../lib/errors.js";
import { filledByTwap } from "../venue/info/methods/userTwapSliceFills.js";
import type { CycleDeps, CycleReport } from "./cycle.js";
import { runCycle } from "./cycle.js";
import type { Decision, TwapCancelIntent, TwapGuard } from "./intents.js";
import { type Journal, MANUAL_STRATEGY } from "./journal.js";
import { type ReconcileResult, reconcile } from "./reconcile.js";
import { isMarketPair, labelOf, type Snapshot } from "./snapshot.js";
import { fmt } from "./strategies/common.js";
import type { Strategy } from "./strategies/registry.js";
import { rebalanceLimitPx, type TwapRebalanceParams } from "./strategies/twapRebalance.js";

/** How often the daemon and simulate run the watch. */
export const WATCH_INTERVAL_MS = 60_000;

export interface WatchTarget {
  strategy: string;
  twapId: number;
  assetId: number;
  /** Venue pair name ("@107"), the key of allMids. */
  coin: string;
  side: "buy" | "sell";
  /**
   * The guards it is held to: the one journaled with its decision, and its strategy's current one when
   * that differs (a limit tightened since applies too). A renamed or removed strategy keeps the first.
   */
  guards: readonly TwapGuard[];
  /** Mid at decision time. */
  decisionMid: Decimal | undefined;
}

interface GuardParams {
  coin?: unknown;
  quote?: unknown;
  side?: unknown;
  limitPx?: unknown;
  twap?: { maxDeviation?: unknown };
}

/**
 * The guard a strategy's configuration puts on its TWAP of `side` on the pair `label` ("HYPE/USDC"):
 * limitPx of twap-accumulate on the side it trades; a rebalancer's priceLimits for the base on the
 * TWAP's side; twap.maxDeviation of either. Undefined when none applies.
 */
export function guardOf(
  def: Pick<Strategy, "kind" | "params">,
  side: "buy" | "sell",
  label: string,
  /** The TWAP's pair name ("@107"): a DCA may name its market by it. */
  coin: string,
): TwapGuard | undefined {
  const params = def.params as GuardParams;
  const rebalancer = def.kind === "twap-rebalance";
  // Only a strategy that trades the TWAP's pair guards it: a name reused for a DCA on another pair, or a
  // DCA moved to another quote, must not put that pair's limit on this TWAP (reviews: a PURR limitPx of
  // 0.2 cancelled a HYPE buy at 40; a ceiling in HYPE cancelled a UBTC/USDC buy).
  const [base = "", quote = ""] = label.split("/");
  const trades =
    def.kind === "twap-accumulate"
      ? typeof params.coin === "string" &&
        typeof params.quote === "string" &&
        isMarketPair(
          { coin: params.coin, quote: params.quote },
          { name: coin, base: { name: base }, quote: { name: quote } },
        )
      : params.quote === quote &&
        rebalancer &&
        Object.hasOwn((def.params as TwapRebalanceParams).targets, base);
  if (!trades) return undefined;
  const limitPx =
    def.kind === "twap-accumulate" && params.side === side
      ? decimalOf(params.limitPx)
      : rebalancer
        ? rebalanceLimitPx(def.params as TwapRebalanceParams, base, side)
        : undefined;
  const limitName = rebalancer
    ? `priceLimits.${base}.${side === "sell" ? "sellFloor" : "buyCeiling"}`
    : undefined;
  return guardWith(limitPx, limitName, decimalOf(params.twap?.maxDeviation));
}

/** A guard read back from a journaled intent (decimals as strings), or undefined. */
function journaledGuard(value: unknown): TwapGuard | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const g = value as { limitPx?: unknown; limitName?: unknown; maxDeviation?: unknown };
  const limitName = typeof g.limitName === "string" ? g.limitName : undefined;
  return guardWith(decimalOf(g.limitPx), limitName, decimalOf(g.maxDeviation));
}

/** A guard of what is set (its limit's name only with a limit), or undefined when nothing is. */
function guardWith(
  limitPx: Decimal | undefined,
  limitName: string | undefined,
  maxDeviation: Decimal | undefined,
): TwapGuard | undefined {
  if (limitPx === undefined && maxDeviation === undefined) return undefined;
  return {
    ...(limitPx === undefined ? {} : { limitPx, ...(limitName === undefined ? {} : { limitName }) }),
    ...(maxDeviation === undefined ? {} : { maxDeviation }),
  };
}

function sameGuard(a: TwapGuard, b: TwapGuard): boolean {
  const eq = (x: Decimal | undefined, y: Decimal | undefined) =>
    x === undefined ? y === undefined : y !== undefined && x.eq(y);
  return eq(a.limitPx, b.limitPx) && eq(a.maxDeviation, b.maxDeviation) && a.limitName === b.limitName;
}

/**
 * The account's running TWAPs that carry a guard (from the journal, no network): the guard journaled
 * with the decision (whatever became of its strategy since) and the strategy's current one.
 */
export function watchTargets(
  journal: Journal,
  account: string,
  now: number,
  strategies: readonly Strategy[],
): WatchTarget[] {
  const byName = new Map(strategies.map((s) => [s.name, s]));
  const out: WatchTarget[] = [];
  for (const row of journal.runningTwaps(account, now)) {
    if (row.intent === null) continue;
    let intent: {
      side?: unknown;
      coin?: unknown;
      assetId?: unknown;
      midPx?: unknown;
      decisionMidPx?: unknown;
      label?: unknown;
      guard?: unknown;
    };
    try {
      intent = JSON.parse(row.intent) as typeof intent;
    } catch {
      continue;
    }
    const side = intent.side === "buy" || intent.side === "sell" ? intent.side : undefined;
    const assetId = typeof intent.assetId === "number" ? intent.assetId : row.asset;
    if (side === undefined || typeof intent.coin !== "string" || assetId === null) continue;
    const guards: TwapGuard[] = [];
    const journaled = journaledGuard(intent.guard);
    if (journaled !== undefined) guards.push(journaled);
    const def = byName.get(row.strategy);
    const current =
      def === undefined || typeof intent.label !== "string"
        ? undefined
        : guardOf(def, side, intent.label, intent.coin);
    if (current !== undefined && (journaled === undefined || !sameGuard(current, journaled)))
      guards.push(current);
    if (guards.length === 0) continue;
    if (journal.twapCancelled(account, row.twapId, now)) continue;
    out.push({
      strategy: row.strategy,
      twapId: row.twapId,
      assetId,
      coin: intent.coin,
      side,
      guards,
      // The mid the strategy decided at (price sanity may have raised midPx, for limits only).
      decisionMid: decimalOf(intent.decisionMidPx ?? intent.midPx),
    });
  }
  return out;
}

/** A TWAP this bot placed that spends a token with a `limits.keepOnSpot` floor. */
export interface FloorTarget {
  strategy: string;
  twapId: number;
  assetId: number;
  side: "buy" | "sell";
  /** The token it spends: the quote of a buy, the base of a sell. */
  token: string;
  floor: Decimal;
  /** Venue pair name ("@107"), the key of allMids. */
  coin: string;
  size: Decimal;
  minutes: number;
  /** When it ends on schedule (ms): what it may still spend is taken as the part of its time left. */
  expectedEnd: number;
}

/**
 * The account's running TWAPs (this bot's, from the journal, no network) that spend a token with a floor.
 * A strategy sizes its TWAP above the floor when it decides; a withdrawal or a trade by hand while it runs
 * can leave the account near the floor, and the TWAP would keep spending through it (a trader's trial: a
 * DCA bought on after 17,000 of 23,670 USDC were withdrawn and left 32 USDC above nothing, under a floor
 * of 5,000).
 */
export function floorTargets(
  journal: Journal,
  account: string,
  now: number,
  floors: ReadonlyMap<string, Decimal> | undefined,
): FloorTarget[] {
  if (floors === undefined || floors.size === 0) return [];
  const out: FloorTarget[] = [];
  for (const row of journal.runningTwaps(account, now)) {
    if (row.intent === null || row.asset === null) continue;
    // A TWAP placed by hand (`hlbot twap`) is the user's own word, not held to the floor (README), and is
    // never cancelled for it (a review: the watch cancelled it and a DCA spent what it freed).
    if (row.strategy === MANUAL_STRATEGY) continue;
    let intent: { side?: unknown; label?: unknown; coin?: unknown; size?: unknown; minutes?: unknown };
    try {
      intent = JSON.parse(row.intent) as typeof intent;
    } catch {
      continue;
    }
    const size = decimalOf(intent.size);
    if (
      (intent.side !== "buy" && intent.side !== "sell") ||
      typeof intent.label !== "string" ||
      typeof intent.coin !== "string" ||
      typeof intent.minutes !== "number" ||
      size === undefined
    )
      continue;
    const [base, quote] = intent.label.split("/");
    const token = intent.side === "buy" ? quote : base;
    const floor = token === undefined ? undefined : floors.get(token);
    if (token === undefined || floor === undefined || !floor.gt(0)) continue;
    if (journal.twapCancelled(account, row.twapId, now)) continue;
    out.push({
      strategy: row.strategy,
      twapId: row.twapId,
      assetId: row.asset,
      side: intent.side,
      token,
      floor,
      coin: intent.coin,
      size,
      minutes: intent.minutes,
      expectedEnd: row.expectedEnd,
    });
  }
  return out;
}

/** Why the mid crosses one of a target's guards, or undefined while they hold. */
export function crossed(t: WatchTarget, mid: Decimal): string | undefined {
  for (const g of t.guards) {
    const why = crossedGuard(t, g, mid);
    if (why !== undefined) return why;
  }
  return undefined;
}

function crossedGuard(t: WatchTarget, g: TwapGuard, mid: Decimal): string | undefined {
  if (g.limitPx !== undefined) {
    const name = g.limitName ?? "limitPx";
    if (t.side === "sell" && mid.lt(g.limitPx))
      return `mid ${fmt(mid)} fell below the sell floor ${name} ${fmt(g.limitPx)}`;
    if (t.side === "buy" && mid.gt(g.limitPx))
      return `mid ${fmt(mid)} rose above the buy ceiling ${name} ${fmt(g.limitPx)}`;
  }
  const base = t.decisionMid;
  if (g.maxDeviation !== undefined && base?.gt(0)) {
    const move = mid.minus(base).div(base);
    const against = t.side === "sell" ? move.neg() : move;
    if (against.gt(g.maxDeviation))
      return (
        `mid ${fmt(mid)} moved ${fmt(against.times(100), 2)}% against the ${t.side} from ${fmt(base)} ` +
        `at decision time (maxDeviation ${fmt(g.maxDeviation.times(100), 2)}%)`
      );
  }
  return undefined;
}

export interface WatchResult {
  /** Guarded TWAPs checked. */
  checked: number;
  /** The cancel cycle, when a guard was crossed. */
  report: CycleReport | undefined;
  /**
   * What the watch's own reconciliation settled before it looked (a lost answer found landed or absent):
   * told like a cycle's (a bookkeeper heard "outcome UNKNOWN" and never that the money had moved).
   */
  reconciled?: ReconcileResult[];
}

/**
 * Whether a TWAP order or cancel of `account` has no known outcome yet (the watch reconciles it first). A
 * cancel without an answer keeps the watch coming: once it no longer counts (journal.twapCancelled), the
 * TWAP it was for is guarded again and, still running past its limit, cancelled again.
 */
function hasUnresolvedTwap(journal: Journal, account: string): boolean {
  return journal.hasUnresolved(account, "twapOrder") || journal.hasUnresolved(account, "twapCancel");
}

/**
 * Whether the watch has anything to do: a guarded TWAP of ours runs, or one whose answer was lost may
 * (reconciled by the watch, then guarded). Callers skip the venue reads otherwise.
 */
export function watchNeeded(
  journal: Journal,
  account: string,
  now: number,
  strategies: readonly Strategy[],
  /** limits.keepOnSpot: a running TWAP spending a floored token is watched too. */
  floors?: ReadonlyMap<string, Decimal>,
): boolean {
  return (
    hasUnresolvedTwap(journal, account) ||
    watchTargets(journal, account, now, strategies).length > 0 ||
    floorTargets(journal, account, now, floors).length > 0
  );
}

/**
 * One watch: checks the guarded running TWAPs against the current mids and cancels those crossed, in
 * one cycle (trigger "watch"). Reads nothing when no guarded TWAP runs.
 */
export async function watchRunningTwaps(
  deps: CycleDeps,
  strategies: readonly Strategy[],
  o: { signal?: AbortSignal; killSwitchActive?: boolean; logger?: Logger } = {},
): Promise<WatchResult> {
  const now = deps.clock();
  // A TWAP whose answer was lost has no twapId in the journal until it is reconciled, and a guard
  // needs one: reconciled here, so a sale that landed is guarded from the next watch, not only once a
  // strategy is next due (hours later under cron, the whole sale through a crash). A cancel whose answer
  // was lost is reconciled here too (landed: the TWAP is no longer guarded; absent: it is again).
  let settled: ReconcileResult[] = [];
  if (hasUnresolvedTwap(deps.journal, deps.account)) {
    settled = await reconcile(deps.info, deps.journal, {
      account: deps.account,
      now,
      userSignedGraceMs: deps.userSignedGraceMs,
      ...(deps.venueNow ? { venueNow: deps.venueNow } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  }
  const targets = watchTargets(deps.journal, deps.account, now, strategies);
  const floored = floorTargets(deps.journal, deps.account, now, deps.limits.keepOnSpot);
  const checked = targets.length + floored.length;
  // Only what it settled (landed, absent): one still unresolved is said when it is.
  const told = settled.filter((r) => r.verdict !== "unresolved");
  const reconciled = told.length > 0 ? { reconciled: told } : {};
  if (checked === 0) return { checked: 0, report: undefined, ...reconciled };
  // One read of the mids serves the price guards and the floors; the balances only for the floors.
  const [mids, spot] = await Promise.all([
    deps.info.allMids({}, o.signal) as Promise<Record<string, string>>,
    floored.length > 0 ? deps.info.spotClearinghouseState({ user: deps.account }, o.signal) : undefined,
  ]);
  const midOf = (coin: string) => (mids[coin] === undefined ? undefined : new Decimal(mids[coin]));
  const hit = targets.filter((t) => {
    const mid = midOf(t.coin);
    return mid !== undefined && crossed(t, mid) !== undefined;
  });
  // A floor: what this bot's TWAPs spending a token may still spend (the part of their time left, buys at
  // the mid) set against the account's total of it; when the rest would fall under the floor, they are
  // cancelled (a strategy re-sizes above the floor at its next run).
  // The account's totals as read here: the cycle's snapshot below is the strategy's view, capped by its
  // capital (a review: a cancel said "the account holds 3000 USDC", its capital, where it held 5,330).
  const spotTotal = (token: string) => (spot === undefined ? new Decimal(0) : totalOf(spot.balances, token));
  let under = spot === undefined ? [] : floorBreaches(floored, spotTotal, midOf, now);
  if (under.length > 0) {
    // What the floored TWAPs filled so far can only lower what they may still spend (their time left
    // bounds it), so the slice fills are read only when that bound crosses a floor: read every minute,
    // the account's latest 2,000 fills were most of a simulation's time (a bear-market trial: 10× slower
    // with keepOnSpot), and of a daemon's reads. Unreadable, their rest is taken by their time left.
    const sliceFills = await deps.info
      .userTwapSliceFills({ user: deps.account }, o.signal)
      .then(filledByTwap, (err: unknown) => {
        if (o.signal?.aborted) throw err;
        return undefined;
      });
    if (sliceFills !== undefined)
      under = floorBreaches(floored, spotTotal, midOf, now, (id) => sliceFills.get(id));
  }
  if (hit.length === 0 && under.length === 0) return { checked, report: undefined, ...reconciled };
  const names = new Set([...hit.map((t) => t.strategy), ...under.map((t) => t.strategy)]);
  const run: Strategy[] = [];
  const decide = new Map<string, (snapshot: Snapshot) => Decision[]>();
  for (const name of names) {
    // A strategy renamed or removed since its TWAP was sent: the cancel is journaled under the name
    // that sent it, by a stand-in that only cancels (its decisions come from `decide`).
    run.push(strategies.find((s) => s.name === name) ?? removedStrategy(name));
    const guarded = hit.filter((t) => t.strategy === name);
    const floorHit = under.filter((t) => t.strategy === name && !guarded.some((g) => g.twapId === t.twapId));
    decide.set(name, (snapshot) => [
      ...cancels(name, guarded, snapshot),
      ...floorCancels(name, floorHit, floored, snapshot, spotTotal, now),
    ]);
  }
  const log = o.logger ?? deps.logger;
  try {
    const report = await runCycle(deps, {
      trigger: "watch",
      strategies: run,
      decide,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.killSwitchActive === undefined ? {} : { killSwitchActive: o.killSwitchActive }),
    });
    return { checked, report, ...reconciled };
  } catch (err) {
    log.error({ err: describeError(err) }, `TWAP watch: the cancel cycle failed: ${describeError(err)}`);
    throw err;
  }
}

/** The cancel cycle's stand-in for a strategy no longer configured (it never decides by itself). */
function removedStrategy(name: string): Strategy {
  return {
    name,
    kind: "twap-accumulate",
    params: {} as Strategy["params"],
    schedule: "* * * * *",
    enabled: true,
    file: "(no longer configured)",
  } as Strategy;
}

/** The cancels a strategy's crossed TWAPs call for, re-checked on the cycle's own snapshot. */
function cancels(strategy: string, targets: readonly WatchTarget[], snapshot: Snapshot): Decision[] {
  const out: Decision[] = [];
  for (const t of targets) {
    const running = snapshot.twaps.find((r) => r.twapId === t.twapId);
    if (!running) {
      out.push({
        kind: "skip",
        strategy,
        considered: "twapCancel",
        reason: `TWAP #${t.twapId} is no longer running`,
      });
      continue;
    }
    const pair = [...snapshot.pairs.values()].find((p) => p.assetId === t.assetId);
    const mid = pair?.mid;
    const why = mid === undefined ? undefined : crossed(t, mid);
    if (why === undefined) {
      out.push({
        kind: "skip",
        strategy,
        considered: "twapCancel",
        reason: `TWAP #${t.twapId}: the mid is back within the limits`,
      });
      continue;
    }
    const cancel: TwapCancelIntent = {
      kind: "twapCancel",
      strategy,
      assetId: t.assetId,
      twapId: t.twapId,
      reason: `cancel TWAP #${t.twapId} (${t.side} ${fmt(running.size)} on ${labelOf(running.coin, snapshot.pairs)}): ${why}`,
    };
    out.push(cancel);
  }
  return out;
}

/** The account's total of `token` in a spotClearinghouseState answer (0 when it holds none). */
function totalOf(balances: ReadonlyArray<{ coin: string; total: string }>, token: string): Decimal {
  const b = balances.find((x) => x.coin === token);
  return b === undefined ? new Decimal(0) : new Decimal(b.total);
}

/**
 * The targets whose token the account would hold less than its floor of once they (and the others
 * spending it) have spent what they may still spend: the lower of its part of the TWAP's time left (an
 * even pace) and its size less what its slices filled (`filledOf`, when known), a buy at the mid
 * (unknown mid: the whole token). Already under the floor counts whatever the pace says.
 * By the time left alone, a sale sized down to the floor that ran ahead of an even pace (randomized
 * slices) looked like it would sell through it: a seller's trial had every daily TWAP cancelled.
 */
export function floorBreaches(
  targets: readonly FloorTarget[],
  totalOf: (token: string) => Decimal,
  midOf: (coin: string) => Decimal | undefined,
  now: number,
  filledOf: (twapId: number) => Decimal | undefined = () => undefined,
): FloorTarget[] {
  const restOf = (t: FloorTarget) => {
    // The lower of the two: slice fills counted short (the venue answers an account's latest 2,000
    // only, so a long TWAP's count stops growing: a review had a 1,440-minute sale sized to the floor
    // cancelled after 1,000 minutes) leave the even pace to bound it.
    const byPace = t.size.times(Math.min(1, Math.max(0, (t.expectedEnd - now) / (t.minutes * 60_000))));
    const filled = filledOf(t.twapId);
    const left = filled === undefined ? byPace : Decimal.min(byPace, Decimal.max(0, t.size.minus(filled)));
    const mid = midOf(t.coin);
    return t.side === "sell" ? left : mid === undefined ? totalOf(t.token) : left.times(mid);
  };
  const out: FloorTarget[] = [];
  for (const token of new Set(targets.map((t) => t.token))) {
    // Newest first: cancelled until what the others may still spend leaves the floor (a review: both
    // TWAPs were cancelled where one was enough).
    const spending = targets.filter((t) => t.token === token).sort((a, b) => b.twapId - a.twapId);
    const total = totalOf(token);
    const floor = spending[0]!.floor;
    let spend = spending.reduce((a, t) => a.plus(restOf(t)), new Decimal(0));
    for (const t of spending) {
      if (!total.lt(floor) && !total.minus(spend).lt(floor)) break;
      out.push(t);
      spend = spend.minus(restOf(t));
    }
  }
  return out;
}

/**
 * The cancels of this bot's TWAPs that would spend a token under its floor, re-checked on the cycle's
 * snapshot (with every floored TWAP of the account: `all`).
 */
function floorCancels(
  strategy: string,
  targets: readonly FloorTarget[],
  all: readonly FloorTarget[],
  snapshot: Snapshot,
  totalOf: (token: string) => Decimal,
  now: number,
): Decision[] {
  const out: Decision[] = [];
  const midOf = (coin: string) => snapshot.pairs.get(coin)?.mid;
  // Only what the venue still runs spends: a TWAP of ours cancelled by hand, or ended, counts for nothing
  // (a review: its even-pace rest, from the journal, could have other TWAPs cancelled).
  const live = all.filter((t) => snapshot.twaps.some((r) => r.twapId === t.twapId));
  const still = new Set(
    floorBreaches(live, totalOf, midOf, now, (id) => snapshot.twapFilled?.get(id)).map((t) => t.twapId),
  );
  for (const t of targets) {
    const running = snapshot.twaps.find((r) => r.twapId === t.twapId);
    const total = totalOf(t.token);
    if (!running || !still.has(t.twapId)) {
      out.push({
        kind: "skip",
        strategy,
        considered: "twapCancel",
        reason: running
          ? `TWAP #${t.twapId}: what it may still spend leaves ${t.token} above its limits.keepOnSpot floor ${fmt(t.floor)}`
          : `TWAP #${t.twapId} is no longer running`,
      });
      continue;
    }
    out.push({
      kind: "twapCancel",
      strategy,
      assetId: t.assetId,
      twapId: t.twapId,
      reason:
        `cancel TWAP #${t.twapId} (${t.side} ${fmt(running.size)} on ${labelOf(running.coin, snapshot.pairs)}): the account holds ${fmt(total)} ${t.token}, ` +
        `and what this bot's TWAPs may still spend of it would take it under its limits.keepOnSpot floor ${fmt(t.floor)} ` +
        "(a withdrawal or a trade by hand since it was placed, or the price moved)",
    } satisfies TwapCancelIntent);
  }
  return out;
}

function decimalOf(value: unknown): Decimal | undefined {
  if (value instanceof Decimal) return value;
  if (typeof value === "string" || typeof value === "number") {
    try {
      return new Decimal(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
