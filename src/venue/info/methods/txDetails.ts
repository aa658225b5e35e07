// txDetails: one transaction by hash. An explorer query: the real venue serves it from
// the RPC host's /explorer (weight 40); with a custom base URL it goes to {base}/info like every query.
//
// Only shown (`hlbot tx`, `hlbot info txDetails`). `tx.action` is whatever action the transaction
// carried: nktkas/hyperliquid (src/api/info/_methods/txDetails.ts, ExplorerTransactionSchema) types it
// as a union of every action kind, which grows with the venue, so any object with a string `type` is
// accepted and printed as-is. `error` may also be absent.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { AddressOut, HashOut, TimestampMs, TxHash, UInt } from "../schemas.js";

export const TxDetailsRequest = z.strictObject({
  type: z.literal("txDetails"),
  hash: TxHash,
});
export type TxDetailsRequest = z.output<typeof TxDetailsRequest>;

export const TxDetailsResponse = z.looseObject({
  type: z.literal("txDetails"),
  tx: z.looseObject({
    /** The original action JSON, including its `type`. */
    action: z.looseObject({ type: z.string() }),
    block: UInt,
    /** null on success, otherwise the failure string. */
    error: z.string().nullable().optional(),
    hash: HashOut,
    time: TimestampMs,
    user: AddressOut,
  }),
});
export type TxDetailsResponse = z.output<typeof TxDetailsResponse>;

export const txDetailsWeight = infoRequestWeight("txDetails", "explorer");

/** The explorer answers failures with status 200 and `{"type":"error","message":"…"}`. */
function explorerError(raw: unknown): string | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const { type, message } = raw as { type?: unknown; message?: unknown };
  if (type !== "error") return undefined;
  return typeof message === "string" ? message : "unspecified explorer error";
}

export const txDetailsMethod = defineInfoMethod({
  type: "txDetails",
  request: TxDetailsRequest,
  response: TxDetailsResponse,
  weight: txDetailsWeight,
  endpoint: "explorer",
  errorEnvelope: explorerError,
});
export type TxDetailsParameters = InfoParams<typeof txDetailsMethod>;

export function txDetails(
  transport: HttpTransport,
  params: TxDetailsParameters,
  signal?: AbortSignal,
): Promise<TxDetailsResponse> {
  return runInfoQuery(transport, txDetailsMethod, params, signal);
}
