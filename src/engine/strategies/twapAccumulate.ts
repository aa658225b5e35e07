// twap-accumulate: every scheduled run, buy (or sell) a fixed USD amount of one coin through a TWAP,
// optionally only while the mid is on the right side of a limit price and only until a total budget is
// used up. Amounts are in USD whatever the pair's quote (a non-stablecoin quote is valued at its USDC
// mid). The budget counts what filled: an ended TWAP counts its executed notional from the venue, a
// running or unresolved one its full amount, so an unfilled remainder is available again and the budget
// is kept: the last run trades what is left less the buy reserve (fills pay the spread and move with
// the price), then the strategy stops.
import * as z from "zod";
import { Decimal, truncateDecimals } from "../../lib/decimal.js";
import { DEFAULT_TWAP_BUY_RESERVE } from "../allocate.js";
import { positiveDecimal } from "../config/fields.js";
import type { TwapOrderIntent } from "../intents.js";
import { marketPair, type Snapshot, type VenueRules } from "../snapshot.js";
import { isUsdStablecoin, usdPerUnit } from "../usd.js";
import {
  blockingTwapOn,
  fitTwapDuration,
  floorText,
  fmt,
  pct,
  runningTwapText,
  skip,
  twapLiquidity,
  twapSchema,
} from "./common.js";
import { defineStrategy } from "./types.js";

export const twapAccumulateParams = z.strictObject({
  coin: z
    .string()
    .min(1)
    .describe('Token to accumulate or distribute, by name ("HYPE"), or a spot pair name ("@107")'),
  quote: z.string().min(1).default("USDC").describe("Token paid with (buys) or received (sells)"),
  side: z.enum(["buy", "sell"]).describe("buy accumulates the coin, sell distributes it"),
  amountUsd: positiveDecimal().describe(
    "USD amount traded per run (a non-stablecoin quote is converted at its USDC mid)",
  ),
  twap: twapSchema,
  limitPx: positiveDecimal()
    .optional()
    .describe("Price ceiling for buys or floor for sells: the run is skipped while the mid is beyond it"),
  budgetUsd: positiveDecimal()
    .optional()
    .describe(
      "Total USD over the strategy's lifetime, counting what filled (the venue's executed notional); the last run is sized under what is left by venue.twapBuyReserve, so only a larger price move during it can go over",
    ),
});

export type TwapAccumulateParams = z.output<typeof twapAccumulateParams>;

export const twapAccumulate = defineStrategy({
  description: "Buy or sell a fixed USD amount of a coin through a TWAP on every scheduled run",
  paramsSchema: twapAccumulateParams,
  reads: ["twaps", "fees"],
  remembers: true,
  markets: (params) => [
    {
      coin: params.coin,
      quote: params.quote,
      keyPath: ["params", "coin"],
      quoteKeyPath: ["params", "quote"],
    },
  ],
  decide(snapshot, params, now, memory, name) {
    const considered = "twapOrder" as const;
    const pair = marketPair(snapshot, params.coin, params.quote);
    if (pair === undefined) {
      return [skip(name, `no spot pair trades ${params.coin} against ${params.quote}`, considered)];
    }
    const base = pair.base.name;
    const quote = pair.quote.name;
    const mid = pair.mid;
    if (mid === undefined || !mid.gt(0))
      return [skip(name, `no mid price for ${base}/${quote} (${pair.name})`, considered)];

    // A budget used up is said before a price limit: a finished DCA is not waiting for a dip (a year-long
    // trial read 329 runs of "above the buy ceiling" after its budget was gone), nor is one whose rest is
    // too small for any TWAP (a newcomer's 97 USD left read "above the buy ceiling").
    if (
      params.budgetUsd !== undefined &&
      memory.spentUsd !== undefined &&
      memory.inheritedUsd === undefined
    ) {
      const used = `${fmt(memory.spentUsd, 2)} of ${fmt(params.budgetUsd)} USD`;
      const left = params.budgetUsd.minus(memory.spentUsd);
      if (!left.gt(0)) return [skip(name, `budget used up (${used})`, considered)];
      // Not while a TWAP runs on the pair: the budget counts a running TWAP in full, so its rest is not
      // known yet (it is deferred below, and judged once that TWAP has ended: a review).
      const quoteUsdNow = usdPerUnit(snapshot, quote);
      const unspendable =
        quoteUsdNow === undefined || blockingTwapOn(snapshot, pair, name, params.side, now) !== undefined
          ? undefined
          : budgetTailUnspendable(left, params, quoteUsdNow, snapshot, quote);
      if (unspendable !== undefined && memory.spentUsd.gt(0))
        return [
          skip(name, `budget used up (${used}; of the ${fmt(left, 2)} USD left, ${unspendable})`, considered),
        ];
    }
    if (params.limitPx !== undefined) {
      if (params.side === "buy" && mid.gt(params.limitPx)) {
        return [
          skip(name, `mid ${fmt(mid)} is above the buy ceiling limitPx ${fmt(params.limitPx)}`, considered),
        ];
      }
      if (params.side === "sell" && mid.lt(params.limitPx)) {
        return [
          skip(name, `mid ${fmt(mid)} is below the sell floor limitPx ${fmt(params.limitPx)}`, considered),
        ];
      }
    }
    const running = blockingTwapOn(snapshot, pair, name, params.side, now);
    if (running !== undefined) {
      // Temporary: the run is retried at the strategy's next chance instead of being dropped.
      return [{ ...skip(name, runningTwapText(running, pair), considered), defer: true }];
    }
    // Amounts are in USD; the order is in quote units.
    const quoteUsd = usdPerUnit(snapshot, quote);
    if (quoteUsd === undefined) {
      return [
        skip(
          name,
          `cannot value ${quote} in USD (no ${quote}/USDC mid): amountUsd and budgetUsd are in USD`,
          considered,
        ),
      ];
    }
    let amountUsd = params.amountUsd;
    /** Set when this run is the budget's last (sized to what is left): its failure is the budget's. */
    let budgetLeft: string | undefined;
    const notes: string[] = [];
    const last = memory.lastEndedTwap;
    if (last !== undefined && !last.executedUsd.gt(0)) {
      notes.push(
        // The journal keeps the value the limits counted (at the price checks' price), not the order's
        // value at its mid (a DCA's trial: "0 of 155.64 USD" of a 149.92-USDC order).
        `the last TWAP #${last.twapId} filled nothing (valued at ${fmt(last.submittedUsd, 2)} USD for the limits when sent): its amount is available again`,
      );
    }
    if (params.budgetUsd !== undefined) {
      // Fail closed: without the journal's count the budget could be exceeded.
      if (memory.spentUsd === undefined) {
        return [
          skip(name, `the amount already spent is unknown, so the budget cannot be checked`, considered),
        ];
      }
      const inherited = memory.inheritedUsd;
      const used =
        `${fmt(memory.spentUsd, 2)} of ${fmt(params.budgetUsd)} USD` +
        (inherited === undefined
          ? ""
          : `, ${fmt(inherited.usd, 2)} of it by ${inherited.from.join(" and ")}: ` +
            "counted as this strategy's in case it is one of them renamed (the journal knows strategies by name); if it is not, raise budgetUsd by that");
      // Said on every run, not only once it is used up (an accountant's trial: a live run showed a DCA's
      // budget only as "used up"; plan, history and notices carry this reason).
      notes.push(`budget: ${used}${inherited === undefined ? " spent before this run" : ""}`);
      const left = params.budgetUsd.minus(memory.spentUsd);
      if (!left.gt(0)) return [skip(name, `budget used up (${used})`, considered)];
      // The budget counts what fills, and fills pay the spread and move with the price over the TWAP:
      // the last run is sized under what is left by the buy reserve (the venue's slippage bound per
      // slice, venue.twapBuyReserve) so that only a larger move during that run could go over it.
      const reserve = snapshot.rules.twapBuyReserve ?? DEFAULT_TWAP_BUY_RESERVE;
      const lastRun = left.div(reserve.plus(1));
      if (lastRun.lt(amountUsd)) {
        // What is left may be too small for any TWAP: then the budget is as good as used up.
        const why = budgetTailUnspendable(left, params, quoteUsd, snapshot, quote);
        if (why !== undefined) {
          // Say which: nothing spent means the budget itself is too small for one TWAP.
          return [
            skip(
              name,
              memory.spentUsd.gt(0)
                ? `budget used up (${used}; of the ${fmt(left, 2)} USD left, ${why})`
                : `budgetUsd ${fmt(params.budgetUsd)} is too small for one TWAP: ${why}`,
              considered,
            ),
          ];
        }
        amountUsd = lastRun;
        budgetLeft = `${fmt(memory.spentUsd, 2)} of ${fmt(params.budgetUsd)} USD; of the ${fmt(left, 2)} USD left, rounded down to whole lots`;
        notes.push(
          `last run of the budget: ${fmt(left, 2)} of ${fmt(params.budgetUsd)} USD left, sized ${pct(reserve)} under it for the fills' spread and price moves`,
        );
      }
    }
    const amount = amountUsd.div(quoteUsd);

    let size = amount.div(mid);
    let limited = false;
    if (params.side === "sell") {
      const available = snapshot.balances.get(base)?.available;
      if (available === undefined || !available.gt(0))
        return [
          skip(
            name,
            `no ${base} available to sell${floorText(snapshot.balances.get(base))}${stakedNote(snapshot, base)}`,
            considered,
          ),
        ];
      if (size.gt(available)) {
        size = available;
        limited = true;
        notes.push(
          `limited to the available ${fmt(available)} ${base}${floorText(snapshot.balances.get(base))}`,
        );
      }
    } else {
      const available = snapshot.balances.get(quote)?.available;
      if (available === undefined || !available.gt(0))
        return [
          skip(
            name,
            `no ${quote} available to buy with${floorText(snapshot.balances.get(quote))}`,
            considered,
          ),
        ];
      if (amount.gt(available)) {
        size = available.div(mid);
        limited = true;
        notes.push(
          `limited by the available ${fmt(available, 2)} ${quote}${floorText(snapshot.balances.get(quote))}`,
        );
      }
    }
    size = truncateDecimals(size, pair.base.szDecimals);
    if (!size.gt(0)) {
      // Cut to what is available, the cause is that balance, not amountUsd (a numbers audit: "150 USDC
      // is less than one lot of BIGP" when 150 USDC is 121 lots and only dust was free above a floor).
      return [
        skip(
          name,
          limited
            ? `what is available is less than one lot of ${base} at mid ${fmt(mid)} (${notes.join("; ")})`
            : `${fmt(amount, 2)} ${quote} is less than one lot of ${base} at mid ${fmt(mid)}`,
          considered,
        ),
      ];
    }
    const notional = size.times(mid);
    const fit = fitTwapDuration(
      notional,
      params.twap.minutes,
      snapshot.rules,
      quote,
      { size, szDecimals: pair.base.szDecimals, base },
      twapLiquidity(snapshot, pair, params.twap),
    );
    if (!fit.ok) {
      // Rounding down to whole lots took the order below the minimum: say what amount would do.
      const minOrder = snapshot.rules.twapMinOrderValue;
      const lot = new Decimal(1).div(new Decimal(10).pow(pair.base.szDecimals));
      // The budget's last run, unless the balance cut it smaller (a trader's trial read "budget used up"
      // with 15,087 of 40,000 USD left: the account had 87 USDC).
      if (budgetLeft !== undefined && !limited)
        return [skip(name, `budget used up (${budgetLeft}: ${fit.reason})`, considered)];
      if (!limited && notional.lt(minOrder) && amount.lt(minOrder)) {
        // The setting to change, named (a small account's trial read "4.83936 USDC is below the venue
        // minimum", a number it never wrote, at every run).
        const enough = minOrder.div(mid).div(lot).ceil().times(lot).times(mid).times(quoteUsd);
        return [
          skip(
            name,
            `${fit.reason}: amountUsd ${fmt(params.amountUsd)} is below it; raise amountUsd to ${enough.toDecimalPlaces(2, Decimal.ROUND_UP).toFixed(2)} or more`,
            considered,
          ),
        ];
      }
      if (!limited && notional.lt(minOrder) && amount.gte(minOrder)) {
        const enough = minOrder.div(mid).div(lot).ceil().times(lot).times(mid).times(quoteUsd);
        return [
          skip(
            name,
            `${fit.reason} (${fmt(amount, 2)} ${quote} rounded down to whole lots of ${fmt(lot)} ${base} at mid ${fmt(mid)}): ` +
              `raise amountUsd to ${enough.toDecimalPlaces(2, Decimal.ROUND_UP).toFixed(2)} or more`,
            considered,
          ),
        ];
      }
      // With what limited it, when something did (the balance, a floor).
      return [skip(name, notes.length ? `${fit.reason}; ${notes.join("; ")}` : fit.reason, considered)];
    }
    if (fit.note) notes.push(fit.note);
    const notionalUsd = notional.times(quoteUsd);
    const inUsd = isUsdStablecoin(quote) ? "" : `, ≈${fmt(notionalUsd, 2)} USD`;

    const intent: TwapOrderIntent = {
      kind: "twapOrder",
      strategy: name,
      reason:
        `${params.side} ${fmt(size)} ${base} (≈${fmt(notional, 2)} ${quote}${inUsd} at mid ${fmt(mid)}) over ${fit.minutes} min` +
        (notes.length ? `; ${notes.join("; ")}` : ""),
      coin: pair.name,
      label: `${base}/${quote}`,
      assetId: pair.assetId,
      side: params.side,
      size,
      szDecimals: pair.base.szDecimals,
      minutes: fit.minutes,
      randomize: params.twap.randomize,
      reduceOnly: false,
      midPx: mid,
      notionalUsd,
      quoteUsd,
    };
    return [intent];
  },
});

/**
 * Why what is left of a budget buys nothing more (undefined: it can): once it is under a full run, the
 * last run is sized under it by the buy reserve and must still reach the venue's minimum for a TWAP.
 */
function budgetTailUnspendable(
  left: Decimal,
  params: TwapAccumulateParams,
  quoteUsd: Decimal,
  snapshot: { rules: VenueRules },
  quote: string,
): string | undefined {
  const reserve = snapshot.rules.twapBuyReserve ?? DEFAULT_TWAP_BUY_RESERVE;
  const lastRun = left.div(reserve.plus(1));
  if (!lastRun.lt(params.amountUsd)) return undefined;
  const fit = fitTwapDuration(lastRun.div(quoteUsd), params.twap.minutes, snapshot.rules, quote);
  return fit.ok
    ? undefined
    : `a run is sized ${pct(reserve)} under it for the fills' spread (venue.twapBuyReserve${params.side === "sell" ? ", the same margin for sales" : ""}): ${fit.reason}`;
}

/**
 * What a sale of HYPE with none on spot should know of the stake (a treasurer's trial read a bare "no
 * HYPE available to sell" for 21 days beside 196,870 HYPE delegated and withdrawForSales on): no
 * strategy withdraws stake for this one.
 */
function stakedNote(snapshot: Snapshot, base: string): string {
  if (base !== "HYPE") return "";
  const staked = snapshot.staking.delegated.plus(snapshot.staking.undelegated);
  const pending = snapshot.staking.totalPendingWithdrawal;
  if (!staked.gt(0) && !pending.gt(0)) return "";
  return (
    ` (${fmt(staked)} HYPE staked${pending.gt(0) ? `, ${fmt(pending)} on its way back to spot through the unstaking queue` : ""}: ` +
    "staking's withdrawForSales serves twap-rebalance sales only, not this one; keep HYPE on spot for it " +
    "(the staking strategy's stakeIdleSpot.keepSpot) or withdraw some by hand: hlbot undelegate, then hlbot unstake)"
  );
}
