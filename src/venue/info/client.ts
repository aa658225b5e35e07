// InfoClient: one typed method per info query, each a thin wrapper over the standalone function in
// ./methods/<type>.ts (where the request and response schemas, weight and docs live). Every method
// validates its parameters before any I/O and its answer before returning.
import type { HttpTransport } from "../transport/http.js";
import * as m from "./methods/index.js";

export class InfoClient {
  constructor(readonly transport: HttpTransport) {}

  tokenDetails(params: m.TokenDetailsParameters, signal?: AbortSignal): Promise<m.TokenDetailsResponse> {
    return m.tokenDetails(this.transport, params, signal);
  }

  referral(params: m.ReferralParameters, signal?: AbortSignal): Promise<m.ReferralResponse> {
    return m.referral(this.transport, params, signal);
  }

  spotClearinghouseState(
    params: m.SpotClearinghouseStateParameters,
    signal?: AbortSignal,
  ): Promise<m.SpotClearinghouseStateResponse> {
    return m.spotClearinghouseState(this.transport, params, signal);
  }

  delegatorHistory(
    params: m.DelegatorHistoryParameters,
    signal?: AbortSignal,
  ): Promise<m.DelegatorHistoryResponse> {
    return m.delegatorHistory(this.transport, params, signal);
  }

  validatorSummaries(
    params: m.ValidatorSummariesParameters = {},
    signal?: AbortSignal,
  ): Promise<m.ValidatorSummariesResponse> {
    return m.validatorSummaries(this.transport, params, signal);
  }

  subAccounts2(params: m.SubAccounts2Parameters, signal?: AbortSignal): Promise<m.SubAccounts2Response> {
    return m.subAccounts2(this.transport, params, signal);
  }

  userToMultiSigSigners(
    params: m.UserToMultiSigSignersParameters,
    signal?: AbortSignal,
  ): Promise<m.UserToMultiSigSignersResponse> {
    return m.userToMultiSigSigners(this.transport, params, signal);
  }

  txDetails(params: m.TxDetailsParameters, signal?: AbortSignal): Promise<m.TxDetailsResponse> {
    return m.txDetails(this.transport, params, signal);
  }

  isVip(params: m.IsVipParameters, signal?: AbortSignal): Promise<m.IsVipResponse> {
    return m.isVip(this.transport, params, signal);
  }

  spotMeta(params: m.SpotMetaParameters = {}, signal?: AbortSignal): Promise<m.SpotMetaResponse> {
    return m.spotMeta(this.transport, params, signal);
  }

  allMids(params: m.AllMidsParameters = {}, signal?: AbortSignal): Promise<m.AllMidsResponse> {
    return m.allMids(this.transport, params, signal);
  }

  spotMetaAndAssetCtxs(
    params: m.SpotMetaAndAssetCtxsParameters = {},
    signal?: AbortSignal,
  ): Promise<m.SpotMetaAndAssetCtxsResponse> {
    return m.spotMetaAndAssetCtxs(this.transport, params, signal);
  }

  delegations(params: m.DelegationsParameters, signal?: AbortSignal): Promise<m.DelegationsResponse> {
    return m.delegations(this.transport, params, signal);
  }

  delegatorSummary(
    params: m.DelegatorSummaryParameters,
    signal?: AbortSignal,
  ): Promise<m.DelegatorSummaryResponse> {
    return m.delegatorSummary(this.transport, params, signal);
  }

  delegatorRewards(
    params: m.DelegatorRewardsParameters,
    signal?: AbortSignal,
  ): Promise<m.DelegatorRewardsResponse> {
    return m.delegatorRewards(this.transport, params, signal);
  }

  twapHistory(params: m.TwapHistoryParameters, signal?: AbortSignal): Promise<m.TwapHistoryResponse> {
    return m.twapHistory(this.transport, params, signal);
  }

  userTwapSliceFills(
    params: m.UserTwapSliceFillsParameters,
    signal?: AbortSignal,
  ): Promise<m.UserTwapSliceFillsResponse> {
    return m.userTwapSliceFills(this.transport, params, signal);
  }

  userFees(params: m.UserFeesParameters, signal?: AbortSignal): Promise<m.UserFeesResponse> {
    return m.userFees(this.transport, params, signal);
  }

  userRole(params: m.UserRoleParameters, signal?: AbortSignal): Promise<m.UserRoleResponse> {
    return m.userRole(this.transport, params, signal);
  }
}
