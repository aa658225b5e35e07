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
import { Decimal } from "../lib/decimal.js";
import { StateCorruptError } from "../lib/errors.js";
import { parseJson } from "../lib/json.js";
import { SPOT_ASSET_OFFSET } from "../venue/constants.js";
import type { InfoClient } from "../venue/info/client.js";
import type { DelegatorHistoryResponse, TwapHistoryResponse } from "../venue/info/methods/index.js";
import type { Journal, SubmissionRow } from "./journal.js";
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
  verdict: "landed" | "absent" | "unresolved";
  detail: string;
}

/**
 * The venue accepts a nonce N while its block time T < N + 2 days (nonces must lie in (T − 2 days,
 * T + 1 day): Hyperliquid docs, "Nonces and API wallets",
 * https://hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/nonces-and-api-wallets). A
 * user-signed action has no other expiry, so a held copy may land until then.
 */
export const DEFAULT_USER_SIGNED_GRACE_MS = 2 * 24 * 60 * 60_000;
/** How far back settled submissions may have left records an unresolved one could be confused with. */
const SETTLED_LOOKBACK_MS = 2 * 24 * 60 * 60_000;

interface Evidence {
  twaps?: TwapHistoryResponse;
  history?: DelegatorHistoryResponse;
  stakingLink?: { type: string; stakingUser?: string; tradingUser?: string } | null;
  pairNames?: Map<number, { name: string; base: { name: string } | undefined }>;
}

export async function reconcile(
  info: InfoClient,
  journal: Journal,
  o: ReconcileOptions,
): Promise<ReconcileResult[]> {
  const rows = journal.unresolved(o.account);
  if (rows.length === 0) return [];
  const types = new Set(rows.map((r) => r.actionType));
  const user = o.account;
  const needTwaps = types.has("twapOrder") || types.has("twapCancel");
  const needHistory = types.has("tokenDelegate") || types.has("cDeposit") || types.has("cWithdraw");
  const [twaps, history, fees, meta] = await Promise.all([
    needTwaps ? info.twapHistory({ user }, o.signal) : undefined,
    needHistory ? info.delegatorHistory({ user }, o.signal) : undefined,
    types.has("linkStakingUser") ? info.userFees({ user }, o.signal) : undefined,
    types.has("twapOrder") ? info.spotMeta({}, o.signal) : undefined,
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
  const claimed = new Set<string>();
  const since = Math.min(...rows.map((r) => r.nonce)) - SETTLED_LOOKBACK_MS;
  for (const settled of journal.settledSince(o.account, since)) {
    if (settled.twapId !== null) claimed.add(`twap:${settled.twapId}`);
    if (settled.actionType === "twapCancel" || settled.actionType === "linkStakingUser") continue;
    if (settled.actionType === "twapOrder" && settled.twapId !== null) continue;
    const found = findEvidence(settled, evidence, claimed, o);
    if (found) claimed.add(found.key);
  }
  // Read after this cycle's reconciliation reads, so the venue's Date is fresh.
  const venueNow = o.venueNow?.();
  const judgeAt = venueNow ?? o.now;
  const results: ReconcileResult[] = [];
  for (const row of rows) {
    const found = findEvidence(row, evidence, claimed, o);
    let result: ReconcileResult;
    if (found) {
      claimed.add(found.key);
      journal.resolve(row.id, {
        status: "landed",
        reason: `reconciled: ${found.detail}`,
        ...(found.twapId === undefined ? {} : { twapId: found.twapId }),
      });
      result = {
        submissionId: row.id,
        strategy: row.strategy,
        actionType: row.actionType,
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
      result = {
        submissionId: row.id,
        strategy: row.strategy,
        actionType: row.actionType,
        verdict: "absent",
        detail,
      };
    } else {
      result = {
        submissionId: row.id,
        strategy: row.strategy,
        actionType: row.actionType,
        verdict: "unresolved",
        detail: `not on the venue yet and could still land until ${new Date(deadline(row, o)).toISOString()} (venue time); its strategy waits and the limits count it as spent`,
      };
    }
    journal.recordAttempt(row.id, `reconcile:${result.verdict}`, result.detail);
    results.push(result);
  }
  return results;
}

function deadline(row: SubmissionRow, o: ReconcileOptions): number {
  const slack = o.clockSlackMs ?? 10_000;
  if (row.expiresAfter !== null) return row.expiresAfter + slack;
  return row.nonce + (o.userSignedGraceMs ?? DEFAULT_USER_SIGNED_GRACE_MS) + slack;
}

/** The action of a journaled request; a row that cannot be read is named, not a bare JSON error. */
function storedAction(row: SubmissionRow): Record<string, unknown> {
  let body: unknown;
  try {
    body = parseJson(row.request);
  } catch (err) {
    throw new StateCorruptError(
      `journal row submissions #${row.id} (${row.actionType}, nonce ${row.nonce}) holds a request that is not valid JSON (${err instanceof Error ? err.message : String(err)}): the state database is damaged; check it with \`hlbot history\``,
      { cause: err },
    );
  }
  const action = (body as { action?: unknown } | null)?.action;
  if (action === null || typeof action !== "object" || Array.isArray(action)) {
    throw new StateCorruptError(
      `journal row submissions #${row.id} (${row.actionType}, nonce ${row.nonce}) holds a request without an action: the state database is damaged`,
    );
  }
  return action as Record<string, unknown>;
}

function findEvidence(
  row: SubmissionRow,
  ev: Evidence,
  claimed: ReadonlySet<string>,
  o: ReconcileOptions,
): { key: string; detail: string; twapId?: number } | undefined {
  const action = storedAction(row);
  const slack = o.clockSlackMs ?? 10_000;
  // The nonce is our clock's; when it runs ahead of the venue's, venue records carry earlier times.
  const venueNow = o.venueNow?.();
  const ahead = venueNow === undefined ? 0 : Math.max(0, o.now - venueNow);
  const from = row.nonce - slack - ahead;
  const until = deadline(row, o) + slack;

  switch (row.actionType) {
    case "twapOrder": {
      const twap = action.twap as { a: number; b: boolean; s: string; m: number };
      const pair = ev.pairNames?.get(twap.a);
      const best = closest(row.nonce, ev.twaps ?? [], (entry) => {
        const st = entry.state;
        const key = `twap:${entry.twapId ?? st.timestamp}`;
        if (claimed.has(key)) return undefined;
        if (st.timestamp < from || st.timestamp > until) return undefined;
        if (pair === undefined || !twapCoinIsPair(st.coin, pair)) return undefined;
        if ((st.side === "B") !== twap.b || st.minutes !== twap.m) return undefined;
        if (!new Decimal(st.sz).eq(new Decimal(twap.s))) return undefined;
        return {
          at: st.timestamp,
          key,
          detail: `TWAP ${entry.twapId ?? "(no id)"} found in twapHistory`,
          twapId: entry.twapId,
        };
      });
      return best;
    }
    case "twapCancel": {
      const twapId = action.t as number;
      const ended = (ev.twaps ?? []).find((e) => e.twapId === twapId && e.status.status === "terminated");
      return ended ? { key: `cancel:${twapId}`, detail: `TWAP ${twapId} shows as terminated` } : undefined;
    }
    case "tokenDelegate":
    case "cDeposit":
    case "cWithdraw": {
      const amount = new Decimal(String(action.wei)).div(1e8);
      return closest(row.nonce, ev.history ?? [], (entry) => {
        const key = `hist:${entry.hash}:${entry.time}`;
        if (claimed.has(key) || entry.time < from || entry.time > until) return undefined;
        const delta = entry.delta as Record<string, Record<string, unknown> | undefined>;
        const at = entry.time;
        if (row.actionType === "tokenDelegate") {
          const d = delta.delegate;
          if (
            d &&
            String(d.validator).toLowerCase() === String(action.validator).toLowerCase() &&
            Boolean(d.isUndelegate) === Boolean(action.isUndelegate) &&
            new Decimal(String(d.amount)).eq(amount)
          ) {
            return {
              at,
              key,
              detail: `delegation found in delegatorHistory at ${new Date(entry.time).toISOString()}`,
            };
          }
        } else if (row.actionType === "cDeposit") {
          const d = delta.cDeposit;
          if (d && new Decimal(String(d.amount)).eq(amount)) {
            return {
              at,
              key,
              detail: `staking deposit found in delegatorHistory at ${new Date(entry.time).toISOString()}`,
            };
          }
        } else {
          const d = delta.withdrawal;
          if (d && d.phase === "initiated" && new Decimal(String(d.amount)).eq(amount)) {
            return {
              at,
              key,
              detail: `withdrawal found in delegatorHistory at ${new Date(entry.time).toISOString()}`,
            };
          }
        }
        return undefined;
      });
    }
    case "linkStakingUser": {
      const link = ev.stakingLink;
      const counterparty = String(action.user).toLowerCase();
      if (!link) return undefined;
      const other = (link.stakingUser ?? link.tradingUser ?? "").toLowerCase();
      return other === counterparty
        ? { key: "link", detail: `userFees.stakingLink is ${link.type}` }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** Of the entries `match` accepts, the one recorded closest to `nonce` (when the action was signed). */
function closest<E>(
  nonce: number,
  entries: readonly E[],
  match: (entry: E) => { at: number; key: string; detail: string; twapId?: number } | undefined,
): { key: string; detail: string; twapId?: number } | undefined {
  let best: { at: number; key: string; detail: string; twapId?: number } | undefined;
  for (const entry of entries) {
    const m = match(entry);
    if (m && (best === undefined || Math.abs(m.at - nonce) < Math.abs(best.at - nonce))) best = m;
  }
  if (best === undefined) return undefined;
  const { at: _at, ...found } = best;
  return found;
}
