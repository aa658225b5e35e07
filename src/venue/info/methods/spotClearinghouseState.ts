// spotClearinghouseState: a user's spot balances. Also the `spotState` of subAccounts2.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, DecimalString, DexName, TokenDecimalPair, UInt } from "../schemas.js";
import { shown } from "../tolerant.js";

export const SpotClearinghouseStateRequest = z.strictObject({
  type: z.literal("spotClearinghouseState"),
  user: Address,
  /** Tolerated by the venue, no known effect. */
  dex: DexName.optional(),
});
export type SpotClearinghouseStateRequest = z.output<typeof SpotClearinghouseStateRequest>;

/** Outcome-market coins: "+N" (active) or "oN" (settled). They carry no `token`. */
const OUTCOME_COIN = /^[+o]\d+$/;

export function isOutcomeCoin(coin: string): boolean {
  return OUTCOME_COIN.test(coin);
}

/**
 * One balance. Token balances have `token`; outcome balances ("+N"/"oN") do not. `total` and `hold` may
 * be negative. `spotHold`, `ltv`, `borrowed`, `supplied` appear under portfolio margin.
 */
export const SpotBalance = z
  .looseObject({
    coin: z.string(),
    token: UInt.optional(),
    total: DecimalString,
    hold: DecimalString,
    /** Only shown: one of another shape is left out (tolerant.ts). */
    entryNtl: shown("balances[].entryNtl", DecimalString),
    spotHold: DecimalString.optional(),
    ltv: DecimalString.optional(),
    borrowed: DecimalString.optional(),
    supplied: DecimalString.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.token === undefined && !isOutcomeCoin(b.coin)) {
      ctx.addIssue({ code: "custom", path: ["token"], message: `required for token balance "${b.coin}"` });
    }
  });
export type SpotBalance = z.output<typeof SpotBalance>;

export const SpotClearinghouseStateResponse = z.looseObject({
  balances: z.array(SpotBalance),
  /** Balances of a not-yet-activated account. */
  evmEscrows: z.array(z.looseObject({ coin: z.string(), token: UInt, total: DecimalString })).optional(),
  portfolioMarginEnabled: z.boolean().optional(),
  portfolioMarginRatio: DecimalString.optional(),
  tokenToPortfolioBorrowRatio: z.array(TokenDecimalPair).optional(),
  tokenToPortfolioSupplyRatio: z.array(TokenDecimalPair).optional(),
  tokenToAvailableAfterMaintenance: z.array(TokenDecimalPair).optional(),
});
export type SpotClearinghouseStateResponse = z.output<typeof SpotClearinghouseStateResponse>;

export const spotClearinghouseStateWeight = infoRequestWeight("spotClearinghouseState");

export const spotClearinghouseStateMethod = defineInfoMethod({
  type: "spotClearinghouseState",
  request: SpotClearinghouseStateRequest,
  response: SpotClearinghouseStateResponse,
  weight: spotClearinghouseStateWeight,
  endpoint: "info",
});
export type SpotClearinghouseStateParameters = InfoParams<typeof spotClearinghouseStateMethod>;

export function spotClearinghouseState(
  transport: HttpTransport,
  params: SpotClearinghouseStateParameters,
  signal?: AbortSignal,
): Promise<SpotClearinghouseStateResponse> {
  return runInfoQuery(transport, spotClearinghouseStateMethod, params, signal);
}
