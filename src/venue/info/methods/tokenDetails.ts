// tokenDetails: supply, prices and genesis of one spot token.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { AddressOut, DecimalString, TokenId, UInt } from "../schemas.js";

export const TokenDetailsRequest = z.strictObject({
  type: z.literal("tokenDetails"),
  tokenId: TokenId,
});
export type TokenDetailsRequest = z.output<typeof TokenDetailsRequest>;

const AddressBalance = z.tuple([AddressOut, DecimalString]);

/**
 * Genesis distribution. `null` for older tokens (e.g. testnet PURR). Two shapes are seen: with and
 * without `blacklistUsers`.
 */
export const TokenGenesis = z
  .looseObject({
    userBalances: z.array(AddressBalance),
    /** `[tokenIndex, amount]` pairs. */
    existingTokenBalances: z.array(z.tuple([UInt, DecimalString])),
    blacklistUsers: z.array(AddressOut).optional(),
  })
  .nullable();

export const TokenDetailsResponse = z.looseObject({
  name: z.string(),
  maxSupply: DecimalString,
  totalSupply: DecimalString,
  circulatingSupply: DecimalString,
  szDecimals: UInt,
  weiDecimals: UInt,
  midPx: DecimalString.nullable(),
  markPx: DecimalString,
  prevDayPx: DecimalString,
  genesis: TokenGenesis,
  deployer: AddressOut.nullable(),
  deployGas: DecimalString.nullable(),
  /** ISO-like local time with milliseconds and no zone suffix, e.g. "2024-06-05T10:50:59.434". */
  deployTime: z.string().nullable(),
  seededUsdc: DecimalString,
  nonCirculatingUserBalances: z.array(AddressBalance),
  futureEmissions: DecimalString,
});
export type TokenDetailsResponse = z.output<typeof TokenDetailsResponse>;

export const tokenDetailsWeight = infoRequestWeight("tokenDetails");

export const tokenDetailsMethod = defineInfoMethod({
  type: "tokenDetails",
  request: TokenDetailsRequest,
  response: TokenDetailsResponse,
  weight: tokenDetailsWeight,
  endpoint: "info",
});
export type TokenDetailsParameters = InfoParams<typeof tokenDetailsMethod>;

export function tokenDetails(
  transport: HttpTransport,
  params: TokenDetailsParameters,
  signal?: AbortSignal,
): Promise<TokenDetailsResponse> {
  return runInfoQuery(transport, tokenDetailsMethod, params, signal);
}
