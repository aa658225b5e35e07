// spotMeta: spot tokens and pairs. Token and pair ids differ between networks, so the
// bot resolves HYPE from this at start-up.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { AddressOut, DecimalString, SafeInt, TokenIdOut, UInt } from "../schemas.js";
import { shown } from "../tolerant.js";

export const SpotMetaRequest = z.strictObject({
  type: z.literal("spotMeta"),
});
export type SpotMetaRequest = z.output<typeof SpotMetaRequest>;

export const SpotToken = z.looseObject({
  name: z.string(),
  szDecimals: UInt,
  weiDecimals: UInt,
  /** Token index (HYPE: 150 on mainnet, 1105 on testnet). */
  index: UInt,
  tokenId: TokenIdOut,
  // Only shown (a fork copies them into its scenario): one of another shape is left out (tolerant.ts).
  isCanonical: shown("tokens[].isCanonical", z.boolean()),
  evmContract: shown(
    "tokens[].evmContract",
    z.looseObject({ address: AddressOut, evm_extra_wei_decimals: SafeInt }).nullable(),
  ),
  fullName: shown("tokens[].fullName", z.string().nullable()),
  deployerTradingFeeShare: shown("tokens[].deployerTradingFeeShare", DecimalString),
});
export type SpotToken = z.output<typeof SpotToken>;

export const SpotPair = z.looseObject({
  /** "PURR/USDC" for the canonical pair, "@{index}" otherwise. */
  name: z.string(),
  /** `[baseTokenIndex, quoteTokenIndex]`. */
  tokens: z.tuple([UInt, UInt]),
  /** Pair index; the spot asset id is 10000 + index. */
  index: UInt,
  isCanonical: z.boolean(),
});
export type SpotPair = z.output<typeof SpotPair>;

export const SpotMetaResponse = z.looseObject({
  tokens: z.array(SpotToken),
  universe: z.array(SpotPair),
});
export type SpotMetaResponse = z.output<typeof SpotMetaResponse>;

export const spotMetaWeight = infoRequestWeight("spotMeta");

export const spotMetaMethod = defineInfoMethod({
  type: "spotMeta",
  request: SpotMetaRequest,
  response: SpotMetaResponse,
  weight: spotMetaWeight,
  endpoint: "info",
});
export type SpotMetaParameters = InfoParams<typeof spotMetaMethod>;

export function spotMeta(
  transport: HttpTransport,
  params: SpotMetaParameters = {},
  signal?: AbortSignal,
): Promise<SpotMetaResponse> {
  return runInfoQuery(transport, spotMetaMethod, params, signal);
}
