// The engine's facts about each kind of intent, in one table keyed by the kind: the exchange call it
// stands for and what the journal keeps of its acceptance (the executor), the limit that governs it and
// what it counts against the rolling limits (risk.ts, the journal's usage), and how the reconciler
// finds it on the venue (reconcile.ts). The
// table's type maps every IntentKind, so a new kind of intent does not compile until it has an entry
// here; the wire facts of the action it is sent as (builder, signing, schemas) are in that action's
// module under src/venue/exchange/actions.
import { Decimal, fromWei } from "../lib/decimal.js";
import { HYPE_WEI_DECIMALS } from "../venue/constants.js";
import type { ActionDataOf, ActionOf, ExchangeActionType } from "../venue/exchange/actions/index.js";
import type { CallOf, ExchangeCall } from "../venue/exchange/client.js";
import {
  type DelegatorHistoryResponse,
  stakingLinkPeer,
  type TwapHistoryResponse,
} from "../venue/info/methods/index.js";
import type { CWithdrawIntent, Intent, TokenDelegateIntent, TwapOrderIntent } from "./intents.js";
import { twapCoinIsPair } from "./snapshot.js";

export type IntentKind = Intent["kind"];
export type IntentOf<K extends IntentKind> = Extract<Intent, { kind: K }>;

// Every intent is sent as the exchange action of the same name.
type AssertIntentKindsAreActions<K extends ExchangeActionType> = K;
export type IntentActionType = AssertIntentKindsAreActions<IntentKind>;

/** What the risk limits (src/engine/risk.ts) check an intent against. */
export type LimitFacts =
  /** maxOrderUsd and maxDailyNotionalUsd, in USD; counts its notional. */
  | { limit: "twap"; intent: TwapOrderIntent }
  /**
   * maxStakeMovePerDay (counts its amount) and, for a delegation, the validator allowlist. An
   * undelegation marked `fundsNext` is limited together with the delegation or withdrawal after it.
   */
  | {
      limit: "stakeMove";
      intent: TokenDelegateIntent | CWithdrawIntent;
      move: "delegate" | "undelegate" | "withdraw";
      /** The validator of a delegation or undelegation. */
      validator?: string;
      fundsNext: boolean;
    }
  /** Only a positive amount: HYPE moved within the account. */
  | { limit: "positiveAmount"; amount: Decimal }
  /** Nothing: it only reduces exposure (a cancel) or links accounts. */
  | { limit: "none" };

/** Venue reads the reconciler may need. */
export type EvidencePart = "twaps" | "pairNames" | "history" | "stakingLink";

/** What the reconciler read from the venue. */
export interface Evidence {
  twaps?: TwapHistoryResponse;
  history?: DelegatorHistoryResponse;
  stakingLink?: { type: string; stakingUser?: string; tradingUser?: string } | null;
  pairNames?: Map<number, { name: string; base: { name: string } | undefined }>;
}

/** One submission being matched against the venue's records. */
export interface MatchContext {
  /** When it was signed (our clock). */
  nonce: number;
  /** Venue records outside [from, until] are not it. */
  from: number;
  until: number;
  /** Venue records already explained by another submission. */
  claimed: ReadonlySet<string>;
  evidence: Evidence;
}

/** A venue record showing the submission took effect: `key` names the record (for `claimed`). */
export interface Found {
  key: string;
  detail: string;
  twapId?: number;
  /** A TWAP's expected end by the venue's clock (its start + duration), for the watch of its guards. */
  expectedEndVenue?: number;
}

/** What the journal keeps of an accepted submission besides its answer. */
export interface AcceptedFacts {
  /** The venue's id of a TWAP it placed. */
  twapId?: number;
  /** When that TWAP is expected to end. */
  expectedEnd?: number;
}

export interface IntentKindSpec<K extends IntentKind> {
  /** The exchange call the intent stands for. */
  call(intent: IntentOf<K>): CallOf<K>;
  /** What the journal keeps when the venue accepts it (`data`: what the action's answer returned). */
  accepted(intent: IntentOf<K>, data: ActionDataOf<K>, clock: () => number): AcceptedFacts;
  /** The limit that governs it, and what it counts against the rolling limits. */
  limit(intent: IntentOf<K>): LimitFacts;
  /**
   * Its amount is signed as HYPE in wei (HYPE_WEI_DECIMALS): sent only while the venue states that unit
   * (priceSanity.ts stakeUnitMismatch).
   */
  hypeWei?: true;
  reconcile: {
    /** The venue reads `match` needs. */
    needs: readonly EvidencePart[];
    /**
     * Whether a submission of this kind known to have taken effect explains the venue record it
     * matches, which is then no evidence for another one (a TWAP's end or the staking link is not).
     */
    claims: boolean;
    /** The venue record showing a submission of this action took effect, if any. */
    match(action: ActionOf<K>, m: MatchContext): Found | undefined;
  };
}

/** The table: one entry per kind of intent. */
export type IntentKindTable = { readonly [K in IntentKind]: IntentKindSpec<K> };

export const INTENT_KINDS: IntentKindTable = {
  twapOrder: {
    call: (intent) => ({
      type: "twapOrder",
      params: {
        asset: intent.assetId,
        isBuy: intent.side === "buy",
        size: intent.size,
        szDecimals: intent.szDecimals,
        reduceOnly: intent.reduceOnly,
        minutes: intent.minutes,
        randomize: intent.randomize,
      },
    }),
    accepted: (intent, data, clock) => ({
      twapId: data?.twapId,
      expectedEnd: clock() + intent.minutes * 60_000,
    }),
    limit: (intent) => ({ limit: "twap", intent }),
    reconcile: {
      needs: ["twaps", "pairNames"],
      claims: true,
      match: ({ twap }, m) => {
        const pair = m.evidence.pairNames?.get(twap.a);
        return closest(m.nonce, m.evidence.twaps ?? [], (entry) => {
          const st = entry.state;
          const key = twapRecordKey(entry);
          if (m.claimed.has(key)) return undefined;
          if (st.timestamp < m.from || st.timestamp > m.until) return undefined;
          if (pair === undefined || !twapCoinIsPair(st.coin, pair)) return undefined;
          if ((st.side === "B") !== twap.b || st.minutes !== twap.m) return undefined;
          if (!new Decimal(st.sz).eq(new Decimal(twap.s))) return undefined;
          return {
            at: st.timestamp,
            key,
            detail: `TWAP ${entry.twapId ?? "(no id)"} found in twapHistory`,
            twapId: entry.twapId,
            expectedEndVenue: st.timestamp + st.minutes * 60_000,
          };
        });
      },
    },
  },
  twapCancel: {
    call: (intent) => ({ type: "twapCancel", params: { asset: intent.assetId, twapId: intent.twapId } }),
    accepted: () => ({}),
    limit: () => ({ limit: "none" }),
    reconcile: {
      needs: ["twaps"],
      claims: false,
      match: ({ t: twapId }, m) => {
        const ended = (m.evidence.twaps ?? []).find(
          (e) => e.twapId === twapId && e.status.status === "terminated",
        );
        return ended ? { key: `cancel:${twapId}`, detail: `TWAP ${twapId} shows as terminated` } : undefined;
      },
    },
  },
  tokenDelegate: {
    call: (intent) => ({
      type: "tokenDelegate",
      params: { validator: intent.validator, amount: intent.amount, isUndelegate: intent.isUndelegate },
    }),
    hypeWei: true,
    accepted: () => ({}),
    limit: (intent) => ({
      limit: "stakeMove",
      intent,
      move: intent.isUndelegate ? "undelegate" : "delegate",
      validator: intent.validator,
      fundsNext: intent.fundsNext === true,
    }),
    reconcile: {
      needs: ["history"],
      claims: true,
      match: (action, m) =>
        historyMatch(m, action.wei, "delegation", ({ delegate: d }, amount) => {
          if (!d) return false;
          return (
            String(d.validator).toLowerCase() === String(action.validator).toLowerCase() &&
            Boolean(d.isUndelegate) === Boolean(action.isUndelegate) &&
            new Decimal(String(d.amount)).eq(amount)
          );
        }),
    },
  },
  cDeposit: {
    call: (intent) => ({ type: "cDeposit", params: { amount: intent.amount } }),
    hypeWei: true,
    accepted: () => ({}),
    limit: (intent) => ({ limit: "positiveAmount", amount: intent.amount }),
    reconcile: {
      needs: ["history"],
      claims: true,
      match: (action, m) =>
        historyMatch(m, action.wei, "staking deposit", ({ cDeposit: d }, amount) => {
          if (!d) return false;
          return new Decimal(String(d.amount)).eq(amount);
        }),
    },
  },
  cWithdraw: {
    call: (intent) => ({ type: "cWithdraw", params: { amount: intent.amount } }),
    hypeWei: true,
    accepted: () => ({}),
    limit: (intent) => ({ limit: "stakeMove", intent, move: "withdraw", fundsNext: false }),
    reconcile: {
      needs: ["history"],
      claims: true,
      match: (action, m) =>
        historyMatch(m, action.wei, "withdrawal", ({ withdrawal: d }, amount) => {
          if (!d) return false;
          return d.phase === "initiated" && new Decimal(String(d.amount)).eq(amount);
        }),
    },
  },
  linkStakingUser: {
    call: (intent) => ({
      type: "linkStakingUser",
      params: { user: intent.user, isFinalize: intent.isFinalize },
    }),
    accepted: () => ({}),
    limit: () => ({ limit: "none" }),
    reconcile: {
      needs: ["stakingLink"],
      claims: false,
      match: (action, m) => {
        const link = m.evidence.stakingLink;
        const counterparty = String(action.user).toLowerCase();
        if (!link) return undefined;
        const other = stakingLinkPeer(link) ?? "";
        return other === counterparty
          ? { key: "link", detail: `userFees.stakingLink is ${link.type}` }
          : undefined;
      },
    },
  },
};

/** An entry of the table seen for any intent (each entry is only ever given intents of its own kind). */
interface AnyIntentKindSpec {
  call(intent: Intent): ExchangeCall;
  accepted(intent: Intent, data: unknown, clock: () => number): AcceptedFacts;
  limit(intent: Intent): LimitFacts;
  hypeWei?: true;
  reconcile: {
    needs: readonly EvidencePart[];
    claims: boolean;
    match(action: ActionOf<IntentActionType>, m: MatchContext): Found | undefined;
  };
}

/** Whether `kind` is a kind of intent (an own key of the table, so never "toString"). */
export function isIntentKind(kind: unknown): kind is IntentKind {
  return typeof kind === "string" && Object.hasOwn(INTENT_KINDS, kind);
}

/** The table's entry for a kind, seen for any intent of that kind. */
export function specOf(kind: IntentKind): AnyIntentKindSpec {
  return INTENT_KINDS[kind] as AnyIntentKindSpec;
}

/** The table's entry for a kind; undefined for anything else (an intent that is not well-typed). */
export function intentKindSpec(kind: unknown): AnyIntentKindSpec | undefined {
  return isIntentKind(kind) ? specOf(kind) : undefined;
}

/** Whether an intent of this kind moves HYPE signed in wei (a staking action). */
export function movesHypeWei(kind: unknown): boolean {
  return intentKindSpec(kind)?.hypeWei === true;
}

/** The exchange call an intent stands for. */
export function callFor(intent: Intent): ExchangeCall {
  const spec = intentKindSpec(intent.kind);
  if (!spec) throw new Error(`unhandled variant: ${JSON.stringify(intent)}`);
  return spec.call(intent);
}

type HistoryDelta = Record<string, Record<string, unknown> | undefined>;

/**
 * The key of a venue record that one submission's effect explains: a TWAP by its id (by its time and
 * coin when the venue gave none), a staking history entry by its hash and time. The reconciler and
 * `hlbot journal rebuild` name records by these, so a rebuilt row claims the record it came from.
 */
export function twapRecordKey(entry: {
  twapId?: number | undefined;
  state: { timestamp: number; coin: string };
}): string {
  return `twap:${entry.twapId ?? `${entry.state.timestamp}:${entry.state.coin}`}`;
}

export function historyRecordKey(entry: { hash: string; time: number }): string {
  return `hist:${entry.hash}:${entry.time}`;
}

/** The delegatorHistory entry closest to the nonce that `test` accepts for this amount of wei. */
function historyMatch(
  m: MatchContext,
  wei: number | bigint,
  what: string,
  test: (delta: HistoryDelta, amount: Decimal) => boolean,
): Found | undefined {
  const amount = fromWei(wei, HYPE_WEI_DECIMALS);
  return closest(m.nonce, m.evidence.history ?? [], (entry) => {
    const key = historyRecordKey(entry);
    if (m.claimed.has(key) || entry.time < m.from || entry.time > m.until) return undefined;
    if (!test(entry.delta as HistoryDelta, amount)) return undefined;
    return {
      at: entry.time,
      key,
      detail: `${what} found in delegatorHistory at ${new Date(entry.time).toISOString()}`,
    };
  });
}

/** Of the entries `match` accepts, the one recorded closest to `nonce` (when the action was signed). */
function closest<E>(
  nonce: number,
  entries: readonly E[],
  match: (entry: E) => (Found & { at: number }) | undefined,
): Found | undefined {
  let best: (Found & { at: number }) | undefined;
  for (const entry of entries) {
    const m = match(entry);
    if (m && (best === undefined || Math.abs(m.at - nonce) < Math.abs(best.at - nonce))) best = m;
  }
  if (best === undefined) return undefined;
  const { at: _at, ...found } = best;
  return found;
}
