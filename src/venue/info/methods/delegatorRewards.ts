// delegatorRewards: staking rewards credited to a user. Only shown (`hlbot status`
// sums `totalAmount`): a `source` other than "delegation" / "commission" (nktkas/hyperliquid
// src/api/info/_methods/delegatorRewards.ts) is kept as-is and reported once.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { DEFAULT_PER_ITEM_WEIGHT, infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, DecimalString, TimestampMs } from "../schemas.js";
import { openEnum } from "../tolerant.js";

export const REWARD_SOURCES = ["delegation", "commission"] as const;

export const DelegatorRewardsRequest = z.strictObject({
  type: z.literal("delegatorRewards"),
  user: Address,
});
export type DelegatorRewardsRequest = z.output<typeof DelegatorRewardsRequest>;

export const DelegatorReward = z.looseObject({
  time: TimestampMs,
  /** "commission" is paid to validator operators. */
  source: openEnum("[].source", REWARD_SOURCES),
  totalAmount: DecimalString,
});
export type DelegatorReward = z.output<typeof DelegatorReward>;

export const DelegatorRewardsResponse = z.array(DelegatorReward);
export type DelegatorRewardsResponse = z.output<typeof DelegatorRewardsResponse>;

export const delegatorRewardsWeight = infoRequestWeight("delegatorRewards");

export const delegatorRewardsMethod = defineInfoMethod({
  type: "delegatorRewards",
  request: DelegatorRewardsRequest,
  response: DelegatorRewardsResponse,
  weight: delegatorRewardsWeight,
  perItemWeight: DEFAULT_PER_ITEM_WEIGHT,
  endpoint: "info",
});
export type DelegatorRewardsParameters = InfoParams<typeof delegatorRewardsMethod>;

export function delegatorRewards(
  transport: HttpTransport,
  params: DelegatorRewardsParameters,
  signal?: AbortSignal,
): Promise<DelegatorRewardsResponse> {
  return runInfoQuery(transport, delegatorRewardsMethod, params, signal);
}
