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
 * How long after its scheduled end a TWAP whose latest record says it runs is still taken as running:
 * the venue's final record ("finished") may be written a little after the last slice. Not a venue
 * figure (none is published): a margin, so a pair is not freed while its TWAP may still execute.
 */
export const TWAP_END_MARGIN_MS = 10 * 60_000;

/**
 * Whether the TWAP whose latest record is `entry` may still be executing at `now` (unix ms). The ended
 * statuses do not, nor does "waitingForTrigger" (not started yet).
 *
 * "activated" runs, but not past its own scheduled end (its start, or the record's time when it was
 * activated later, + `minutes`) and a margin: an answer that lacks the TWAP's final record (read before
 * the venue wrote it, or a long history the venue cut) kept a week-old 30-minute TWAP running for ever,
 * blocking its pair and holding its quote (a review). A status hlbot does not know is taken neither as
 * running nor as finished blindly: it counts as running until its scheduled end and the margin. So a
 * strategy never places a second TWAP beside one that may still run, and an old record does not block
 * the pair forever.
 */
export function twapMayBeRunning(
  entry: { status: { status: string }; state: { timestamp: number; minutes: number }; timeMs?: number },
  now: number,
): boolean {
  const status = entry.status.status;
  if (status === "waitingForTrigger" || ENDED_STATUSES.has(status)) return false;
  const started =
    status === "activated" ? Math.max(entry.state.timestamp, entry.timeMs ?? 0) : entry.state.timestamp;
  return now < started + entry.state.minutes * 60_000 + TWAP_END_MARGIN_MS;
}

/**
 * Whether the TWAP whose latest record is `entry` waits for its trigger price (a trigger TWAP placed in
 * the app or by another tool; hlbot places none): not started and without a scheduled end, it takes its
 * whole size once it fires. nktkas/hyperliquid src/api/info/_methods/twapHistory.ts: "waitingForTrigger",
 * "Awaiting the trigger price"; state.trigger {px, above}.
 */
export function twapIsWaiting(entry: { status: { status: string } }): boolean {
  return entry.status.status === "waitingForTrigger";
}

/**
 * Whether the TWAP may still trade, now or later: running (twapMayBeRunning) or waiting for its trigger.
 * What a strategy must leave its balance and its pair to (a waiting stop-loss sale taken as nothing let
 * staking stake the HYPE it needs and a rebalancer sell it too: a review against nktkas's schemas).
 */
export function twapMayTrade(
  entry: { status: { status: string }; state: { timestamp: number; minutes: number }; timeMs?: number },
  now: number,
): boolean {
  return twapIsWaiting(entry) || twapMayBeRunning(entry, now);
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
