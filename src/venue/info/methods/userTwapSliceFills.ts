// userTwapSliceFills: fills of a user's TWAP suborders, most recent first, at most 2000. Slice fills carry
// an all-zero hash: deduplicate by `tid`. hlbot acts on a running TWAP's progress from it (readSnapshot:
// what it may still take is kept out of new orders), so `sz`, `tid` and the wrapper's `twapId` are
// checked; fields only shown are optional (`side` accepts a value other than "B" / "A", kept, reported once).
import { z } from "zod";
import { Decimal, ZERO } from "../../../lib/decimal.js";
import type { HttpTransport } from "../../transport/http.js";
import { DEFAULT_PER_ITEM_WEIGHT, infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { Address, DecimalString, HashOut, TimestampMs, UInt } from "../schemas.js";
import { openEnum } from "../tolerant.js";

export const UserTwapSliceFillsRequest = z.strictObject({
  type: z.literal("userTwapSliceFills"),
  user: Address,
});
export type UserTwapSliceFillsRequest = z.output<typeof UserTwapSliceFillsRequest>;

export const TwapSliceFill = z.looseObject({
  // Acted on: a running TWAP's progress (sz per twapId, each fill once by tid) and shown: fees since a
  // time. The rest is only ever displayed (`hlbot info`): optional, so a change in it stops nothing.
  sz: DecimalString,
  tid: UInt,
  time: TimestampMs,
  fee: DecimalString,
  feeToken: z.string(),
  coin: z.string().optional(),
  px: DecimalString.optional(),
  side: openEnum("[].fill.side", ["B", "A"]).optional(),
  startPosition: DecimalString.optional(),
  dir: z.string().optional(),
  closedPnl: DecimalString.optional(),
  hash: HashOut.optional(),
  oid: UInt.optional(),
  crossed: z.boolean().optional(),
  twapId: UInt.nullable().optional(),
  builderFee: DecimalString.optional(),
  feeTrialEscrow: DecimalString.optional(),
});
export type TwapSliceFill = z.output<typeof TwapSliceFill>;

export const UserTwapSliceFillsResponse = z.array(z.looseObject({ fill: TwapSliceFill, twapId: UInt }));
export type UserTwapSliceFillsResponse = z.output<typeof UserTwapSliceFillsResponse>;

export const userTwapSliceFillsWeight = infoRequestWeight("userTwapSliceFills");

export const userTwapSliceFillsMethod = defineInfoMethod({
  type: "userTwapSliceFills",
  request: UserTwapSliceFillsRequest,
  response: UserTwapSliceFillsResponse,
  weight: userTwapSliceFillsWeight,
  perItemWeight: DEFAULT_PER_ITEM_WEIGHT,
  endpoint: "info",
});
export type UserTwapSliceFillsParameters = InfoParams<typeof userTwapSliceFillsMethod>;

export function userTwapSliceFills(
  transport: HttpTransport,
  params: UserTwapSliceFillsParameters,
  signal?: AbortSignal,
): Promise<UserTwapSliceFillsResponse> {
  return runInfoQuery(transport, userTwapSliceFillsMethod, params, signal);
}

/** Each fill of a userTwapSliceFills answer once (the answer may repeat one: keyed by `tid`). */
function* uniqueFills(answer: UserTwapSliceFillsResponse) {
  const seen = new Set<number>();
  for (const f of answer) {
    if (seen.has(f.fill.tid)) continue;
    seen.add(f.fill.tid);
    yield f;
  }
}

/**
 * Base size each TWAP has filled, by twapId, from a userTwapSliceFills answer (each fill counted once, by
 * `tid`). twapHistory states a TWAP's executed size only at its status changes (0 while it runs), so
 * this is its progress; the answer holds the latest 2000 fills, so a long TWAP's may be short of it.
 */
export function filledByTwap(answer: UserTwapSliceFillsResponse): Map<number, Decimal> {
  const filled = new Map<number, Decimal>();
  for (const f of uniqueFills(answer))
    filled.set(f.twapId, (filled.get(f.twapId) ?? ZERO).plus(new Decimal(f.fill.sz)));
  return filled;
}

/** As filledByTwap, with the quote each TWAP's fills came to (size × price; a fill without a price adds none). */
export function progressByTwap(
  answer: UserTwapSliceFillsResponse,
): Map<number, { sz: Decimal; ntl: Decimal }> {
  const done = new Map<number, { sz: Decimal; ntl: Decimal }>();
  for (const { fill, twapId } of uniqueFills(answer)) {
    const d = done.get(twapId) ?? { sz: ZERO, ntl: ZERO };
    const sz = new Decimal(fill.sz);
    done.set(twapId, {
      sz: d.sz.plus(sz),
      ntl: d.ntl.plus(fill.px === undefined ? ZERO : sz.times(fill.px)),
    });
  }
  return done;
}
