// twapHistory: a user's TWAP orders with state and status (reference §3.16).
//
// Units: the wire's top-level `time` is in SECONDS (unlike every other timestamp). It is converted once,
// here: the validated entry has `timeMs` (unix milliseconds) and no `time`, so no caller can mistake
// the unit. `state.timestamp` is already milliseconds on the wire and is passed through.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { DEFAULT_PER_ITEM_WEIGHT, infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, Side, TimestampMs, UInt } from "../schemas.js";

export const TwapHistoryRequest = z.strictObject({
  type: z.literal("twapHistory"),
  user: Address,
});
export type TwapHistoryRequest = z.output<typeof TwapHistoryRequest>;

export const TWAP_STATUSES = [
  "activated",
  "finished",
  "terminated",
  "waitingForTrigger",
  "stopped",
  "error",
] as const;
export type TwapStatusName = (typeof TWAP_STATUSES)[number];

/**
 * `{status}` or `{status: "error", description}`. A status the venue adds later is accepted as a plain
 * string (a TWAP list must stay readable); "error" requires its description.
 */
export const TwapStatus = z
  .looseObject({
    status: z.string() as z.ZodType<TwapStatusName | (string & {})>,
    description: z.string().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.status === "error" && s.description === undefined) {
      ctx.addIssue({ code: "custom", path: ["description"], message: 'required when status is "error"' });
    }
  });
export type TwapStatus = z.output<typeof TwapStatus>;

export const TwapState = z.looseObject({
  coin: z.string(),
  user: AddressOut,
  side: Side,
  sz: DecimalString,
  executedSz: DecimalString,
  executedNtl: DecimalString,
  minutes: UInt,
  reduceOnly: z.boolean(),
  randomize: z.boolean(),
  /** Unix ms. */
  timestamp: TimestampMs,
  /** Trigger TWAPs only; null (or absent in older records) for plain TWAPs. */
  trigger: z.looseObject({ px: DecimalString, above: z.boolean() }).nullable().optional(),
  stopPx: DecimalString.nullable().optional(),
});
export type TwapState = z.output<typeof TwapState>;

export const TwapHistoryEntry = z
  .looseObject({
    /** Seconds on the wire; becomes `timeMs`. */
    time: UInt,
    state: TwapState,
    status: TwapStatus,
    /** Absent in older records. */
    twapId: UInt.optional(),
  })
  .transform(({ time, ...rest }) => ({ ...rest, timeMs: time * 1000 }));
export type TwapHistoryEntry = z.output<typeof TwapHistoryEntry>;

export const TwapHistoryResponse = z.array(TwapHistoryEntry);
export type TwapHistoryResponse = z.output<typeof TwapHistoryResponse>;

export const twapHistoryWeight = infoRequestWeight("twapHistory");

export const twapHistoryMethod = defineInfoMethod({
  type: "twapHistory",
  summary: "TWAP orders of a user with state and status (time converted to timeMs)",
  request: TwapHistoryRequest,
  response: TwapHistoryResponse,
  weight: twapHistoryWeight,
  perItemWeight: DEFAULT_PER_ITEM_WEIGHT,
  endpoint: "info",
});
export type TwapHistoryParameters = InfoParams<typeof twapHistoryMethod>;

export function twapHistory(
  transport: HttpTransport,
  params: TwapHistoryParameters,
  signal?: AbortSignal,
): Promise<TwapHistoryResponse> {
  return runInfoQuery(transport, twapHistoryMethod, params, signal);
}
