// Durable per-signer nonces. The venue keeps, per signer (the account key or the API wallet that
// signs), a small set of recent nonces: a new one must be unused and above the smallest kept, and
// within about a day of the block time. We hand out nonce = max(now in ms, last + 1), stored in the
// state database, so nonces never repeat or go backwards: not across concurrent calls, not across
// processes sharing the state file (the read-modify-write runs under BEGIN IMMEDIATE, which takes
// SQLite's single write lock), and not after a restart with the clock set back.
//
// The counter alone does not order the *arrival* of requests at the venue; that is SignerQueue's job.

import { HlbotError, InternalError } from "../lib/errors.js";
import type { StateDatabase } from "../lib/stateDb.js";
import { applyMigrations, type Migration } from "../lib/stateDb.js";
import { NONCE_WINDOW_FUTURE_MS } from "./constants.js";

export const NONCE_MIGRATIONS: readonly Migration[] = [
  {
    id: "nonces-001",
    sql: `CREATE TABLE IF NOT EXISTS nonces (
            signer TEXT PRIMARY KEY,
            last_nonce INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
          ) STRICT`,
  },
];

/**
 * The venue accepts a nonce only within (T − 2 days, T + 1 day) of its block time T (Hyperliquid docs,
 * "Nonces and API wallets": https://hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/nonces-and-api-wallets).
 * A nonce beyond T + 1 day is refused, and since the counter never goes back, storing one would make
 * every later action "too far ahead" until the venue's clock catches up: a year ahead bricks the signer
 * for a year. We refuse to hand one out, an hour short of the venue's bound.
 */
export const VENUE_NONCE_AHEAD_MS = NONCE_WINDOW_FUTURE_MS;
export const DEFAULT_MAX_NONCE_AHEAD_MS = VENUE_NONCE_AHEAD_MS - 60 * 60_000;

/** A nonce would be (or is stored) too far ahead of the venue's clock; nothing was signed or sent. */
export class NonceWindowError extends HlbotError {
  readonly code = "NONCE_WINDOW";
  readonly family = "config";
  constructor(
    message: string,
    readonly signer: string,
    readonly nonce: number,
    readonly venueNow: number,
  ) {
    super(message);
  }
}

function describeAhead(ms: number): string {
  const hours = ms / 3_600_000;
  return hours >= 48 ? `${Math.round(hours / 24)} days` : `${hours.toFixed(1)} h`;
}

/** Where a client gets nonces from. `peek` answers what `next` would return, without reserving it. */
export interface NonceSource {
  next(signer: string): number;
  peek(signer: string): number;
}

export type Clock = () => number;

/** The SQLite-backed nonce counter. Synchronous: better-sqlite3 is, and so each call is atomic in-process. */
export class NonceStore implements NonceSource {
  private readonly now: Clock;
  private readonly selectLast;
  private readonly upsert;
  private readonly allocate;

  private readonly venueNow: (() => number | undefined) | undefined;
  private readonly maxAheadMs: number;
  private readonly lower;

  constructor(
    private readonly db: StateDatabase,
    options: {
      clock?: Clock;
      /** The venue's time (VenueClock.now), when known: nonces too far ahead of it are refused. */
      venueNow?: () => number | undefined;
      /** How far ahead of the venue's time a nonce may be (default 23 h: the venue allows 1 day). */
      maxAheadMs?: number;
    } = {},
  ) {
    this.now = options.clock ?? Date.now;
    this.venueNow = options.venueNow;
    this.maxAheadMs = options.maxAheadMs ?? DEFAULT_MAX_NONCE_AHEAD_MS;
    applyMigrations(db, NONCE_MIGRATIONS);
    this.selectLast = db.prepare<[string], { last_nonce: number }>(
      "SELECT last_nonce FROM nonces WHERE signer = ?",
    );
    this.upsert = db.prepare<[string, number, number]>(
      `INSERT INTO nonces (signer, last_nonce, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(signer) DO UPDATE SET last_nonce = excluded.last_nonce, updated_at = excluded.updated_at`,
    );
    const tx = db.transaction((signer: string): number => {
      const nonce = this.compute(signer);
      this.upsert.run(signer, nonce, Date.now());
      return nonce;
    });
    // IMMEDIATE takes the write lock before the read: a second process cannot read the same `last`.
    this.allocate = (signer: string) => tx.immediate(signer);
    this.lower = db.prepare<[number, number, number]>(
      "UPDATE nonces SET last_nonce = ?, updated_at = ? WHERE last_nonce > ?",
    );
  }

  /**
   * Stored nonces further ahead of `venueNow` than the venue accepts. The venue never accepted any of
   * them (it refuses a nonce beyond its time + 1 day, and its time only grows), so they are safe to
   * lower with `resetAhead`.
   */
  tooFarAhead(venueNow: number): Array<{ signer: string; lastNonce: number }> {
    return this.db
      .prepare<[number], { signer: string; last_nonce: number }>(
        "SELECT signer, last_nonce FROM nonces WHERE last_nonce > ? ORDER BY signer",
      )
      .all(venueNow + this.maxAheadMs)
      .map((r) => ({ signer: r.signer, lastNonce: r.last_nonce }));
  }

  /**
   * Lowers every stored nonce beyond the venue's window to `venueNow` (the remedy for a nonce stored
   * while the clock was far ahead). Safe: such a nonce was never accepted, and the venue refuses any
   * nonce it has already seen, so a lowered counter cannot make an action run twice. Returns how many.
   */
  resetAhead(venueNow: number): number {
    return this.lower.run(Math.trunc(venueNow), Date.now(), Math.trunc(venueNow) + this.maxAheadMs).changes;
  }

  /** Reserves and returns the next nonce for `signer` (case-insensitive address). */
  next(signer: string): number {
    return this.allocate(normalize(signer));
  }

  /** The nonce `next` would return now, reserving nothing. */
  peek(signer: string): number {
    return this.compute(normalize(signer));
  }

  /** The last nonce reserved for `signer`, if any. */
  last(signer: string): number | undefined {
    return this.selectLast.get(normalize(signer))?.last_nonce;
  }

  private compute(signer: string): number {
    // The local clock only: the venue's (its answers' Date header) is not a floor, though a clock days
    // behind has nonces refused below the venue's window (strategies are held for it; see
    // schedule.maxClockSkew): one Date header from the future would store a nonce the venue refuses for
    // days, blocking every action until `hlbot journal reset-nonces` (a review).
    const now = Math.trunc(this.now());
    const last = this.selectLast.get(signer)?.last_nonce;
    const nonce = last === undefined ? now : Math.max(now, last + 1);
    if (!Number.isSafeInteger(nonce) || nonce <= 0) {
      throw new InternalError(`nonce for ${signer} is out of range: ${nonce}`);
    }
    const venueNow = this.venueNow?.();
    if (venueNow !== undefined && nonce > venueNow + this.maxAheadMs) {
      const ahead = describeAhead(nonce - venueNow);
      const stored = last !== undefined && last + 1 === nonce;
      throw new NonceWindowError(
        stored
          ? `the stored nonce of ${signer} (${new Date(last).toISOString()}) is ${ahead} ahead of the venue's clock; ` +
              "the venue refuses nonces more than 1 day ahead, so nothing can be signed. It was stored while the " +
              "local clock was wrong and the venue never accepted it: fix the clock, then run " +
              "`hlbot journal reset-nonces` to set it back to the venue's time"
          : `the local clock is ${ahead} ahead of the venue's (Date header); a nonce from it would be refused ` +
              "(the venue allows 1 day) and, stored, would block every later action: synchronise the clock (NTP)",
        signer,
        nonce,
        venueNow,
      );
    }
    return nonce;
  }
}

/**
 * A nonce source that remembers nothing beyond this process: max(now, last + 1) in memory. For the
 * simulator and tests; a real signer needs the durable NonceStore.
 */
export class MemoryNonceSource implements NonceSource {
  private readonly lastBySigner = new Map<string, number>();
  constructor(private readonly now: Clock = Date.now) {}
  next(signer: string): number {
    const nonce = this.peek(signer);
    this.lastBySigner.set(normalize(signer), nonce);
    return nonce;
  }
  peek(signer: string): number {
    const last = this.lastBySigner.get(normalize(signer));
    const now = Math.trunc(this.now());
    return last === undefined ? now : Math.max(now, last + 1);
  }
}

/**
 * One FIFO queue per signer. Everything from taking a nonce to the final answer (resends included)
 * runs in one slot, so a signer's requests leave this process in nonce order and a later nonce never
 * overtakes an earlier one. Requests of different signers run concurrently. Two processes sharing a
 * signer are only ordered by the nonce counter; the venue tolerates that (out-of-order arrival within
 * its nonce set is allowed), but one process per signer is the supported setup.
 */
export class SignerQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(signer: string, task: () => Promise<T> | T): Promise<T> {
    const key = normalize(signer);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(() => task());
    // The tail never rejects, so one failed task does not poison the queue.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Number of signers with queued or running work (for tests and metrics). */
  get activeSigners(): number {
    return this.tails.size;
  }
}

/** The queue shared by every exchange client of this process, unless a client is given its own. */
export const processSignerQueue = new SignerQueue();

function normalize(signer: string): string {
  return signer.toLowerCase();
}
