// The reliability audit: compares the simulator's ledger (what the venue actually did) with hlbot's
// journal (what hlbot believes it sent and what became of it). Shared by the fault soak and the crash
// test. Every check returns a list of human-readable violations; an empty list is a pass.
import type { Database } from "better-sqlite3";
import type { LedgerEntry } from "../../src/simulator/index.js";

export interface JournalSubmission {
  id: number;
  cycleId: string;
  decisionId: number | null;
  strategy: string;
  signer: string;
  actionType: string;
  nonce: number;
  expiresAfter: number | null;
  status: string;
  reason: string | null;
}

export interface AuditFigures {
  /** Actions the venue processed for the account (ledger `action` entries). */
  ledgerActions: number;
  /** Of those, the ones that took effect (status ok). */
  ledgerEffects: number;
  submissions: number;
  byStatus: Record<string, number>;
  /** Submissions that were ever unknown or pending-after-a-crash and then reconciled. */
  reconciled: { landed: number; absent: number };
  duplicateEffects: number;
  unmatchedEffects: number;
  mismatches: number;
  maxConcurrentTwapsPerPair: number;
}

export interface AuditResult {
  violations: string[];
  figures: AuditFigures;
}

export function readSubmissions(db: Database): JournalSubmission[] {
  return db
    .prepare(
      `SELECT id, cycle_id AS cycleId, decision_id AS decisionId, strategy, signer, action_type AS actionType,
         nonce, expires_after AS expiresAfter, status, reason FROM submissions ORDER BY id`,
    )
    .all() as JournalSubmission[];
}

/**
 * At most once, checked three ways against the venue's ledger:
 * 1. every action the venue processed for the account maps to exactly one journaled submission
 *    (by signer and nonce), and no decision produced more than one effect;
 * 2. the journal's final verdict agrees with the ledger (accepted/landed ⇔ took effect);
 * 3. at no moment did two TWAPs of the account run on one pair (each TWAP strategy waits for its
 *    running TWAP, so an overlap would be an order placed twice).
 */
export function auditLedgerAgainstJournal(
  ledger: readonly LedgerEntry[],
  db: Database,
  account: string,
  options: { allowUnresolved?: boolean } = {},
): AuditResult {
  const violations: string[] = [];
  const subs = readSubmissions(db);
  const byNonce = new Map<string, JournalSubmission[]>();
  for (const s of subs) {
    const key = `${s.signer.toLowerCase()}:${s.nonce}`;
    byNonce.set(key, [...(byNonce.get(key) ?? []), s]);
  }
  for (const [key, list] of byNonce) {
    if (list.length > 1)
      violations.push(`nonce ${key} journaled ${list.length} times (#${list.map((s) => s.id)})`);
  }

  const actions = ledger.filter((e) => e.kind === "action" && e.user === account);
  const effectsBySubmission = new Map<number, LedgerEntry[]>();
  let unmatched = 0;
  for (const a of actions) {
    const key = `${String(a.data.signer).toLowerCase()}:${String(a.data.nonce)}`;
    const match = byNonce.get(key);
    if (!match || match.length === 0) {
      unmatched++;
      violations.push(
        `ledger action #${a.seq} (${String(a.data.type)}, nonce ${key}) has no journaled submission`,
      );
      continue;
    }
    const sub = match[0]!;
    effectsBySubmission.set(sub.id, [...(effectsBySubmission.get(sub.id) ?? []), a]);
  }

  let duplicates = 0;
  const effectsByDecision = new Map<number, number>();
  for (const [id, list] of effectsBySubmission) {
    if (list.length > 1) {
      duplicates++;
      violations.push(`submission #${id} took effect ${list.length} times`);
    }
    const sub = subs.find((s) => s.id === id)!;
    if (sub.decisionId !== null && list.some((e) => e.data.status === "ok")) {
      effectsByDecision.set(sub.decisionId, (effectsByDecision.get(sub.decisionId) ?? 0) + 1);
    }
  }
  for (const [decision, n] of effectsByDecision) {
    if (n > 1) {
      duplicates++;
      violations.push(`decision #${decision} took effect ${n} times`);
    }
  }

  let mismatches = 0;
  const byStatus: Record<string, number> = {};
  for (const s of subs) {
    byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
    const effects = effectsBySubmission.get(s.id) ?? [];
    const tookEffect = effects.some((e) => e.data.status === "ok");
    const bad = (why: string) => {
      mismatches++;
      violations.push(`submission #${s.id} (${s.strategy} ${s.actionType}, nonce ${s.nonce}) ${why}`);
    };
    switch (s.status) {
      case "accepted":
      case "landed":
        if (!tookEffect) bad(`is ${s.status} in the journal but had no effect on the venue`);
        break;
      case "rejected":
      case "absent":
        if (tookEffect) bad(`is ${s.status} in the journal but took effect on the venue`);
        break;
      case "pending":
      case "unknown":
        if (!options.allowUnresolved) bad(`is still ${s.status} at the end`);
        break;
      default:
        bad(`has an unexpected status ${s.status}`);
    }
    if (["rejected", "absent", "unknown"].includes(s.status) && !s.reason)
      bad("failed without a journaled cause");
  }

  const reconciled = db
    .prepare(
      `SELECT outcome, COUNT(DISTINCT submission_id) AS n FROM attempts
       WHERE outcome IN ('reconcile:landed', 'reconcile:absent') GROUP BY outcome`,
    )
    .all() as Array<{ outcome: string; n: number }>;

  return {
    violations,
    figures: {
      ledgerActions: actions.length,
      ledgerEffects: actions.filter((a) => a.data.status === "ok").length,
      submissions: subs.length,
      byStatus,
      reconciled: {
        landed: reconciled.find((r) => r.outcome === "reconcile:landed")?.n ?? 0,
        absent: reconciled.find((r) => r.outcome === "reconcile:absent")?.n ?? 0,
      },
      duplicateEffects: duplicates,
      unmatchedEffects: unmatched,
      mismatches,
      maxConcurrentTwapsPerPair: maxConcurrentTwaps(ledger, account, violations),
    },
  };
}

/**
 * How long before its scheduled end a TWAP of the same side may be joined by the next one (the engine's
 * OWN_TWAP_ENDING_MS: a DCA's next run does not wait for its own TWAP's last two minutes).
 */
const ENDING_MS = 2 * 60_000;

function maxConcurrentTwaps(ledger: readonly LedgerEntry[], account: string, violations: string[]): number {
  const pairOf = new Map<number, string>();
  const running = new Map<string, Set<number>>();
  const endOf = new Map<number, number>();
  let max = 0;
  for (const e of ledger) {
    if (e.user !== account) continue;
    const id = Number(e.data.twapId);
    if (e.kind === "twapPlaced") {
      const pair = String(e.data.coin);
      pairOf.set(id, pair);
      endOf.set(id, e.time + Number(e.data.minutes) * 60_000);
      const set = running.get(pair) ?? new Set<number>();
      // A second TWAP on the pair while one still had more than its last minutes to run: a doubled send.
      const early = [...set].filter((other) => (endOf.get(other) ?? 0) - e.time > ENDING_MS);
      if (early.length > 0)
        violations.push(`TWAPs ${[...early, id].join(", ")} ran at the same time on ${pair}`);
      set.add(id);
      running.set(pair, set);
      max = Math.max(max, set.size);
    } else if (e.kind === "twapFinished" || e.kind === "twapTerminated") {
      const pair = pairOf.get(id);
      if (pair !== undefined) running.get(pair)?.delete(id);
    }
  }
  return max;
}

/** Nonces per signer in journal order must strictly increase (the durable counter never goes back). */
export function nonceViolations(subs: readonly JournalSubmission[]): string[] {
  const last = new Map<string, number>();
  const out: string[] = [];
  for (const s of subs) {
    const signer = s.signer.toLowerCase();
    const prev = last.get(signer);
    if (prev !== undefined && s.nonce <= prev)
      out.push(`submission #${s.id}: nonce ${s.nonce} is not above the previous ${prev} of ${signer}`);
    last.set(signer, s.nonce);
  }
  return out;
}

/** A small seeded PRNG (mulberry32): the soak's own randomness, reproducible from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
