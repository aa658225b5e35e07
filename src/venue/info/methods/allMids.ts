// allMids: mid price of every coin. Spot mids ("PURR/USDC", "@107") only come with the
// default dex.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { DecimalString, DexName } from "../schemas.js";

export const AllMidsRequest = z.strictObject({
  type: z.literal("allMids"),
  dex: DexName.optional(),
});
export type AllMidsRequest = z.output<typeof AllMidsRequest>;

/** coin → mid price. */
export const AllMidsResponse = z.record(z.string(), DecimalString);
export type AllMidsResponse = z.output<typeof AllMidsResponse>;

export const allMidsWeight = infoRequestWeight("allMids");

export const allMidsMethod = defineInfoMethod({
  type: "allMids",
  request: AllMidsRequest,
  response: AllMidsResponse,
  weight: allMidsWeight,
  endpoint: "info",
});
export type AllMidsParameters = InfoParams<typeof allMidsMethod>;

export function allMids(
  transport: HttpTransport,
  params: AllMidsParameters = {},
  signal?: AbortSignal,
): Promise<AllMidsResponse> {
  return runInfoQuery(transport, allMidsMethod, params, signal);
}
