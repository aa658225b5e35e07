// openOrders: a user's resting orders (perp and spot together; a spot order's coin is its pair's name,
// "@107" or "PURR/USDC"). hlbot reads it only to tell what of a token's hold is a resting order's
// (readSnapshot: a running TWAP's commitment is held beside it), so the fields that size a hold are
// checked (coin, side, limitPx, sz); the rest is optional. Shape as in nktkas/hyperliquid
// (src/api/info/_methods/openOrders.ts) and the venue's info-endpoint docs ("Retrieve a user's open orders").
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, DecimalString, TimestampMs, UInt } from "../schemas.js";
import { openEnum } from "../tolerant.js";

export const OpenOrdersRequest = z.strictObject({
  type: z.literal("openOrders"),
  user: Address,
  dex: z.string().optional(),
});
export type OpenOrdersRequest = z.output<typeof OpenOrdersRequest>;

export const OpenOrder = z.looseObject({
  coin: z.string(),
  /** "B" bid (buy), "A" ask (sell); another value is kept and reported once. */
  side: openEnum("[].side", ["B", "A"]),
  limitPx: DecimalString,
  /** What is left of the order, in the base token. */
  sz: DecimalString,
  oid: UInt.optional(),
  timestamp: TimestampMs.optional(),
  origSz: DecimalString.optional(),
  cloid: z.string().nullable().optional(),
  reduceOnly: z.boolean().optional(),
});
export type OpenOrder = z.output<typeof OpenOrder>;

export const OpenOrdersResponse = z.array(OpenOrder);
export type OpenOrdersResponse = z.output<typeof OpenOrdersResponse>;

export const openOrdersMethod = defineInfoMethod({
  type: "openOrders",
  request: OpenOrdersRequest,
  response: OpenOrdersResponse,
  weight: infoRequestWeight("openOrders"),
  endpoint: "info",
});
export type OpenOrdersParameters = InfoParams<typeof openOrdersMethod>;

export function openOrders(
  transport: HttpTransport,
  params: OpenOrdersParameters,
  signal?: AbortSignal,
): Promise<OpenOrdersResponse> {
  return runInfoQuery(transport, openOrdersMethod, params, signal);
}
