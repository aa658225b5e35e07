// `twapOrder` (L1-signed): a time-weighted order the venue slices every 30 s. The key
// order `type, twap` and `a, b, s, r, m, t` is part of the hash; the size is the venue's canonical
// decimal string, truncated (never rounded up) to the asset's szDecimals.
import { z } from "zod";
import { type Decimal, parseDecimal, toWireDecimal, truncateDecimals } from "../../../lib/decimal.js";
import { TWAP_MIN_MINUTES } from "../../constants.js";
import type { Answer } from "../submit.js";
import {
  checkBool,
  checkInt,
  defineL1Action,
  ExchangeResponse,
  errEnvelope,
  IssueList,
  malformed,
  type SigningKind,
} from "./common.js";

export interface TwapOrderAction {
  type: "twapOrder";
  twap: {
    /** Asset id (spot: 10000 + the pair's index). */
    a: number;
    /** true = buy. */
    b: boolean;
    /** Total size in base units, canonical decimal string. */
    s: string;
    /** Reduce-only. */
    r: boolean;
    /** Duration in minutes. */
    m: number;
    /** Randomise timing and slice sizes. */
    t: boolean;
  };
}

export interface TwapOrderParams {
  asset: number;
  isBuy: boolean;
  size: Decimal | string;
  /** The asset's size precision; the size is truncated to it. */
  szDecimals: number;
  reduceOnly?: boolean;
  minutes: number;
  randomize?: boolean;
  /** Upper bound on `minutes` when the caller wants one (the venue's maximum is unconfirmed). */
  maxMinutes?: number;
}

export const twapOrderSigning = "l1" as const satisfies SigningKind;
export { TWAP_MIN_MINUTES };

export function buildTwapOrder(p: TwapOrderParams): TwapOrderAction {
  const issues = new IssueList();
  checkInt(issues, p.asset, "asset", 0);
  checkBool(issues, p.isBuy, "isBuy");
  checkInt(issues, p.szDecimals, "szDecimals", 0);
  checkInt(issues, p.minutes, "minutes", TWAP_MIN_MINUTES);
  if (p.maxMinutes !== undefined && typeof p.minutes === "number" && p.minutes > p.maxMinutes) {
    issues.add("minutes", `must be at most ${p.maxMinutes}, got ${p.minutes}`);
  }
  const reduceOnly = p.reduceOnly ?? false;
  const randomize = p.randomize ?? false;
  checkBool(issues, reduceOnly, "reduceOnly");
  checkBool(issues, randomize, "randomize");
  let s = "0";
  const size = issues.check(() => parseDecimal(p.size, "size"));
  if (size && Number.isSafeInteger(p.szDecimals) && p.szDecimals >= 0) {
    const truncated = truncateDecimals(size, p.szDecimals);
    if (truncated.lte(0)) {
      issues.add(
        "size",
        size.lte(0)
          ? `must be positive, got ${toWireDecimal(size)}`
          : `${toWireDecimal(size)} truncates to 0 at ${p.szDecimals} decimal places`,
      );
    }
    s = toWireDecimal(truncated);
  }
  issues.throwIfAny();
  return {
    type: "twapOrder",
    twap: { a: p.asset, b: p.isBuy, s, r: reduceOnly, m: p.minutes, t: randomize },
  };
}

/** `{status:{running:{twapId}}}` or `{status:{error}}` under `response.data`. */
export const TwapOrderStatus = z.union([
  z.looseObject({ running: z.looseObject({ twapId: z.number().int().nonnegative() }) }),
  z.looseObject({ error: z.string() }),
]);
export type TwapOrderStatus = z.infer<typeof TwapOrderStatus>;

export const TwapOrderOk = z.looseObject({
  status: z.literal("ok"),
  response: z.looseObject({
    type: z.literal("twapOrder"),
    data: z.looseObject({ status: TwapOrderStatus }),
  }),
});
export type TwapOrderOk = z.infer<typeof TwapOrderOk>;

export const TwapOrderResponse = ExchangeResponse(TwapOrderOk);
export type TwapOrderResponse = z.infer<typeof TwapOrderResponse>;

export const TwapOrderWire: z.ZodType<TwapOrderAction> = z.object({
  type: z.literal("twapOrder"),
  twap: z.object({
    a: z.number().int().nonnegative(),
    b: z.boolean(),
    s: z.string().regex(/^\d+(\.\d+)?$/, "expected a decimal size"),
    r: z.boolean(),
    m: z.number().int().nonnegative(),
    t: z.boolean(),
  }),
});

/** What an accepted twapOrder returns. */
export interface TwapOrderData {
  twapId: number;
}

export function parseTwapOrder(body: unknown): Answer<TwapOrderData> {
  if (body === undefined) return malformed(body, "empty body");
  const err = errEnvelope(body);
  if (err) return err;
  const parsed = TwapOrderResponse.safeParse(body);
  if (!parsed.success) return malformed(body, parsed.error.issues);
  if (parsed.data.status !== "ok") return { kind: "rejected", reason: parsed.data.response };
  // Validated by the schema as one of the two variants; zod's loose objects just type them widely.
  const status = parsed.data.response.data.status as { running: { twapId: number } } | { error: string };
  if ("running" in status) return { kind: "accepted", data: { twapId: status.running.twapId } };
  return { kind: "rejected", reason: status.error };
}

export const twapOrder = defineL1Action({
  type: "twapOrder",
  signing: twapOrderSigning,
  // The client's bound applies unless the call names its own.
  build: (input: TwapOrderParams, env) => buildTwapOrder({ maxMinutes: env.twapMaxMinutes, ...input }),
  wire: TwapOrderWire,
  response: TwapOrderResponse,
  parse: parseTwapOrder,
});
