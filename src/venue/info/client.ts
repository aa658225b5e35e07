// InfoClient: one typed method per info query, each a thin wrapper over the standalone function in
// ./methods/<type>.ts (where the request and response schemas, weight and docs live). Every method
// validates its parameters before any I/O and its answer before returning. Unknown values of tolerant
// fields (./tolerant.ts) go to `onUnknown` (the bot passes its logger; default: a line on stderr).
import type { HttpTransport } from "../transport/http.js";
import * as m from "./methods/index.js";
import { runInfoQuery } from "./query.js";
import type { UnknownValueWarn } from "./tolerant.js";

export interface InfoClientOptions {
  /** Receives each unknown value of a tolerant field once per process. */
  onUnknown?: UnknownValueWarn;
}

export class InfoClient {
  private readonly onUnknown: UnknownValueWarn | undefined;

  constructor(
    readonly transport: HttpTransport,
    options: InfoClientOptions = {},
  ) {
    this.onUnknown = options.onUnknown;
  }

  tokenDetails(params: m.TokenDetailsParameters, signal?: AbortSignal): Promise<m.TokenDetailsResponse> {
    return runInfoQuery(this.transport, m.tokenDetailsMethod, params, signal, this.onUnknown);
  }

  referral(params: m.ReferralParameters, signal?: AbortSignal): Promise<m.ReferralResponse> {
    return runInfoQuery(this.transport, m.referralMethod, params, signal, this.onUnknown);
  }

  spotClearinghouseState(
    params: m.SpotClearinghouseStateParameters,
    signal?: AbortSignal,
  ): Promise<m.SpotClearinghouseStateResponse> {
    return runInfoQuery(this.transport, m.spotClearinghouseStateMethod, params, signal, this.onUnknown);
  }

  delegatorHistory(
    params: m.DelegatorHistoryParameters,
    signal?: AbortSignal,
  ): Promise<m.DelegatorHistoryResponse> {
    return runInfoQuery(this.transport, m.delegatorHistoryMethod, params, signal, this.onUnknown);
  }

  validatorSummaries(
    params: m.ValidatorSummariesParameters = {},
    signal?: AbortSignal,
  ): Promise<m.ValidatorSummariesResponse> {
    return runInfoQuery(this.transport, m.validatorSummariesMethod, params, signal, this.onUnknown);
  }

  subAccounts2(params: m.SubAccounts2Parameters, signal?: AbortSignal): Promise<m.SubAccounts2Response> {
    return runInfoQuery(this.transport, m.subAccounts2Method, params, signal, this.onUnknown);
  }

  userToMultiSigSigners(
    params: m.UserToMultiSigSignersParameters,
    signal?: AbortSignal,
  ): Promise<m.UserToMultiSigSignersResponse> {
    return runInfoQuery(this.transport, m.userToMultiSigSignersMethod, params, signal, this.onUnknown);
  }

  txDetails(params: m.TxDetailsParameters, signal?: AbortSignal): Promise<m.TxDetailsResponse> {
    return runInfoQuery(this.transport, m.txDetailsMethod, params, signal, this.onUnknown);
  }

  isVip(params: m.IsVipParameters, signal?: AbortSignal): Promise<m.IsVipResponse> {
    return runInfoQuery(this.transport, m.isVipMethod, params, signal, this.onUnknown);
  }

  spotMeta(params: m.SpotMetaParameters = {}, signal?: AbortSignal): Promise<m.SpotMetaResponse> {
    return runInfoQuery(this.transport, m.spotMetaMethod, params, signal, this.onUnknown);
  }

  candleSnapshot(
    params: m.CandleSnapshotParameters,
    signal?: AbortSignal,
  ): Promise<m.CandleSnapshotResponse> {
    return runInfoQuery(this.transport, m.candleSnapshotMethod, params, signal, this.onUnknown);
  }

  allMids(params: m.AllMidsParameters = {}, signal?: AbortSignal): Promise<m.AllMidsResponse> {
    return runInfoQuery(this.transport, m.allMidsMethod, params, signal, this.onUnknown);
  }

  spotMetaAndAssetCtxs(
    params: m.SpotMetaAndAssetCtxsParameters = {},
    signal?: AbortSignal,
  ): Promise<m.SpotMetaAndAssetCtxsResponse> {
    return runInfoQuery(this.transport, m.spotMetaAndAssetCtxsMethod, params, signal, this.onUnknown);
  }

  delegations(params: m.DelegationsParameters, signal?: AbortSignal): Promise<m.DelegationsResponse> {
    return runInfoQuery(this.transport, m.delegationsMethod, params, signal, this.onUnknown);
  }

  delegatorSummary(
    params: m.DelegatorSummaryParameters,
    signal?: AbortSignal,
  ): Promise<m.DelegatorSummaryResponse> {
    return runInfoQuery(this.transport, m.delegatorSummaryMethod, params, signal, this.onUnknown);
  }

  delegatorRewards(
    params: m.DelegatorRewardsParameters,
    signal?: AbortSignal,
  ): Promise<m.DelegatorRewardsResponse> {
    return runInfoQuery(this.transport, m.delegatorRewardsMethod, params, signal, this.onUnknown);
  }

  twapHistory(params: m.TwapHistoryParameters, signal?: AbortSignal): Promise<m.TwapHistoryResponse> {
    return runInfoQuery(this.transport, m.twapHistoryMethod, params, signal, this.onUnknown);
  }

  openOrders(params: m.OpenOrdersParameters, signal?: AbortSignal): Promise<m.OpenOrdersResponse> {
    return runInfoQuery(this.transport, m.openOrdersMethod, params, signal, this.onUnknown);
  }

  userTwapSliceFills(
    params: m.UserTwapSliceFillsParameters,
    signal?: AbortSignal,
  ): Promise<m.UserTwapSliceFillsResponse> {
    return runInfoQuery(this.transport, m.userTwapSliceFillsMethod, params, signal, this.onUnknown);
  }

  userFees(params: m.UserFeesParameters, signal?: AbortSignal): Promise<m.UserFeesResponse> {
    return runInfoQuery(this.transport, m.userFeesMethod, params, signal, this.onUnknown);
  }

  userRole(params: m.UserRoleParameters, signal?: AbortSignal): Promise<m.UserRoleResponse> {
    return runInfoQuery(this.transport, m.userRoleMethod, params, signal, this.onUnknown);
  }
}
