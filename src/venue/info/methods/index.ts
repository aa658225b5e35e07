// Registry of every info query hlbot knows, by wire `type`. The CLI enumerates it for `hlbot info`, and
// the simulator uses the request schemas to answer 422 to bodies the venue could not deserialize.
import type { InfoMethodSpec } from "../query.js";
import { allMidsMethod } from "./allMids.js";
import { candleSnapshotMethod } from "./candleSnapshot.js";
import { delegationsMethod } from "./delegations.js";
import { delegatorHistoryMethod } from "./delegatorHistory.js";
import { delegatorRewardsMethod } from "./delegatorRewards.js";
import { delegatorSummaryMethod } from "./delegatorSummary.js";
import { isVipMethod } from "./isVip.js";
import { openOrdersMethod } from "./openOrders.js";
import { referralMethod } from "./referral.js";
import { spotClearinghouseStateMethod } from "./spotClearinghouseState.js";
import { spotMetaMethod } from "./spotMeta.js";
import { spotMetaAndAssetCtxsMethod } from "./spotMetaAndAssetCtxs.js";
import { subAccounts2Method } from "./subAccounts2.js";
import { tokenDetailsMethod } from "./tokenDetails.js";
import { twapHistoryMethod } from "./twapHistory.js";
import { txDetailsMethod } from "./txDetails.js";
import { userFeesMethod } from "./userFees.js";
import { userRoleMethod } from "./userRole.js";
import { userToMultiSigSignersMethod } from "./userToMultiSigSigners.js";
import { userTwapSliceFillsMethod } from "./userTwapSliceFills.js";
import { validatorSummariesMethod } from "./validatorSummaries.js";

export const INFO_METHODS = {
  tokenDetails: tokenDetailsMethod,
  referral: referralMethod,
  spotClearinghouseState: spotClearinghouseStateMethod,
  delegatorHistory: delegatorHistoryMethod,
  validatorSummaries: validatorSummariesMethod,
  subAccounts2: subAccounts2Method,
  userToMultiSigSigners: userToMultiSigSignersMethod,
  txDetails: txDetailsMethod,
  isVip: isVipMethod,
  spotMeta: spotMetaMethod,
  allMids: allMidsMethod,
  spotMetaAndAssetCtxs: spotMetaAndAssetCtxsMethod,
  delegations: delegationsMethod,
  delegatorSummary: delegatorSummaryMethod,
  delegatorRewards: delegatorRewardsMethod,
  twapHistory: twapHistoryMethod,
  userTwapSliceFills: userTwapSliceFillsMethod,
  openOrders: openOrdersMethod,
  userFees: userFeesMethod,
  userRole: userRoleMethod,
  candleSnapshot: candleSnapshotMethod,
} as const satisfies Record<string, InfoMethodSpec>;

export type InfoType = keyof typeof INFO_METHODS;
export const INFO_TYPES = Object.keys(INFO_METHODS) as InfoType[];

export function isInfoType(value: string): value is InfoType {
  return Object.hasOwn(INFO_METHODS, value);
}

/** Request parameter names of a query (besides `type`), with whether each is required. */
export function infoParameters(type: InfoType): Array<{ name: string; required: boolean }> {
  const shape = INFO_METHODS[type].request.shape as Record<
    string,
    { safeParse(v: unknown): { success: boolean } }
  >;
  return Object.entries(shape)
    .filter(([name]) => name !== "type")
    .map(([name, schema]) => ({ name, required: !schema.safeParse(undefined).success }));
}

export * from "./allMids.js";
export * from "./candleSnapshot.js";
export * from "./delegations.js";
export * from "./delegatorHistory.js";
export * from "./delegatorRewards.js";
export * from "./delegatorSummary.js";
export * from "./isVip.js";
export * from "./openOrders.js";
export * from "./referral.js";
export * from "./spotClearinghouseState.js";
export * from "./spotMeta.js";
export * from "./spotMetaAndAssetCtxs.js";
export * from "./subAccounts2.js";
export * from "./tokenDetails.js";
export * from "./twapHistory.js";
export * from "./txDetails.js";
export * from "./userFees.js";
export * from "./userRole.js";
export * from "./userToMultiSigSigners.js";
export * from "./userTwapSliceFills.js";
export * from "./validatorSummaries.js";
