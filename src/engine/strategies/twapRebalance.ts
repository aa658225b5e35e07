// twap-rebalance: keep spot tokens at target weights of their combined value (valued at mid prices in
// the quote token). A token whose weight leaves its band gets one TWAP against the quote that brings it
// back to target; the quote token is never traded directly, the other side of those TWAPs moves it.
import * as z from "zod";
import { Decimal, shownRatio, truncateDecimals, ZERO } from "../../lib/decimal.js";
import { DEFAULT_TWAP_BUY_RESERVE } from "../allocate.js";
import { decimal, fraction, positiveDecimal } from "../config/fields.js";
import type { Decision, TwapOrderIntent } from "../intents.js";
import { pairFor, pairLabel, type Snapshot, type SpotPair } from "../snapshot.js";
import { usdPerUnit } from "../usd.js";
import {
  fitTwapDuration,
  floorText,
  fmt,
  ONE,
  pct,
  runningTwapOn,
  runningTwapText,
  skip,
  twapLiquidity,
  twapSchema,
} from "./common.js";
import { defineStrategy } from "./types.js";

/** How far above the venue's smallest TWAP a correction raised to it is placed (the price may move). */
const MIN_ORDER_MARGIN = new Decimal("1.01");

/**
 * The size a correction below the venue's smallest TWAP is raised to (that smallest TWAP and 1%, in
 * whole lots at `mid`), when the weight still ends within the band: its excess `correction` (in the
 * token) and `band` (the band in the token); undefined when it would end out of band the other way.
 */
export function raisedToSmallestTwap(
  snapshot: Snapshot,
  szDecimals: number,
  mid: Decimal,
  correction: Decimal,
  band: Decimal,
): Decimal | undefined {
  const smallest = snapshot.rules.twapMinOrderValue;
  if (!smallest.gt(0) || !mid.gt(0) || !correction.times(mid).lt(smallest)) return undefined;
  const lot = new Decimal(10).pow(-szDecimals);
  const up = smallest.times(MIN_ORDER_MARGIN).div(mid).div(lot).ceil().times(lot);
  return up.minus(correction).lte(band) ? up : undefined;
}

/** Target weights must add up to one within this tolerance (they are written by hand in YAML). */
const SUM_TOLERANCE = "0.000000001";

export const twapRebalanceParams = z
  .strictObject({
    targets: z
      .record(z.string().min(1), fraction())
      .describe("Target weight per spot token by name, e.g. {HYPE: 0.5, USDC: 0.5}; must sum to 1"),
    quote: z.string().min(1).default("USDC").describe("Token the others are valued in and traded against"),
    band: fraction()
      .prefault(0.05)
      .describe(
        "Allowed absolute deviation of a weight from its target before a TWAP is placed (0.05 = 5 points)",
      ),
    twap: twapSchema,
    minOrderUsd: decimal({ min: 0 })
      .optional()
      .describe(
        "Smallest order worth placing, in USD (a non-stablecoin quote is converted at its USDC mid); smaller corrections are skipped",
      ),
    priceLimits: z
      .record(
        z.string().min(1),
        z.strictObject({
          sellFloor: positiveDecimal()
            .optional()
            .describe(
              "No sale is decided while the mid (in the quote token) is below this; a running sale is cancelled at the watch's next check (every minute) after the mid falls below it, so a slice may fill in between",
            ),
          buyCeiling: positiveDecimal()
            .optional()
            .describe(
              "No buy is decided while the mid (in the quote token) is above this; a running buy is cancelled at the watch's next check (every minute) after the mid rises above it, so a slice may fill in between",
            ),
        }),
      )
      .optional()
      .describe(
        "Absolute price limits per target token, e.g. {PURR: {sellFloor: 0.15, buyCeiling: 0.4}}: a correction on the wrong side of one waits (the weight stays off target), checked at decision and every minute while its TWAP runs",
      ),
    refillFloors: z
      .boolean()
      .optional()
      .describe(
        "While a target token is below its limits.keepOnSpot floor: false (default) holds with the reason; true counts what the floor lacks against the other tokens, so a deficit that takes a weight out of its band is refilled from them first (one within the band is not; a deficit close to their value sells nearly all of them; one larger is not refilled; a target-0 token below its floor is bought up to it once out of band; with capital, each rebalancer counts the account's whole deficit: set it on one)",
      ),
    countStaked: z
      .boolean()
      .optional()
      .describe(
        "Count HYPE staked with validators, undelegated in staking and pending withdrawal in HYPE's weight (only spot HYPE can be sold). Default: true when a validator-staking strategy shares the account, enabled or not (pausing staking leaves the stake), false otherwise",
      ),
  })
  .superRefine((p, ctx) => {
    const weights = Object.values(p.targets);
    // A weight that failed its own check ("50%") is reported there, with its line; zod still runs this
    // check on the raw values, which summed as Decimals threw a bare DecimalError (exit 1, no file).
    if (!weights.every((w) => w instanceof Decimal)) return;
    if (weights.length === 0) {
      ctx.addIssue({ code: "custom", path: ["targets"], message: "expected at least one target token" });
      return;
    }
    const total = weights.reduce((a: Decimal, w) => a.plus(w), ZERO);
    if (total.minus(ONE).abs().gt(SUM_TOLERANCE)) {
      ctx.addIssue({
        code: "custom",
        path: ["targets"],
        message: `target weights must sum to 1 (within 1e-9), they sum to ${total.toFixed()}`,
      });
    }
    for (const [token, limits] of Object.entries(p.priceLimits ?? {})) {
      if (!Object.hasOwn(p.targets, token) || token === p.quote)
        ctx.addIssue({
          code: "custom",
          path: ["priceLimits", token],
          message: `${token} is not one of the traded targets (${Object.keys(p.targets)
            .filter((t) => t !== p.quote)
            .join(", ")}): a price limit applies to a token traded against ${p.quote}`,
        });
      // An entry with neither limit limits nothing: a slip (a misplaced key) said, not passed over.
      if (limits.sellFloor === undefined && limits.buyCeiling === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["priceLimits", token],
          message: `${token} has neither sellFloor nor buyCeiling: it limits nothing (write one, or leave ${token} out)`,
        });
      if (
        limits.sellFloor instanceof Decimal &&
        limits.buyCeiling instanceof Decimal &&
        limits.buyCeiling.lt(limits.sellFloor)
      )
        ctx.addIssue({
          code: "custom",
          path: ["priceLimits", token],
          message: `buyCeiling ${limits.buyCeiling.toFixed()} is below sellFloor ${limits.sellFloor.toFixed()}: between them the token could be neither bought nor sold`,
        });
    }
    if (!(p.quote in p.targets)) {
      ctx.addIssue({
        code: "custom",
        path: ["quote"],
        message: `the quote token ${p.quote} must be listed in targets (its weight may be 0)`,
      });
    }
  });

export type TwapRebalanceParams = z.output<typeof twapRebalanceParams>;

/**
 * The price limit a rebalancer's TWAP of `token` on `side` is held to (priceLimits: a sale's floor, a
 * buy's ceiling), for the watch; undefined without one.
 */
export function rebalanceLimitPx(
  params: Pick<TwapRebalanceParams, "priceLimits">,
  token: string,
  side: "buy" | "sell",
): Decimal | undefined {
  const limits = params.priceLimits?.[token];
  return side === "sell" ? limits?.sellFloor : limits?.buyCeiling;
}

/** Why a correction of `token` on `side` at `mid` waits for its price limit, or undefined. */
function priceLimitHeld(
  params: TwapRebalanceParams,
  token: string,
  side: "buy" | "sell",
  mid: Decimal,
): string | undefined {
  const limit = rebalanceLimitPx(params, token, side);
  if (limit === undefined) return undefined;
  if (side === "sell" && mid.lt(limit))
    return `mid ${fmt(mid)} is below the sell floor ${fmt(limit)} (priceLimits.${token}.sellFloor)`;
  if (side === "buy" && mid.gt(limit))
    return `mid ${fmt(mid)} is above the buy ceiling ${fmt(limit)} (priceLimits.${token}.buyCeiling)`;
  return undefined;
}

/** The HYPE in the staking account: delegated, undelegated and on its way back to spot. */
export const STAKED_TOKEN = "HYPE";

interface Holding {
  token: string;
  /** Part of `total` that is staked (countStaked), not on spot. */
  staked: Decimal;
  target: Decimal;
  pair: SpotPair | undefined;
  mid: Decimal;
  total: Decimal;
  available: Decimal;
  hold: Decimal;
  /** The account's floor of the token (limits.keepOnSpot), out of `available`. */
  floor?: Decimal | undefined;
  /** The spot balance (the floor is kept of it: what a reason says is kept). */
  spot: Decimal;
  value: Decimal;
}

/**
 * The target tokens valued in the quote: what is above each token's floor (negative while below it;
 * capped by a strategy's capital), staked HYPE counted with countStaked. A skip when the tokens cannot
 * be valued.
 */
function valueHoldings(
  snapshot: Snapshot,
  params: TwapRebalanceParams,
  name: string,
): { holdings: Holding[]; portfolio: Decimal } | { skip: Decision } {
  const quote = params.quote;
  const holdings: Holding[] = [];
  for (const [token, target] of Object.entries(params.targets)) {
    const balance = snapshot.balances.get(token);
    const total = balance?.aboveFloor ?? balance?.total ?? ZERO;
    let pair: SpotPair | undefined;
    let mid = ONE;
    let staked = ZERO;
    if (token !== quote) {
      if (!snapshot.tokens.has(token))
        return { skip: skip(name, `token ${token} is not listed on the venue`) };
      pair = pairFor(snapshot, token, quote);
      if (pair === undefined) return { skip: skip(name, `no spot pair trades ${token} against ${quote}`) };
      // Without a price the weights are unknown, and acting on the other tokens could overshoot.
      if (pair.mid === undefined || !pair.mid.gt(0)) {
        return {
          skip: skip(name, `no mid price for ${token}/${quote} (${pair.name}): cannot value the portfolio`),
        };
      }
      mid = pair.mid;
      // Staked HYPE is HYPE: selling spot HYPE that staking put aside would be a fight, not a rebalance.
      if (params.countStaked === true && token === STAKED_TOKEN)
        staked = snapshot.staking.delegated
          .plus(snapshot.staking.undelegated)
          .plus(snapshot.staking.totalPendingWithdrawal);
    }
    const counted = total.plus(staked);
    // Fields written out, not spread from a shared object: this runs for every rebalancer each cycle
    // (and for the staking strategy's question); built by spreads, decide took twice as long in a year's profile.
    holdings.push({
      token,
      target,
      available: balance?.available ?? ZERO,
      hold: balance?.hold ?? ZERO,
      floor: balance?.floor,
      spot: balance?.total ?? ZERO,
      staked,
      pair,
      mid,
      total: counted,
      value: token === quote ? counted : counted.times(mid),
    });
  }
  return { holdings, portfolio: holdings.reduce((a, h) => a.plus(h.value), ZERO) };
}

/**
 * This rebalancer's weight of each target token as it decides on them (what is above a floor, capped by
 * its capital when `snapshot` is its view, staked HYPE with countStaked); undefined when the holdings
 * cannot be valued or are worth nothing. For the metrics: a gauge that valued raw balances read within
 * band while the strategy sold (an audit).
 */
export function rebalancerWeights(
  snapshot: Snapshot,
  params: TwapRebalanceParams,
): Map<string, Decimal> | undefined {
  const valued = valueHoldings(snapshot, params, "");
  if ("skip" in valued || !valued.portfolio.gt(0)) return undefined;
  return new Map(valued.holdings.map((h) => [h.token, h.value.div(valued.portfolio)]));
}

/**
 * How much of `token` this rebalancer holds above its target weight beyond its band, in the token's
 * units: what it sells once nothing holds it back (a TWAP running on the pair, a floor of the account,
 * a limit, its minimum order); undefined when nothing, or when the holdings cannot be valued. Pure.
 */
export function excessOverTarget(
  snapshot: Snapshot,
  params: TwapRebalanceParams,
  token: string,
): { size: Decimal; mid: Decimal; band: Decimal } | undefined {
  if (params.targets[token] === undefined || token === params.quote) return undefined;
  const valued = valueHoldings(snapshot, params, "");
  if ("skip" in valued || !valued.portfolio.gt(0)) return undefined;
  const h = valued.holdings.find((x) => x.token === token);
  if (h === undefined) return undefined;
  const excess = h.value.minus(h.target.times(valued.portfolio));
  if (!excess.gt(params.band.times(valued.portfolio))) return undefined;
  return { size: excess.div(h.mid), mid: h.mid, band: params.band.times(valued.portfolio).div(h.mid) };
}

export const twapRebalance = defineStrategy({
  description: "Keep spot tokens at target weights with one TWAP per token that leaves its band",
  paramsSchema: twapRebalanceParams,
  reads: ["twaps", "fees"],
  markets: (params) =>
    Object.keys(params.targets)
      .filter((token) => token !== params.quote)
      .map((token) => ({
        coin: token,
        quote: params.quote,
        keyPath: ["params", "targets", token],
        tokenOnly: true,
      })),
  decide(snapshot, params, _now, _memory, name) {
    const quote = params.quote;
    if (!snapshot.tokens.has(quote)) return [skip(name, `quote token ${quote} is not listed on the venue`)];

    // What the account keeps (limits.keepOnSpot) is not trading money: the weights are of what is above
    // the floors, as every strategy sees only that. Counted in, a 40,000 USDC reserve made a 20% PURR
    // target 20% of everything, and a larger target could never be reached (each cycle wanting to buy
    // with money the floor keeps). A floor is a guard, not an order: while a target is below its floor
    // the rebalancer holds and says how to go on, unless `refillFloors` lets it count what the floor
    // lacks (negative, continuous across the floor) and refill it from the other tokens. Every other
    // reading failed a trial or a review: counted as none, the floor was refilled cycle after cycle by
    // selling the others; whole holdings made a 10-HYPE shortfall a 36,000-USD round trip; a deficit
    // refilled by default sold 99.9% of a position for a 10,010-USDC floor, and charged every
    // rebalancer with capital the whole deficit. The floors are never sold or spent (`available`).
    const floors: string[] = [];
    const under: string[] = [];
    for (const token of Object.keys(params.targets)) {
      const b = snapshot.balances.get(token);
      if (b?.floor?.gt(0)) floors.push(`${token} ${fmt(b.floor)}`);
      if (b?.floorShortfall?.gt(0))
        under.push(
          `${token} ${fmt(b.floorShortfall)} below its floor of ${fmt(b.floor ?? ZERO)} (${fmt(b.total)} held)`,
        );
    }
    if (under.length > 0 && params.refillFloors !== true)
      return [
        skip(
          name,
          `${under.join("; ")}: nothing is rebalanced while a target is below its limits.keepOnSpot floor ` +
            "(a floor is kept, not refilled by selling the other tokens). Top it up or lower the floor, or set " +
            "refillFloors: true to refill it from the other tokens first",
          "twapOrder",
        ),
      ];
    const valued = valueHoldings(snapshot, params, name);
    if ("skip" in valued) return [valued.skip];
    const { holdings, portfolio } = valued;
    // Every pair whose mid values the weights: checked with each order (priceSanity.ts). Not that of a
    // token held at nothing: its price sizes nothing (a review: a doubted PURR price held the HYPE sale
    // of a rebalancer holding no PURR).
    const valuedWith = holdings.flatMap((h) =>
      h.pair === undefined || h.total.isZero() ? [] : [h.pair.name],
    );
    const quoteUsd = usdPerUnit(snapshot, quote);
    if (quoteUsd === undefined) {
      return [
        skip(name, `cannot value ${quote} in USD (no ${quote}/USDC mid): minOrderUsd and limits are in USD`),
      ];
    }
    if (!portfolio.gt(0))
      return [
        skip(
          name,
          floors.length > 0
            ? under.length
              ? `nothing to rebalance: ${under.join("; ")}: more than the other tokens above limits.keepOnSpot (${floors.join(", ")}) could refill (net ${fmt(portfolio, 2)} ${quote}). Top it up or lower the floor`
              : `nothing to rebalance: the target tokens above limits.keepOnSpot (${floors.join(", ")}) are worth ${fmt(portfolio, 2)} ${quote}`
            : `nothing to rebalance: the target tokens are worth 0 ${quote}`,
        ),
      ];

    // Sells first (they do not draw on the quote balance), then buys, largest correction first, so a
    // short quote balance goes to the biggest shortfall.
    const ordered = holdings
      .filter((h) => h.token !== quote)
      .map((h) => ({ h, excess: h.value.minus(h.target.times(portfolio)) }))
      .sort((a, b) => {
        const sa = a.excess.gt(0);
        if (sa !== b.excess.gt(0)) return sa ? -1 : 1;
        return b.excess.abs().cmp(a.excess.abs()) || (a.h.token < b.h.token ? -1 : 1);
      });

    const aboveFloors =
      floors.length === 0
        ? ""
        : ` above limits.keepOnSpot (${floors.join(", ")}${under.length ? `; refilling ${under.join("; ")}` : ""})`;
    const describe = (h: Holding, of: Decimal, basis: string) =>
      `${h.token} is ${pct(shownRatio(h.value, of))} of ${fmt(of, 2)} ${quote}${basis} ` +
      `(${fmt(h.total)}${h.staked.gt(0) ? ` incl. ${fmt(h.staked)} staked` : ""} at mid ${fmt(h.mid)}), ` +
      `target ${pct(h.target)} ± ${pct(params.band)}`;
    const quoteHolding = holdings.find((h) => h.token === quote);
    let quoteAvailable = quoteHolding?.available ?? ZERO;
    const decisions: Decision[] = [];

    for (const { h, excess } of ordered) {
      const pair = h.pair!;
      // The band is checked on the excess itself, exactly (|weight − target| ≤ band is |excess| ≤ band ×
      // portfolio); the weight is shown only.
      const where = describe(h, portfolio, aboveFloors);
      if (excess.abs().lte(params.band.times(portfolio))) {
        decisions.push(skip(name, `${where}: within band`, "twapOrder"));
        continue;
      }
      const running = runningTwapOn(snapshot, pair);
      if (running !== undefined) {
        // Temporary: retried at the strategy's next chance.
        decisions.push({
          ...skip(name, `${where}: ${runningTwapText(running, pair)}`, "twapOrder"),
          defer: true,
        });
        continue;
      }

      const side = excess.gt(0) ? "sell" : "buy";
      const held = priceLimitHeld(params, h.token, side, h.mid);
      if (held !== undefined) {
        decisions.push(skip(name, `${where}: ${side} held: ${held}`, "twapOrder"));
        continue;
      }
      let size = excess.abs().div(h.mid);
      const notes: string[] = [];
      // Nothing (or less than a lot) on spot to sell: say where the rest is, not "below one lot".
      if (side === "sell" && truncateDecimals(h.available, pair.base.szDecimals).lte(0)) {
        const pending = h.token === STAKED_TOKEN ? snapshot.staking.totalPendingWithdrawal : ZERO;
        const elsewhere = [
          // Staked HYPE comes back to spot only through the unstaking queue: say how (a staker's
          // rebalancer sat 9.5 points over target for a month, the message naming no way on).
          h.staked.gt(0)
            ? `${fmt(h.staked)} staked${pending.gt(0) ? `, ${fmt(pending)} of it pending withdrawal (back on spot when its queue ends)` : ""}: ` +
              (snapshot.withdrawsForSales !== undefined
                ? `${snapshot.withdrawsForSales} withdraws what this sale lacks (withdrawForSales) through the unstaking queue (7 days on mainnet); nothing to do by hand`
                : `a staking strategy with withdrawForSales (or its maxStaked set below what is staked), or \`hlbot undelegate\` and \`hlbot unstake\`, bring${pending.gt(0) ? " the rest" : " it"} back to spot through the unstaking queue (7 days on mainnet)`)
            : "",
          h.hold.gt(0) ? `${fmt(h.hold)} on hold` : "",
          h.floor?.gt(0) ? `${fmt(Decimal.min(h.floor, h.spot))} kept by limits.keepOnSpot` : "",
        ].filter(Boolean);
        decisions.push(
          skip(
            name,
            `${where}: no ${h.token} available on spot to sell${elsewhere.length ? ` (${elsewhere.join(", ")})` : ""}`,
            "twapOrder",
          ),
        );
        continue;
      }
      if (side === "sell" && size.gt(h.available)) {
        size = h.available;
        notes.push(
          `limited to the available ${fmt(h.available)} ${h.token} (${fmt(h.hold)} on hold${h.floor ? `, ${fmt(Decimal.min(h.floor, h.spot))} kept by limits.keepOnSpot` : ""})`,
        );
      }
      if (side === "buy" && !quoteAvailable.gt(0)) {
        decisions.push(
          skip(
            name,
            `${where}: no ${quote} available to buy with${floorText(snapshot.balances.get(quote))}`,
            "twapOrder",
          ),
        );
        continue;
      }
      if (side === "buy" && size.times(h.mid).gt(quoteAvailable)) {
        size = quoteAvailable.div(h.mid);
        notes.push(
          `limited by the available ${fmt(quoteAvailable, 2)} ${quote}${floorText(snapshot.balances.get(quote))}`,
        );
      }
      size = truncateDecimals(size, pair.base.szDecimals);
      if (!size.gt(0)) {
        // Cut to a dust balance, the cause is that balance, not the correction (a numbers audit: "the
        // correction is below one lot" for a 20-HYPE correction with 0.005 USDC free).
        decisions.push(
          skip(
            name,
            notes.length > 0
              ? `${where}: what is available is less than one lot of ${h.token} (${notes.join("; ")})`
              : `${where}: the correction is below one lot of ${h.token} (${pair.base.szDecimals} decimals)`,
            "twapOrder",
          ),
        );
        continue;
      }
      // A correction worth less than the venue's smallest TWAP: that smallest TWAP instead (1% above it,
      // for the price to move before it is placed), when the weight still ends within the band and what
      // it takes is available. A small account's trial: ±5% of 705 USDC is 35 USDC, under the 100-USDC
      // minimum; it sat out of band 1,335 hours of 2,159, 665 of them where this order ended within band.
      const smallest = snapshot.rules.twapMinOrderValue;
      const up =
        notes.length === 0
          ? raisedToSmallestTwap(
              snapshot,
              pair.base.szDecimals,
              h.mid,
              excess.abs().div(h.mid),
              params.band.times(portfolio).div(h.mid),
            )
          : undefined;
      if (up !== undefined) {
        const reserve = ONE.plus(snapshot.rules.twapBuyReserve ?? DEFAULT_TWAP_BUY_RESERVE).plus(
          snapshot.spotTakerFee,
        );
        const takes =
          side === "sell" ? up.lte(h.available) : up.times(h.mid).times(reserve).lte(quoteAvailable);
        if (takes) {
          notes.push(
            `raised from ${fmt(size)} to the venue's smallest TWAP (${fmt(smallest)} ${quote}, and 1%): the weight still ends within its band`,
          );
          size = up;
        }
      }
      const notional = size.times(h.mid);
      const notionalUsd = notional.times(quoteUsd);
      if (params.minOrderUsd !== undefined && notionalUsd.lt(params.minOrderUsd)) {
        decisions.push(
          skip(
            name,
            `${where}: ${fmt(notionalUsd, 2)} USD${notes.length > 0 ? ` (${notes.join("; ")})` : ""} is below minOrderUsd ${fmt(params.minOrderUsd)}`,
            "twapOrder",
          ),
        );
        continue;
      }
      const fit = fitTwapDuration(
        notional,
        params.twap.minutes,
        snapshot.rules,
        quote,
        { size, szDecimals: pair.base.szDecimals, base: h.token },
        twapLiquidity(snapshot, pair, params.twap),
      );
      if (!fit.ok) {
        // A band too narrow for the venue's smallest TWAP to correct (it overshoots the band the other
        // way): say what lets it trade (a small account's trial read the bare minimum 1,137 times).
        const bandValue = params.band.times(portfolio);
        const narrow =
          notional.lt(smallest) && bandValue.times(2).lt(smallest.times(MIN_ORDER_MARGIN))
            ? `; its band (± ${pct(params.band)} = ${fmt(bandValue, 2)} ${quote}) is too narrow for the venue's smallest TWAP to correct within it: a band of at least ${pct(smallest.times(MIN_ORDER_MARGIN).div(portfolio).div(2).times(1000).ceil().div(1000))}, or more ${quote} and ${h.token} in it, lets it trade`
            : "";
        decisions.push(skip(name, `${where}: ${fit.reason}${narrow}`, "twapOrder"));
        continue;
      }
      if (fit.note) notes.push(fit.note);
      if (side === "buy") quoteAvailable = quoteAvailable.minus(notional);

      const intent: TwapOrderIntent = {
        kind: "twapOrder",
        strategy: name,
        reason:
          `${where}: ${side} ${fmt(size)} ${h.token} (≈${fmt(notional, 2)} ${quote}) over ${fit.minutes} min` +
          (notes.length ? `; ${notes.join("; ")}` : ""),
        coin: pair.name,
        label: pairLabel(pair),
        assetId: pair.assetId,
        side,
        size,
        szDecimals: pair.base.szDecimals,
        minutes: fit.minutes,
        randomize: params.twap.randomize,
        reduceOnly: false,
        midPx: h.mid,
        notionalUsd,
        quoteUsd,
        ...(valuedWith.length > 0 ? { valuedWith: valuedWith.filter((c) => c !== pair.name) } : {}),
      };
      decisions.push(intent);
    }
    return decisions;
  },
});
