// delegatorSummary: a user's staking balances. `undelegated` is staked but not
// delegated to anyone.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, DecimalString, UInt } from "../schemas.js";

export const DelegatorSummaryRequest = z.strictObject({
  type: z.literal("delegatorSummary"),
  user: Address,
});
export type DelegatorSummaryRequest = z.output<typeof DelegatorSummaryRequest>;

export const DelegatorSummaryResponse = z.looseObject({
  delegated: DecimalString,
  undelegated: DecimalString,
  totalPendingWithdrawal: DecimalString,
  nPendingWithdrawals: UInt,
});
export type DelegatorSummaryResponse = z.output<typeof DelegatorSummaryResponse>;

export const delegatorSummaryWeight = infoRequestWeight("delegatorSummary");

export const delegatorSummaryMethod = defineInfoMethod({
  type: "delegatorSummary",
  request: DelegatorSummaryRequest,
  response: DelegatorSummaryResponse,
  weight: delegatorSummaryWeight,
  endpoint: "info",
});
export type DelegatorSummaryParameters = InfoParams<typeof delegatorSummaryMethod>;

export function delegatorSummary(
  transport: HttpTransport,
  params: DelegatorSummaryParameters,
  signal?: AbortSignal,
): Promise<DelegatorSummaryResponse> {
  return runInfoQuery(transport, delegatorSummaryMethod, params, signal);
}
