// The ends of TWAPs this bot placed, for `hlbot once` under cron: the daemon sees a TWAP leave the running
// list and tells it (notify/daemonNotices.ts), but a cron pass lives a few seconds, and a cron user was
// never told that a DCA's TWAP finished, what it filled or at what price. Each pass asks the venue
// (twapHistory) about the TWAPs the journal says it placed that may have ended since the time up to which
// every end was settled (the journal's twap-ends cursor, moved only by a pass that read the venue), and
// the journal (twap_ends) remembers which ends were told, so each is told once.
import { Decimal } from "../lib/decimal.js";
import type { InfoClient } from "../venue/info/client.js";
import {
  latestTwapEntries,
  type TwapHistoryEntry,
  type TwapHistoryResponse,
  twapHasEnded,
} from "../venue/info/methods/twapHistory.js";
import type { CycleReport } from "./cycle.js";
import type { Journal } from "./journal.js";
import type { EndedTwap } from "./notify/events.js";
import { labelOf } from "./snapshot.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** TWAPs whose expected end is older than this are not asked about (the venue's longest TWAP is 24 h). */
export const LOOKBACK_MS = 7 * DAY_MS;
/** A TWAP the venue's history does not show a day after its expected end is given up on, untold. */
const GIVE_UP_MS = DAY_MS;

export interface EndedOwnTwap extends EndedTwap {
  /** The strategy that placed it ("manual" for `hlbot twap`). */
  strategy: string;
}

export interface TwapEndsInput {
  info: InfoClient;
  journal: Journal;
  account: string;
  /** The local clock now. */
  now: number;
  /** Ends before this were settled (twapEndsSince, read before the pass ran its cycles). */
  since: number | undefined;
  /** The pass's cycle reports: their snapshots say which TWAPs still run, their actions which started. */
  reports: ReadonlyArray<CycleReport | undefined>;
  signal?: AbortSignal;
}

/**
 * The TWAPs this bot placed that ended (finished, cancelled, in error) and were not told yet, each
 * recorded as told. One twapHistory read, and only when a TWAP may have ended: its expected end is past,
 * a snapshot of this pass no longer lists it running, or it was cancelled.
 */
export async function endedOwnTwaps(o: TwapEndsInput): Promise<EndedOwnTwap[]> {
  const out: EndedOwnTwap[] = [];
  // Up to when every end is settled after this pass: before the expected end of any TWAP not settled
  // yet (the venue still shows it running a little after its expected end, or has no record of it yet).
  let cursor = o.now;
  // Since undefined: nothing placed yet by any cycle that worked, ends count from now.
  const maybe = o.since === undefined ? [] : mayHaveEnded(o, o.since);
  if (maybe.length > 0) {
    const latest = latestByTwapId(await o.info.twapHistory({ user: o.account }, o.signal));
    // The venue names a spot TWAP's market "@107": the pair's name as the snapshot knows it
    // ("HYPE/USDC"), or as the journal remembers it when no cycle ran in this pass.
    const pairs = o.reports.findLast((r) => r !== undefined)?.snapshot.pairs;
    const remembered = new Map<string, string>();
    if (pairs === undefined)
      for (const m of o.journal.pairMemories().values()) remembered.set(m.coin, m.label);
    const label = (coin: string) =>
      pairs === undefined ? (remembered.get(coin) ?? coin) : labelOf(coin, pairs);
    for (const c of maybe) {
      const last = latest.get(c.twapId);
      if (last === undefined) {
        if (c.expectedEnd + GIVE_UP_MS < o.now)
          o.journal.markTwapEndTold(o.account, c.twapId, "not in the venue's history");
        else cursor = Math.min(cursor, c.expectedEnd - 1);
        continue;
      }
      // Running, waiting for a trigger, or a status hlbot does not know: what is left may still execute.
      if (!twapHasEnded(last)) {
        cursor = Math.min(cursor, c.expectedEnd - 1);
        continue;
      }
      o.journal.markTwapEndTold(o.account, c.twapId, last.status.status);
      out.push({ strategy: c.strategy, ...endedTwapOf(c.twapId, last, label) });
    }
  }
  o.journal.setTwapEndsCursor(o.account, cursor);
  return out;
}

/**
 * The untold TWAPs ending after `since` that may have ended: the expected end is past, the latest
 * snapshot of this pass that read the running TWAPs no longer lists it (one accepted in this pass, after
 * its cycle's snapshot was read, is not running in it yet), or the journal has a cancel of it (a
 * guard's, the kill switch's, `hlbot cancel`).
 */
function mayHaveEnded(o: TwapEndsInput, since: number): ReturnType<Journal["untoldTwaps"]> {
  const candidates = o.journal.untoldTwaps(o.account, Math.max(since, o.now - LOOKBACK_MS));
  if (candidates.length === 0) return [];
  let running: Set<number> | undefined;
  for (const report of o.reports) {
    if (!report || (report.snapshot.parts !== undefined && !report.snapshot.parts.has("twaps"))) continue;
    running = new Set(report.snapshot.twaps.flatMap((t) => (t.twapId === undefined ? [] : [t.twapId])));
  }
  for (const report of o.reports)
    for (const a of report?.actions ?? [])
      if (a.outcome === "accepted" && a.twapId !== undefined) running?.add(a.twapId);
  return candidates.filter(
    (c) =>
      c.expectedEnd <= o.now ||
      (running !== undefined && !running.has(c.twapId)) ||
      o.journal.twapCancelled(o.account, c.twapId, o.now),
  );
}

/** The latest record of each TWAP of a history that has a twapId (latestTwapEntries), by twapId. */
export function latestByTwapId(history: TwapHistoryResponse): Map<number, TwapHistoryEntry> {
  const out = new Map<number, TwapHistoryEntry>();
  for (const e of latestTwapEntries(history)) if (e.twapId !== undefined) out.set(e.twapId, e);
  return out;
}

/** What a TWAP's end record says, for its notice; `label` names its market ("HYPE/USDC" for "@107"). */
export function endedTwapOf(
  twapId: number,
  last: TwapHistoryEntry,
  label: (coin: string) => string,
): EndedTwap {
  return {
    twapId,
    coin: label(last.state.coin),
    side: last.state.side === "B" ? "buy" : "sell",
    size: new Decimal(last.state.sz),
    executedSize: new Decimal(last.state.executedSz),
    executedNotional: new Decimal(last.state.executedNtl),
    status: last.status.status,
  };
}

/** The cycles of a process that sees TWAPs end: the daemon's (its slots and watch) and `once`'s. */
const ENDS_SEEN_BY = ["run", "watch", "once"] as const;

/**
 * The time after which TWAP ends are still to be settled, read before a pass runs its cycles (and by a
 * daemon starting, for the TWAPs to follow): the journal's cursor, or the latest daemon cycle that worked
 * (a daemon sees ends itself) if later; on first use (neither), the latest cycle that worked of a daemon
 * or a cron pass (an upgrade: ends before it are not told), or none yet (−∞). Other cycles (`plan`, a manual action, a
 * rebuild, a pass whose read of the ends failed) do not move it (reviews: each made an end untold for
 * good; an accountant's trial: a `plan` run while the daemon was down hid the ends of the TWAPs it had
 * left running from the daemon started again, and from `once` after it).
 */
export function twapEndsSince(journal: Journal, account: string): number | undefined {
  const cursor = journal.twapEndsCursor(account);
  const daemon = journal.lastOkCycleStart(account, "run");
  if (cursor === undefined && daemon === undefined) {
    if (journal.lastOkCycleStart(account) === undefined) return undefined;
    // Only `plan`s and manual actions so far: no end was ever told, each TWAP they placed is still to be.
    return journal.lastOkCycleStart(account, ENDS_SEEN_BY) ?? Number.NEGATIVE_INFINITY;
  }
  return Math.max(cursor ?? Number.NEGATIVE_INFINITY, daemon ?? Number.NEGATIVE_INFINITY);
}
