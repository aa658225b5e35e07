// One allocator per account. Strategies decide independently from one snapshot; before anything is
// signed, their intents are allocated against that snapshot's balances so they fit together:
//   1. opposing TWAPs on one pair in one cycle are netted (one TWAP for the difference, or none);
//   2. balances are reserved strategy by strategy, in the configured order (`priority`, then the order
//      strategies are listed in), so no two intents spend the same balance;
//   3. a buy reserves what it may take, not just size × mid: the slippage reserve
//      (`venue.twapBuyReserve`) and the taker fee on top, so no buy is sized to be refused; what
//      running TWAPs may still take is held already (readSnapshot), whether or not the venue holds it;
//   4. a strategy with `capital` (src/engine/capital.ts) is never given more of a listed token than its
//      capital, whatever is left in the account;
//   5. no intent takes a token's spot balance below the account's floor (`limits.keepOnSpot`);
//   6. an order the same as the one the venue last refused (same pair and side, value within 1%) is not
//      sent again: it is re-sized from fresh balances (a different order) or backed off with the reason;
//   7. no TWAP on a pair, nor any staking move, while an earlier submission there is unresolved,
//      whichever strategy sent it (a strategy renamed or replaced in the configuration is not a stranger
//      to its lost order). Same-side TWAPs of different strategies on one pair in one cycle both go out
//      (holding the second back for "one TWAP per pair" starved it: a review's second hourly DCA with
//      40-minute TWAPs never bought once; each strategy still waits for a TWAP already running there).
// An intent that no longer fits is shrunk (with the reason) or skipped; a skip caused by another
// strategy's claim is deferred (`defer: true`): the strategy's slot stays due. Pure: no I/O, no clock.
import { Decimal, truncateDecimals, ZERO } from "../lib/decimal.js";
import { TWAP_BUY_RESERVE_DEFAULT } from "../venue/constants.js";
import type { Capital } from "./capital.js";
import {
  type CDepositIntent,
  type Intent,
  minimumCheckPx,
  type Skip,
  type TwapOrderIntent,
} from "./intents.js";
import type { Snapshot } from "./snapshot.js";
import { fitTwapDuration, fmt, isoTime, pct } from "./strategies/common.js";

/** Share of a spot TWAP buy's remaining notional kept beyond size × mid (src/venue/constants.ts). */
export const DEFAULT_TWAP_BUY_RESERVE = new Decimal(TWAP_BUY_RESERVE_DEFAULT);

export interface AllocatedStrategy {
  name: string;
  /** Smaller first; strategies without one come after those with one, in the order they are listed. */
  priority?: number | undefined;
  /** Per token, the most this strategy may be given in one cycle (reserve and fee included). */
  capital?: Capital | undefined;
}

/** The last TWAP a strategy submitted that the venue refused, as the journal has it. */
export interface RefusedOrder {
  assetId: number;
  side: "buy" | "sell";
  size: Decimal;
  /** Its duration; a new order of another duration (re-sized by a learnt venue minimum) is another order. */
  minutes?: number | undefined;
  /** Its USD value when it was refused (the journal's notional); undefined: compare sizes. */
  notionalUsd?: Decimal | undefined;
  reason: string;
  at: number;
  /** The spot balances (token → total) of the cycle that sent it; undefined: not recorded. */
  balances?: Readonly<Record<string, string>> | undefined;
}

/** Within this share of the refused order's value, a new order is the same order again. */
const SAME_ORDER_TOLERANCE = new Decimal("0.01");

/**
 * How long an identical order is held back after a refusal while the pair's balances stand. Not for
 * ever: the cause may be the venue's (a pair halted, a hold it released), and a DCA's order is the
 * same order at every slot, so a single refusal once stopped one for good. One retry per this long
 * costs a refused request, nothing more.
 */
export const REFUSED_ORDER_HOLD_MS = 6 * 60 * 60 * 1000;

/**
 * Whether an order the venue refused still stands in the way of `t`: the same order, sent from the
 * same balances of its pair's tokens (a deposit, a fill or a sale since may be what it lacked), within
 * REFUSED_ORDER_HOLD_MS of the refusal.
 */
function refusalStands(t: TwapOrderIntent, r: RefusedOrder, snapshot: Snapshot): boolean {
  if (!sameOrder(t, r)) return false;
  if (snapshot.takenAt - r.at >= REFUSED_ORDER_HOLD_MS) return false;
  if (r.balances === undefined) return true;
  for (const token of [baseOf(t, snapshot), quoteOf(t, snapshot)]) {
    const now = snapshot.balances.get(token)?.total ?? ZERO;
    if (!now.eq(r.balances[token] ?? "0")) return false;
  }
  return true;
}

function sameOrder(t: TwapOrderIntent, r: RefusedOrder): boolean {
  if (r.assetId !== t.assetId || r.side !== t.side) return false;
  if (r.minutes !== undefined && r.minutes !== t.minutes) return false;
  if (r.notionalUsd === undefined || !r.notionalUsd.gt(0)) return r.size.eq(t.size);
  return t.notionalUsd.minus(r.notionalUsd).abs().lte(r.notionalUsd.times(SAME_ORDER_TOLERANCE));
}

export interface AllocateOptions {
  /** The cycle's strategies in the order they are configured. */
  strategies: readonly AllocatedStrategy[];
  /** Fraction of a buy's notional held beyond it (default DEFAULT_TWAP_BUY_RESERVE). */
  buyReserve?: Decimal | undefined;
  /** Per strategy, its latest TWAP submission when the venue refused it. */
  lastRefused?: ReadonlyMap<string, RefusedOrder>;
  /** Per token, the spot balance no intent may take the account below (`limits.keepOnSpot`). */
  keepOnSpot?: ReadonlyMap<string, Decimal> | undefined;
  /** What unresolved submissions touch: per asset id, and staking, the strategy that sent one. */
  unresolved?: UnresolvedTouches | undefined;
}

export interface UnresolvedTouches {
  assets: ReadonlyMap<number, string>;
  staking: string | undefined;
}

/** The intents that move HYPE between spot, staking and validators. */
export const STAKING_KINDS: ReadonlySet<string> = new Set(["cDeposit", "cWithdraw", "tokenDelegate"]);

export interface Allocation {
  /** Intents that fit, in the order they are to be sent (allocation order). */
  intents: Intent[];
  /** Intents that no longer fit, as skips with the reason (deferred when another strategy took the room). */
  skipped: Skip[];
  /** The intents of `intents` that allocation changed (smaller size, shorter TWAP). */
  changed: Intent[];
}

/** Allocation order: by `priority` (smaller first), then as listed; unknown strategies last. */
export function allocationOrder(strategies: readonly AllocatedStrategy[]): string[] {
  return strategies
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (a.s.priority ?? Infinity) - (b.s.priority ?? Infinity) || a.i - b.i)
    .map(({ s }) => s.name);
}

export function allocate(intents: readonly Intent[], snapshot: Snapshot, o: AllocateOptions): Allocation {
  const order = allocationOrder(o.strategies);
  const rank = (name: string) => {
    const i = order.indexOf(name);
    return i < 0 ? order.length : i;
  };
  // Stable: a strategy's own intents keep the order it gave them (a deposit before its delegations).
  const sorted = intents.map((intent, i) => ({ intent, i }));
  sorted.sort((a, b) => rank(a.intent.strategy) - rank(b.intent.strategy) || a.i - b.i);

  const skipped: Skip[] = [];
  const changed = new Set<Intent>();
  const netted = netOpposingTwaps(
    sorted.map((x) => x.intent),
    snapshot,
    skipped,
    changed,
  );

  const reserve = o.buyReserve ?? DEFAULT_TWAP_BUY_RESERVE;
  const fee = snapshot.spotTakerFee.gt(0) ? snapshot.spotTakerFee : ZERO;
  const free = new Map<string, Decimal>();
  // Above the floor only. What is on hold (a running TWAP selling it or paying with it) is on its way
  // out of the account: the floor counts from what is available.
  const floorOf = (token: string) => o.keepOnSpot?.get(token);
  for (const b of snapshot.balances.values()) {
    const floor = floorOf(b.coin);
    free.set(b.coin, floor === undefined ? b.available : b.available.minus(floor));
  }
  /** What earlier strategies of this cycle claimed, per token (for reasons and `defer`). */
  const claimed = new Map<string, Array<{ strategy: string; amount: Decimal }>>();
  const claim = (token: string, strategy: string, amount: Decimal) => {
    free.set(token, (free.get(token) ?? ZERO).minus(amount));
    const list = claimed.get(token) ?? [];
    list.push({ strategy, amount });
    claimed.set(token, list);
  };
  const claimedByOthers = (token: string, strategy: string) =>
    (claimed.get(token) ?? []).filter((c) => c.strategy !== strategy);
  /** Per strategy with capital, what is left of it per listed token. */
  const capitalLeft = new Map<string, Map<string, Decimal>>();
  for (const s of o.strategies) if (s.capital?.size) capitalLeft.set(s.name, new Map(s.capital));
  const capLeft = (strategy: string, token: string) => capitalLeft.get(strategy)?.get(token);
  const spendCapital = (strategy: string, token: string, amount: Decimal) => {
    const left = capitalLeft.get(strategy);
    const c = left?.get(token);
    if (left !== undefined && c !== undefined) left.set(token, c.minus(amount));
  };

  const out: Intent[] = [];
  const stopped = new Set<string>();
  for (const intent of netted) {
    if (stopped.has(intent.strategy)) {
      skipped.push({
        kind: "skip",
        strategy: intent.strategy,
        considered: intent.kind,
        reason: `${intent.reason}; not sent: an earlier action of this strategy did not fit the balance left to it`,
        defer: true,
      });
      continue;
    }
    const waiting = waitingFor(intent, o.unresolved);
    if (waiting !== undefined) {
      skipped.push({
        kind: "skip",
        strategy: intent.strategy,
        considered: intent.kind,
        reason: `${intent.reason}; not sent: ${waiting}`,
        defer: true,
      });
      // A deposit's delegations wait with it.
      if (intent.kind === "cDeposit") stopped.add(intent.strategy);
      continue;
    }
    if (intent.kind === "twapOrder") {
      const refused = o.lastRefused?.get(intent.strategy);
      const fitted = fitTwap(intent, snapshot, free, reserve, fee, claimedByOthers, capLeft, floorOf);
      if ("skip" in fitted) {
        skipped.push(fitted.skip);
        continue;
      }
      const t = fitted.intent;
      if (refused !== undefined && refusalStands(t, refused, snapshot)) {
        skipped.push({
          kind: "skip",
          strategy: t.strategy,
          considered: "twapOrder",
          reason:
            `${t.reason}; not sent: the venue refused this identical order at ${isoTime(refused.at)} ` +
            `("${refused.reason}") and ${baseOf(t, snapshot)} and ${quoteOf(t, snapshot)} balances have ` +
            `not changed since; backing off until they or the decision change, or until ` +
            `${isoTime(refused.at + REFUSED_ORDER_HOLD_MS)} ` +
            `(if this repeats with unchanged balances, the venue may want more than venue.twapBuyReserve)`,
        });
        continue;
      }
      if (t !== intent) changed.add(t);
      out.push(t);
      const [token, amount] =
        t.side === "buy"
          ? [quoteOf(t, snapshot), buyCost(t.size, t.midPx, reserve, fee)]
          : [baseOf(t, snapshot), t.size];
      claim(token, t.strategy, amount);
      spendCapital(t.strategy, token, amount);
      continue;
    }
    if (intent.kind === "cDeposit") {
      const result = fitDeposit(
        intent,
        free,
        claimedByOthers,
        capLeft(intent.strategy, "HYPE"),
        floorOf("HYPE"),
      );
      if (result !== undefined) {
        skipped.push(result);
        // The strategy's delegations may be funded by this deposit: none of them goes out now.
        stopped.add(intent.strategy);
        continue;
      }
      claim("HYPE", intent.strategy, intent.amount);
      spendCapital(intent.strategy, "HYPE", intent.amount);
    }
    out.push(intent);
  }
  return { intents: out, skipped, changed: out.filter((i) => changed.has(i)) };
}

/** Why an intent waits for an unresolved submission of any strategy, if it does. */
function waitingFor(intent: Intent, unresolved: UnresolvedTouches | undefined): string | undefined {
  if (intent.kind === "twapOrder") {
    const earlier = unresolved?.assets.get(intent.assetId);
    return earlier === undefined
      ? undefined
      : `an earlier TWAP order on ${intent.label} (${earlier}'s) is not reconciled yet: it may still land`;
  }
  if (STAKING_KINDS.has(intent.kind) && unresolved?.staking !== undefined)
    return `an earlier staking action (${unresolved.staking}'s) is not reconciled yet: it may still land`;
  return undefined;
}

/** Quote a buy of `size` at `mid` may take: size × mid × (1 + reserve + fee). */
export function buyCost(size: Decimal, mid: Decimal, reserve: Decimal, fee: Decimal): Decimal {
  return size.times(mid).times(reserve.plus(fee).plus(1));
}

function quoteOf(t: TwapOrderIntent, snapshot: Snapshot): string {
  return pairOf(t, snapshot)?.quote.name ?? t.label.split("/")[1] ?? "USDC";
}

function baseOf(t: TwapOrderIntent, snapshot: Snapshot): string {
  return pairOf(t, snapshot)?.base.name ?? t.label.split("/")[0] ?? t.coin;
}

function pairOf(t: TwapOrderIntent, snapshot: Snapshot) {
  return snapshot.pairs.get(t.coin) ?? [...snapshot.pairs.values()].find((p) => p.assetId === t.assetId);
}

function withSize(t: TwapOrderIntent, size: Decimal, note: string, minutes: number): TwapOrderIntent {
  const notional = size.times(t.midPx);
  const notionalUsd = notional.times(t.quoteUsd ?? 1);
  return { ...t, size, minutes, notionalUsd, reason: `${t.reason}; ${note}` };
}

type Fitted = { intent: TwapOrderIntent } | { skip: Skip };

/** Shrinks a TWAP to the balance left for it, or says why it cannot go out. */
function fitTwap(
  t: TwapOrderIntent,
  snapshot: Snapshot,
  free: ReadonlyMap<string, Decimal>,
  reserve: Decimal,
  fee: Decimal,
  claimedByOthers: (token: string, strategy: string) => Array<{ strategy: string; amount: Decimal }>,
  capLeft: (strategy: string, token: string) => Decimal | undefined,
  floorOf: (token: string) => Decimal | undefined,
): Fitted {
  const token = t.side === "buy" ? quoteOf(t, snapshot) : baseOf(t, snapshot);
  const inAccount = Decimal.max(free.get(token) ?? ZERO, ZERO);
  const capital = capLeft(t.strategy, token);
  const capped = capital?.lt(inAccount) ?? false;
  const left = capital === undefined ? inAccount : Decimal.max(Decimal.min(capital, inAccount), ZERO);
  const perUnit = t.side === "buy" ? buyCost(new Decimal(1), t.midPx, reserve, fee) : new Decimal(1);
  const need = t.size.times(perUnit);
  if (need.lte(left)) return { intent: t };

  const others = claimedByOthers(token, t.strategy);
  const byOthers = others.reduce((a, c) => a.plus(c.amount), ZERO);
  const takenBy = others.length
    ? `; ${fmt(byOthers, 2)} ${token} went to ${[...new Set(others.map((c) => c.strategy))].join(", ")} (allocated first)`
    : "";
  const holdRule =
    t.side === "buy"
      ? ` (a buy keeps size × mid × (1 + ${pct(reserve)} slippage reserve + ${fmt(fee.times(100), 4)}% fee))`
      : "";
  const size = truncateDecimals(left.div(perUnit), t.szDecimals);
  const ofCapital = capped && capital ? ` (of its capital of ${fmt(capital, 2)} ${token})` : "";
  const floor = floorOf(token);
  const kept = floor === undefined ? "" : ` above limits.keepOnSpot ${fmt(floor)} ${token}`;
  const why = `${fmt(left, 2)} ${token} is left for it${kept}${ofCapital}, ${fmt(need, 2)} needed${holdRule}${takenBy}`;
  // Deferred when the room was taken by another strategy of this cycle: it may fit at its next chance
  // (not when its own capital is what is short).
  const room = inAccount.plus(byOthers);
  const defer = others.length > 0 && need.lte(capital !== undefined ? Decimal.min(room, capital) : room);
  const skipOf = (reason: string): Fitted => ({
    skip: {
      kind: "skip",
      strategy: t.strategy,
      considered: "twapOrder",
      reason: `${t.reason}; not sent: ${reason}`,
      ...(defer ? { defer: true as const } : {}),
    },
  });
  if (!size.gt(0)) return skipOf(why);
  const fit = fitTwapDuration(
    size.times(minimumCheckPx(t)),
    t.minutes,
    snapshot.rules,
    pairOf(t, snapshot)?.quote.name ?? token,
    { size, szDecimals: t.szDecimals, base: t.label.split("/")[0] ?? t.coin },
  );
  if (!fit.ok) return skipOf(`${why}; reduced to ${fmt(size)}, it is too small: ${fit.reason}`);
  return {
    intent: withSize(
      t,
      size,
      `reduced to ${fmt(size)}: ${why}` + (fit.minutes !== t.minutes ? `, over ${fit.minutes} min` : ""),
      fit.minutes,
    ),
  };
}

function fitDeposit(
  d: CDepositIntent,
  free: ReadonlyMap<string, Decimal>,
  claimedByOthers: (token: string, strategy: string) => Array<{ strategy: string; amount: Decimal }>,
  capital: Decimal | undefined,
  floor: Decimal | undefined,
): Skip | undefined {
  const inAccount = Decimal.max(free.get("HYPE") ?? ZERO, ZERO);
  if (capital !== undefined && d.amount.gt(capital)) {
    return {
      kind: "skip",
      strategy: d.strategy,
      considered: "cDeposit",
      reason: `${d.reason}; not sent: ${fmt(Decimal.max(capital, ZERO))} HYPE of its capital is left for it`,
    };
  }
  const left = inAccount;
  if (d.amount.lte(left)) return undefined;
  const others = claimedByOthers("HYPE", d.strategy);
  return {
    kind: "skip",
    strategy: d.strategy,
    considered: "cDeposit",
    reason:
      `${d.reason}; not sent: ${fmt(left)} HYPE is left for it${floor === undefined ? "" : ` above limits.keepOnSpot ${fmt(floor)} HYPE`}` +
      (others.length ? `, the rest went to ${[...new Set(others.map((c) => c.strategy))].join(", ")}` : ""),
    ...(others.length > 0 ? { defer: true as const } : {}),
  };
}

/**
 * Nets opposing TWAPs of different strategies on one pair: the smaller side is dropped (its trade is
 * covered by not trading that much the other way) and the larger shrunk by it, so the account never
 * buys and sells the same pair at once and pays fees on both.
 */
function netOpposingTwaps(
  intents: readonly Intent[],
  snapshot: Snapshot,
  skipped: Skip[],
  changed: Set<Intent>,
): Intent[] {
  const byAsset = new Map<number, TwapOrderIntent[]>();
  for (const i of intents) {
    if (i.kind !== "twapOrder") continue;
    const list = byAsset.get(i.assetId) ?? [];
    list.push(i);
    byAsset.set(i.assetId, list);
  }
  const replaced = new Map<Intent, Intent | undefined>();
  for (const list of byAsset.values()) {
    const buys = list.filter((t) => t.side === "buy");
    const sells = list.filter((t) => t.side === "sell");
    if (buys.length === 0 || sells.length === 0) continue;
    const bought = buys.reduce((a, t) => a.plus(t.size), ZERO);
    const sold = sells.reduce((a, t) => a.plus(t.size), ZERO);
    const [winners, losers, offset] = bought.gte(sold) ? [buys, sells, sold] : [sells, buys, bought];
    const describe = (ts: TwapOrderIntent[]) =>
      ts.map((t) => `${t.strategy}'s ${t.side} of ${fmt(t.size)}`).join(" and ");
    const lost: Skip[] = [];
    /** The USD value of `size` of a TWAP's own order, as its notionalUsd values the whole. */
    const nettedPart = (t: TwapOrderIntent, size: Decimal): NonNullable<Skip["netted"]> => ({
      usd: t.size.gt(0) ? t.notionalUsd.times(size).div(t.size) : ZERO,
      assetId: t.assetId,
      side: t.side,
    });
    for (const l of losers) {
      replaced.set(l, undefined);
      const s: Skip = {
        kind: "skip",
        strategy: l.strategy,
        considered: "twapOrder",
        reason: `${l.reason}; netted: ${describe(winners)} ${l.label} in the same cycle covers it (no opposing TWAPs on one pair)`,
        netted: nettedPart(l, l.size),
      };
      lost.push(s);
      skipped.push(s);
    }
    // The last-allocated winners give way first.
    let remaining = offset;
    for (const w of [...winners].reverse()) {
      if (!remaining.gt(0)) break;
      const take = Decimal.min(remaining, w.size);
      remaining = remaining.minus(take);
      const size = truncateDecimals(w.size.minus(take), w.szDecimals);
      const note = `netted against ${describe(losers)} ${w.label}: ${fmt(take)} fewer`;
      const quote = pairOf(w, snapshot)?.quote.name ?? w.label.split("/")[1] ?? "USDC";
      const fit = size.gt(0)
        ? fitTwapDuration(size.times(minimumCheckPx(w)), w.minutes, snapshot.rules, quote, {
            size,
            szDecimals: w.szDecimals,
            base: w.label.split("/")[0] ?? w.coin,
          })
        : ({ ok: false, reason: "nothing is left to trade" } as const);
      if (!fit.ok) {
        replaced.set(w, undefined);
        const absorbed: Skip = {
          kind: "skip",
          strategy: w.strategy,
          considered: "twapOrder",
          reason: `${w.reason}; ${note}, and the rest is not traded: ${fit.reason}`,
          netted: { ...nettedPart(w, take), absorbed: true },
        };
        skipped.push(absorbed);
        // Covered like a dropped side: if another winner's trade is left and does not go out as netted,
        // the other side's trade is deferred, and so is this one (a portfolio trial: a take-profit netted
        // into a rebalancer's sale that maxOrderUsd then cut lost its day's sale).
        lost.push(absorbed);
        continue;
      }
      const shrunk = withSize(w, size, note, fit.minutes);
      changed.add(shrunk);
      replaced.set(w, shrunk);
      // The part taken off is traded for it by the other side not trading: counted in its budget if its
      // own (shrunk) TWAP goes out, as a covered side is.
      const part: Skip = {
        kind: "skip",
        strategy: w.strategy,
        considered: "twapOrder",
        reason: `${fmt(take)} of its ${w.side} of ${w.label} netted against ${describe(losers)}: counted as traded`,
        netted: { ...nettedPart(w, take), part: true },
        coveredOn: w.assetId,
      };
      skipped.push(part);
    }
    // A trade is left to cover the dropped side: that side is covered only if it goes out (the cycle
    // defers it otherwise). Netted to nothing, both sides are done.
    if (winners.some((w) => replaced.get(w) !== undefined || !replaced.has(w)))
      for (const s of lost) s.coveredOn = winners[0]!.assetId;
  }
  const out: Intent[] = [];
  for (const i of intents) {
    if (!replaced.has(i)) out.push(i);
    else {
      const r = replaced.get(i);
      if (r !== undefined) out.push(r);
    }
  }
  return out;
}
