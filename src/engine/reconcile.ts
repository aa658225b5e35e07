// Reconciliation: before deciding anything new, find out what happened to every submission whose answer
// was lost (pending: written but maybe never sent, e.g. a crash; unknown: sent, answer lost). The venue
// is the source of truth: a matching TWAP in twapHistory, a matching entry in delegatorHistory, or the
// staking link in userFees means it landed. A submission is declared absent only when it can no longer
// land: an L1 action after its expiresAfter, a user-signed one (no expiry on the venue) after a grace
// period that covers the venue's whole nonce window (2 days). Both are judged by the venue's clock (the
// Date of its answers), never by ours alone: a local clock running ahead must not declare a held
// request dead while the venue would still apply it. Until then its strategy stays blocked and the
// limits count it as spent, so nothing is ever done twice.
// Evidence is matched by content and time, so two alike actions close together (the same TWAP placed
// again a few seconds after the first ended, two deposits of the same amount) could be confused: a
// venue record already explained by a submission known to have taken effect is never credited to
// another one, and each submission takes the matching record closest to the time it was signed.
// What counts as evidence for each kind of action is in the engine's table (./intentKinds.ts); the
// journaled request is read back through the action's wire schema (src/venue/exchange/actions), and a
// submission that cannot be read that way (an action this table does not know, a request that does not
// fit its schema) stops the reconciliation with a StateCorruptError naming the row: it is never
// guessed to be absent.
import { StateCorruptError } from "../lib/errors.js";
import { parseJson } from "../lib/json.js";
import { NONCE_WINDOW_PAST_MS, SPOT_ASSET_OFFSET } from "../venue/constants.js";
import { type ActionOf, wireSchemaOf } from "../venue/exchange/actions/index.js";
import type { InfoClient } from "../venue/info/client.js";
import {
  type Evidence,
  type EvidencePart,
  type Found,
  type IntentActionType,
  intentKindSpec,
  isIntentKind,
  specOf,
} from "./intentKinds.js";
import { type Journal, rebuiltRecordKey, type SubmissionRow } from "./journal.js";
import { twapCoinIsPair } from "./snapshot.js";

export interface ReconcileOptions {
  account: string;
  now: number;
  /** How long after its nonce a user-signed submission may still land (default: the nonce window, 2 days). */
  userSignedGraceMs?: number;
  /** The venue's time (VenueClock.now); when known, expiry is judged by it instead of `now`. */
  venueNow?: () => number | undefined;
  /** Allowance for clock differences between hlbot and the venue (default 10 s). */
  clockSlackMs?: number;
  signal?: AbortSignal;
}

export interface ReconcileResult {
  submissionId: number;
  strategy: string;
  actionType: string;
  /** The order's asset id (TWAP actions), so what it touches waits too, whoever decides next. */
  asset: number | null;
  verdict: "landed" | "absent" | "unresolved";
  detail: string;
}

/**
 * The venue accepts a nonce N while its block time T < N + 2 days (nonces must lie in (T − 2 days,
 * T + 1 day): Hyperliquid docs, "Nonces and API wallets",
 * https://hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/nonces-and-api-wallets, in the
 * version the reference quotes; a facts audit read a later version as "within 1 day" of the block time,
 * unconfirmed). A user-signed action has no other expiry, so a held copy may land until then. The longer
 * window is the default because it is the safe side: a staking strategy whose answer was lost waits
 * longer rather than acting twice; `venue.userSignedGraceMs` sets it.
 */
export const DEFAULT_USER_SIGNED_GRACE_MS = NONCE_WINDOW_PAST_MS;
/** How far back settled submissions may have left records an unresolved one could be confused with. */
const SETTLED_LOOKBACK_MS = 2 * 24 * 60 * 60_000;

export async function reconcile(
  info: InfoClient,
  journal: Journal,
  o: ReconcileOptions,
): Promise<ReconcileResult[]> {
  const rows = journal.unresolved(o.account).map(readSubmission);
  if (rows.length === 0) return [];
  const needs = new Set<EvidencePart>(rows.flatMap((r) => specOf(r.kind).reconcile.needs));
  const user = o.account;
  const [twaps, history, fees, meta] = await Promise.all([
    needs.has("twaps") ? info.twapHistory({ user }, o.signal) : undefined,
    needs.has("history") ? info.delegatorHistory({ user }, o.signal) : undefined,
    needs.has("stakingLink") ? info.userFees({ user }, o.signal) : undefined,
    needs.has("pairNames") ? info.spotMeta({}, o.signal) : undefined,
  ]);
  const evidence: Evidence = { twaps, history, stakingLink: fees?.stakingLink ?? null };
  if (meta) {
    const names = new Map<number, { name: string; base: { name: string } | undefined }>();
    const tokenName = new Map(meta.tokens.map((t) => [t.index, t.name]));
    for (const p of meta.universe) {
      const base = tokenName.get(p.tokens[0]);
      names.set(SPOT_ASSET_OFFSET + p.index, {
        name: p.name,
        base: base === undefined ? undefined : { name: base },
      });
    }
    evidence.pairNames = names;
  }

  // Records already explained by submissions that took effect are not evidence for anything else.
  const since = Math.min(...rows.map((r) => r.row.nonce)) - SETTLED_LOOKBACK_MS;
  const claimed = explainedRecords(journal, since, evidence, o);
  // Read after this cycle's reconciliation reads, so the venue's Date is fresh.
  const venueNow = o.venueNow?.();
  const judgeAt = venueNow ?? o.now;
  const results: ReconcileResult[] = [];
  for (const submission of rows) {
    const { row } = submission;
    const found = findEvidence(submission, evidence, claimed, o);
    let result: ReconcileResult;
    if (found) {
      claimed.add(found.key);
      journal.resolve(row.id, {
        status: "landed",
        reason: `reconciled: ${found.detail}`,
        ...(found.twapId === undefined ? {} : { twapId: found.twapId }),
        // A landed TWAP's end on the local clock (as an accepted one's is): the watch keeps guarding it.
        ...(found.expectedEndVenue === undefined
          ? {}
          : { expectedEnd: found.expectedEndVenue + (venueNow === undefined ? 0 : o.now - venueNow) }),
      });
      result = {
        submissionId: row.id,
        strategy: row.strategy,
        actionType: row.actionType,
        asset: row.asset,
        verdict: "landed",
        detail: found.detail,
      };
    } else if (judgeAt > deadline(row, o)) {
      const clock = venueNow === undefined ? "by the local clock" : "by the venue's clock";
      const detail =
        row.expiresAfter !== null
          ? `not on the venue and expired at ${new Date(row.expiresAfter).toISOString()} (${clock}), so it can no longer land`
          : `not on the venue ${Math.round((judgeAt - row.nonce) / 1000)} s after it was signed (${clock}), past the venue's nonce window`;
      journal.resolve(row.id, { status: "absent", reason: `reconciled: ${detail}` });
      // What its slot was for never happened: the slot is due again (a cancel is the watch's to resend).
      if (row.actionType !== "twapCancel") journal.reopenSlot(row.account, row.strategy, row.createdAt);
      result = {
        submissionId: row.id,
        strategy: row.strategy,
        actionType: row.actionType,
        asset: row.asset,
        verdict: "absent",
        detail,
      };
    } else {
      result = {
        submissionId: row.id,
        strategy: row.strategy,
        actionType: row.actionType,
        asset: row.asset,
        verdict: "unresolved",
        detail: `not on the venue yet and could still land until ${new Date(deadline(row, o)).toISOString()} (venue time); its strategy waits and the limits count it as spent`,
      };
    }
    journal.recordAttempt(row.id, `reconcile:${result.verdict}`, result.detail);
    results.push(result);
  }
  return results;
}

/**
 * The keys of the venue records (twapRecordKey, historyRecordKey) that the account's submissions signed
 * since `sinceNonce` and known to have taken effect explain: each such submission claims the matching
 * record closest to when it was signed. `hlbot journal rebuild` skips these (it counted a journal's own
 * staking moves a second time, a trial's 85 HYPE of moves as 145) and the reconciler credits them to
 * nothing else.
 */
export function explainedRecords(
  journal: Journal,
  sinceNonce: number,
  evidence: Evidence,
  o: ReconcileOptions,
  withUnresolved = false,
): Set<string> {
  const claimed = new Set<string>();
  // With `withUnresolved` (journal rebuild), also what a submission still pending or unknown would be
  // found as: imported beside it, the record was the rebuilt row's, the submission could never be found
  // and held its strategy for the 2-day window (a review); it is reconciled as landed instead.
  const unresolved = withUnresolved ? journal.unresolved(o.account) : [];
  for (const settled of [...journal.settledSince(o.account, sinceNonce), ...unresolved]) {
    // A row rebuilt from the venue's history is that record (its request is not a request body).
    const rebuilt = rebuiltRecordKey(settled);
    if (rebuilt !== undefined) {
      claimed.add(rebuilt);
      continue;
    }
    // A TWAP known by its id is explained by that id, unless the venue's record of that id is on
    // another pair (ids reused by a restarted simulator: an operator's trial saw an old PURR TWAP's id
    // claim a new HYPE TWAP, which was then reconciled "did not land" while it ran).
    if (settled.twapId !== null) {
      if (!otherPairUnderId(settled, evidence)) claimed.add(`twap:${settled.twapId}`);
      continue;
    }
    // A settled submission of another action explains nothing the reconciler looks for.
    if (!intentKindSpec(settled.actionType)?.reconcile.claims) continue;
    const found = findEvidence(readSubmission(settled), evidence, claimed, o);
    if (found) claimed.add(found.key);
  }
  return claimed;
}

/** Whether the venue's record of `row`'s TWAP id is on a pair other than the one `row` traded. */
function otherPairUnderId(row: SubmissionRow, evidence: Evidence): boolean {
  const record = evidence.twaps?.find((e) => e.twapId === row.twapId);
  if (record === undefined || row.actionType !== "twapOrder") return false;
  // The pair it was sent for, from the signed request (the row's asset column is not always written).
  // A settled row that cannot be read back claims its id as it always did: it is settled, and this
  // check only guards against ids a restarted simulator reused.
  let asset: number;
  try {
    asset = (readSubmission(row).action as { twap: { a: number } }).twap.a;
  } catch {
    return false;
  }
  const pair = evidence.pairNames?.get(asset);
  return pair !== undefined && !twapCoinIsPair(record.state.coin, pair);
}

function deadline(row: SubmissionRow, o: ReconcileOptions): number {
  const slack = o.clockSlackMs ?? 10_000;
  if (row.expiresAfter !== null) return row.expiresAfter + slack;
  return row.nonce + (o.userSignedGraceMs ?? DEFAULT_USER_SIGNED_GRACE_MS) + slack;
}

/** A journaled submission read back: its kind and its action, as the action's wire schema reads it. */
interface StoredSubmission {
  row: SubmissionRow;
  kind: IntentActionType;
  action: ActionOf<IntentActionType>;
}

/**
 * Reads a journaled submission back through its action's wire schema. A row that cannot be read is
 * named in a StateCorruptError (never a bare JSON error, never guessed absent).
 */
function readSubmission(row: SubmissionRow): StoredSubmission {
  const what = `journal row submissions #${row.id} (${row.actionType}, nonce ${row.nonce})`;
  let body: unknown;
  try {
    body = parseJson(row.request);
  } catch (err) {
    throw new StateCorruptError(
      `${what} holds a request that is not valid JSON (${err instanceof Error ? err.message : String(err)}): the state database is damaged; check it with \`hlbot history\``,
      { cause: err },
    );
  }
  const action = (body as { action?: unknown } | null)?.action;
  if (action === null || typeof action !== "object" || Array.isArray(action)) {
    throw new StateCorruptError(`${what} holds a request without an action: the state database is damaged`);
  }
  const kind = row.actionType;
  if (!isIntentKind(kind)) {
    throw new StateCorruptError(
      `${what} is of an action the reconciler does not know, so whether it landed cannot be told ` +
        "(was the state folder written by another version of hlbot?); check it with `hlbot history`",
    );
  }
  const parsed = wireSchemaOf(kind).safeParse(action);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${["action", ...i.path.map(String)].join(".")}: ${i.message}`)
      .join("; ");
    throw new StateCorruptError(
      `${what} holds a request whose action is not a valid ${kind} (${issues}): the state database is damaged; check it with \`hlbot history\``,
    );
  }
  return { row, kind, action: parsed.data };
}

function findEvidence(
  { row, kind, action }: StoredSubmission,
  evidence: Evidence,
  claimed: ReadonlySet<string>,
  o: ReconcileOptions,
): Found | undefined {
  const slack = o.clockSlackMs ?? 10_000;
  // The nonce is our clock's; when it runs ahead of the venue's, venue records carry earlier times. So
  // does a nonce the store handed out ahead of the clock (max(now, last + 1) after a clock that ran hours
  // ahead was corrected): the venue's time when the row was written bounds it too (a review found such a
  // landed TWAP judged absent, and its budget no longer counting it).
  const venueNow = o.venueNow?.();
  const ahead = venueNow === undefined ? 0 : Math.max(0, o.now - venueNow);
  const signed = Math.min(row.nonce, row.venueAt ?? row.nonce);
  return specOf(kind).reconcile.match(action, {
    nonce: signed,
    from: signed - slack - ahead,
    until: deadline(row, o) + slack,
    claimed,
    evidence,
  });
}
