// twapHistory: a user's TWAP orders with state and status.
//
// Units: the wire's top-level `time` is in SECONDS (unlike every other timestamp). It is converted once,
// here: the validated entry has `timeMs` (unix milliseconds) and no `time`, so no caller can mistake
// the unit. `state.timestamp` is already milliseconds on the wire and is passed through.
//
// Strict: the TWAP state hlbot acts on (coin, side, sizes, minutes, timestamps). Tolerant: `status`,
// an open set. nktkas/hyperliquid (src/api/info/_methods/twapHistory.ts) knows "activated",
// "finished", "terminated" and "error" (with a description); answers seen for trigger TWAPs add
// "waitingForTrigger" and "stopped" for trigger TWAPs. Any other status is kept, reported once, and
// decided by `twapMayBeRunning`.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { DEFAULT_PER_ITEM_WEIGHT, infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, perAnswer, runInfoQuery } from "../query.js";
import { Address, AddressOut, DecimalString, Side, TimestampMs, UInt } from "../schemas.js";
import { openEnum } from "../tolerant.js";

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

/**
 * `{status}` or `{status: "error", description}`. A status the venue adds later is kept as a plain
 * string (a TWAP list must stay readable). The description is only shown, so an "error" without one
 * is accepted too.
 */
export const TwapStatus = z.looseObject({
  status: openEnum("[].status.status", TWAP_STATUSES),
  description: z.string().optional(),
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

/** Statuses after which a TWAP no longer executes. */
const ENDED_STATUSES: ReadonlySet<string> = new Set(["finished", "terminated", "stopped", "error"]);

/**
 * Whether the TWAP whose latest record is `entry` has ended for good (finished, terminated, stopped, or
 * refused with an error): what it executed is all it will. "activated", "waitingForTrigger" and a
 * status hlbot does not know are not ended (what is left of them may still execute).
 */
export function twapHasEnded(entry: { status: { status: string } }): boolean {
  return ENDED_STATUSES.has(entry.status.status);
}

/**
 * Whether the TWAP whose latest record is `entry` may still be executing at `now` (unix ms).
 * "activated" runs; the ended statuses do not, nor does "waitingForTrigger" (not started yet).
 *
 * A status hlbot does not know is taken neither as running nor as finished blindly: the TWAP counts
 * as running until its own scheduled end (`state.timestamp` + `minutes`), after which it cannot be
 * executing any more. So a strategy never places a second TWAP beside one that may still run, and an
 * old record with a new status word does not block the pair forever.
 */
export function twapMayBeRunning(
  entry: { status: { status: string }; state: { timestamp: number; minutes: number } },
  now: number,
): boolean {
  const status = entry.status.status;
  if (status === "activated") return true;
  if (status === "waitingForTrigger" || ENDED_STATUSES.has(status)) return false;
  return now < entry.state.timestamp + entry.state.minutes * 60_000;
}

/**
 * The latest record of each TWAP in a history (which holds a record per status change), kept per answer
 * object. A record without a twapId (older ones) is its own TWAP, by start time and coin.
 */
export const latestTwapEntries = perAnswer((history: TwapHistoryResponse): readonly TwapHistoryEntry[] => {
  const latest = new Map<string, TwapHistoryEntry>();
  for (const entry of history) {
    const key =
      entry.twapId === undefined ? `t${entry.state.timestamp}:${entry.state.coin}` : `id${entry.twapId}`;
    const seen = latest.get(key);
    if (seen === undefined || supersedes(entry, seen)) latest.set(key, entry);
  }
  return [...latest.values()];
});

/**
 * Whether `entry` is a later record of its TWAP than `seen`. Times are whole seconds, so two records of
 * one TWAP can share one (cancelled, or triggered, in the second it started): of those the later in its
 * life is the later (waiting for its trigger, then running or a status hlbot does not know, then
 * ended), whatever order the venue lists them in; within one stage, the one listed last.
 */
function supersedes(entry: TwapHistoryEntry, seen: TwapHistoryEntry): boolean {
  if (entry.timeMs !== seen.timeMs) return entry.timeMs > seen.timeMs;
  return lifeStage(entry) >= lifeStage(seen);
}

function lifeStage(entry: TwapHistoryEntry): number {
  if (twapHasEnded(entry)) return 2;
  return entry.status.status === "waitingForTrigger" ? 0 : 1;
}

export const twapHistoryWeight = infoRequestWeight("twapHistory");

export const twapHistoryMethod = defineInfoMethod({
  type: "twapHistory",
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
