// USD values of venue amounts. Limits, budgets and order sizes are written in USD (maxOrderUsd,
// budgetUsd, amountUsd, minOrderUsd); a pair's prices are in its quote token, which is not always a
// dollar (UBTC/HYPE is quoted in HYPE). A stablecoin counts 1:1; any other token is valued at the mid
// of its pair against USDC; a token with neither has no USD value and whatever needs one is refused.
import { Decimal } from "../lib/decimal.js";
import { type PriceSource, pairFor } from "./snapshot.js";

/**
 * Tokens counted as one US dollar each, by their exact venue names: names are case-sensitive identities
 * there, and a token named "usdh" at 0.01 was counted at 1 USD (a tokens trial). A stablecoin spelled
 * otherwise on the venue is valued at its pair's mid against USDC instead, which is about the same.
 */
export const USD_STABLECOINS: ReadonlySet<string> = new Set([
  "USDC",
  "USDT",
  "USDT0",
  "USDH",
  "USDE",
  "USDHL",
]);

const ONE = new Decimal(1);

export function isUsdStablecoin(token: string): boolean {
  return USD_STABLECOINS.has(token);
}

/**
 * USD per unit of `token`: 1 for a stablecoin, else the mid of `token`/USDC (the canonical pair), else
 * undefined (no price: callers refuse rather than guess).
 */
export function usdPerUnit(snapshot: PriceSource, token: string): Decimal | undefined {
  if (isUsdStablecoin(token)) return ONE;
  const mid = pairFor(snapshot, token, "USDC")?.mid;
  return mid?.gt(0) ? mid : undefined;
}

/**
 * USD per unit of `token` for showing a value (an account's worth, a simulation's summary, metrics):
 * usdPerUnit, else one hop through a pair quoted in a token that has a USD price (FOO/HYPE × HYPE/USDC;
 * the canonical such pair, lowest index). Not for acting: limits and sizes keep usdPerUnit, which refuses
 * a token with no pair against USDC rather than trust a thin cross (a tokens trial: a DCA into FOO/HYPE
 * showed as a 2,871-USDC loss, FOO counted at 0).
 */
export function valueUsdPerUnit(snapshot: PriceSource, token: string): Decimal | undefined {
  const direct = usdPerUnit(snapshot, token);
  if (direct !== undefined) return direct;
  // Per quote its canonical pair (lowest index, as pairFor), never USDC's again: a token whose canonical
  // USDC pair has no mid has no price, whatever another USDC pair of it says.
  let best: { index: number; usd: Decimal } | undefined;
  const quotes = new Set<string>();
  for (const pair of snapshot.pairs.values())
    if (pair.base.name === token && pair.quote.name !== "USDC") quotes.add(pair.quote.name);
  for (const quote of quotes) {
    const pair = pairFor(snapshot, token, quote);
    if (pair === undefined || !pair.mid?.gt(0) || (best !== undefined && pair.index > best.index)) continue;
    const quoteUsd = usdPerUnit(snapshot, quote);
    if (quoteUsd !== undefined) best = { index: pair.index, usd: pair.mid.times(quoteUsd) };
  }
  return best?.usd;
}
