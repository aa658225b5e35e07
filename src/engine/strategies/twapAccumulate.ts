// twap-accumulate: every scheduled run, buy (or sell) a fixed quote amount of one coin through a TWAP,
// optionally only while the mid is on the right side of a limit price and only until a total budget,
// tracked by the journal, is used up. The budget is counted at the mid at decision time and is never
// exceeded: the last run trades only what is left.
import * as z from "zod";
import { truncateDecimals } from "../../lib/decimal.js";
import { positiveDecimal } from "../config/fields.js";
import type { TwapOrderIntent } from "../intents.js";
import { pairFor } from "../snapshot.js";
import { fitTwapDuration, fmt, runningTwapOn, skip, twapSchema } from "./common.js";
import { defineStrategy } from "./types.js";

export const twapAccumulateParams = z.strictObject({
  coin: z
    .string()
    .min(1)
    .describe('Token to accumulate or distribute, by name ("HYPE"), or a spot pair name ("@107")'),
  quote: z.string().min(1).default("USDC").describe("Token paid with (buys) or received (sells)"),
  side: z.enum(["buy", "sell"]).describe("buy accumulates the coin, sell distributes it"),
  amountUsd: positiveDecimal().describe("Quote amount traded per run"),
  twap: twapSchema,
  limitPx: positiveDecimal()
    .optional()
    .describe("Price ceiling for buys or floor for sells: the run is skipped while the mid is beyond it"),
  budgetUsd: positiveDecimal()
    .optional()
    .describe("Total quote amount over the strategy's lifetime (counted by the journal); never exceeded"),
});

export type TwapAccumulateParams = z.output<typeof twapAccumulateParams>;

export const twapAccumulate = defineStrategy({
  description: "Buy or sell a fixed quote amount of a coin through a TWAP on every scheduled run",
  paramsSchema: twapAccumulateParams,
  decide(snapshot, params, _now, memory, name) {
    const considered = "twapOrder" as const;
    const pair = snapshot.pairs.get(params.coin) ?? pairFor(snapshot, params.coin, params.quote);
    if (pair === undefined) {
      return [skip(name, `no spot pair trades ${params.coin} against ${params.quote}`, considered)];
    }
    const base = pair.base.name;
    const quote = pair.quote.name;
    const mid = pair.mid;
    if (mid === undefined || !mid.gt(0))
      return [skip(name, `no mid price for ${base}/${quote} (${pair.name})`, considered)];

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
    const running = runningTwapOn(snapshot, pair);
    if (running !== undefined) {
      const id = running.twapId === undefined ? "" : ` #${running.twapId}`;
      return [skip(name, `a TWAP${id} is already running on ${pair.name}`, considered)];
    }

    let amount = params.amountUsd;
    const notes: string[] = [];
    if (params.budgetUsd !== undefined) {
      // Fail closed: without the journal's count the budget could be exceeded.
      if (memory.spentUsd === undefined) {
        return [
          skip(name, `the amount already spent is unknown, so the budget cannot be checked`, considered),
        ];
      }
      const left = params.budgetUsd.minus(memory.spentUsd);
      if (!left.gt(0)) {
        return [
          skip(
            name,
            `budget of ${fmt(params.budgetUsd)} ${quote} used up (${fmt(memory.spentUsd, 2)} spent)`,
            considered,
          ),
        ];
      }
      if (left.lt(amount)) {
        amount = left;
        notes.push(`last run of the budget: ${fmt(left, 2)} of ${fmt(params.budgetUsd)} ${quote} left`);
      }
    }

    let size = amount.div(mid);
    if (params.side === "sell") {
      const available = snapshot.balances.get(base)?.available;
      if (available === undefined || !available.gt(0))
        return [skip(name, `no ${base} available to sell`, considered)];
      if (size.gt(available)) {
        size = available;
        notes.push(`limited to the available ${fmt(available)} ${base}`);
      }
    } else {
      const available = snapshot.balances.get(quote)?.available;
      if (available === undefined || !available.gt(0))
        return [skip(name, `no ${quote} available to buy with`, considered)];
      if (amount.gt(available)) {
        size = available.div(mid);
        notes.push(`limited by the available ${fmt(available, 2)} ${quote}`);
      }
    }
    size = truncateDecimals(size, pair.base.szDecimals);
    if (!size.gt(0)) {
      return [
        skip(
          name,
          `${fmt(amount, 2)} ${quote} is less than one lot of ${base} at mid ${fmt(mid)}`,
          considered,
        ),
      ];
    }
    const notional = size.times(mid);
    const fit = fitTwapDuration(notional, params.twap.minutes, snapshot.rules, quote);
    if (!fit.ok) return [skip(name, fit.reason, considered)];
    if (fit.note) notes.push(fit.note);

    const intent: TwapOrderIntent = {
      kind: "twapOrder",
      strategy: name,
      reason:
        `${params.side} ${fmt(size)} ${base} (≈${fmt(notional, 2)} ${quote} at mid ${fmt(mid)}) over ${fit.minutes} min` +
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
      notionalUsd: notional,
    };
    return [intent];
  },
});
