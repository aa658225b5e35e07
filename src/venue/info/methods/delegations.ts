// delegations: a user's stake per validator with its lock.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, TimestampMs } from "../schemas.js";

export const DelegationsRequest = z.strictObject({
  type: z.literal("delegations"),
  user: Address,
});
export type DelegationsRequest = z.output<typeof DelegationsRequest>;

export const Delegation = z.looseObject({
  validator: AddressOut,
  /** HYPE decimal string. */
  amount: DecimalString,
  /** Unix ms: last delegation to this validator + 1 day. Undelegating before it fails. */
  lockedUntilTimestamp: TimestampMs,
});
export type Delegation = z.output<typeof Delegation>;

export const DelegationsResponse = z.array(Delegation);
export type DelegationsResponse = z.output<typeof DelegationsResponse>;

export const delegationsWeight = infoRequestWeight("delegations");

export const delegationsMethod = defineInfoMethod({
  type: "delegations",
  request: DelegationsRequest,
  response: DelegationsResponse,
  weight: delegationsWeight,
  endpoint: "info",
});
export type DelegationsParameters = InfoParams<typeof delegationsMethod>;

export function delegations(
  transport: HttpTransport,
  params: DelegationsParameters,
  signal?: AbortSignal,
): Promise<DelegationsResponse> {
  return runInfoQuery(transport, delegationsMethod, params, signal);
}
