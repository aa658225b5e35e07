// The journal: hlbot's memory of what it decided and what it sent, in the SQLite state database.
// Invariant: a submission row is written (status `pending`, with the exact signed body) BEFORE the body
// leaves the process, and every answer is recorded after. On restart, anything still `pending` or
// `unknown` is reconciled against the venue before its strategy may act again. Never holds a key.
import type { Database, Statement } from "better-sqlite3";
import { Decimal, fromWei, ZERO } from "../lib/decimal.js";
import { ValidationError } from "../lib/errors.js";
import { parseJson } from "../lib/json.js";
import { redact, redactKeys } from "../lib/secrets.js";
import { applyMigrations, type Migration, openStateDb, recordSubmissionMark } from "../lib/stateDb.js";
import { HYPE_WEI_DECIMALS } from "../venue/constants.js";
import { NEVER_PROCESSED_ATTEMPTS } from "../venue/exchange/refusals.js";
import { twapRecordKey } from "./intentKinds.js";
import { MANUAL_STRATEGY } from "./intents.js";
import type { NotificationAttempt } from "./notify/notifier.js";
import type { PairMemory } from "./priceSanity.js";
import type { SlotState } from "./schedule.js";
import type { OwnStakingMove, OwnWithdrawal } from "./snapshot.js";

export const JOURNAL_MIGRATIONS: readonly Migration[] = [
  {
    id: "journal-001",
    sql: `
      CREATE TABLE IF NOT EXISTS cycles (
        id TEXT PRIMARY KEY,
        trigger TEXT NOT NULL,
        mode TEXT NOT NULL,
        account TEXT NOT NULL,
        strategies TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        status TEXT NOT NULL DEFAULT 'running',
        error TEXT,
        snapshot TEXT
      );
      CREATE INDEX IF NOT EXISTS cycles_started ON cycles(started_at);
      CREATE TABLE IF NOT EXISTS decisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        cycle_id TEXT NOT NULL REFERENCES cycles(id),
        strategy TEXT NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL,
        guard TEXT NOT NULL,
        guard_reason TEXT,
        intent TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS decisions_cycle ON decisions(cycle_id);
      CREATE TABLE IF NOT EXISTS submissions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        cycle_id TEXT NOT NULL REFERENCES cycles(id),
        decision_id INTEGER REFERENCES decisions(id),
        strategy TEXT NOT NULL,
        account TEXT NOT NULL,
        signer TEXT NOT NULL,
        action_type TEXT NOT NULL,
        nonce INTEGER NOT NULL,
        expires_after INTEGER,
        vault TEXT,
        request TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        result TEXT,
        notional_usd TEXT,
        stake_move TEXT,
        asset INTEGER,
        twap_id INTEGER,
        expected_end INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS submissions_status ON submissions(account, status);
      CREATE INDEX IF NOT EXISTS submissions_strategy ON submissions(strategy, status);
      CREATE TABLE IF NOT EXISTS attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        submission_id INTEGER NOT NULL REFERENCES submissions(id),
        at INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        detail TEXT
      );
    `,
  },
  {
    // What earlier cycles saw of each pair (priceSanity.ts): its identity, so a changed asset id is
    // caught, and its last sane mid, so a price cannot jump between cycles unnoticed.
    id: "journal-002-pairs",
    sql: `
      CREATE TABLE IF NOT EXISTS pair_memory (
        label TEXT PRIMARY KEY,
        coin TEXT NOT NULL,
        asset_id INTEGER NOT NULL,
        base_token_id TEXT NOT NULL,
        quote_token_id TEXT NOT NULL,
        mid TEXT,
        mid_at INTEGER,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    // The scheduler's memory (src/engine/scheduler.ts): per account and strategy, the latest cron slot
    // settled (acted in, or reported missed) and when hlbot first saw the strategy.
    id: "journal-003-schedule-slots",
    sql: `
      CREATE TABLE IF NOT EXISTS schedule_slots (
        account TEXT NOT NULL,
        strategy TEXT NOT NULL,
        first_seen INTEGER NOT NULL,
        last_slot INTEGER,
        last_outcome TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (account, strategy)
      );
    `,
  },
  {
    // Every notification send attempt (src/engine/notify/notifier.ts): what went where and what came back.
    id: "journal-004-notifications",
    sql: `
      CREATE TABLE IF NOT EXISTS notifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time INTEGER NOT NULL,
        channel TEXT NOT NULL,
        event TEXT NOT NULL,
        title TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        status INTEGER,
        detail TEXT
      );
    `,
  },
  {
    // Every cycle asks for the last 24 h of submissions (limits) and for TWAPs still running (the watch):
    // without these, each is a scan of every accepted submission the account ever made.
    id: "journal-005-submission-times",
    sql: `
      CREATE INDEX IF NOT EXISTS submissions_created ON submissions(account, created_at);
      CREATE INDEX IF NOT EXISTS submissions_expected_end ON submissions(account, expected_end);
    `,
  },
  {
    // The venue's time when a submission was written (its clock from the Date headers, when known):
    // the bot's own staking moves are matched to the venue's history by it, whatever the local clock
    // did since (created_at is the local clock's).
    id: "journal-006-venue-time",
    sql: "ALTER TABLE submissions ADD COLUMN venue_at INTEGER;",
  },
  {
    // One-time work done on a journal, by name (markLegacyDcas).
    id: "journal-007-flags",
    sql: "CREATE TABLE IF NOT EXISTS journal_flags (name TEXT PRIMARY KEY) STRICT;",
  },
  {
    // The cron expression a slot was settled under: an edited schedule measures the run it already made
    // against both periods (slotVerdict).
    id: "journal-008-slot-schedule",
    sql: "ALTER TABLE schedule_slots ADD COLUMN schedule TEXT;",
  },
  {
    // Lookups every cycle makes that grow with the account's history: whether a venue TWAP is the
    // journal's (each TWAP on a budgeted market, each cycle), a strategy's TWAP submissions (budgets) and
    // its latest one (refused orders). Without them a year of hourly TWAPs made each cycle scan the
    // submissions once per TWAP in the venue's history (a long-run trial).
    id: "journal-009-history-lookups",
    sql: `
      CREATE INDEX IF NOT EXISTS submissions_twap_id ON submissions(account, twap_id) WHERE twap_id IS NOT NULL;
      CREATE INDEX IF NOT EXISTS submissions_reason ON submissions(account, reason);
      CREATE INDEX IF NOT EXISTS submissions_strategy_action ON submissions(strategy, action_type, id);
    `,
  },
  {
    // TWAPs whose end (finished, cancelled) was told to the owner, so that `once` under cron tells each
    // once (twapEnds.ts) and a daemon that follows does not tell it again.
    id: "journal-010-twap-ends",
    sql: `
      CREATE TABLE IF NOT EXISTS twap_ends (
        account TEXT NOT NULL,
        twap_id INTEGER NOT NULL,
        status TEXT NOT NULL,
        told_at INTEGER NOT NULL,
        PRIMARY KEY (account, twap_id)
      );
    `,
  },
  {
    // Per account, the time up to which every end of the bot's TWAPs was settled (told, or given up on)
    // by `once`: the next pass asks about TWAPs ending after it (twapEnds.ts).
    id: "journal-011-twap-end-cursor",
    sql: "CREATE TABLE IF NOT EXISTS twap_end_cursors (account TEXT PRIMARY KEY, at INTEGER NOT NULL);",
  },
  {
    // The account and network a state folder belongs to (stateDb.ts claimStateAccount, claimStateNetwork),
    // as a migration: an older hlbot refuses a folder with it ("written by a newer version") instead of
    // letting a bot of another account share it, and its kill switch, again (an upgrade trial: HEAD~50
    // opened such a folder for another account without a word).
    id: "journal-012-state-owner",
    sql: `CREATE TABLE IF NOT EXISTS state_account (account TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS state_network (network TEXT NOT NULL);`,
  },
];

/**
 * pending: written, maybe sent. accepted/rejected: the venue answered. unknown: sent, answer lost.
 * landed/absent: an unknown or pending submission reconciled against venue state.
 */
export type SubmissionStatus = "pending" | "accepted" | "rejected" | "unknown" | "landed" | "absent";
/** Statuses whose effect must be counted against limits (fail closed: unknown counts as spent). */
const COUNTED: readonly SubmissionStatus[] = ["pending", "accepted", "unknown", "landed"];

/** A strategy's counted TWAP submission, with its decision's USD price of the quote. */
export interface CountedTwapRow {
  twapId: number | null;
  notionalUsd: string | null;
  quoteUsd: string | null;
  createdAt: number;
}

/** A strategy's counted TWAP submissions (parameters: the strategy, then COUNTED), to be ordered. */
const COUNTED_TWAPS = `SELECT s.twap_id AS twapId, s.notional_usd AS notionalUsd, s.created_at AS createdAt,
       json_extract(d.intent, '$.quoteUsd') AS quoteUsd
  FROM submissions s LEFT JOIN decisions d ON d.id = s.decision_id
  WHERE s.strategy = ? AND s.action_type = 'twapOrder' AND s.status IN (${COUNTED.map(() => "?").join(", ")})`;

export type Guard = "allowed" | "reduced" | "blocked" | "skipped";

/** What the venue reports about one TWAP, for budgets: whether it ended and what it filled. */
export interface TwapFill {
  ended: boolean;
  /** Executed notional, in the pair's quote. */
  executedNtl: Decimal;
  /** USD per quote unit now (undefined: no USD price), for rows that journaled none of their own. */
  quoteUsdNow: Decimal | undefined;
}

/**
 * What a TWAP filled, in USD: its executed notional at the quote's USD price when it was decided (the
 * decision's `quoteUsd`), so a budget paid in HYPE does not shrink as HYPE falls and buy again (a trial's
 * DCA spent 12,600 USD of a 9,000 budget); at today's price for a row with none (imported by `journal
 * rebuild`, or a decision without it). Undefined when neither is known.
 */
export function filledUsd(fill: TwapFill, quoteUsdThen: string | null | undefined): Decimal | undefined {
  const rate = quoteUsdThen ? new Decimal(quoteUsdThen) : fill.quoteUsdNow;
  if (rate === undefined) return undefined;
  return rate.eq(1) ? fill.executedNtl : fill.executedNtl.times(rate);
}

export interface SubmissionRow {
  id: number;
  cycleId: string;
  strategy: string;
  account: string;
  signer: string;
  actionType: string;
  nonce: number;
  expiresAfter: number | null;
  vault: string | null;
  request: string;
  status: SubmissionStatus;
  reason: string | null;
  result: string | null;
  notionalUsd: string | null;
  stakeMove: string | null;
  asset: number | null;
  twapId: number | null;
  expectedEnd: number | null;
  createdAt: number;
  updatedAt: number;
  /** The venue's time when it was written (its clock from the Date headers), when known. */
  venueAt?: number | null;
}

export interface CycleRow {
  id: string;
  trigger: string;
  mode: string;
  account: string;
  strategies: string;
  startedAt: number;
  finishedAt: number | null;
  status: string;
  error: string | null;
}

/** What the executor knows when it writes a submission, before sending it (`request`: the exact body). */
export type PendingSubmission = Pick<
  SubmissionRow,
  | "cycleId"
  | "strategy"
  | "account"
  | "signer"
  | "actionType"
  | "nonce"
  | "expiresAfter"
  | "vault"
  | "request"
> & {
  decisionId: number | null;
  notionalUsd?: Decimal;
  stakeMove?: Decimal;
  asset?: number;
  /** The venue's time now (its clock from the Date headers), when known. */
  venueAt?: number | undefined;
  /**
   * The daily limits, checked again against the journal in the transaction that writes the row, so
   * another process's order written since this one was checked (a manual `twap` typed during a daemon's
   * cycle) cannot take the day past them together: refused with DayLimitRaceError, nothing written.
   */
  dayCap?: DayCap;
};

/** Daily limits as the executor re-checks them when it writes a submission (PendingSubmission.dayCap). */
export interface DayCap {
  sinceMs: number;
  maxNotionalUsd: Decimal;
  maxStakeMove: Decimal;
  fills?: ReadonlyMap<number, TwapFill>;
}

/** A submission the journal refused to write: with rows written since it was checked, a day's limit would be passed. */
export class DayLimitRaceError extends ValidationError {}

/** Structured data as a journal column: keys redacted, nothing else (secrets.ts, redactKeys). */
function text(value: unknown): string {
  return redactKeys(typeof value === "string" ? value : JSON.stringify(value));
}

/** A refused TWAP's row, as a venue minimum is learnt from it. */
export type RefusedTwapRow = Pick<SubmissionRow, "account" | "actionType" | "status" | "reason">;

const SUBMISSION_COLUMNS = `id, cycle_id AS cycleId, strategy, account, signer, action_type AS actionType, nonce,
  expires_after AS expiresAfter, vault, request, status, reason, result, notional_usd AS notionalUsd,
  stake_move AS stakeMove, asset, twap_id AS twapId, expected_end AS expectedEnd, created_at AS createdAt,
  updated_at AS updatedAt, venue_at AS venueAt`;

export { MANUAL_STRATEGY };
/** Name of `hlbot journal rebuild`'s rows no configured strategy owned (the venue does not say who). */
export const VENUE_HISTORY_STRATEGY = "(venue history)";

/** A journaled decision with its cycle's time and trigger (`recentDecisions`). */
export interface DecisionRow {
  id: number;
  cycleId: string;
  at: number;
  trigger: string;
  strategy: string;
  kind: string;
  reason: string;
  guard: Guard;
  guardReason: string | null;
}

const REBUILT_PREFIX = "rebuilt from the venue: ";
/** A decision row of a strategy that failed its run (a skip kept with `failed`: it threw, or was held). */
const FAILED_RUN = "kind = 'skip' AND json_extract(intent, '$.failed') = 1";
/** How long a twapCancel without expiresAfter and without an answer counts as done before the watch may send another. */
export const UNANSWERED_CANCEL_WAIT_MS = 60_000;
// Asked every cycle: the texts are made once (a statement is looked up by its text).
const UNRESOLVED = `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE status IN ('pending', 'unknown') ORDER BY id`;
const UNRESOLVED_OF_ACCOUNT = `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE status IN ('pending', 'unknown')
  AND account = ? ORDER BY id`;
const PAIR_MEMORY = `SELECT label, coin, asset_id AS assetId, base_token_id AS baseTokenId,
  quote_token_id AS quoteTokenId, mid, mid_at AS midAt FROM pair_memory`;
/** Rows of pair memory written per statement (8 parameters each, far below SQLite's limit). */
const PAIRS_PER_STATEMENT = 32;
const pairUpserts: string[] = [];

/** The upsert of `rows` pair memory rows (its text made once per row count). */
function pairUpsert(rows: number): string {
  pairUpserts[rows] ??=
    `INSERT INTO pair_memory (label, coin, asset_id, base_token_id, quote_token_id, mid, mid_at, updated_at)
     VALUES ${Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?, ?, ?)").join(", ")}
   ON CONFLICT(label) DO UPDATE SET coin = excluded.coin, asset_id = excluded.asset_id,
     base_token_id = excluded.base_token_id, quote_token_id = excluded.quote_token_id, mid = excluded.mid,
     mid_at = excluded.mid_at, updated_at = excluded.updated_at`;
  return pairUpserts[rows];
}

/**
 * The venue record a row of `hlbot journal rebuild` was made from (its key, see importVenueRecord), or
 * undefined for a row the bot signed itself. A rebuilt row's request is that record, not a request body.
 */
export function rebuiltRecordKey(row: Pick<SubmissionRow, "reason">): string | undefined {
  return row.reason?.startsWith(REBUILT_PREFIX) ? row.reason.slice(REBUILT_PREFIX.length) : undefined;
}

/**
 * What one counted TWAP submission spent of a budget: an ended TWAP what it filled (the venue's executed
 * notional), any other its full notional (fail closed).
 */
export function countedUsd(
  r: { twapId: number | null; notionalUsd: string | null; quoteUsd: string | null },
  fills: ReadonlyMap<number, TwapFill> | undefined,
): Decimal {
  const fill = r.twapId === null ? undefined : fills?.get(r.twapId);
  const filled = fill?.ended ? filledUsd(fill, r.quoteUsd) : undefined;
  if (filled !== undefined) return filled;
  return r.notionalUsd ? new Decimal(r.notionalUsd) : ZERO;
}

/** A TWAP submission a budget may count (Journal.budgetCandidates). */
export interface BudgetCandidate {
  id: number;
  strategy: string;
  twapId: number | null;
  notionalUsd: string | null;
  /** USD per quote unit when it was decided (its decision's), null without one. */
  quoteUsd: string | null;
  rebuilt: number;
  byDca: number | null;
  asset: number | null;
  isBuy: number | null;
  recordCoin: string | null;
  recordSide: string | null;
}

/** NEVER_PROCESSED_ATTEMPTS as an SQL list (constant strings of submit.ts). */
const UNPROCESSED_ATTEMPTS = [...NEVER_PROCESSED_ATTEMPTS].map((o) => `'${o}'`).join(", ");

/** How a netted decision's intent reads in the journal (Skip.netted), for a cheap first filter. */
const NETTED_MARK = '"netted":{';
/** How often a journal with `keepMs` prunes (Journal.prune). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export class Journal {
  /** Strategies with a netted decision in the journal (nettedUsd), read once, kept up as they are written. */
  private nettedStrategies: Set<string> | undefined;
  // Statements are compiled once: preparing costs more than running most of them, and a cycle of a large
  // account writes dozens of rows. Keyed by SQL text, which comes only from the fixed set in this file.
  private readonly statements = new Map<string, Statement>();
  // One transaction function, made once: better-sqlite3 builds five wrappers and defines their
  // properties each time `transaction` is called, which cost more than the rows a cycle's batch writes.
  private readonly runInTransaction: (fn: () => unknown) => unknown;
  /** No cycle and no submission when opened: a new state folder (or journal) for its account. */
  private freshNotice: boolean;
  /**
   * Whether each submission is also written to the state folder's mark file (recordSubmissionMark), which
   * outlives a lost write-ahead log. A throw-away journal (a simulation's, deleted at its end) turns it
   * off: a file write and rename per submission guard nothing there.
   */
  markSubmissions = true;
  private readonly beganAt = new Map<string, number>();
  /** Writes to `submissions` through this connection (recentRefusedTwaps' cache key). */
  private submissionWrites = 0;
  private refusedTwaps: { key: string; rows: RefusedTwapRow[] } | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {
    applyMigrations(db, JOURNAL_MIGRATIONS);
    this.runInTransaction = db.transaction((fn: () => unknown) => fn());
    const rows = db
      // A cycle that failed before it read anything (no snapshot: a pass the venue did not answer) says
      // nothing of the account: such rows leave the journal "empty" for this notice.
      .prepare(
        "SELECT (SELECT COUNT(*) FROM cycles WHERE snapshot IS NOT NULL) + (SELECT COUNT(*) FROM submissions) AS n",
      )
      .get() as { n: number };
    this.freshNotice = rows.n === 0;
  }

  /**
   * True once, for a journal that was empty when opened: the caller may say that what the venue shows of
   * the account (an earlier state folder's, another instance's) is not in it.
   */
  takeFreshNotice(): boolean {
    const fresh = this.freshNotice;
    this.freshNotice = false;
    return fresh;
  }

  private sql(text: string): Statement {
    let statement = this.statements.get(text);
    if (statement === undefined) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /**
   * Runs `fn` in one transaction: its writes commit together, with one sync instead of one per row
   * (a cycle's informational skip and block records; each row otherwise costs an fsync).
   */
  batch<T>(fn: () => T): T {
    return this.runInTransaction(fn) as T;
  }

  startCycle(c: { id: string; trigger: string; mode: string; account: string; strategies: string[] }): void {
    this.sql(
      "INSERT INTO cycles (id, trigger, mode, account, strategies, started_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(c.id, c.trigger, c.mode, c.account, JSON.stringify(c.strategies), this.clock());
  }

  /**
   * A run that failed before its cycle began (the venue did not answer the first reads): still one
   * cycle row, failed, so `hlbot history` shows the gap and what caused it.
   */
  recordUnstartedCycle(
    c: { id: string; trigger: string; mode: string; account: string; strategies: string[] },
    error: string,
  ): void {
    this.startCycle(c);
    this.finishCycle(c.id, "failed", error);
  }

  /**
   * How many of the latest cycles of `trigger` failed in a row (0 when the latest did not); with
   * `strategy`, of the cycles that ran it (a pass runs several cycles: another strategy's working one
   * says nothing of this one's failures).
   */
  failedInARow(
    trigger: string,
    strategy?: string,
    limit = 1_000,
    /** Count the strategy's failed runs in cycles that ran (it threw, or was held); false: failed cycles only. */
    runsToo = true,
  ): number {
    const rows = this.sql(
      `SELECT id, status, strategies FROM cycles WHERE trigger = ? AND started_at >= ?
         ORDER BY started_at DESC, rowid DESC LIMIT ?`,
    ).all(trigger, this.keptSince(), limit) as Array<{ id: string; status: string; strategies: string }>;
    let n = 0;
    for (const row of rows) {
      if (strategy !== undefined && !(JSON.parse(row.strategies) as string[]).includes(strategy)) continue;
      // A strategy that threw while deciding, or was held (the clock), failed its run in a cycle that ran
      // (a cron user's notify said nothing of a DCA failing every pass).
      if (
        row.status !== "failed" &&
        (strategy === undefined || !runsToo || !this.strategyFailedIn(row.id, strategy))
      )
        break;
      n++;
    }
    return n;
  }

  /** Whether `strategy` failed its run in the cycle (a decision kept with `failed`: it threw, or was held). */
  strategyFailedIn(cycleId: string, strategy: string): boolean {
    return (
      this.sql(`SELECT 1 FROM decisions WHERE cycle_id = ? AND strategy = ? AND ${FAILED_RUN} LIMIT 1`).get(
        cycleId,
        strategy,
      ) !== undefined
    );
  }

  recordSnapshot(cycleId: string, summary: unknown): void {
    this.sql("UPDATE cycles SET snapshot = ? WHERE id = ?").run(text(summary), cycleId);
  }

  finishCycle(cycleId: string, status: "ok" | "failed", error?: string): void {
    this.sql("UPDATE cycles SET status = ?, error = ?, finished_at = ? WHERE id = ?").run(
      status,
      error === undefined ? null : redact(error),
      this.clock(),
      cycleId,
    );
    this.pruneIfDue();
  }

  /**
   * How long cycles and decisions are kept (config `journal.keepDays`; undefined: for ever). Set by the
   * runtime; a finished cycle prunes what is older, at most once an hour (PRUNE_EVERY_MS).
   */
  keepMs: number | undefined;
  private prunedAt: number | undefined;

  /**
   * From when the journal holds every cycle (keepMs: older ones may be pruned; for ever: the start). A
   * streak read across pruned cycles would join runs that were apart (a review: a refusal 20 days after
   * another, a cycle in band between them pruned, was counted the second of a streak and went untold).
   */
  private keptSince(): number {
    return this.keepMs === undefined ? Number.MIN_SAFE_INTEGER : this.clock() - this.keepMs;
  }

  private pruneIfDue(): void {
    if (this.keepMs === undefined) return;
    const now = this.clock();
    if (this.prunedAt !== undefined && now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.prune(now - this.keepMs);
  }

  /**
   * Deletes what only tells the past, from before `before` (unix ms): the cycles' rows and their
   * decisions (a per-minute strategy writes about 500 MB of them a year), and notification attempts.
   * Kept whatever their age, because something still reads them: every submission and attempt (limits,
   * budgets, reconciliation, TWAP ends), a decision a submission came from, a netted decision (its
   * budget counts it: nettedUsd), a cycle any of those belong to, and the first cycle that read each
   * account (began: what the venue shows from before it was another journal's). Freed pages are reused, so
   * the file stops growing; it shrinks only with VACUUM. Returns how many rows went.
   */
  prune(before: number): { cycles: number; decisions: number; notifications: number } {
    return this.runInTransaction(() => {
      const decisions = this.sql(
        `DELETE FROM decisions WHERE cycle_id IN (SELECT id FROM cycles WHERE started_at < ?)
           AND id NOT IN (SELECT decision_id FROM submissions WHERE decision_id IS NOT NULL)
           AND NOT (kind = 'skip' AND intent LIKE '%${NETTED_MARK}%')`,
      ).run(before).changes;
      const firsts = this.sql(
        `SELECT MIN(started_at) AS t FROM cycles WHERE snapshot IS NOT NULL AND trigger != 'rebuild'
           GROUP BY account`,
      )
        .all()
        .map((r) => (r as { t: number }).t);
      const cycles = this.sql(
        `DELETE FROM cycles WHERE started_at < ? AND status <> 'running'
           AND id NOT IN (SELECT cycle_id FROM decisions) AND id NOT IN (SELECT cycle_id FROM submissions)
           AND started_at NOT IN (SELECT value FROM json_each(?))`,
      ).run(before, JSON.stringify(firsts)).changes;
      const notifications = this.sql("DELETE FROM notifications WHERE time < ?").run(before).changes;
      return { cycles, decisions, notifications };
    }) as { cycles: number; decisions: number; notifications: number };
  }

  /**
   * Rewrites the database file without its free pages (SQLite VACUUM), so what `prune` deleted is given
   * back to the disk. Only a holder of the instance lock may call it: it needs the file alone.
   */
  vacuum(): void {
    this.db.exec("VACUUM");
  }

  /**
   * Marks cycles of the given triggers still `running` as `interrupted`: the process running them died
   * (killed, power loss). Only a holder of the instance lock may call this, and only for triggers that
   * run under that lock (run, once), so no live cycle is touched, or for those started before
   * `startedBefore` when no live process can still be running them (a manual action an hour old).
   * Returns how many were marked.
   */
  closeInterruptedCycles(triggers: readonly string[], startedBefore = Number.MAX_SAFE_INTEGER): number {
    if (triggers.length === 0) return 0;
    const marks = triggers.map(() => "?").join(", ");
    const info = this.sql(
      `UPDATE cycles SET status = 'interrupted', finished_at = ?,
         error = 'the process stopped before the cycle finished (its submissions are reconciled)'
       WHERE status = 'running' AND trigger IN (${marks}) AND started_at < ?`,
    ).run(this.clock(), ...triggers, startedBefore);
    return info.changes;
  }

  recordDecision(
    cycleId: string,
    d: {
      strategy: string;
      kind: string;
      reason: string;
      guard: Guard;
      guardReason?: string;
      intent: unknown;
    },
  ): number {
    const intent = text(d.intent);
    const info = this.sql(
      `INSERT INTO decisions (cycle_id, strategy, kind, reason, guard, guard_reason, intent, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      cycleId,
      d.strategy,
      d.kind,
      // A manual decision's reason is the command as typed: a key pasted into an argument that was
      // not refused (read from a file after the arguments were checked) must not be kept.
      redact(d.reason),
      d.guard,
      d.guardReason === undefined ? null : redact(d.guardReason),
      intent,
      this.clock(),
    );
    if (d.kind === "skip" && intent.includes(NETTED_MARK)) this.nettedStrategies?.add(d.strategy);
    return Number(info.lastInsertRowid);
  }

  /** Writes the submission as `pending`. Must be called, and must succeed, before the body is sent. */
  recordPending(s: PendingSubmission): number {
    const id = this.insertPendingChecked(s);
    // Outside the database, so a lost write-ahead log cannot take it along (checkStateIdentity); once the
    // row is committed: marked inside the transaction, a commit refused for a full disk left the mark
    // ahead of the journal, and every live command after said its latest writes were lost (a disaster
    // trial). Still before the body is sent.
    if (this.markSubmissions) recordSubmissionMark(this.db.name, id);
    return id;
  }

  private insertPendingChecked(s: PendingSubmission): number {
    const cap = s.dayCap;
    if (cap === undefined || (s.notionalUsd === undefined && s.stakeMove === undefined))
      return this.insertPending(s);
    // IMMEDIATE: the write lock is taken before the read, so no other process writes in between.
    return this.db
      .transaction(() => {
        const used = this.usage(s.account, cap.sinceMs, cap.fills);
        if (s.notionalUsd !== undefined && used.notionalUsd.plus(s.notionalUsd).gt(cap.maxNotionalUsd))
          throw new DayLimitRaceError(
            `not written: ${used.notionalUsd.toFixed(2)} USD of TWAPs journaled in the last 24 h (orders written since this one was checked, e.g. a manual order or another instance) and its ${s.notionalUsd.toFixed(2)} would pass maxDailyNotionalUsd ${cap.maxNotionalUsd.toFixed()}`,
          );
        if (s.stakeMove !== undefined && used.stakeMoved.plus(s.stakeMove).gt(cap.maxStakeMove))
          throw new DayLimitRaceError(
            `not written: ${used.stakeMoved.toFixed()} HYPE of stake moves journaled in the last 24 h (written since this one was checked) and its ${s.stakeMove.toFixed()} would pass maxStakeMovePerDay ${cap.maxStakeMove.toFixed()}`,
          );
        return this.insertPending(s);
      })
      .immediate();
  }

  private insertPending(s: PendingSubmission): number {
    const now = this.clock();
    const info = this.sql(
      `INSERT INTO submissions (cycle_id, decision_id, strategy, account, signer, action_type, nonce, expires_after,
           vault, request, status, notional_usd, stake_move, asset, created_at, updated_at, venue_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
    ).run(
      s.cycleId,
      s.decisionId,
      s.strategy,
      s.account,
      s.signer,
      s.actionType,
      s.nonce,
      s.expiresAfter,
      s.vault,
      text(s.request),
      s.notionalUsd?.toFixed() ?? null,
      s.stakeMove?.toFixed() ?? null,
      s.asset ?? null,
      now,
      now,
      s.venueAt === undefined ? null : Math.round(s.venueAt),
    );
    this.submissionWrites++;
    return Number(info.lastInsertRowid);
  }

  recordAttempt(submissionId: number, outcome: string, detail?: string): void {
    this.sql("INSERT INTO attempts (submission_id, at, outcome, detail) VALUES (?, ?, ?, ?)").run(
      submissionId,
      this.clock(),
      outcome,
      detail === undefined ? null : redact(detail),
    );
  }

  resolve(
    submissionId: number,
    r: { status: SubmissionStatus; reason?: string; result?: unknown; twapId?: number; expectedEnd?: number },
  ): void {
    this.sql(
      `UPDATE submissions SET status = ?, reason = COALESCE(?, reason), result = COALESCE(?, result),
           twap_id = COALESCE(?, twap_id), expected_end = COALESCE(?, expected_end), updated_at = ? WHERE id = ?`,
    ).run(
      r.status,
      r.reason === undefined ? null : redact(r.reason),
      r.result === undefined ? null : text(r.result),
      r.twapId ?? null,
      r.expectedEnd ?? null,
      this.clock(),
      submissionId,
    );
    this.submissionWrites++;
  }

  /**
   * The status now of `account`'s submission sent with `nonce` (pending, accepted, rejected, unknown,
   * landed, absent), or undefined when none was journaled: reconciliation may have settled it since.
   */
  submissionStatus(account: string, nonce: number): string | undefined {
    const row = this.sql(
      "SELECT status FROM submissions WHERE account = ? AND nonce = ? ORDER BY id DESC LIMIT 1",
    ).get(account, nonce) as { status: string } | undefined;
    return row?.status;
  }

  /** Whether `account` has a submission of `actionType` whose outcome is not known yet (cheaper than unresolved()). */
  hasUnresolved(account: string, actionType: string): boolean {
    return (
      this.sql(
        "SELECT 1 FROM submissions WHERE status IN ('pending', 'unknown') AND account = ? AND action_type = ? LIMIT 1",
      ).get(account, actionType) !== undefined
    );
  }

  /** Submissions whose effect on the venue is not known yet (pending or unknown), oldest first. */
  unresolved(account?: string): SubmissionRow[] {
    return (
      account ? this.sql(UNRESOLVED_OF_ACCOUNT).all(account) : this.sql(UNRESOLVED).all()
    ) as SubmissionRow[];
  }

  /**
   * Submissions known to have taken effect (accepted, or landed by reconciliation) with a nonce from
   * `sinceNonce` on, oldest first: the reconciler must not credit their venue records to another one.
   */
  settledSince(account: string, sinceNonce: number): SubmissionRow[] {
    return this.sql(
      `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE account = ? AND status IN ('accepted', 'landed')
         AND nonce >= ? ORDER BY nonce, id`,
    ).all(account, sinceNonce) as SubmissionRow[];
  }

  /**
   * The tokenDelegate submissions the bot's strategies sent for `account` since `sinceMs` that the
   * venue did not refuse (accepted, landed, or still unknown: any of them may be in the venue's staking
   * history). Manual commands (`hlbot delegate`) are the user's own actions and are left out. Each is
   * dated by the venue's clock when it was written with it (`onVenueClock`), else by the local one;
   * `sinceMs` is on the local clock.
   */
  ownStakingMoves(account: string, sinceMs: number): OwnStakingMove[] {
    const out: OwnStakingMove[] = [];
    for (const { action, time, onVenueClock, amount, forYield } of this.ownStakingActions(
      account,
      "tokenDelegate",
      sinceMs,
    )) {
      if (typeof action.validator !== "string") continue;
      out.push({
        time,
        onVenueClock,
        validator: action.validator.toLowerCase(),
        amount,
        isUndelegate: action.isUndelegate === true,
        ...(forYield ? { forYield: true as const } : {}),
      });
    }
    return out;
  }

  /**
   * The cWithdraw submissions (staking balance → spot) the bot's strategies sent for `account` since
   * `sinceMs` that the venue did not refuse, dated as in ownStakingMoves: HYPE that comes back from them
   * is the bot's (for a sale, or above maxStaked), not the user's withdrawal to leave alone.
   */
  ownWithdrawals(account: string, sinceMs: number): OwnWithdrawal[] {
    return this.ownStakingActions(account, "cWithdraw", sinceMs).map(({ time, onVenueClock, amount }) => ({
      time,
      onVenueClock,
      amount,
    }));
  }

  /** A strategy's (not a manual command's) staking actions of one type not refused, with their HYPE amount. */
  private ownStakingActions(account: string, actionType: "tokenDelegate" | "cWithdraw", sinceMs: number) {
    type Row = { request: string; createdAt: number; venueAt: number | null; intent: string | null };
    // With the decision's intent: whether an undelegation was a move for yield (intents.ts forYield).
    const rows = this.sql(
      `SELECT s.request AS request, s.created_at AS createdAt, s.venue_at AS venueAt, d.intent AS intent
         FROM submissions s LEFT JOIN decisions d ON d.id = s.decision_id
         WHERE s.account = ? AND s.action_type = ? AND s.created_at >= ?
           AND s.status NOT IN ('rejected', 'absent') AND s.strategy <> ?`,
    ).all(account, actionType, sinceMs, MANUAL_STRATEGY) as Row[];
    const out: Array<{
      action: Record<string, unknown>;
      time: number;
      onVenueClock: boolean;
      amount: Decimal;
      forYield: boolean;
    }> = [];
    for (const r of rows) {
      const action = (parseJson(r.request) as { action?: Record<string, unknown> }).action;
      const wei = action?.wei;
      if (action === undefined || (typeof wei !== "number" && typeof wei !== "bigint")) continue;
      let forYield = false;
      try {
        forYield = r.intent !== null && (parseJson(r.intent) as { forYield?: unknown }).forYield === true;
      } catch {
        // An intent that is not JSON: not known to be a move for yield.
      }
      out.push({
        action,
        time: r.venueAt ?? r.createdAt,
        onVenueClock: r.venueAt !== null,
        amount: fromWei(BigInt(wei), HYPE_WEI_DECIMALS),
        forYield,
      });
    }
    return out;
  }

  /**
   * Rolling usage for risk limits: TWAP notional (USD) and HYPE moved by delegations since `since`. A
   * TWAP that `fills` reports as ended counts what it executed; every other one its full notional.
   */
  usage(
    account: string,
    sinceMs: number,
    fills?: ReadonlyMap<number, TwapFill>,
  ): { notionalUsd: Decimal; stakeMoved: Decimal } {
    const placeholders = COUNTED.map(() => "?").join(", ");
    const rows = this.sql(
      `SELECT s.notional_usd AS notionalUsd, s.stake_move AS stakeMove, s.twap_id AS twapId,
              json_extract(d.intent, '$.quoteUsd') AS quoteUsd
         FROM submissions s LEFT JOIN decisions d ON d.id = s.decision_id
         WHERE s.account = ? AND s.created_at >= ? AND s.status IN (${placeholders})`,
    ).all(account, sinceMs, ...COUNTED) as Array<{
      notionalUsd: string | null;
      stakeMove: string | null;
      twapId: number | null;
      quoteUsd: string | null;
    }>;
    let notionalUsd = ZERO;
    let stakeMoved = ZERO;
    for (const r of rows) {
      if (r.notionalUsd) notionalUsd = notionalUsd.plus(countedUsd(r, fills));
      if (r.stakeMove) stakeMoved = stakeMoved.plus(new Decimal(r.stakeMove));
    }
    return { notionalUsd, stakeMoved };
  }

  /**
   * USD spent by a strategy's TWAPs over its lifetime (for budgets). A TWAP that `fills` reports as
   * ended counts what it filled (the venue's executed notional); every other counted submission
   * (running, unresolved, or not in the venue's history) counts its full notional: fail closed.
   */
  spentUsd(strategy: string, fills?: ReadonlyMap<number, TwapFill>): Decimal {
    let total = ZERO;
    for (const r of this.twapSubmissions(strategy)) total = total.plus(countedUsd(r, fills));
    return total;
  }

  /**
   * USD of `strategy`'s TWAPs on a market netted against another strategy's opposing TWAP in live cycles
   * of `account` that finished ok (decisions carrying `netted`, not deferred; a failed cycle leaves its slot
   * due, and its retry nets again: a review found it counted twice): traded for it without a TWAP of its own,
   * so its budget counts it (allocate.ts netOpposingTwaps).
   */
  nettedUsd(account: string, strategy: string, market: { assetId: number; side: "buy" | "sell" }): Decimal {
    // Asked for every budgeted DCA at every cycle: a strategy never netted (nearly all) costs no scan of
    // the decisions (the scan was 12% of a year's simulation of the demo).
    this.nettedStrategies ??= new Set(
      (
        this.sql(
          `SELECT DISTINCT strategy FROM decisions WHERE kind = 'skip' AND intent LIKE '%${NETTED_MARK}%'`,
        ).all() as Array<{ strategy: string }>
      ).map((r) => r.strategy),
    );
    if (!this.nettedStrategies.has(strategy)) return ZERO;
    const rows = this.sql(
      `SELECT json_extract(d.intent, '$.netted.usd') AS usd FROM decisions d JOIN cycles c ON c.id = d.cycle_id
         WHERE d.strategy = ? AND d.kind = 'skip' AND d.intent LIKE '%${NETTED_MARK}%'
           AND c.account = ? AND c.mode = 'live' AND c.status = 'ok'
           AND json_extract(d.intent, '$.netted.assetId') = ? AND json_extract(d.intent, '$.netted.side') = ?
           AND json_extract(d.intent, '$.defer') IS NULL`,
    ).all(strategy, account, market.assetId, market.side) as Array<{ usd: unknown }>;
    let total = ZERO;
    for (const r of rows)
      if (typeof r.usd === "string" || typeof r.usd === "number") total = total.plus(String(r.usd));
    return total;
  }

  /**
   * Writes what the venue's own history shows (a TWAP, a staking move) as a landed submission of
   * `strategy`, at the time the venue recorded it, so limits and budgets count it after the journal
   * was lost (`hlbot journal rebuild`). Skipped when a row with the same key was imported already.
   */
  importVenueRecord(r: {
    cycleId: string;
    strategy: string;
    account: string;
    actionType: string;
    at: number;
    key: string;
    record: unknown;
    notionalUsd?: Decimal;
    stakeMove?: Decimal;
    twapId?: number;
  }): boolean {
    // Already imported, or (a TWAP) already journaled by the submission that placed it.
    if (this.hasVenueRecord(r.account, r.key, r.twapId)) return false;
    this.sql(
      `INSERT INTO submissions (cycle_id, decision_id, strategy, account, signer, action_type, nonce, expires_after,
           vault, request, status, reason, notional_usd, stake_move, twap_id, created_at, updated_at)
         VALUES (?, NULL, ?, ?, ?, ?, ?, NULL, NULL, ?, 'landed', ?, ?, ?, ?, ?, ?)`,
    ).run(
      r.cycleId,
      r.strategy,
      r.account,
      r.account,
      r.actionType,
      r.at,
      text(r.record),
      `${REBUILT_PREFIX}${r.key}`,
      r.notionalUsd?.toFixed() ?? null,
      r.stakeMove?.toFixed() ?? null,
      r.twapId ?? null,
      r.at,
      this.clock(),
    );
    this.submissionWrites++;
    return true;
  }

  /** What earlier cycles saw of one pair (by label, "HYPE/USDC"). */
  pairMemory(label: string): PairMemory | undefined {
    return this.pairMemories().get(label);
  }

  /**
   * Every pair's memory by label, in one read, for price and metadata sanity: a cycle checks the pairs
   * of all its orders and holdings (the table holds only pairs the bot has seen so).
   */
  pairMemories(): Map<string, PairMemory> {
    const rows = this.sql(PAIR_MEMORY).all() as PairMemory[];
    return new Map(rows.map((r) => [r.label, r]));
  }

  /** Remembers pairs as seen by this cycle (replacing what was known). */
  rememberPairs(pairs: readonly PairMemory[]): void {
    const now = this.clock();
    // One statement per chunk of rows (a statement is atomic by itself): a cycle writes its pairs
    // without a transaction of its own around them. A label twice in one upsert is an SQLite error:
    // the last of each label is kept.
    const rows = [...new Map(pairs.map((p) => [p.label, p])).values()];
    for (let i = 0; i < rows.length; i += PAIRS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + PAIRS_PER_STATEMENT);
      const upsert = this.sql(pairUpsert(chunk.length));
      upsert.run(
        ...chunk.flatMap((p) => [
          p.label,
          p.coin,
          p.assetId,
          p.baseTokenId,
          p.quoteTokenId,
          p.mid,
          p.midAt,
          now,
        ]),
      );
    }
  }

  /**
   * The scheduler's state of a strategy; the first call for a strategy registers it as first seen at
   * `now` (its slots count from then on).
   */
  slotState(account: string, strategy: string, now: number): SlotState {
    const select = this.sql(`SELECT ${SLOT_COLUMNS} FROM schedule_slots WHERE account = ? AND strategy = ?`);
    type Row = SlotRow;
    // Read first: the row exists on every call but the first, and a read takes no write transaction.
    let row = select.get(account, strategy) as Row | undefined;
    if (row === undefined) {
      this.sql(
        `INSERT INTO schedule_slots (account, strategy, first_seen, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (account, strategy) DO NOTHING`,
      ).run(account, strategy, now, this.clock());
      row = select.get(account, strategy) as Row;
    }
    return slotStateOf(row);
  }

  /**
   * slotState of several strategies of one account, read in one statement (the scheduler asks for all of
   * them at every step); a strategy without a row is registered as first seen at `now`, as slotState does,
   * unless `register` is false (a check that only reads: left out of the answer).
   */
  slotStates(
    account: string,
    strategies: readonly string[],
    now: number,
    register = true,
  ): Map<string, SlotState> {
    const rows = this.sql(`SELECT strategy, ${SLOT_COLUMNS} FROM schedule_slots WHERE account = ?`).all(
      account,
    ) as Array<SlotRow & { strategy: string }>;
    const known = new Map(rows.map((r) => [r.strategy, r]));
    const out = new Map<string, SlotState>();
    for (const name of strategies) {
      const row = known.get(name);
      if (row === undefined && !register) continue;
      out.set(name, row === undefined ? this.slotState(account, name, now) : slotStateOf(row));
    }
    return out;
  }

  /**
   * Whether `strategy` journaled a submission for `account` at or after `sinceMs` that the venue did not
   * refuse (sent, or maybe sent): it acted in the slot that began then. A TWAP cancel is not the
   * strategy acting (strategies never cancel; the watch and the kill switch do, in its name): a watch
   * cancel at 22:39:09 once settled the 22:39 slot unrun.
   */
  sentSince(account: string, strategy: string, sinceMs: number): boolean {
    return (
      this.sql(
        `SELECT 1 FROM submissions WHERE account = ? AND created_at >= ? AND strategy = ?
           AND status NOT IN ('rejected', 'absent') AND action_type <> 'twapCancel' LIMIT 1`,
      ).get(account, sinceMs, strategy) !== undefined
    );
  }

  /**
   * How many cycles of `strategy` sent something for `account` at or after `sinceMs` (as sentSince
   * counts a send): two since a slot means the later one acted in a later slot.
   */
  sendingCyclesSince(account: string, strategy: string, sinceMs: number): number {
    const row = this.sql(
      `SELECT COUNT(DISTINCT cycle_id) AS n FROM submissions WHERE account = ? AND created_at >= ? AND strategy = ?
         AND status NOT IN ('rejected', 'absent') AND action_type <> 'twapCancel'`,
    ).get(account, sinceMs, strategy) as { n: number };
    return row.n;
  }

  /**
   * What `strategy` sent for `account` at or after `sinceMs` that proved absent (never on the venue, its
   * slot reopened): how many, and when the last of them was sent. TWAP cancels are the watch's.
   */
  absentSince(
    account: string,
    strategy: string,
    sinceMs: number,
  ): { count: number; lastAt: number } | undefined {
    const row = this.sql(
      `SELECT COUNT(*) AS count, MAX(created_at) AS lastAt FROM submissions
         WHERE account = ? AND created_at >= ? AND strategy = ? AND status = 'absent' AND action_type <> 'twapCancel'`,
    ).get(account, sinceMs, strategy) as { count: number; lastAt: number | null };
    return row.count > 0 && row.lastAt !== null ? { count: row.count, lastAt: row.lastAt } : undefined;
  }

  /**
   * Cycles in a row, newest first, in which everything `strategy` sent for `account` was never processed
   * (every attempt refused by a proxy's status, rate limited, or unreachable: submit.ts NEVER_PROCESSED):
   * a long block is told at its first cycle and every tenth, not at each (a cron user's trial: a proxy's
   * 403 for a day was a notice at every pass). TWAP cancels are the watch's, not the strategy's.
   */
  unprocessedInARow(account: string, strategy: string, limit = 500): number {
    // The cycles that ran it, newest first: one where it sent nothing (in band, nothing to do) or sent
    // something processed ends the streak (a review: a send refused three weeks earlier, then in band
    // every day, made a new block's first refusal the second of a streak, and it went untold).
    const cycles = this.sql(
      `SELECT id, strategies FROM cycles WHERE account = ? AND trigger IN ('once', 'run') AND started_at >= ?
         ORDER BY started_at DESC, rowid DESC LIMIT ?`,
    ).all(account.toLowerCase(), this.keptSince(), limit) as Array<{ id: string; strategies: string }>;
    let n = 0;
    for (const c of cycles) {
      if (!(JSON.parse(c.strategies) as string[]).includes(strategy)) continue;
      const rows = this.sql(
        `SELECT s.status AS status,
            (SELECT COUNT(*) FROM attempts a WHERE a.submission_id = s.id) AS tries,
            (SELECT COUNT(*) FROM attempts a WHERE a.submission_id = s.id
               AND a.outcome NOT IN (${UNPROCESSED_ATTEMPTS})) AS others
           FROM submissions s WHERE s.cycle_id = ? AND s.strategy = ? AND s.action_type <> 'twapCancel'`,
      ).all(c.id, strategy) as Array<{ status: string; tries: number; others: number }>;
      if (rows.length === 0 || rows.some((r) => r.status !== "rejected" || r.tries === 0 || r.others > 0))
        break;
      n++;
    }
    return n;
  }

  /**
   * The reason of the latest decision `strategy` made for `account` since `sinceMs` in a cycle that could
   * act (not a plan's), or undefined: a slot lost while it ran and was held each time is told as such, not
   * as "nothing ran for it" (a cron user's trial).
   */
  latestDecisionSince(
    account: string,
    strategy: string,
    sinceMs: number,
  ): { kind: string; reason: string } | undefined {
    // Live cycles only: a `once --dry-run` preview shares the journal and is not the bot running (a review).
    return this.sql(
      `SELECT d.kind AS kind, d.reason AS reason FROM decisions d JOIN cycles c ON c.id = d.cycle_id
         WHERE c.account = ? AND c.mode = 'live' AND d.strategy = ? AND d.created_at >= ?
           AND c.trigger IN ('once', 'run')
         ORDER BY d.id DESC LIMIT 1`,
    ).get(account, strategy, sinceMs) as { kind: string; reason: string } | undefined;
  }

  /**
   * Dates back what was written while the clock ran ahead (submissions and cycles with times after `now`):
   * to the venue's time it was written at, where the row has it, else `now`. Otherwise a send from then
   * counts as made in every slot until the clock reaches it (an hourly DCA held 12 hours, a review) and
   * the daily limits' window holds it longer than a day. Returns how many rows changed.
   */
  redateFuture(now: number): number {
    let changed = 0;
    this.batch(() => {
      changed += this.sql(
        "UPDATE submissions SET created_at = MIN(COALESCE(venue_at, ?), ?) WHERE created_at > ?",
      ).run(now, now, now).changes;
      changed += this.sql("UPDATE cycles SET started_at = ? WHERE started_at > ?").run(now, now).changes;
      changed += this.sql("UPDATE cycles SET finished_at = ? WHERE finished_at > ?").run(now, now).changes;
    });
    return changed;
  }

  /**
   * Brings back a slot state written while the clock ran ahead (schedule.ts rewoundSlotState): the only
   * way a settled slot moves backwards. Only a row still ahead of `now` is changed.
   */
  rewindSlot(account: string, strategy: string, state: SlotState, now: number): void {
    this.sql(
      `UPDATE schedule_slots SET first_seen = ?, last_slot = ?, last_outcome = ?, schedule = ?, updated_at = ?
         WHERE account = ? AND strategy = ? AND (first_seen > ? OR last_slot > ?)`,
    ).run(
      state.firstSeen,
      state.lastSlot ?? null,
      state.lastSlot === undefined ? null : state.lastActed ? "acted" : "missed",
      state.lastSchedule ?? null,
      this.clock(),
      account,
      strategy,
      now,
      now,
    );
  }

  /**
   * Settles a strategy's slot (acted in, or missed) under its cron expression `schedule`; a slot never
   * moves backwards.
   */
  settleSlot(
    account: string,
    strategy: string,
    slot: number,
    outcome: "acted" | "missed" | "disabled",
    schedule: string | null = null,
  ): void {
    this.sql(
      `UPDATE schedule_slots SET last_slot = ?, last_outcome = ?, schedule = ?, updated_at = ?
         WHERE account = ? AND strategy = ? AND (last_slot IS NULL OR last_slot < ?)`,
    ).run(slot, outcome, schedule, this.clock(), account, strategy, slot);
  }

  /**
   * Makes `strategy`'s last settled slot due again (within schedule.catchUp, as a failed cycle's) when
   * what it sent in it proved absent: never on the venue, and it can no longer land. Only while that slot
   * was settled by acting and no later one was (the slot is at or before the submission, `sentAt`, on
   * the local clock). A chaos trial: a DCA's TWAP lost to an HTTP 500 at its slot was reconciled absent
   * at the next `once`, and the day's buy was skipped ("not due" until the next day). Returns whether
   * a slot was reopened.
   */
  reopenSlot(account: string, strategy: string, sentAt: number): boolean {
    return (
      this.sql(
        `UPDATE schedule_slots SET last_slot = last_slot - 1, last_outcome = 'reopened', updated_at = ?
           WHERE account = ? AND strategy = ? AND last_outcome = 'acted' AND last_slot IS NOT NULL AND last_slot <= ?`,
      ).run(this.clock(), account, strategy, sentAt).changes > 0
    );
  }

  /**
   * TWAPs this bot placed that may still run at `now`: accepted (or landed) twapOrder submissions with
   * a venue twapId and an expected end after `now`, with the strategy that placed them and the
   * decision's intent (side, mid at decision time). The watch (src/engine/guards.ts) keys on these.
   */
  runningTwaps(
    account: string,
    now: number,
  ): Array<{
    strategy: string;
    twapId: number;
    asset: number | null;
    intent: string | null;
    expectedEnd: number;
  }> {
    return this.sql(
      `SELECT s.strategy, s.twap_id AS twapId, s.asset, d.intent, s.expected_end AS expectedEnd
         FROM submissions s LEFT JOIN decisions d ON d.id = s.decision_id
         WHERE s.account = ? AND s.action_type = 'twapOrder' AND s.status IN ('accepted', 'landed')
           AND s.twap_id IS NOT NULL AND s.expected_end IS NOT NULL AND s.expected_end > ?
         ORDER BY s.id`,
    ).all(account, now) as Array<{
      strategy: string;
      twapId: number;
      asset: number | null;
      intent: string | null;
      expectedEnd: number;
    }>;
  }

  /** runningTwaps less those a cancel of the bot's may have ended (what `run` says at a stop or a reload). */
  twapsNotCancelled(account: string, now: number): ReturnType<Journal["runningTwaps"]> {
    return this.runningTwaps(account, now).filter((r) => !this.twapCancelled(account, r.twapId, now));
  }

  /** When the latest cycle of `account` that worked started (of `trigger` when given; undefined: none did). */
  lastOkCycleStart(account: string, trigger?: string | readonly string[]): number | undefined {
    const triggers = trigger === undefined ? [] : typeof trigger === "string" ? [trigger] : [...trigger];
    const row = this.sql(
      `SELECT MAX(started_at) AS at FROM cycles WHERE account = ? AND status = 'ok'${
        triggers.length === 0 ? "" : ` AND trigger IN (${triggers.map(() => "?").join(", ")})`
      }`,
    ).get(account, ...triggers) as { at: number | null };
    return row.at ?? undefined;
  }

  /** Up to when every end of `account`'s TWAPs was settled by `once` (twapEnds.ts); undefined: never. */
  twapEndsCursor(account: string): number | undefined {
    const row = this.sql("SELECT at FROM twap_end_cursors WHERE account = ?").get(account) as
      | { at: number }
      | undefined;
    return row?.at;
  }

  setTwapEndsCursor(account: string, at: number): void {
    this.sql(
      "INSERT INTO twap_end_cursors (account, at) VALUES (?, ?) ON CONFLICT(account) DO UPDATE SET at = excluded.at",
    ).run(account, at);
  }

  /**
   * TWAPs this bot placed whose end was not told yet (twap_ends) and whose expected end is after `after`:
   * the candidates `once` asks the venue about (twapEnds.ts).
   */
  untoldTwaps(
    account: string,
    after: number,
  ): Array<{ strategy: string; twapId: number; expectedEnd: number; createdAt: number }> {
    return this.sql(
      `SELECT s.strategy, s.twap_id AS twapId, s.expected_end AS expectedEnd, s.created_at AS createdAt
         FROM submissions s
         WHERE s.account = ? AND s.action_type = 'twapOrder' AND s.status IN ('accepted', 'landed')
           AND s.twap_id IS NOT NULL AND s.expected_end IS NOT NULL AND s.expected_end > ?
           AND NOT EXISTS (SELECT 1 FROM twap_ends e WHERE e.account = s.account AND e.twap_id = s.twap_id)
         ORDER BY s.id`,
    ).all(account, after) as Array<{
      strategy: string;
      twapId: number;
      expectedEnd: number;
      createdAt: number;
    }>;
  }

  /** Records that the end of TWAP `twapId` of `account` was told (or given up on): never told again. */
  markTwapEndTold(account: string, twapId: number, status: string): void {
    this.sql("INSERT OR IGNORE INTO twap_ends (account, twap_id, status, told_at) VALUES (?, ?, ?, ?)").run(
      account,
      twapId,
      status,
      this.clock(),
    );
  }

  /** Whether the end of TWAP `twapId` of `account` was told already. */
  twapEndTold(account: string, twapId: number): boolean {
    return (
      this.sql("SELECT 1 FROM twap_ends WHERE account = ? AND twap_id = ?").get(account, twapId) !== undefined
    );
  }

  /**
   * Whether a twapCancel of this TWAP was accepted (or landed) already, or one without an answer may still
   * land: one with an expiresAfter until reconcile settles it (the watch reconciles unanswered cancels;
   * absent once it expired), one without after UNANSWERED_CANCEL_WAIT_MS (`now`, local clock). Counting
   * an unanswered cancel as done for good left a buy filling 21 minutes above its ceiling after an
   * HTTP 500, once the venue answered again (a trader's trial). Sending a cancel again is harmless: the
   * watch sends one only while the venue still lists the TWAP as running, and the venue refuses a cancel
   * of a TWAP that has ended.
   */
  twapCancelled(account: string, twapId: number, now: number): boolean {
    const rows = this.sql(
      `SELECT request, status, expires_after AS expiresAfter, created_at AS createdAt FROM submissions
         WHERE account = ? AND action_type = 'twapCancel' AND status IN ('accepted', 'landed', 'pending', 'unknown')`,
    ).all(account) as Array<{
      request: string;
      status: string;
      expiresAfter: number | null;
      createdAt: number;
    }>;
    return rows.some((r) => {
      const unanswered = r.status === "pending" || r.status === "unknown";
      if (unanswered && r.expiresAfter === null && now >= r.createdAt + UNANSWERED_CANCEL_WAIT_MS)
        return false;
      try {
        const body = JSON.parse(r.request) as { action?: { t?: unknown } };
        return Number(body.action?.t) === twapId;
      } catch {
        return false;
      }
    });
  }

  /** Forgets every pair (after the user accepted the venue's metadata anew: `hlbot journal rebuild`). */
  forgetPairs(): number {
    return this.sql("DELETE FROM pair_memory").run().changes;
  }

  /**
   * When this journal began for `account`: its first cycle that read the account (unix ms, local
   * clock), or undefined before any. What the venue shows from before then was another journal's (a lost or other state folder).
   */
  began(account: string): number | undefined {
    let at = this.beganAt.get(account);
    if (at === undefined) {
      const row = this.sql(
        "SELECT MIN(started_at) AS t FROM cycles WHERE account = ? AND snapshot IS NOT NULL AND trigger != 'rebuild'",
      ).get(account) as { t: number | null };
      if (row.t !== null) {
        at = row.t;
        this.beganAt.set(account, at);
      }
    }
    return at;
  }

  /** Whether the journal has this venue TWAP: placed by a submission of its own, or imported by a rebuild. */
  hasVenueTwap(
    account: string,
    entry: { twapId?: number | undefined; state: { timestamp: number; coin: string } },
  ): boolean {
    return this.hasVenueRecord(account, twapRecordKey(entry), entry.twapId);
  }

  /** The strategy whose submission placed TWAP `twapId` ("manual" for `hlbot twap`); undefined: not this bot. */
  twapPlacedBy(account: string, twapId: number): string | undefined {
    const row = this.sql(
      "SELECT strategy, reason FROM submissions WHERE account = ? AND twap_id = ? LIMIT 1",
    ).get(account, twapId) as { strategy: string; reason: string | null } | undefined;
    if (row === undefined) return undefined;
    // A row `journal rebuild` (or a fork) imported from the venue's history is counted in the budget of
    // the strategy it was given to, but who placed it is not known: "#778 of purr-dca" and "placed by
    // purr-dca" were said of a TWAP placed by hand (a fork trial).
    return rebuiltRecordKey(row) === undefined ? row.strategy : VENUE_HISTORY_STRATEGY;
  }

  /** A venue record imported under `key`, or (a TWAP) the submission that placed TWAP `twapId`. */
  private hasVenueRecord(account: string, key: string, twapId: number | undefined): boolean {
    // Two indexed lookups (one query with OR scanned the account's submissions).
    if (
      twapId !== undefined &&
      this.sql("SELECT 1 FROM submissions WHERE account = ? AND twap_id = ?").get(account, twapId) !==
        undefined
    )
      return true;
    return (
      this.sql("SELECT 1 FROM submissions WHERE account = ? AND reason = ?").get(
        account,
        `${REBUILT_PREFIX}${key}`,
      ) !== undefined
    );
  }

  /**
   * A budget's candidates (budget.ts budgetMemory): the account's counted TWAP submissions of `strategy`
   * on any market, and those of anyone on `market` (a pair and side). Each row's market: a bot row's
   * asset id and its action's side (`isBuy` 1/0), a row `hlbot journal rebuild` imported its venue
   * record's coin and side ("B"/"A"). `byDca`: the decision's mark (1: a twap-accumulate decided it,
   * 0: another kind, null: no mark, a journal from before the mark, or no decision).
   */
  budgetCandidates(
    account: string,
    strategy: string,
    market: { assetId: number; coin: string; side: "buy" | "sell" },
  ): BudgetCandidate[] {
    return this.sql(
      `SELECT s.id, s.strategy, s.twap_id AS twapId, s.notional_usd AS notionalUsd,
              json_extract(d.intent, '$.quoteUsd') AS quoteUsd, (s.reason LIKE '${REBUILT_PREFIX}%') AS rebuilt, json_extract(d.intent, '$.byDca') AS byDca,
              s.asset, json_extract(s.request, '$.action.twap.b') AS isBuy,
              json_extract(s.request, '$.state.coin') AS recordCoin, json_extract(s.request, '$.state.side') AS recordSide
         FROM submissions s LEFT JOIN decisions d ON d.id = s.decision_id
         WHERE s.account = ? AND s.action_type = 'twapOrder' AND s.status IN (${COUNTED.map(() => "?").join(", ")})
           AND (s.strategy = ?
             OR (s.asset = ? AND json_extract(s.request, '$.action.twap.b') = ?)
             OR (s.reason LIKE '${REBUILT_PREFIX}%' AND json_extract(s.request, '$.state.coin') = ?
               AND json_extract(s.request, '$.state.side') = ?))
         ORDER BY s.id`,
    ).all(
      account,
      ...COUNTED,
      strategy,
      market.assetId,
      market.side === "buy" ? 1 : 0,
      market.coin,
      market.side === "buy" ? "B" : "A",
    ) as BudgetCandidate[];
  }

  /**
   * Marks the TWAP decisions of a journal written before the `byDca` mark with it, once per journal,
   * from the configuration a live runtime opens with (the best knowledge there is: the kind of each
   * name's strategy at the first live start after the upgrade). Decisions of names not configured stay
   * unmarked (budget.ts counts them fail closed). Returns how many were marked.
   */
  markLegacyDcas(strategies: ReadonlyArray<{ name: string; kind: string }>): number {
    if (this.sql("SELECT 1 FROM journal_flags WHERE name = 'dcas-marked'").get() !== undefined) return 0;
    let changed = 0;
    this.batch(() => {
      for (const s of strategies)
        changed += this.sql(
          `UPDATE decisions SET intent = json_set(intent, '$.byDca', json(?))
             WHERE strategy = ? AND kind = 'twapOrder' AND json_extract(intent, '$.byDca') IS NULL`,
        ).run(s.kind === "twap-accumulate" ? "true" : "false", s.name).changes;
      this.sql("INSERT INTO journal_flags (name) VALUES ('dcas-marked')").run();
    });
    return changed;
  }

  /**
   * Records whether the kill switch was last told engaged (`once` tells its changes at its next pass);
   * returns what was recorded before: undefined when nothing ever was.
   */
  swapKillSwitchTold(engaged: boolean): boolean | undefined {
    return this.runInTransaction(() => {
      const before = this.sql(
        "SELECT name FROM journal_flags WHERE name IN ('killswitch-told-engaged', 'killswitch-told-released')",
      ).get() as { name: string } | undefined;
      this.sql(
        "DELETE FROM journal_flags WHERE name IN ('killswitch-told-engaged', 'killswitch-told-released')",
      ).run();
      this.sql("INSERT INTO journal_flags (name) VALUES (?)").run(
        engaged ? "killswitch-told-engaged" : "killswitch-told-released",
      );
      return before === undefined ? undefined : before.name === "killswitch-told-engaged";
    }) as boolean | undefined;
  }

  /** A strategy's TWAP submissions whose effect counts (pending, accepted, unknown, landed), oldest first. */
  twapSubmissions(strategy: string): CountedTwapRow[] {
    return this.sql(`${COUNTED_TWAPS} ORDER BY s.id`).all(strategy, ...COUNTED) as CountedTwapRow[];
  }

  /**
   * The same rows newest first, read as they are taken: a caller that wants the latest few stops early
   * instead of loading the strategy's whole history (lastEndedTwap, at every cycle).
   */
  *twapSubmissionsNewestFirst(strategy: string): Generator<CountedTwapRow> {
    yield* this.sql(`${COUNTED_TWAPS} ORDER BY s.id DESC`).iterate(
      strategy,
      ...COUNTED,
    ) as IterableIterator<CountedTwapRow>;
  }

  /** A strategy's latest TWAP submission whatever its status (the allocator's refused-order check). */
  /** The spot balances (token → total) the cycle's snapshot summary recorded, if it has one. */
  cycleBalances(cycleId: string): Record<string, string> | undefined {
    const row = this.sql("SELECT snapshot FROM cycles WHERE id = ?").get(cycleId) as
      | { snapshot: string | null }
      | undefined;
    if (!row?.snapshot) return undefined;
    try {
      const balances = (JSON.parse(row.snapshot) as { balances?: unknown }).balances;
      if (typeof balances !== "object" || balances === null) return undefined;
      return Object.fromEntries(Object.entries(balances).filter(([, v]) => typeof v === "string"));
    } catch {
      return undefined;
    }
  }

  lastTwapSubmission(strategy: string): SubmissionRow | undefined {
    return this.sql(
      `SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE strategy = ? AND action_type = 'twapOrder'
         ORDER BY id DESC LIMIT 1`,
    ).get(strategy) as SubmissionRow | undefined;
  }

  /** Decisions of recent cycles, newest first, with their cycle's time and trigger (for `history`). */
  recordNotification(a: NotificationAttempt): void {
    this.db
      .prepare(
        "INSERT INTO notifications (time, channel, event, title, attempt, outcome, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        a.time,
        a.channel,
        a.event,
        redact(a.title),
        a.attempt,
        a.outcome,
        a.status ?? null,
        a.detail === undefined ? null : redact(a.detail),
      );
  }

  /** The latest notification attempts, newest first. */
  recentNotifications(limit: number): NotificationAttempt[] {
    const rows = this.db.prepare("SELECT * FROM notifications ORDER BY id DESC LIMIT ?").all(limit) as Array<
      Record<string, unknown>
    >;
    return rows.map((r) => ({
      time: r.time as number,
      channel: r.channel as string,
      event: r.event as NotificationAttempt["event"],
      title: r.title as string,
      attempt: r.attempt as number,
      outcome: r.outcome as NotificationAttempt["outcome"],
      status: (r.status as number | null) ?? undefined,
      detail: (r.detail as string | null) ?? undefined,
    }));
  }

  recentDecisions(limit: number): DecisionRow[] {
    return this.sql(
      `SELECT d.id, d.cycle_id AS cycleId, d.created_at AS at, c.trigger, d.strategy, d.kind, d.reason, d.guard,
           d.guard_reason AS guardReason
         FROM decisions d JOIN cycles c ON c.id = d.cycle_id ORDER BY d.id DESC LIMIT ?`,
    ).all(limit) as DecisionRow[];
  }

  recentCycles(limit: number): CycleRow[] {
    return this.sql(
      `SELECT id, trigger, mode, account, strategies, started_at AS startedAt, finished_at AS finishedAt, status,
           error FROM cycles ORDER BY started_at DESC, rowid DESC LIMIT ?`,
    ).all(limit) as CycleRow[];
  }

  /**
   * The refused TWAP orders among the latest `window` submissions, newest first: what a venue minimum
   * is learnt from (twapMinimum.ts). Read at every cycle, so only those rows and columns.
   */
  recentRefusedTwaps(window: number): RefusedTwapRow[] {
    // Unchanged until a submission is written, by this connection (its counter) or another process
    // sharing the folder (SQLite's data_version): read again only then (a year's simulation spent a
    // tenth of its time reading the same 500 rows at every cycle).
    const version = this.sql("PRAGMA data_version").pluck().get() as number;
    const key = `${this.submissionWrites}:${version}:${window}`;
    if (this.refusedTwaps?.key === key) return this.refusedTwaps.rows;
    const rows = this.sql(
      `SELECT account, action_type AS actionType, status, reason FROM
         (SELECT id, account, action_type, status, reason FROM submissions ORDER BY id DESC LIMIT ?)
       WHERE action_type = 'twapOrder' AND status = 'rejected' ORDER BY id DESC`,
    ).all(window) as RefusedTwapRow[];
    this.refusedTwaps = { key, rows };
    return rows;
  }

  recentSubmissions(limit: number): SubmissionRow[] {
    // By when each was made: `journal rebuild` imports TWAPs first and staking moves last.
    return this.sql(
      `SELECT ${SUBMISSION_COLUMNS} FROM submissions ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(limit) as SubmissionRow[];
  }

  submissionsOfCycle(cycleId: string): SubmissionRow[] {
    return this.sql(`SELECT ${SUBMISSION_COLUMNS} FROM submissions WHERE cycle_id = ? ORDER BY id`).all(
      cycleId,
    ) as SubmissionRow[];
  }

  decisionsOfCycle(cycleId: string): Array<{
    id: number;
    strategy: string;
    kind: string;
    reason: string;
    guard: Guard;
    guardReason: string | null;
    /** The strategy failed its run: it threw while deciding, or was held (a skip kept with `failed`). */
    failed: boolean;
  }> {
    const rows = this.sql(
      `SELECT id, strategy, kind, reason, guard, guard_reason AS guardReason,
         (${FAILED_RUN}) AS failed
         FROM decisions WHERE cycle_id = ? ORDER BY id`,
    ).all(cycleId) as Array<{
      id: number;
      strategy: string;
      kind: string;
      reason: string;
      guard: Guard;
      guardReason: string | null;
      failed: number | null;
    }>;
    return rows.map((r) => ({ ...r, failed: r.failed === 1 }));
  }
}

/** A short, time-sortable id for a cycle: appears in its log lines and journal rows. */
export function newCycleId(now: number): string {
  const random = Math.floor(Math.random() * 36 ** 4)
    .toString(36)
    .padStart(4, "0");
  // Fixed width (9 base-36 digits cover ms timestamps until the year 5188) so ids sort as text.
  return `c${now.toString(36).padStart(9, "0")}${random}`;
}

/**
 * The journal of a state folder for a command that only reads it (`hlbot history`): no runtime, no key,
 * no network. `close()` closes its database.
 */
export async function openJournal(dir: string): Promise<{ journal: Journal; close(): void }> {
  const db = await openStateDb({ dir });
  return { journal: new Journal(db), close: () => db.close() };
}

/** A schedule_slots row's columns as the scheduler reads them (SlotRow). */
const SLOT_COLUMNS = "first_seen AS firstSeen, last_slot AS lastSlot, last_outcome AS lastOutcome, schedule";
interface SlotRow {
  firstSeen: number;
  lastSlot: number | null;
  lastOutcome: string | null;
  schedule: string | null;
}

/** A schedule_slots row as the scheduler reads it. */
function slotStateOf(row: SlotRow): SlotState {
  return {
    firstSeen: row.firstSeen,
    lastSlot: row.lastSlot ?? undefined,
    ...(row.lastSlot !== null && row.lastOutcome === "acted" ? { lastActed: true } : {}),
    ...(row.lastOutcome === "reopened" ? { reopened: true } : {}),
    ...(row.lastSlot !== null && row.schedule !== null ? { lastSchedule: row.schedule } : {}),
  };
}
