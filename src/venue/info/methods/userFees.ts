// userFees: a user's fee rates, schedule, volume and staking link (reference §3.18).
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, TimestampMs } from "../schemas.js";

export const UserFeesRequest = z.strictObject({
  type: z.literal("userFees"),
  user: Address,
});
export type UserFeesRequest = z.output<typeof UserFeesRequest>;

const StakingDiscount = z.looseObject({ bpsOfMaxSupply: DecimalString, discount: DecimalString });

/**
 * Link between a trading and a staking account: null (none); `requested` (the trading user asked, not
 * yet finalized); `tradingUser` (queried as the trading account); `stakingUser` (queried as the staking
 * account).
 */
export const StakingLink = z
  .discriminatedUnion("type", [
    z.looseObject({ type: z.literal("requested"), stakingUser: AddressOut }),
    z.looseObject({ type: z.literal("tradingUser"), stakingUser: AddressOut }),
    z.looseObject({ type: z.literal("stakingUser"), tradingUser: AddressOut }),
  ])
  .nullable();
export type StakingLink = z.output<typeof StakingLink>;

export const UserFeesResponse = z.looseObject({
  dailyUserVlm: z.array(
    z.looseObject({
      /** "YYYY-MM-DD". */
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: "expected a YYYY-MM-DD date" }),
      userCross: DecimalString,
      userAdd: DecimalString,
      exchange: DecimalString,
    }),
  ),
  feeSchedule: z.looseObject({
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
  userCrossRate: DecimalString,
  /** May be negative (a rebate). */
  userAddRate: DecimalString,
  userSpotCrossRate: DecimalString,
  userSpotAddRate: DecimalString,
  activeReferralDiscount: DecimalString,
  /** Fee trial, when one is running (shape undocumented). */
  trial: z.looseObject({}).nullable().optional(),
  /** Replaced `feeTrialReward`. */
  feeTrialEscrow: DecimalString.optional(),
  nextTrialAvailableTimestamp: TimestampMs.nullable().optional(),
  stakingLink: StakingLink,
  activeStakingDiscount: StakingDiscount,
});
export type UserFeesResponse = z.output<typeof UserFeesResponse>;

export const userFeesWeight = infoRequestWeight("userFees");

export const userFeesMethod = defineInfoMethod({
  type: "userFees",
  summary: "fee rates, fee schedule, daily volume and staking link of a user",
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
