// The TWAP engine. A TWAP of size s over m minutes runs N = m·60 s / 30 s suborders,
// one every 30 s (the first 30 s after placement, the last at the end time). Each suborder aims at the
// on-schedule target s·elapsed/duration, capped at 3× the normal size s/N, so a TWAP that fell behind
// (halted pair, short balance) catches up, and one that falls too far behind finishes partly unfilled.
// Randomised TWAPs (t: true) draw intervals (default 10–50 s) and size factors (default 0.5–1.5× the
// on-schedule amount) from a per-TWAP seeded stream. Suborders fill as takers, paying the fee in the
// token received (base on buys, quote on sells), like the venue's spot fees.
//
// Book model (pairs with a `book` in the scenario; without one a pair fills at the mid). Each side of the
// book is linear: `depth` quote rests within `depthRange` of the mid, beyond half the spread. A slice of
// notional N walks the book from where the last fills left it: offset o0 = spread/2 + range·taken/depth,
// o1 = o0 + range·N/depth, average fill mid·(1 ± (o0 + o1)/2). The walk stops at the 3 % per-slice
// slippage limit: what cannot fill within it stays unfilled, and the schedule catches up
// later (3× cap above). `taken` (quote consumed on that side) decays with the book's recovery half-life.
// The mid itself (the price path) is not moved: impact is temporary. Everything is deterministic.
// The liquidity classes are ASSUMPTIONS, not measured venue figures: no public source for HYPE spot depth
// was found; "thin" uses the 0.3 % spread HIP-2 Hyperliquidity quotes (Hyperliquid docs, HIP-2).
//
// Holds: a running sell reserves its remaining base size; a running buy reserves remaining size × mid ×
// (1 + margin) of quote, margin = the slippage limit unless configured, re-evaluated at every read.
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { Decimal, fractionDigits, toWireDecimal, truncateDecimals, ZERO } from "../lib/decimal.js";
import { ConfigError } from "../lib/errors.js";
import type { Accounts } from "./accounts.js";
import type { Clock, ScheduledEvent } from "./clock.js";
import type { VenueMessages } from "./errors.js";
import type { Ledger } from "./ledger.js";
import { type Markets, type Pair, SPOT_ASSET_OFFSET } from "./markets.js";
import { roundSpotPrice } from "./prices.js";
import { Prng } from "./prng.js";
import { type BookConfig, LIQUIDITY_CLASSES, type ScenarioSettings, type ScenarioTwap } from "./scenario.js";
import type { SpotBalances } from "./spot.js";

/** Defaults per liquidity class (assumptions; override per pair in the scenario's `book`). */
export { LIQUIDITY_CLASSES };

export interface BookModel {
  spreadBps: number;
  depth: number;
  depthRange: number;
  recovery: number;
}

export function bookModel(config: BookConfig): BookModel {
  const d = LIQUIDITY_CLASSES[config.class];
  return {
    spreadBps: config.spreadBps ?? d.spreadBps,
    depth: config.depth?.toNumber() ?? d.depth,
    depthRange: config.depthRange ?? d.depthRange,
    recovery: config.recovery ?? d.recovery,
  };
}

/** Quote taken from one side of a pair's book, decaying back to 0 as the book recovers. */
interface BookSide {
  taken: number;
  at: number;
}

export type TwapStatus = "activated" | "finished" | "terminated";

export interface Twap {
  id: number;
  user: string;
  pair: Pair;
  isBuy: boolean;
  size: Decimal;
  minutes: number;
  reduceOnly: boolean;
  randomize: boolean;
  placedAt: number;
  endAt: number;
  /** Normal suborder size s/N (not truncated). */
  normalSize: Decimal;
  nSlices: number;
  executedSz: Decimal;
  executedNtl: Decimal;
  status: TwapStatus;
  /** Suborders attempted so far (filled or not). */
  slicesRun: number;
  slicesFilled: number;
  hash: string;
  next: ScheduledEvent | undefined;
  rng: Prng | undefined;
}

export interface TwapHistoryEntry {
  time: number;
  twap: Twap;
  status: TwapStatus;
  executedSz: Decimal;
  executedNtl: Decimal;
}

export interface TwapFill {
  twapId: number;
  user: string;
  coin: string;
  px: Decimal;
  sz: Decimal;
  side: "B" | "A";
  time: number;
  startPosition: Decimal;
  fee: Decimal;
  feeToken: string;
  oid: number;
  tid: number;
}

export interface TwapRequest {
  asset: number;
  isBuy: boolean;
  size: string;
  reduceOnly: boolean;
  minutes: number;
  randomize: boolean;
  /** Trigger/stop details were sent (not supported). */
  hasDetails: boolean;
}

export type TwapPlaceResult = { ok: true; twap: Twap } | { ok: false; error: string };

export interface TwapDeps {
  clock: Clock;
  settings: () => ScenarioSettings;
  messages: () => VenueMessages;
  ledger: Ledger;
  markets: Markets;
  spot: SpotBalances;
  accounts: Accounts;
  seed: number;
  takerRate: (user: string) => Decimal;
}

export class TwapEngine {
  private nextId: number;
  private nextOid: number;
  private nextTid: number;
  private readonly twaps = new Map<number, Twap>();
  /** The activated ones, in placing order: every balance read asks for them, and ended ones pile up. */
  private readonly active = new Set<Twap>();
  private readonly history = new Map<string, TwapHistoryEntry[]>();
  private readonly fills = new Map<string, TwapFill[]>();
  /** Per user, the sum of px × sz over fillsOf(user), in fill order: kept as fills come. */
  private readonly filledVolume = new Map<string, Decimal>();
  private readonly books = new Map<string, BookSide>();

  constructor(private readonly d: TwapDeps) {
    const s = d.settings();
    this.nextId = s.twapIdStart;
    this.nextOid = s.twapIdStart * 1000;
    this.nextTid = s.twapIdStart * 1000;
  }

  get(id: number): Twap | undefined {
    return this.twaps.get(id);
  }

  all(user?: string): Twap[] {
    const list = [...this.twaps.values()];
    return user === undefined ? list : list.filter((t) => t.user === user);
  }

  running(user: string): Twap[] {
    const out: Twap[] = [];
    for (const t of this.active) if (t.user === user) out.push(t);
    return out;
  }

  historyOf(user: string): readonly TwapHistoryEntry[] {
    return this.history.get(user) ?? [];
  }

  fillsOf(user: string): readonly TwapFill[] {
    return this.fills.get(user) ?? [];
  }

  /** The notional of every fill of `user` so far (px × sz summed in fill order). */
  filledVolumeOf(user: string): Decimal {
    return this.filledVolume.get(user) ?? ZERO;
  }

  /** Reserved spot balance of `user` in token `tokenIndex` from running TWAPs. */
  hold(user: string, tokenIndex: number): Decimal {
    let hold = ZERO;
    if (!this.d.settings().twapHolds) return hold;
    for (const t of this.running(user)) {
      const remaining = t.size.minus(t.executedSz);
      if (!t.isBuy && t.pair.base.index === tokenIndex) hold = hold.plus(remaining);
      if (t.isBuy && t.pair.quote.index === tokenIndex) hold = hold.plus(this.buyReserve(t.pair, remaining));
    }
    return hold;
  }

  private buyReserve(pair: Pair, size: Decimal): Decimal {
    const s = this.d.settings();
    const margin = s.twapBuyHoldMargin ?? s.twapMaxSlippage;
    const value = size.times(this.d.markets.mid(pair)).times(margin.plus(1));
    return value.toDecimalPlaces(pair.quote.weiDecimals, Decimal.ROUND_UP);
  }

  available(user: string, tokenIndex: number): Decimal {
    const token = this.d.markets.token(tokenIndex);
    if (!token) return ZERO;
    return this.d.spot.total(user, token).minus(this.hold(user, tokenIndex));
  }

  /** Validates and starts a TWAP for `user`; the caller has authenticated the action. */
  place(user: string, req: TwapRequest, hash: string): TwapPlaceResult {
    const s = this.d.settings();
    const m = this.d.messages();
    const now = this.d.clock.now();
    const pair = req.asset >= SPOT_ASSET_OFFSET ? this.d.markets.pair(req.asset) : undefined;
    if (!pair) return { ok: false, error: m.invalidAsset(req.asset) };
    if (req.hasDetails) return { ok: false, error: m.triggerTwapUnsupported };
    if (req.minutes < s.twapMinMinutes || req.minutes > s.twapMaxMinutes)
      return { ok: false, error: m.invalidTwapDuration(req.minutes) };
    if (req.reduceOnly) return { ok: false, error: m.spotReduceOnly };
    let size: Decimal;
    try {
      size = new Decimal(req.size);
    } catch {
      return { ok: false, error: m.invalidSize };
    }
    if (!size.isFinite() || size.isNegative() || fractionDigits(size) > pair.base.szDecimals)
      return { ok: false, error: m.invalidSize };
    if (size.isZero()) return { ok: false, error: m.zeroSize };
    const nSlices = Math.max(1, Math.floor((req.minutes * 60_000) / s.twapSliceInterval));
    const mid = this.d.markets.mid(pair, now);
    const value = size.times(mid);
    const perMinute = s.twapMinValuePerMinute.times(req.minutes);
    const required = perMinute.gt(s.twapMinOrderValue) ? perMinute : s.twapMinOrderValue;
    if (value.lt(required)) {
      const rate = s.twapMinValuePerMinute.gt(0) ? toWireDecimal(s.twapMinValuePerMinute) : undefined;
      return { ok: false, error: m.twapOrderTooSmall(toWireDecimal(required), rate) };
    }
    const sliceValue = value.div(nSlices);
    if (sliceValue.lt(s.twapMinSliceValue))
      return { ok: false, error: m.twapMinimumValue(toWireDecimal(s.twapMinSliceValue), pair.quote.name) };
    if (req.isBuy) {
      if (this.available(user, pair.quote.index).lt(this.buyReserve(pair, size)))
        return { ok: false, error: m.insufficientSpotBalance };
    } else if (this.available(user, pair.base.index).lt(size)) {
      return { ok: false, error: m.insufficientSpotBalance };
    }

    const id = this.nextId++;
    const twap: Twap = {
      id,
      user,
      pair,
      isBuy: req.isBuy,
      size,
      minutes: req.minutes,
      reduceOnly: req.reduceOnly,
      randomize: req.randomize,
      placedAt: now,
      endAt: now + req.minutes * 60_000,
      normalSize: size.div(nSlices),
      nSlices,
      executedSz: ZERO,
      executedNtl: ZERO,
      status: "activated",
      slicesRun: 0,
      slicesFilled: 0,
      hash,
      next: undefined,
      rng: req.randomize ? new Prng(this.d.seed, `twap:${id}`) : undefined,
    };
    this.twaps.set(id, twap);
    this.active.add(twap);
    this.pushHistory(twap, now);
    this.d.ledger.record(
      now,
      "twapPlaced",
      {
        twapId: id,
        coin: pair.name,
        side: req.isBuy ? "B" : "A",
        sz: toWireDecimal(size),
        minutes: req.minutes,
        randomize: req.randomize,
        nSlices,
        mid: toWireDecimal(mid),
      },
      { user, hash },
    );
    this.scheduleNext(twap, now);
    return { ok: true, twap };
  }

  /**
   * Continues a TWAP that was running before the simulation started (a scenario's `twaps`): placed
   * `startedAgo` before now with what it had executed by now, it runs on its own schedule from the next
   * slice (the catch-up cap applies as to any TWAP behind schedule). What it executed before shows as one
   * fill at the start (its average price, no fee; balances already hold it). Its ledger entry says it
   * was carried.
   */
  seedRunning(user: string, spec: ScenarioTwap): Twap {
    const s = this.d.settings();
    const now = this.d.clock.now();
    const pair = this.d.markets.requirePair(spec.pair);
    const id = spec.id ?? this.nextId;
    if (this.twaps.has(id)) throw new ConfigError(`twaps: TWAP id ${id} is used twice`);
    this.nextId = Math.max(this.nextId, id + 1);
    const placedAt = now - spec.startedAgo;
    const nSlices = Math.max(1, Math.floor((spec.minutes * 60_000) / s.twapSliceInterval));
    const twap: Twap = {
      id,
      user,
      pair,
      isBuy: spec.side === "buy",
      size: spec.size,
      minutes: spec.minutes,
      reduceOnly: false,
      randomize: spec.randomize,
      placedAt,
      endAt: placedAt + spec.minutes * 60_000,
      normalSize: spec.size.div(nSlices),
      nSlices,
      executedSz: spec.executedSz,
      executedNtl: spec.executedNtl,
      status: "activated",
      // The slices due before now were the venue's: the next on the grid is the first here.
      slicesRun: Math.min(nSlices - 1, Math.floor(spec.startedAgo / s.twapSliceInterval)),
      slicesFilled: 0,
      hash: syntheticTwapHash(user, id),
      next: undefined,
      rng: spec.randomize ? new Prng(this.d.seed, `twap:${id}`) : undefined,
    };
    this.twaps.set(id, twap);
    this.active.add(twap);
    this.pushHistory(twap, placedAt);
    if (spec.executedSz.gt(0)) {
      // Its fills before the run as one fill, so a bot reading userTwapSliceFills sees its progress.
      const fill: TwapFill = {
        twapId: id,
        user,
        coin: pair.name,
        px: spec.executedNtl.gt(0)
          ? spec.executedNtl.div(spec.executedSz).toSignificantDigits(8)
          : this.d.markets.mid(pair, now),
        sz: spec.executedSz,
        side: twap.isBuy ? "B" : "A",
        time: now,
        startPosition: this.d.spot.total(user, pair.base),
        fee: ZERO,
        feeToken: twap.isBuy ? pair.base.name : pair.quote.name,
        oid: this.nextOid++,
        tid: this.nextTid++,
      };
      this.fills.set(user, [...(this.fills.get(user) ?? []), fill]);
    }
    this.d.ledger.record(
      now,
      "twapPlaced",
      {
        twapId: id,
        coin: pair.name,
        side: twap.isBuy ? "B" : "A",
        // What is left of it: what this run can execute.
        sz: toWireDecimal(spec.size.minus(spec.executedSz)),
        minutes: spec.minutes,
        randomize: spec.randomize,
        nSlices,
        mid: toWireDecimal(this.d.markets.mid(pair, now)),
        carried: true,
      },
      { user, hash: twap.hash },
    );
    this.scheduleNext(twap, now);
    return twap;
  }

  /** Cancels a running TWAP of `user` on asset `asset`; false when there is none. */
  cancel(user: string, asset: number, id: number, hash?: string): boolean {
    const t = this.twaps.get(id);
    if (!t || t.user !== user || t.pair.assetId !== asset || t.status !== "activated") return false;
    this.end(t, "terminated", this.d.clock.now(), hash);
    return true;
  }

  private scheduleNext(t: Twap, from: number): void {
    const s = this.d.settings();
    let at: number;
    if (t.rng) {
      const [lo, hi] = s.twapRandomInterval;
      at = from + Math.round(t.rng.uniform(lo, hi));
    } else {
      at = t.placedAt + (t.slicesRun + 1) * s.twapSliceInterval;
    }
    // The last suborder runs at the end time; never schedule past it.
    if (at > t.endAt || (t.rng === undefined && t.slicesRun + 1 >= t.nSlices)) at = t.endAt;
    t.next = this.d.clock.schedule(at, `twap:${t.id}`, () => this.slice(t));
  }

  private slice(t: Twap): void {
    if (t.status !== "activated") return;
    const now = this.d.clock.now();
    const s = this.d.settings();
    const final = now >= t.endAt;
    t.slicesRun++;
    const remaining = t.size.minus(t.executedSz);
    const elapsed = Math.min(1, (now - t.placedAt) / (t.endAt - t.placedAt));
    let desired = final ? remaining : t.size.times(elapsed).minus(t.executedSz);
    if (t.rng && !final) {
      const [lo, hi] = s.twapRandomSize;
      desired = desired.times(t.rng.uniform(lo, hi).toFixed(6));
    }
    const cap = t.normalSize.times(s.twapCatchUpFactor);
    let sz = Decimal.min(desired, cap, remaining);
    sz = truncateDecimals(Decimal.max(sz, ZERO), t.pair.base.szDecimals);

    const skip = (reason: string) =>
      this.d.ledger.record(
        now,
        "twapSliceSkipped",
        { twapId: t.id, reason, mid: toWireDecimal(this.d.markets.mid(t.pair, now)) },
        { user: t.user, hash: t.hash },
      );
    if (sz.isZero()) {
      // Nothing due yet (a randomised TWAP ahead of schedule, or below one lot).
    } else if (t.pair.halted) {
      skip("halted");
    } else {
      this.fill(t, sz, now, skip);
    }

    const left = t.size.minus(t.executedSz);
    const lot = new Decimal(10).pow(-t.pair.base.szDecimals);
    if (left.lt(lot) || final) this.end(t, "finished", now);
    else this.scheduleNext(t, now);
  }

  /** Size and average price a slice of `want` base gets from the book now (or the mid without a book). */
  private walk(
    t: Twap,
    want: Decimal,
    mid: Decimal,
    now: number,
  ): { sz: Decimal; px: Decimal; take: number } {
    if (!t.pair.config.book) return { sz: want, px: mid, take: 0 };
    const book = bookModel(t.pair.config.book);
    const key = `${t.pair.name}:${t.isBuy ? "ask" : "bid"}`;
    const side = this.books.get(key) ?? { taken: 0, at: now };
    const taken = side.taken * 0.5 ** ((now - side.at) / book.recovery);
    const m = mid.toNumber();
    const slope = book.depthRange / book.depth; // price offset per unit of quote taken
    const o0 = book.spreadBps / 20_000 + slope * taken;
    const limit = this.d.settings().twapMaxSlippage.toNumber();
    let sz = want;
    let o1 = o0 + slope * want.toNumber() * m;
    if (o1 > limit) {
      // Only what fills within the slippage limit: the rest of the slice stays unfilled.
      const fits = o0 >= limit ? 0 : (limit - o0) / slope / m;
      sz = Decimal.min(want, truncateDecimals(new Decimal(fits.toFixed(12)), t.pair.base.szDecimals));
      o1 = o0 + slope * sz.toNumber() * m;
    }
    const offset = Math.min(limit, (o0 + o1) / 2);
    // Rounded against the taker onto the venue's price grid.
    const raw = m * (t.isBuy ? 1 + offset : 1 - offset);
    let px = roundSpotPrice(raw, t.pair.base.szDecimals);
    if (t.isBuy ? px.lt(raw) : px.gt(raw)) px = nextTick(px, t.pair.base.szDecimals, t.isBuy);
    return { sz, px, take: sz.toNumber() * m };
  }

  private fill(t: Twap, want: Decimal, now: number, skip: (reason: string) => void): void {
    const mid = this.d.markets.mid(t.pair, now);
    const { sz, px, take } = this.walk(t, want, mid, now);
    if (sz.isZero()) {
      skip("price limit");
      return;
    }
    const ntl = sz.times(px);
    const rate = this.d.takerRate(t.user);
    const base = t.pair.base;
    const quote = t.pair.quote;
    const spot = this.d.spot;
    if (t.isBuy ? spot.total(t.user, quote).lt(ntl) : spot.total(t.user, base).lt(sz)) {
      skip("insufficient balance");
      return;
    }
    const startPosition = spot.total(t.user, base);
    let fee: Decimal;
    let feeToken: string;
    if (t.isBuy) {
      fee = sz.times(rate).toDecimalPlaces(base.weiDecimals, Decimal.ROUND_HALF_UP);
      feeToken = base.name;
      spot.add(t.user, quote, ntl.neg());
      spot.add(t.user, base, sz.minus(fee), ntl);
    } else {
      fee = ntl.times(rate).toDecimalPlaces(quote.weiDecimals, Decimal.ROUND_HALF_UP);
      feeToken = quote.name;
      spot.add(t.user, base, sz.neg());
      spot.add(t.user, quote, ntl.minus(fee));
    }
    if (t.pair.config.book) {
      const book = bookModel(t.pair.config.book);
      const key = `${t.pair.name}:${t.isBuy ? "ask" : "bid"}`;
      const side = this.books.get(key) ?? { taken: 0, at: now };
      const taken = side.taken * 0.5 ** ((now - side.at) / book.recovery);
      this.books.set(key, { taken: taken + take, at: now });
    }
    t.executedSz = t.executedSz.plus(sz);
    t.executedNtl = t.executedNtl.plus(ntl);
    t.slicesFilled++;
    this.d.markets.recordVolume(t.pair, now, sz, ntl);
    const fill: TwapFill = {
      twapId: t.id,
      user: t.user,
      coin: t.pair.name,
      px,
      sz,
      side: t.isBuy ? "B" : "A",
      time: now,
      startPosition,
      fee,
      feeToken,
      oid: this.nextOid++,
      tid: this.nextTid++,
    };
    const list = this.fills.get(t.user) ?? [];
    list.push(fill);
    this.fills.set(t.user, list);
    this.filledVolume.set(t.user, this.filledVolumeOf(t.user).plus(px.times(sz)));
    this.d.ledger.record(
      now,
      "twapSlice",
      {
        twapId: t.id,
        coin: t.pair.name,
        side: fill.side,
        px: toWireDecimal(px),
        mid: toWireDecimal(mid),
        sz: toWireDecimal(sz),
        ...(sz.lt(want) ? { unfilled: toWireDecimal(want.minus(sz)) } : {}),
        ntl: toWireDecimal(ntl),
        fee: toWireDecimal(fee),
        feeToken,
        tid: fill.tid,
      },
      { user: t.user, hash: t.hash },
    );
  }

  private end(t: Twap, status: "finished" | "terminated", now: number, hash?: string): void {
    t.status = status;
    this.active.delete(t);
    if (t.next) this.d.clock.cancel(t.next);
    t.next = undefined;
    this.pushHistory(t, now);
    this.d.ledger.record(
      now,
      status === "finished" ? "twapFinished" : "twapTerminated",
      {
        twapId: t.id,
        executedSz: toWireDecimal(t.executedSz),
        executedNtl: toWireDecimal(t.executedNtl),
        slices: t.slicesFilled,
      },
      { user: t.user, hash: hash ?? t.hash },
    );
  }

  private pushHistory(t: Twap, now: number): void {
    const list = this.history.get(t.user) ?? [];
    list.push({ time: now, twap: t, status: t.status, executedSz: t.executedSz, executedNtl: t.executedNtl });
    this.history.set(t.user, list);
  }
}

/** A stand-in hash for a TWAP placed before the run (its placing action is not in this venue). */
function syntheticTwapHash(user: string, id: number): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(`carried-twap:${user}:${id}`)))}`;
}

/** The next price on the venue's grid above (up) or below a grid price. */
function nextTick(px: Decimal, szDecimals: number, up: boolean): Decimal {
  const maxDecimals = Math.max(0, 8 - szDecimals);
  const tick = px.gte(100_000)
    ? new Decimal(1)
    : Decimal.max(new Decimal(10).pow(px.e - 4), new Decimal(10).pow(-maxDecimals));
  return up ? px.plus(tick) : px.minus(tick);
}
