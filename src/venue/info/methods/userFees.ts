// userFees: a user's fee rates, schedule, volume and staking link.
//
// Strict: the rates (the TWAP strategies size with `userSpotCrossRate`). Tolerant: the volumes, the fee
// schedule and the discounts, only shown (`shown`: one of another shape is left out, not a failed cycle),
// and `stakingLink` and `trial`, which the TWAP strategies never read, so a link in a state hlbot does not know (the pending
// shape is unverified) cannot stop them. link-staking, the one strategy that acts on the link, treats
// a link it cannot read as "some link exists" and does not touch it (links are permanent).
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString } from "../schemas.js";
import { openEnum, shown } from "../tolerant.js";

export const UserFeesRequest = z.strictObject({
  type: z.literal("userFees"),
  user: Address,
});
export type UserFeesRequest = z.output<typeof UserFeesRequest>;

const StakingDiscount = z.looseObject({ bpsOfMaxSupply: DecimalString, discount: DecimalString });

export const STAKING_LINK_TYPES = ["requested", "tradingUser", "stakingUser"] as const;

/**
 * Link between a trading and a staking account: null (none); `requested` (the trading user asked, not
 * yet finalized); `tradingUser` (queried as the trading account); `stakingUser` (queried as the staking
 * account). Which field carries the other account is not settled: one sample of the venue's
 * answers names `tradingUser` for the `stakingUser` variant, nktkas/hyperliquid (src/api/info/_methods/userFees.ts)
 * always `stakingUser` ("when queried by staking account: contains trading account address"). Both are
 * accepted, each an address when present; use `stakingLinkPeer` to read the other account. An unknown
 * `type` is kept as-is and reported once.
 */
export const StakingLink = z
  .looseObject({
    type: openEnum("stakingLink.type", STAKING_LINK_TYPES),
    stakingUser: AddressOut.optional(),
    tradingUser: AddressOut.optional(),
  })
  .nullable();
export type StakingLink = z.output<typeof StakingLink>;

export const UserFeesResponse = z.looseObject({
  dailyUserVlm: shown(
    "dailyUserVlm",
    z.array(
      z.looseObject({
        /** "YYYY-MM-DD". */
        date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: "expected a YYYY-MM-DD date" }),
        userCross: DecimalString,
        userAdd: DecimalString,
        exchange: DecimalString,
      }),
    ),
  ),
  feeSchedule: shown(
    "feeSchedule",
    z.looseObject({
      cross: DecimalString,
      add: DecimalString,
      spotCross: DecimalString,
      spotAdd: DecimalString,
      tiers: z.looseObject({
        vip: z.array(
          z.looseObject({
            ntlCutoff: DecimalString,
            cross: DecimalString,
            add: DecimalString,
            spotCross: DecimalString,
            spotAdd: DecimalString,
          }),
        ),
        /** `add` may be negative (a rebate). */
        mm: z.array(z.looseObject({ makerFractionCutoff: DecimalString, add: DecimalString })),
      }),
      referralDiscount: DecimalString,
      stakingDiscountTiers: z.array(StakingDiscount),
    }),
  ),
  userCrossRate: DecimalString,
  /** May be negative (a rebate). */
  userAddRate: DecimalString,
  userSpotCrossRate: DecimalString,
  userSpotAddRate: DecimalString,
  activeReferralDiscount: shown("activeReferralDiscount", DecimalString),
  /** Fee trial, when one is running: shape undocumented (nktkas types it `unknown`), only shown. */
  trial: z.unknown().optional(),
  /** Replaced `feeTrialReward`. */
  feeTrialEscrow: DecimalString.optional(),
  /** Only shown; nktkas types it `unknown`. */
  nextTrialAvailableTimestamp: z.unknown().optional(),
  stakingLink: StakingLink,
  activeStakingDiscount: shown("activeStakingDiscount", StakingDiscount),
});
export type UserFeesResponse = z.output<typeof UserFeesResponse>;

/**
 * The other account of a staking link, lower-cased: for the `stakingUser` variant the trading account
 * (whichever field carries it), otherwise the staking account. undefined when the answer names none.
 */
export function stakingLinkPeer(link: {
  type: string;
  stakingUser?: string;
  tradingUser?: string;
}): string | undefined {
  const peer = link.type === "stakingUser" ? (link.tradingUser ?? link.stakingUser) : link.stakingUser;
  return peer?.toLowerCase();
}

export const userFeesWeight = infoRequestWeight("userFees");

export const userFeesMethod = defineInfoMethod({
  type: "userFees",
  request: UserFeesRequest,
  response: UserFeesResponse,
  weight: userFeesWeight,
  endpoint: "info",
});
export type UserFeesParameters = InfoParams<typeof userFeesMethod>;

export function userFees(
  transport: HttpTransport,
  params: UserFeesParameters,
  signal?: AbortSignal,
): Promise<UserFeesResponse> {
  return runInfoQuery(transport, userFeesMethod, params, signal);
}
