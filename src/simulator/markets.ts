// Spot tokens and pairs of the simulated venue with their mid prices. Pairs are addressed by venue
// name ("@107", "PURR/USDC"), by "BASE/QUOTE" alias and by asset id (10000 + pair index).
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { Decimal, parseDecimal } from "../lib/decimal.js";
import { ValidationError } from "../lib/errors.js";
import { SPOT_ASSET_OFFSET } from "../venue/constants.js";
import { HOUR } from "./clock.js";
import { createPricePath, type PricePath, roundSpotPrice } from "./prices.js";
import {
  baselineDayVolume,
  pairName,
  type Scenario,
  type ScenarioPair,
  type ScenarioToken,
} from "./scenario.js";

export { SPOT_ASSET_OFFSET };

export interface Token extends ScenarioToken {
  tokenId: string;
}

export interface Pair {
  config: ScenarioPair;
  name: string;
  index: number;
  assetId: number;
  base: Token;
  quote: Token;
  halted: boolean;
  path: PricePath;
  /** Notional traded by the simulator per hour bucket (for dayNtlVlm). */
  volume: Map<number, { ntl: Decimal; base: Decimal }>;
}

/** Roundings kept per pair: more than a day of cycles (the previous-day price is a day-old mid). */
const ROUNDED_KEPT = 256;

export class Markets {
  readonly tokens: Token[];
  readonly pairs: Pair[];
  private readonly tokensByName = new Map<string, Token>();
  private readonly tokensByIndex = new Map<number, Token>();
  private readonly pairsByKey = new Map<string, Pair>();
  private readonly pairsByAsset = new Map<number, Pair>();
  /**
   * Per pair, recent path prices and their rounding to the grid: a mid is asked for many times per step,
   * and the previous-day price is the mid of a day before. Bounded (oldest forgotten first).
   */
  private readonly rounded = new Map<Pair, { szDecimals: number; byPx: Map<number, Decimal> }>();

  constructor(
    scenario: Scenario,
    private readonly start: number,
    seed: number,
    private readonly now: () => number,
  ) {
    this.tokens = scenario.tokens.map((t) => ({
      ...t,
      tokenId: t.tokenId ?? deriveTokenId(t.name, t.index),
    }));
    for (const t of this.tokens) {
      this.tokensByName.set(t.name, t);
      this.tokensByIndex.set(t.index, t);
    }
    this.pairs = scenario.pairs.map((p) => {
      const name = pairName(p);
      const alias = `${p.base}/${p.quote}`;
      const config = scenario.prices[name] ?? scenario.prices[alias];
      const base = this.tokensByName.get(p.base)!;
      return {
        config: p,
        name,
        index: p.index,
        assetId: SPOT_ASSET_OFFSET + p.index,
        base,
        quote: this.tokensByName.get(p.quote)!,
        halted: p.halted,
        path: createPricePath(config, {
          start,
          step: scenario.settings.priceStep,
          seed,
          label: `price:${name}`,
          fallbackPx: 1,
        }),
        volume: new Map(),
      };
    });
    for (const p of this.pairs) {
      this.pairsByKey.set(p.name, p);
      this.pairsByKey.set(`${p.base.name}/${p.quote.name}`, p);
      this.pairsByAsset.set(p.assetId, p);
    }
  }

  token(nameOrIndex: string | number): Token | undefined {
    return typeof nameOrIndex === "number"
      ? this.tokensByIndex.get(nameOrIndex)
      : this.tokensByName.get(nameOrIndex);
  }

  /** A token by name or index; a ValidationError naming the field otherwise. */
  requireToken(nameOrIndex: string | number, field = "coin"): Token {
    const t = this.token(nameOrIndex);
    if (!t)
      throw new ValidationError([{ path: field, message: `unknown token ${JSON.stringify(nameOrIndex)}` }]);
    return t;
  }

  pair(key: string | number): Pair | undefined {
    return typeof key === "number" ? this.pairsByAsset.get(key) : this.pairsByKey.get(key);
  }

  requirePair(key: string | number, field = "pair"): Pair {
    const p = this.pair(key);
    if (!p) throw new ValidationError([{ path: field, message: `unknown pair ${JSON.stringify(key)}` }]);
    return p;
  }

  /** The pair whose base is `token` and quote is USDC (index 0) or, failing that, any pair with that base. */
  pairForBase(token: Token): Pair | undefined {
    return (
      this.pairs.find((p) => p.base.index === token.index && p.quote.index === 0) ??
      this.pairs.find((p) => p.base.index === token.index)
    );
  }

  /** Mid price of a pair now, on the venue's price grid. */
  mid(pair: Pair, t = this.now()): Decimal {
    return this.onGrid(pair, pair.path.at(t));
  }

  /**
   * The pair's path at past times (ascending, none after now), before rounding to the price grid: what
   * `mid` rounded then, overrides included. Undefined before the path's start.
   */
  pathHistory(pair: Pair, times: readonly number[]): Array<number | undefined> {
    pair.path.at(this.now());
    return pair.path.history(times);
  }

  /** A path price on the venue's price grid, as `mid` rounds it. */
  onGrid(pair: Pair, px: number): Decimal {
    const szDecimals = pair.base.szDecimals;
    let kept = this.rounded.get(pair);
    if (kept === undefined || kept.szDecimals !== szDecimals) {
      kept = { szDecimals, byPx: new Map() };
      this.rounded.set(pair, kept);
    }
    let rounded = kept.byPx.get(px);
    if (rounded === undefined) {
      rounded = roundSpotPrice(px, szDecimals);
      if (kept.byPx.size >= ROUNDED_KEPT) kept.byPx.delete(kept.byPx.keys().next().value as number);
      kept.byPx.set(px, rounded);
    }
    return rounded;
  }

  /**
   * Base volume the simulator traded in [from, to), counting whole hours only: it is recorded per hour
   * and kept for the last 48 hours.
   */
  baseVolume(pair: Pair, from: number, to: number): Decimal {
    let sum = new Decimal(0);
    for (const [hour, v] of pair.volume) {
      const t = hour * HOUR;
      if (t >= from && t + HOUR <= to) sum = sum.plus(v.base);
    }
    return sum;
  }

  /**
   * Mid price 24 h ago (for prevDayPx), or the scenario's value. A path with no price then (a walk or a
   * script before the start) gives its start's: the venue always has a day-old price, and taking the
   * current one instead let a first-day crash or pump pass the bot's previous-day price check in
   * simulations only (a trader's trial). Replayed candles have their own history before the start.
   */
  prevDayPx(pair: Pair, t = this.now()): Decimal {
    if (pair.config.prevDayPx) return pair.config.prevDayPx;
    const px = pair.path.before(t - 24 * HOUR) ?? pair.path.before(this.start) ?? pair.path.at(t);
    return this.onGrid(pair, px);
  }

  setPrice(pair: Pair, px: Decimal | string | number, t = this.now()): Decimal {
    const value = parseDecimal(px, "px");
    if (value.lte(0)) throw new ValidationError([{ path: "px", message: "price must be > 0" }]);
    pair.path.set(t, value.toNumber());
    return this.mid(pair, t);
  }

  recordVolume(pair: Pair, t: number, base: Decimal, ntl: Decimal): void {
    const hour = Math.floor(t / HOUR);
    const v = pair.volume.get(hour) ?? { ntl: new Decimal(0), base: new Decimal(0) };
    pair.volume.set(hour, { ntl: v.ntl.plus(ntl), base: v.base.plus(base) });
    pair.volume.delete(hour - 48);
  }

  /** Volume of the last 24 hours (scenario baseline + simulated fills). */
  dayVolume(pair: Pair, t = this.now()): { ntl: Decimal; base: Decimal } {
    const hour = Math.floor(t / HOUR);
    let ntl = baselineDayVolume(pair.config);
    let base = pair.config.dayBaseVlm ?? new Decimal(0);
    for (let h = hour - 23; h <= hour; h++) {
      const v = pair.volume.get(h);
      if (v) {
        ntl = ntl.plus(v.ntl);
        base = base.plus(v.base);
      }
    }
    return { ntl, base };
  }
}

/** A stable 16-byte token id for tokens the scenario gives none. */
function deriveTokenId(name: string, index: number): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(`hlbot-sim-token:${index}:${name}`))).slice(0, 32)}`;
}
