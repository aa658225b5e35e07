// isVip: whether a user is VIP. Undocumented; null is allowed though never observed.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address } from "../schemas.js";

export const IsVipRequest = z.strictObject({
  type: z.literal("isVip"),
  user: Address,
});
export type IsVipRequest = z.output<typeof IsVipRequest>;

export const IsVipResponse = z.boolean().nullable();
export type IsVipResponse = z.output<typeof IsVipResponse>;

export const isVipWeight = infoRequestWeight("isVip");

export const isVipMethod = defineInfoMethod({
  type: "isVip",
  request: IsVipRequest,
  response: IsVipResponse,
  weight: isVipWeight,
  endpoint: "info",
});
export type IsVipParameters = InfoParams<typeof isVipMethod>;

export function isVip(
  transport: HttpTransport,
  params: IsVipParameters,
  signal?: AbortSignal,
): Promise<IsVipResponse> {
  return runInfoQuery(transport, isVipMethod, params, signal);
}
