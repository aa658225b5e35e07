// spotMetaAndAssetCtxs: spotMeta plus a market context per pair. Join by `coin`.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { DecimalString } from "../schemas.js";
import { shown } from "../tolerant.js";
import { SpotMetaResponse } from "./spotMeta.js";

export const SpotMetaAndAssetCtxsRequest = z.strictObject({
  type: z.literal("spotMetaAndAssetCtxs"),
});
export type SpotMetaAndAssetCtxsRequest = z.output<typeof SpotMetaAndAssetCtxsRequest>;

export const SpotAssetCtx = z.looseObject({
  /** Pair name as in spotMeta.universe[].name ("PURR/USDC", "@107"). */
  coin: z.string(),
  prevDayPx: DecimalString,
  dayNtlVlm: DecimalString,
  markPx: DecimalString,
  /** null when the book is empty. */
  midPx: DecimalString.nullable(),
  // Only shown: one of another shape is left out (tolerant.ts).
  circulatingSupply: shown("[1][].circulatingSupply", DecimalString),
  totalSupply: shown("[1][].totalSupply", DecimalString),
  dayBaseVlm: shown("[1][].dayBaseVlm", DecimalString),
});
export type SpotAssetCtx = z.output<typeof SpotAssetCtx>;

const SpotAssetCtxs = z.array(SpotAssetCtx);
export const SpotMetaAndAssetCtxsResponse = z.tuple([SpotMetaResponse, SpotAssetCtxs]);
export type SpotMetaAndAssetCtxsResponse = z.output<typeof SpotMetaAndAssetCtxsResponse>;

export const spotMetaAndAssetCtxsWeight = infoRequestWeight("spotMetaAndAssetCtxs");

export const spotMetaAndAssetCtxsMethod = defineInfoMethod({
  type: "spotMetaAndAssetCtxs",
  request: SpotMetaAndAssetCtxsRequest,
  response: SpotMetaAndAssetCtxsResponse,
  weight: spotMetaAndAssetCtxsWeight,
  endpoint: "info",
  // The metadata repeats from read to read; the contexts (prices, volumes) do not.
  parts: [SpotMetaResponse, SpotAssetCtxs],
});
export type SpotMetaAndAssetCtxsParameters = InfoParams<typeof spotMetaAndAssetCtxsMethod>;

export function spotMetaAndAssetCtxs(
  transport: HttpTransport,
  params: SpotMetaAndAssetCtxsParameters = {},
  signal?: AbortSignal,
): Promise<SpotMetaAndAssetCtxsResponse> {
  return runInfoQuery(transport, spotMetaAndAssetCtxsMethod, params, signal);
}
