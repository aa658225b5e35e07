// Price and metadata sanity: the check between what strategies decided and the risk limits. Every
// limit in USD (maxOrderUsd, the daily notional, budgets) is only as good as the price it is valued
// at, and every signed order is only as good as the asset id it names. One wrong answer from the venue
// (a glitching mid, a thin book, a proxy rewriting answers, swapped pair indices) must not be enough to
// move money, so a TWAP intent passes only when
//   - its pair's metadata agrees with itself (name ↔ index ↔ asset id, the tokens named, szDecimals)
//     and with what earlier cycles saw (a pair's asset id never changes silently);
//   - the prices that describe its pair agree: the allMids mid, the mark, the context's mid and the
//     previous-day price from spotMetaAndAssetCtxs, and the last mid an earlier cycle saw, within
//     configurable bounds (each a symmetric gap, larger / smaller − 1, so a crash to a fraction of the
//     price is as far as a rise by the same factor; a blocked intent says how far the mid is from the
//     price it disagrees with relative to that price, "20% below the mark", and what the bound allows);
// and it is then valued at the most conservative (highest) of those prices, so the limits see the
// largest USD value the order may have. Pure: the caller reads the memory and writes back `observed`.
import { Decimal } from "../lib/decimal.js";
import { HYPE_WEI_DECIMALS, SPOT_ASSET_OFFSET } from "../venue/constants.js";
import { movesHypeWei } from "./intentKinds.js";
import { blockedBy, type Intent, type Skip, type TwapOrderIntent } from "./intents.js";
import { pairFor, pairLabel, type Snapshot, type SpotPair } from "./snapshot.js";
import { fmt, pct } from "./strategies/common.js";
import { isUsdStablecoin } from "./usd.js";

/** Bounds, as fractions (0.1 = 10 %): a price further than this from another one blocks. */
export interface PriceSanityLimits {
  /** allMids mid against the mark price and the context's own mid (same moment, two sources). */
  maxMarkDeviation: Decimal;
  /** allMids mid against the previous-day price. */
  maxDayMove: Decimal;
  /** allMids mid against the last mid an earlier cycle saw, whatever the time between them. */
  maxMovePerCycle: Decimal;
  /** Same, growing with the time since that mid: the bound is max(per cycle, per hour × hours). */
  maxMovePerHour: Decimal;
}

export const DEFAULT_PRICE_SANITY: Readonly<PriceSanityLimits> = Object.freeze({
  maxMarkDeviation: new Decimal("0.1"),
  maxDayMove: new Decimal("0.5"),
  maxMovePerCycle: new Decimal("0.15"),
  maxMovePerHour: new Decimal("0.1"),
});

/** An earlier mid older than this is no reference any more (the venue's own prevDayPx still is). */
export const PRICE_MEMORY_MAX_AGE_MS = 24 * 60 * 60_000;

/** What earlier cycles saw of a pair, keyed by its label ("HYPE/USDC"): kept in the journal. */
export interface PairMemory {
  label: string;
  coin: string;
  assetId: number;
  baseTokenId: string;
  quoteTokenId: string;
  /** Last mid that passed these checks, as a decimal string, and when (ms). */
  mid: string | null;
  midAt: number | null;
}

export interface PriceSanityInput {
  intents: readonly Intent[];
  snapshot: Snapshot;
  limits: PriceSanityLimits;
  /** The journal's memory of a pair by label, if any. */
  memory: (label: string) => PairMemory | undefined;
  now: number;
}

export interface PriceSanityResult {
  /** Intents that may go on to the limits; TWAPs carry the conservative price and notional. */
  allowed: Intent[];
  /** Blocked intents as skips naming the disagreement. */
  blocked: Skip[];
  /** Metadata that changed between cycles: to be logged as errors, not just journaled. */
  alarms: string[];
  /** Pairs to remember (identity always when first seen; mid only when it passed the checks). */
  observed: PairMemory[];
  /** Each revalued intent of `allowed` (a new object) to the intent it was given as. */
  revalued: Map<Intent, Intent>;
}

/**
 * Whether two prices are more than `bound` apart, measured symmetrically: max(a, b) / min(a, b) − 1
 * > bound (0.2 against 25 is a gap of 124, not 0.99). Checked as max > min × (1 + bound), which is exact
 * (a division at the library's 120 digits also cost more than the rest of a price check).
 */
export function gapExceeds(a: Decimal, b: Decimal, bound: Decimal): boolean {
  // Not a number is no price: as far from any price as can be (callers check prices before).
  if (a.isNaN() || b.isNaN()) return true;
  // Decimal.max and min copy their result; a bound's 1 + bound is kept (a cycle checks each pair's
  // prices against the same few bounds).
  const aHigher = a.gt(b);
  const hi = aHigher ? a : b;
  const lo = aHigher ? b : a;
  return lo.lte(0) || hi.gt(lo.times(onePlus(bound)));
}

const onePlusOf = new WeakMap<Decimal, Decimal>();

function onePlus(bound: Decimal): Decimal {
  let kept = onePlusOf.get(bound);
  if (kept === undefined) {
    kept = bound.plus(1);
    onePlusOf.set(bound, kept);
  }
  return kept;
}

/**
 * How far `price` is from `reference`, relative to the reference, in words: mid 80 against a reference
 * of 100 is "20% below", 125 is "25% above". A person reads a percentage as a move from the reference,
 * so this is what messages show (the bound itself is checked symmetrically: gapExceeds).
 */
export function deviationFrom(price: Decimal, reference: Decimal): string {
  const change = price.div(reference).minus(1);
  if (change.isZero()) return "equal to";
  return `${pct(change.abs())} ${change.isNeg() ? "below" : "above"}`;
}

/**
 * A symmetric bound in the same words: a gap of at most `bound` (larger / smaller − 1) lets a price be
 * up to `bound` above the reference and up to bound / (1 + bound) below it (0.1: 9.09% below to 10% above).
 */
export function boundRange(bound: Decimal): string {
  return `${pct(bound.div(bound.plus(1)))} below to ${pct(bound)} above`;
}

/** Why this pair's metadata cannot be trusted, or undefined when it agrees with itself and the past. */
function metadataProblem(
  pair: SpotPair,
  snapshot: Snapshot,
  memory: PairMemory | undefined,
): { why: string; alarm: boolean } | undefined {
  const label = pairLabel(pair);
  if (pair.assetId !== SPOT_ASSET_OFFSET + pair.index) {
    return {
      why: `pair ${pair.name} has asset id ${pair.assetId}, not ${SPOT_ASSET_OFFSET} + its index ${pair.index}`,
      alarm: false,
    };
  }
  if (pair.name !== `@${pair.index}` && pair.name !== label) {
    return {
      why: `spotMeta names pair index ${pair.index} "${pair.name}", which is neither "@${pair.index}" nor "${label}" (metadata inconsistent)`,
      alarm: false,
    };
  }
  for (const token of [pair.base, pair.quote]) {
    const byName = snapshot.tokens.get(token.name);
    if (byName === undefined || byName.index !== token.index || byName.tokenId !== token.tokenId) {
      return {
        why: `token ${token.name} of pair ${pair.name} is index ${token.index} id ${token.tokenId}, but spotMeta lists ${token.name} as ${byName ? `index ${byName.index} id ${byName.tokenId}` : "missing"}`,
        alarm: false,
      };
    }
  }
  if (memory !== undefined) {
    const changed: string[] = [];
    if (memory.assetId !== pair.assetId) changed.push(`asset id ${memory.assetId} → ${pair.assetId}`);
    if (memory.coin !== pair.name) changed.push(`pair name ${memory.coin} → ${pair.name}`);
    if (memory.baseTokenId !== pair.base.tokenId) changed.push(`${pair.base.name} token id changed`);
    if (memory.quoteTokenId !== pair.quote.tokenId) changed.push(`${pair.quote.name} token id changed`);
    if (changed.length > 0) {
      return {
        why:
          `${label} changed since an earlier cycle (${changed.join(", ")}); the venue's metadata may be wrong. ` +
          "If the venue really re-listed the pair, run `hlbot journal rebuild` to accept the new metadata",
        alarm: true,
      };
    }
  }
  return undefined;
}

interface PriceVerdict {
  ok: boolean;
  why?: string;
  /** The reason is temporary (no book yet): the decision is deferred, its slot stays due. */
  defer?: true;
  /** The highest of the prices that agree: what limits value the order at. */
  conservative?: Decimal;
  sources?: string;
}

/** Cross-checks the prices of one pair. */
function priceVerdict(
  pair: SpotPair,
  snapshot: Snapshot,
  memory: PairMemory | undefined,
  limits: PriceSanityLimits,
  now: number,
  /**
   * The pair only values another order (a rebalancer's other token): no book (a halt) is no doubt about
   * its price, which still has to agree with its mark, previous-day price and last mid seen (a review: a
   * week's halt of PURR held a 3-token rebalancer's every HYPE order).
   */
  forValuation = false,
): PriceVerdict {
  const mid = pair.mid;
  if (mid === undefined || !mid.isFinite() || mid.lte(0)) {
    return { ok: false, why: `no usable allMids price for ${pair.name}` };
  }
  const ctx = snapshot.marks?.get(pair.name);
  if (ctx === undefined) {
    return {
      ok: false,
      why: `no market context (spotMetaAndAssetCtxs) for ${pair.name} to cross-check its price`,
    };
  }
  const label = pairLabel(pair);
  // The venue's context shows no mid: the book is empty (one side or both), or the pair is halted. A
  // TWAP placed now fills nothing, or fills against one side only (a scenario trial: a rebalancer sent
  // a TWAP every hour into a halted pair, each filling nothing, and the one running at the reopening
  // filled in a burst). Held until the venue shows a book again.
  if (ctx.midPx === undefined && !forValuation)
    return {
      ok: false,
      why: `${label} has no book: the venue's market context shows no mid (an empty book, or the pair halted); no TWAP is placed on it until it has one (price sanity; the slot stays due)`,
      // Held, not settled: a daily DCA whose slot met a book empty for minutes lost its day's buy (a review).
      defer: true,
    };
  const prices: Array<[string, Decimal]> = [["mid", mid]];
  const check = (name: string, other: Decimal | undefined, bound: Decimal): string | undefined => {
    if (other === undefined) return undefined;
    if (!other.isFinite() || other.lte(0)) return `${name} of ${label} is ${other.toString()}, not a price`;
    prices.push([name, other]);
    if (gapExceeds(mid, other, bound)) {
      return `${label} mid ${fmt(mid)} is ${deviationFrom(mid, other)} the ${name} ${fmt(other)}, outside the ${pct(bound)} bound (${boundRange(bound)} it) (price sanity)`;
    }
    return undefined;
  };
  const problems = [
    check("mark", ctx.markPx, limits.maxMarkDeviation),
    check("context mid", ctx.midPx, limits.maxMarkDeviation),
    check("previous-day price", ctx.prevDayPx.gt(0) ? ctx.prevDayPx : undefined, limits.maxDayMove),
  ];
  // A mid remembered at a time still to come was seen while the clock ran ahead: no reference (held as
  // the last mid, it measured a day of real moves against one cycle's bound until the clock caught up).
  const last = lastMidBound(memory, limits, now);
  if (last !== undefined)
    problems.push(check(`last mid seen ${last.minutesAgo} min ago`, last.mid, last.bound));
  const first = problems.find((p) => p !== undefined);
  // Held, not settled: prices that disagree may agree again within the catch-up window (a stale context,
  // a glitch), and a slot that ages out held is told as missed (a portfolio trial: a DCA's crash-day buy
  // was blocked and its slot settled, told only in the skip list).
  if (first !== undefined)
    return { ok: false, why: `${first}; tried again while its slot is due`, defer: true };
  let conservative = mid;
  let source = "mid";
  for (const [name, px] of prices) {
    if (px.gt(conservative)) {
      conservative = px;
      source = name;
    }
  }
  return { ok: true, conservative, sources: source };
}

/**
 * The "last mid seen" reference of a pair's memory and how far from it a mid may be now (the bound widens
 * with the memory's age); undefined when the memory is missing, older than PRICE_MEMORY_MAX_AGE_MS or
 * from a time still to come.
 */
export function lastMidBound(
  memory: PairMemory | undefined,
  limits: PriceSanityLimits,
  now: number,
): { mid: Decimal; bound: Decimal; minutesAgo: number } | undefined {
  if (
    memory?.mid == null ||
    memory.midAt == null ||
    memory.midAt > now ||
    now - memory.midAt > PRICE_MEMORY_MAX_AGE_MS
  )
    return undefined;
  const hours = (now - memory.midAt) / 3_600_000;
  return {
    mid: new Decimal(memory.mid),
    bound: Decimal.max(limits.maxMovePerCycle, limits.maxMovePerHour.times(hours)),
    minutesAgo: Math.round((now - memory.midAt) / 60_000),
  };
}

/** A remembered mid younger than this is as good a reference as a fresher one: not rewritten. */
const MEMORY_REFRESH_MS = 60_000;

/**
 * Whether a pair's memory must be (re)written: it is new, its identity changed, or the remembered one is
 * older than MEMORY_REFRESH_MS. A large account holds many pairs; rewriting each of them every cycle made
 * the journal's write-ahead log grow and its checkpoints dominate the cycle. An unchanged mid is rewritten
 * too (its time is when it was last seen): kept with the time it was first seen, a mid flat for 5 hours
 * let a 30% wick through (the bound widens with the memory's age, and is gone after a day), and a DCA
 * sized on the wick paid 212 USDC for a 150 USD run (a bear-market trial).
 */
function worthWriting(memory: PairMemory | undefined, next: PairMemory): boolean {
  if (memory === undefined) return true;
  if (
    memory.coin !== next.coin ||
    memory.assetId !== next.assetId ||
    memory.baseTokenId !== next.baseTokenId ||
    memory.quoteTokenId !== next.quoteTokenId
  )
    return true;
  // A memory from a time still to come (the clock ran ahead) is replaced at once.
  if (memory.midAt !== null && next.midAt !== null && memory.midAt > next.midAt) return true;
  return next.midAt === null || memory.midAt === null || next.midAt - memory.midAt >= MEMORY_REFRESH_MS;
}

/**
 * Why the checks would not accept `pair`'s prices now as a valuation (its metadata, or its mid against its
 * mark, its previous-day price and the last mid seen; a missing book is no doubt), or undefined.
 */
export function pairPriceDoubt(
  pair: SpotPair,
  snapshot: Snapshot,
  memory: PairMemory | undefined,
  limits: PriceSanityLimits,
  now: number,
): string | undefined {
  const meta = metadataProblem(pair, snapshot, memory);
  if (meta) return meta.why;
  const verdict = priceVerdict(pair, snapshot, memory, limits, now, true);
  return verdict.ok ? undefined : (verdict.why ?? "price sanity failed");
}

/**
 * Staking amounts are signed as HYPE × 10^HYPE_WEI_DECIMALS: a venue stating another wei unit for HYPE
 * would make each amount a power of ten off (an architecture review: only the staking strategy checked,
 * so `hlbot delegate --amount 10` would have moved 100 HYPE under a unit of 6). Undefined when they agree
 * or the snapshot does not list HYPE.
 */
function stakeUnitProblem(snapshot: Pick<Snapshot, "tokens">): string | undefined {
  return stakeUnitMismatch(snapshot.tokens.get("HYPE")?.weiDecimals);
}

/** Why a venue stating HYPE's weiDecimals as `wei` cannot be staked with (stakeUnitProblem); undefined: it can. */
export function stakeUnitMismatch(wei: number | undefined): string | undefined {
  if (wei === undefined || wei === HYPE_WEI_DECIMALS) return undefined;
  return `the venue states HYPE's weiDecimals as ${wei}, and hlbot signs staking amounts in units of 10^-${HYPE_WEI_DECIMALS} HYPE: nothing is moved until they agree (report it: this is a venue change hlbot does not know)`;
}

/**
 * Checks every TWAP intent's pair metadata and prices, and every staking intent's unit (stakeUnitProblem);
 * other intents pass unchanged.
 */
export function checkPriceSanity(input: PriceSanityInput): PriceSanityResult {
  const { snapshot, limits, now } = input;
  const allowed: Intent[] = [];
  const blocked: Skip[] = [];
  const alarms: string[] = [];
  const observed = new Map<string, PairMemory>();
  const revalued = new Map<Intent, Intent>();

  const observe = (pair: SpotPair) => {
    const label = pairLabel(pair);
    if (observed.has(label)) return;
    const memory = input.memory(label);
    const meta = metadataProblem(pair, snapshot, memory);
    if (meta) {
      if (meta.alarm && !alarms.includes(meta.why)) alarms.push(meta.why);
      return; // never remember a pair whose metadata is in doubt
    }
    const verdict = priceVerdict(pair, snapshot, memory, limits, now);
    // Written out, not spread from the identity: a spread followed by more keys is a slow path in V8,
    // and every held pair passes here every cycle.
    const next: PairMemory = {
      label,
      coin: pair.name,
      assetId: pair.assetId,
      baseTokenId: pair.base.tokenId,
      quoteTokenId: pair.quote.tokenId,
      mid: verdict.ok ? (pair.mid?.toString() ?? null) : (memory?.mid ?? null),
      midAt: verdict.ok ? now : (memory?.midAt ?? null),
    };
    if (!worthWriting(memory, next)) return;
    observed.set(label, next);
  };

  for (const intent of input.intents) {
    if (movesHypeWei(intent.kind)) {
      const unit = stakeUnitProblem(snapshot);
      if (unit === undefined) allowed.push(intent);
      else blocked.push(blockedBy(intent, unit));
      continue;
    }
    if (intent.kind !== "twapOrder") {
      allowed.push(intent);
      continue;
    }
    const result = checkTwap(intent, input, alarms);
    if (typeof result === "string") blocked.push(blockedBy(intent, result));
    else if ("deferred" in result) blocked.push({ ...blockedBy(intent, result.deferred), defer: true });
    else {
      allowed.push(result);
      if (result !== intent) revalued.set(result, intent);
    }
    const pair = snapshot.pairs.get(intent.coin);
    if (pair) observe(pair);
    const quotePair = pair && quoteUsdPair(pair, snapshot);
    if (quotePair) observe(quotePair);
  }
  // Pairs of the account's balances are remembered too, so the first order on them has a reference.
  const held = [...snapshot.balances.keys()];
  for (const pair of snapshot.pairs.values()) {
    if (held.includes(pair.base.name) && held.includes(pair.quote.name) && snapshot.marks?.has(pair.name)) {
      observe(pair);
    }
  }
  return { allowed, blocked, alarms, observed: [...observed.values()], revalued };
}

function checkTwap(
  intent: TwapOrderIntent,
  input: PriceSanityInput,
  alarms: string[],
): TwapOrderIntent | string | { deferred: string } {
  const { snapshot } = input;
  const pair = snapshot.pairs.get(intent.coin);
  if (pair === undefined) return `pair ${intent.coin} is not in spotMeta`;
  if (intent.assetId !== pair.assetId) {
    return `the order names asset ${intent.assetId}, but spotMeta gives ${pair.name} asset ${pair.assetId}`;
  }
  const label = pairLabel(pair);
  if (intent.label !== label)
    return `the order is for ${intent.label}, but pair ${pair.name} trades ${label}`;
  if (intent.szDecimals !== pair.base.szDecimals) {
    return `the order uses ${intent.szDecimals} size decimals, but ${pair.base.name} has ${pair.base.szDecimals}`;
  }
  const memory = input.memory(label);
  const meta = metadataProblem(pair, snapshot, memory);
  if (meta) {
    if (meta.alarm && !alarms.includes(meta.why)) alarms.push(meta.why);
    return meta.why;
  }
  const verdict = priceVerdict(pair, snapshot, memory, input.limits, input.now);
  if (!verdict.ok || verdict.conservative === undefined) {
    const why = verdict.why ?? "price sanity failed";
    return verdict.defer ? { deferred: why } : why;
  }
  // A pair quoted in a token that is not a USD stablecoin (UBTC/HYPE) is sized and limited through the
  // quote's USD price, the mid of its pair against USDC: that price passes the same checks, and the
  // highest of its agreeing prices values the order (one glitching HYPE/USDC mid of 0.25 for 25 sized a
  // 500-USD DCA at 50,000 USD that the limits valued at 500: review of 2026-11-27).
  let quoteUsd = intent.quoteUsd;
  let quoteNote = "";
  const quotePair = quoteUsdPair(pair, snapshot);
  if (quotePair !== undefined) {
    const quoteLabel = pairLabel(quotePair);
    const quoteMeta = metadataProblem(quotePair, snapshot, input.memory(quoteLabel));
    if (quoteMeta) return `${quoteMeta.why} (the USD price of ${pair.quote.name} values this order)`;
    const q = priceVerdict(quotePair, snapshot, input.memory(quoteLabel), input.limits, input.now);
    if (!q.ok || q.conservative === undefined) {
      const why = `${q.why ?? "price sanity failed"} (the USD price of ${pair.quote.name} values this order)`;
      return q.defer ? { deferred: why } : why;
    }
    if (quoteUsd === undefined || q.conservative.gt(quoteUsd)) {
      quoteUsd = q.conservative;
      if (q.sources !== "mid")
        quoteNote = ` × ${fmt(quoteUsd)} USD per ${pair.quote.name} (the ${q.sources} of ${quoteLabel})`;
    }
  }
  // The other prices that sized it (a rebalancer's weights): each passes the same checks, or the order
  // waits (a wrong PURR mid sized a HYPE buy of a 3-token rebalancer: a risk trial).
  for (const coin of intent.valuedWith ?? []) {
    const other = snapshot.pairs.get(coin);
    if (other === undefined || other.name === pair.name) continue;
    const otherLabel = pairLabel(other);
    const otherMeta = metadataProblem(other, snapshot, input.memory(otherLabel));
    if (otherMeta) return `${otherMeta.why} (the price of ${other.base.name} values this order's portfolio)`;
    const o = priceVerdict(other, snapshot, input.memory(otherLabel), input.limits, input.now, true);
    if (!o.ok) {
      const why = `${o.why ?? "price sanity failed"} (the price of ${other.base.name} values this order's portfolio)`;
      return o.defer ? { deferred: why } : why;
    }
  }
  const px = Decimal.max(verdict.conservative, intent.midPx);
  if (px.lte(intent.midPx) && quoteUsd === intent.quoteUsd) return intent;
  const notionalUsd = intent.size.times(px).times(quoteUsd ?? 1);
  const priceNote = px.gt(intent.midPx)
    ? `${fmt(px)} (the ${verdict.sources}, the highest price seen)`
    : fmt(px);
  return {
    ...intent,
    decisionMidPx: intent.decisionMidPx ?? intent.midPx,
    midPx: px,
    notionalUsd,
    ...(quoteUsd === undefined ? {} : { quoteUsd }),
    reason: `${intent.reason}; valued at ${priceNote}${quoteNote} ≈ ${fmt(notionalUsd, 2)} USD for limits`,
  };
}

/** The pair that prices a TWAP's quote token in USD (its pair against USDC), when the quote is not a USD stablecoin. */
function quoteUsdPair(pair: SpotPair, snapshot: Snapshot): SpotPair | undefined {
  if (isUsdStablecoin(pair.quote.name)) return undefined;
  return pairFor(snapshot, pair.quote.name, "USDC");
}
