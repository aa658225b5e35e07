// Facts about the venue that more than one layer needs, each stated once. Sources:
// - Spot asset ids are 10000 + the pair's index in spotMeta's universe (Hyperliquid docs, "Asset IDs";
//   nktkas/hyperliquid and the Python SDK compute them the same way).
// - HYPE moves in staking actions (tokenDelegate, cDeposit, cWithdraw) as integer wei with 8 decimals:
//   spotMeta lists HYPE with weiDecimals 8, and the docs' staking examples send `wei` in those units.
// - The venue refuses a TWAP shorter than 5 minutes ("Invalid TWAP duration: 1 min(s)", seen on
//   testnet); its maximum is unconfirmed (sources say 1440 or more), so the engine takes it from the
//   configuration (`venue.twapMaxMinutes`).
// - Addresses on the wire are 0x + 40 hex digits; the venue answers in lower case.
// - A withdrawal from staking (cWithdraw) reaches spot after the unstaking queue: 7 days on mainnet
//   (Hyperliquid docs, "Staking"; the docs' delegatorHistory example finalises 7 days and 1 s after it
//   starts). Testnet's queue is shorter (a public SDK reads 5 minutes from testnet histories;
//   unconfirmed), so hlbot shows no date there.
// - A TWAP sends a suborder every 30 seconds (Hyperliquid docs, "Order types": TWAP).
// - A delegation locks the validator's stake for 1 day (Hyperliquid docs, "Staking": "delegations have a
//   lockup period of 1 day"; delegatorSummary's lockedUntilTimestamp is the last delegation + 1 day).

import { Decimal } from "../lib/decimal.js";
import type { NetworkName } from "./networks.js";

/** Spot asset id = SPOT_ASSET_OFFSET + the pair's index. */
export const SPOT_ASSET_OFFSET = 10_000;

/** HYPE amounts in staking actions are whole wei of 10^-8 HYPE. */
export const HYPE_WEI_DECIMALS = 8;

/** Shortest TWAP, in minutes, the venue accepts. */
export const TWAP_MIN_MINUTES = 5;

/** Default longest TWAP, in minutes (unconfirmed; `venue.twapMaxMinutes` overrides it). */
export const TWAP_MAX_MINUTES_DEFAULT = 10_080;

/**
 * The most `venue.twapMaxMinutes` may be raised to (30 days): not a venue fact, a bound on a typo. A
 * strategy's `twap.minutes` is checked against the configured maximum, not this.
 */
export const TWAP_MAX_MINUTES_CEILING = 43_200;

/**
 * Default least value of a whole TWAP in quote units: 100, from the venue's own refusal "TWAP order value
 * too small. Min is $100." (measured on mainnet for a 5-minute TWAP of about 11 USD, as a public client's
 * tests record; the docs state no minimum). Whether it is flat or per slice is not known from one 5-minute
 * case; a refusal that names a higher minimum is learnt; `venue.twapMinOrderValue` overrides it.
 */
export const TWAP_MIN_ORDER_VALUE_DEFAULT = "100";

/**
 * Default share of a spot TWAP buy's remaining notional kept beyond size × mid. Each suborder may fill
 * up to 3% from the mid (Hyperliquid docs, Trading › Order types › TWAP: "each suborder has a maximum
 * slippage of 3%"); whether and how much quote the venue holds for that is not documented, so the value
 * is configurable (`venue.twapBuyReserve`).
 */
export const TWAP_BUY_RESERVE_DEFAULT = "0.03";

/** Seconds between a TWAP's suborders. */
export const TWAP_SLICE_SECONDS = 30;

/** How long a delegation locks the validator's stake, in ms (1 day). */
export const DELEGATION_LOCK_MS = 24 * 60 * 60_000;

/**
 * userTwapSliceFills (and userFills) answer an account's latest 2,000 fills at most (Hyperliquid docs,
 * Info endpoint, "at most 2000 most recent" fills; the reference's userTwapSliceFills section): a TWAP's
 * progress counted from a full answer may be short of it.
 */
export const USER_FILLS_MAX = 2000;

/** An address as the venue writes it: 0x and 40 hex digits (any case). */
export const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

/**
 * Whether validatorSummaries' `predictedApr` is already the rate a delegator earns (after the
 * validator's commission, and its uptime), as opposed to the rate before commission. Evidence: in a
 * mainnet answer quoted in public API docs, ValiDAO (commission 0.04, day predictedApr 0.021572699,
 * uptime 1.0) and B-Harvest (0.05, 0.0213479834, 1.0) give the same rate before commission, 0.0224715615,
 * to nine digits, the venue paying every validator's stake one base rate; and no SDK or dashboard found
 * (nktkas/hyperliquid, wallets) multiplies it by (1 − commission). Not stated by the venue's own docs:
 * `venue.predictedAprNet: false` reads it as the rate before commission.
 */
export const PREDICTED_APR_NET_DEFAULT = true;

/** The APR a delegator earns from a validator's `predictedApr` and `commission` (see above). */
export function delegatorApr(predictedApr: Decimal, commission: Decimal, net: boolean): Decimal {
  return net ? predictedApr : predictedApr.times(new Decimal(1).minus(commission));
}

/**
 * The unstaking queue by network, in ms; undefined where it is not known. Shown (withdrawal dates), and
 * acted on only through LONGEST_UNSTAKING_QUEUE_MS.
 */
export const UNSTAKING_QUEUE_MS: Readonly<Record<NetworkName, number | undefined>> = {
  mainnet: 7 * 24 * 60 * 60_000,
  testnet: undefined,
};

/**
 * The longest known unstaking queue, used on either network where hlbot must assume HYPE staked now stays
 * away that long (the staking strategy keeps on spot what running sales would sell over it): a longer
 * horizon keeps more on spot, the safe side where testnet's queue is unknown.
 */
export const LONGEST_UNSTAKING_QUEUE_MS = Math.max(
  ...Object.values(UNSTAKING_QUEUE_MS).filter((ms): ms is number => ms !== undefined),
);

/**
 * The nonce window around the block time T: a nonce is accepted within (T − past, T + future). Hyperliquid
 * docs, "Nonces and API wallets": an earlier version reads "(T - 2 days, T + 1 day)", the current one
 * "within 1 day of the unix millisecond timestamp on the L1 block" (unconfirmed which the venue applies).
 * hlbot takes each bound on its safe side: a nonce it hands out stays within the nearer future bound
 * (nonces.ts), and a lost user-signed action, which has no other expiry, is taken as able to land for
 * the longer past bound (reconcile.ts; `venue.userSignedGraceMs`). The simulator keeps its own reading
 * (±1 day, the current docs; scenario settings nonceWindowPast/nonceWindowFuture).
 */
export const NONCE_WINDOW_FUTURE_MS = 24 * 60 * 60_000;
export const NONCE_WINDOW_PAST_MS = 2 * 24 * 60 * 60_000;
