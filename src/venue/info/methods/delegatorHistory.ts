// delegatorHistory: a user's staking events, newest first. Rewards are not in it.
//
// Strict where the reconciler acts: the fields of the three known deltas (amounts, validator,
// direction). Tolerant: a delta kind hlbot does not know (kept, reported once, never matched) and a
// withdrawal `phase` other than "initiated" / "finalized" (kept, reported once; the reconciler only
// matches "initiated"). Shapes: docs "Query a user's staking history", nktkas/hyperliquid
// src/api/info/_methods/delegatorHistory.ts, and the Python SDK's recorded mainnet answer
// (tests/cassettes/info_test/test_delegator_history.yaml).
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { DEFAULT_PER_ITEM_WEIGHT, infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, HashOut, TimestampMs } from "../schemas.js";
import { noteUnknownKeys, openEnum } from "../tolerant.js";

export const DELEGATOR_DELTA_KINDS = ["delegate", "cDeposit", "withdrawal"] as const;
export const WITHDRAWAL_PHASES = ["initiated", "finalized"] as const;

export const DelegatorHistoryRequest = z.strictObject({
  type: z.literal("delegatorHistory"),
  user: Address,
});
export type DelegatorHistoryRequest = z.output<typeof DelegatorHistoryRequest>;

/**
 * The change an event made. Exactly one known key is normally present: `delegate` (both directions),
 * `cDeposit` or `withdrawal`. Unknown keys are kept and ignored, so a new kind
 * of event does not break the whole history. Amounts are HYPE decimal strings, not wei.
 */
export const DelegatorDelta = z
  .looseObject({
    delegate: z
      .looseObject({ validator: AddressOut, amount: DecimalString, isUndelegate: z.boolean() })
      .optional(),
    cDeposit: z.looseObject({ amount: DecimalString }).optional(),
    withdrawal: z
      .looseObject({ amount: DecimalString, phase: openEnum("[].delta.withdrawal.phase", WITHDRAWAL_PHASES) })
      .optional(),
  })
  .transform((delta) => {
    noteUnknownKeys("[].delta kind", DELEGATOR_DELTA_KINDS, delta);
    return delta;
  });
export type DelegatorDelta = z.output<typeof DelegatorDelta>;

export const DelegatorHistoryResponse = z.array(
  z.looseObject({
    time: TimestampMs,
    hash: HashOut,
    delta: DelegatorDelta,
  }),
);
export type DelegatorHistoryResponse = z.output<typeof DelegatorHistoryResponse>;

export const delegatorHistoryWeight = infoRequestWeight("delegatorHistory");

export const delegatorHistoryMethod = defineInfoMethod({
  type: "delegatorHistory",
  request: DelegatorHistoryRequest,
  response: DelegatorHistoryResponse,
  weight: delegatorHistoryWeight,
  perItemWeight: DEFAULT_PER_ITEM_WEIGHT,
  endpoint: "info",
});
export type DelegatorHistoryParameters = InfoParams<typeof delegatorHistoryMethod>;

export function delegatorHistory(
  transport: HttpTransport,
  params: DelegatorHistoryParameters,
  signal?: AbortSignal,
): Promise<DelegatorHistoryResponse> {
  return runInfoQuery(transport, delegatorHistoryMethod, params, signal);
}
