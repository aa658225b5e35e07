// `twapCancel` (L1-signed): stops a running TWAP. Key order `type, a, t`.
import { z } from "zod";
import type { Answer } from "../submit.js";
import {
  checkInt,
  defineL1Action,
  ExchangeResponse,
  errEnvelope,
  IssueList,
  malformed,
  type SigningKind,
} from "./common.js";

export interface TwapCancelAction {
  type: "twapCancel";
  /** Asset id. */
  a: number;
  /** The twapId returned by twapOrder. */
  t: number;
}

export interface TwapCancelParams {
  asset: number;
  twapId: number;
}

export const twapCancelSigning = "l1" as const satisfies SigningKind;

export function buildTwapCancel(p: TwapCancelParams): TwapCancelAction {
  const issues = new IssueList();
  checkInt(issues, p.asset, "asset", 0);
  checkInt(issues, p.twapId, "twapId", 0);
  issues.throwIfAny();
  return { type: "twapCancel", a: p.asset, t: p.twapId };
}

/** `"success"` or `{error}` under `response.data.status`. */
export const TwapCancelStatus = z.union([z.literal("success"), z.looseObject({ error: z.string() })]);
export type TwapCancelStatus = z.infer<typeof TwapCancelStatus>;

export const TwapCancelOk = z.looseObject({
  status: z.literal("ok"),
  response: z.looseObject({
    type: z.literal("twapCancel"),
    data: z.looseObject({ status: TwapCancelStatus }),
  }),
});
export type TwapCancelOk = z.infer<typeof TwapCancelOk>;

export const TwapCancelResponse = ExchangeResponse(TwapCancelOk);
export type TwapCancelResponse = z.infer<typeof TwapCancelResponse>;

export const TwapCancelWire: z.ZodType<TwapCancelAction> = z.object({
  type: z.literal("twapCancel"),
  a: z.number().int().nonnegative(),
  t: z.number().int().nonnegative(),
});

/** What an accepted twapCancel returns. */
export interface TwapCancelData {
  status: "success";
}

export function parseTwapCancel(body: unknown): Answer<TwapCancelData> {
  if (body === undefined) return malformed(body, "empty body");
  const err = errEnvelope(body);
  if (err) return err;
  const parsed = TwapCancelResponse.safeParse(body);
  if (!parsed.success) return malformed(body, parsed.error.issues);
  if (parsed.data.status !== "ok") return { kind: "rejected", reason: parsed.data.response };
  const status = parsed.data.response.data.status;
  if (status === "success") return { kind: "accepted", data: { status: "success" } };
  return { kind: "rejected", reason: status.error };
}

export const twapCancel = defineL1Action({
  type: "twapCancel",
  signing: twapCancelSigning,
  build: (input: TwapCancelParams) => buildTwapCancel(input),
  wire: TwapCancelWire,
  response: TwapCancelResponse,
  parse: parseTwapCancel,
});
