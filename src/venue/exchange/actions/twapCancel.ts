// `twapCancel` (L1-signed.4): stops a running TWAP. Key order `type, a, t`.
import { z } from "zod";
import { checkInt, ExchangeResponse, IssueList, type SigningKind } from "./common.js";

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
