// referral: who referred the user, rewards, and the user's own referrer state.
//
// Tolerant: hlbot only SHOWS this answer (`hlbot status`). A `referrerState.stage` other than the three
// known ones (docs "Query a user's referral information"; nktkas/hyperliquid
// src/api/info/_methods/referral.ts) is kept with its payload and reported once; a known stage with a
// broken payload is still refused with its path.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, TimestampMs, UInt } from "../schemas.js";
import { unknownVariant } from "../tolerant.js";

export const ReferralRequest = z.strictObject({
  type: z.literal("referral"),
  user: Address,
});
export type ReferralRequest = z.output<typeof ReferralRequest>;

const ReferralTokenState = z.looseObject({
  cumVlm: DecimalString,
  cumRewardedFeesSinceReferred: DecimalString,
  cumFeesRewardedToReferrer: DecimalString,
});

const ReferralState = z.looseObject({
  cumVlm: DecimalString,
  cumRewardedFeesSinceReferred: DecimalString,
  cumFeesRewardedToReferrer: DecimalString,
  timeJoined: TimestampMs,
  user: AddressOut,
  /** `[tokenIndex, state]` pairs. */
  tokenToState: z.array(z.tuple([UInt, ReferralTokenState])).optional(),
});

export const REFERRER_STAGES = ["ready", "needToCreateCode", "needToTrade"] as const;

const KnownReferrerState = z.discriminatedUnion("stage", [
  z.looseObject({
    stage: z.literal("ready"),
    data: z.looseObject({
      code: z.string(),
      nReferrals: UInt,
      referralStates: z.array(ReferralState),
    }),
  }),
  z.looseObject({ stage: z.literal("needToCreateCode") }),
  z.looseObject({
    stage: z.literal("needToTrade"),
    /** `required`: probably the remaining USD volume (unconfirmed). */
    data: z.looseObject({ required: z.string() }),
  }),
]);

/** The user's own referrer progress: one of three known stages, or a later one kept as-is. */
export const ReferrerState = z.union([
  KnownReferrerState,
  z.looseObject({ stage: unknownVariant("referrerState.stage", REFERRER_STAGES) }),
]);
export type ReferrerState = z.output<typeof ReferrerState>;

export const ReferralResponse = z.looseObject({
  referredBy: z.looseObject({ referrer: AddressOut, code: z.string() }).nullable(),
  cumVlm: DecimalString,
  unclaimedRewards: DecimalString,
  claimedRewards: DecimalString,
  builderRewards: DecimalString,
  referrerState: ReferrerState,
  /** Legacy; normally empty. */
  rewardHistory: z.array(
    z.looseObject({
      earned: DecimalString,
      vlm: DecimalString,
      referralVlm: DecimalString,
      time: TimestampMs,
    }),
  ),
  /** `[tokenIndex, state]` pairs. */
  tokenToState: z
    .array(
      z.tuple([
        UInt,
        z.looseObject({
          cumVlm: DecimalString,
          unclaimedRewards: DecimalString,
          claimedRewards: DecimalString,
          builderRewards: DecimalString,
        }),
      ]),
    )
    .optional(),
});
export type ReferralResponse = z.output<typeof ReferralResponse>;

export const referralWeight = infoRequestWeight("referral");

export const referralMethod = defineInfoMethod({
  type: "referral",
  request: ReferralRequest,
  response: ReferralResponse,
  weight: referralWeight,
  endpoint: "info",
});
export type ReferralParameters = InfoParams<typeof referralMethod>;

export function referral(
  transport: HttpTransport,
  params: ReferralParameters,
  signal?: AbortSignal,
): Promise<ReferralResponse> {
  return runInfoQuery(transport, referralMethod, params, signal);
}
