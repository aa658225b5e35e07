// subAccounts2: a master's sub-accounts with per-dex perp state and spot state.
// Undocumented; returns null when there are none.
//
// Tolerant: hlbot only SHOWS this answer (`hlbot status` lists names and addresses; no cycle reads it).
// `abstraction` is an open set: besides the three modes the `userSetAbstraction` action takes
// ("unifiedAccount", "portfolioMargin", "disabled"), the venue also answers "default" and the live
// legacy "dexAbstraction" (HIP-3 dex abstraction, enabled by `agentEnableDexAbstraction`; see the
// Python SDK's examples/basic_dex_abstraction.py). nktkas/hyperliquid
// (src/api/info/_methods/subAccounts2.ts) does not type the field at all.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, TimestampMs, TokenDecimalPair } from "../schemas.js";
import { openEnum } from "../tolerant.js";
import { SpotClearinghouseStateResponse } from "./spotClearinghouseState.js";

export const SubAccounts2Request = z.strictObject({
  type: z.literal("subAccounts2"),
  user: Address,
});
export type SubAccounts2Request = z.output<typeof SubAccounts2Request>;

const MarginSummary = z.looseObject({
  accountValue: DecimalString,
  totalNtlPos: DecimalString,
  totalRawUsd: DecimalString,
  totalMarginUsed: DecimalString,
});

/** Perp clearinghouse state of one dex. Positions are checked only as far as hlbot reads them. */
export const PerpClearinghouseState = z.looseObject({
  marginSummary: MarginSummary,
  crossMarginSummary: MarginSummary,
  crossMaintenanceMarginUsed: DecimalString,
  withdrawable: DecimalString,
  assetPositions: z.array(
    z.looseObject({
      type: z.string(),
      position: z.looseObject({ coin: z.string(), szi: DecimalString }),
    }),
  ),
  time: TimestampMs,
});

export const SUB_ACCOUNT_ABSTRACTIONS = [
  "unifiedAccount",
  "portfolioMargin",
  "disabled",
  "default",
  "dexAbstraction",
] as const;

export const SubAccount = z.looseObject({
  name: z.string(),
  subAccountUser: AddressOut,
  master: AddressOut,
  /** `[dexName, state]` pairs; "" is the main perp dex. Empty for unifiedAccount sub-accounts. */
  dexToClearinghouseState: z.array(z.tuple([z.string(), PerpClearinghouseState])),
  /** null was seen in one sample. */
  spotState: SpotClearinghouseStateResponse.nullable(),
  /** Absent in the default state; an unknown mode is kept as-is and reported once. */
  abstraction: openEnum("[].abstraction", SUB_ACCOUNT_ABSTRACTIONS).optional(),
  /** Seen beside `spotState` in one report (unconfirmed). */
  tokenToAvailableAfterMaintenance: z.array(TokenDecimalPair).optional(),
});
export type SubAccount = z.output<typeof SubAccount>;

/** `null` when the user has no sub-accounts. */
export const SubAccounts2Response = z.array(SubAccount).nullable();
export type SubAccounts2Response = z.output<typeof SubAccounts2Response>;

export const subAccounts2Weight = infoRequestWeight("subAccounts2");

export const subAccounts2Method = defineInfoMethod({
  type: "subAccounts2",
  request: SubAccounts2Request,
  response: SubAccounts2Response,
  weight: subAccounts2Weight,
  endpoint: "info",
});
export type SubAccounts2Parameters = InfoParams<typeof subAccounts2Method>;

export function subAccounts2(
  transport: HttpTransport,
  params: SubAccounts2Parameters,
  signal?: AbortSignal,
): Promise<SubAccounts2Response> {
  return runInfoQuery(transport, subAccounts2Method, params, signal);
}
