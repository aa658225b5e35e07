// The one valuation of an account in USD: `hlbot status`, the daemon's metrics and notices
// value holdings with it, so one account shows one value everywhere. The rules:
// - spot balances count whole (`total`: what a running TWAP holds back is still the account's), each at
//   valueUsdPerUnit (a USD stablecoin 1:1, any other token at the mid of its canonical pair against
//   USDC, else through a pair quoted in a token that has such a price); a token without any is listed
//   with no value and left out of the total;
// - HYPE in staking (delegated, idle and pending withdrawal) counts at HYPE's USD price when the staking
//   balance was read; with staked HYPE but no HYPE price the account's value is unknown (leaving the
//   stake out would look like a loss).
import { type Decimal, ZERO } from "../lib/decimal.js";
import type { PriceSource, Snapshot } from "./snapshot.js";
import { valueUsdPerUnit } from "./usd.js";

/** The token staking holds. */
export const STAKING_TOKEN = "HYPE";

export interface Holdings {
  spot: Iterable<{ coin: string; total: Decimal }>;
  /** The staking balance, when it was read. */
  staking?:
    | {
        delegated: Decimal;
        /** In staking, delegated to no validator. */
        undelegated: Decimal;
        pendingWithdrawal: Decimal;
      }
    | undefined;
}

export interface ValuedHolding {
  coin: string;
  amount: Decimal;
  /** USD per unit, undefined when the token has none. */
  usdPrice: Decimal | undefined;
  /** amount × usdPrice, undefined without a price. */
  usd: Decimal | undefined;
}

export interface AccountValue {
  spot: ValuedHolding[];
  /** The spot balances that have a USD price. */
  spotUsd: Decimal;
  /** All HYPE in staking, when the staking balance was read. */
  staked: ValuedHolding | undefined;
  /** spotUsd plus the staked HYPE; undefined when HYPE is staked but has no USD price. */
  totalUsd: Decimal | undefined;
}

/** Values `holdings` at the prices of `market` (its spot pairs and their mids). */
export function valueAccount(market: PriceSource, holdings: Holdings): AccountValue {
  const price = (coin: string) => valueUsdPerUnit(market, coin);
  const spot = [...holdings.spot].map((b) => valued(b.coin, b.total, price(b.coin)));
  const spotUsd = spot.reduce((t, v) => (v.usd ? t.plus(v.usd) : t), ZERO);
  const s = holdings.staking;
  if (s === undefined) return { spot, spotUsd, staked: undefined, totalUsd: spotUsd };
  const amount = s.delegated.plus(s.undelegated).plus(s.pendingWithdrawal);
  const staked = valued(STAKING_TOKEN, amount, price(STAKING_TOKEN));
  const totalUsd = amount.isZero()
    ? spotUsd
    : staked.usd === undefined
      ? undefined
      : spotUsd.plus(staked.usd);
  return { spot, spotUsd, staked, totalUsd };
}

/**
 * The account's value in USD from a cycle's snapshot: spot balances with a USD price, plus (when read)
 * staked, idle and pending-withdrawal HYPE. Undefined when there is HYPE in staking but no HYPE price.
 */
export function portfolioValueUsd(s: Snapshot, staking: boolean): Decimal | undefined {
  return valueAccount(s, {
    spot: s.balances.values(),
    staking: staking
      ? {
          delegated: s.staking.delegated,
          undelegated: s.staking.undelegated,
          pendingWithdrawal: s.staking.totalPendingWithdrawal,
        }
      : undefined,
  }).totalUsd;
}

function valued(coin: string, amount: Decimal, usdPrice: Decimal | undefined): ValuedHolding {
  return { coin, amount, usdPrice, usd: usdPrice === undefined ? undefined : amount.times(usdPrice) };
}
