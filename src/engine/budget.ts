// What a cycle tells strategies about their own past TWAPs: what the venue says they filled (budgets
// count fills, not submissions) and which of their orders the venue refused (the allocator never
// resends an identical refused order).
import type { Logger } from "pino";
import { Decimal, ZERO } from "../lib/decimal.js";
import { describeError } from "../lib/errors.js";
import { refusesRequestNotOrder } from "../venue/exchange/refusals.js";
import { NEVER_PROCESSED, type RejectionCode } from "../venue/exchange/submit.js";
import type { InfoClient } from "../venue/info/client.js";
import { latestTwapEntries, twapHasEnded } from "../venue/info/methods/index.js";
import { perAnswer } from "../venue/info/query.js";
import type { RefusedOrder } from "./allocate.js";
import type { Intent } from "./intents.js";
import {
  type BudgetCandidate,
  countedUsd,
  filledUsd,
  type Journal,
  MANUAL_STRATEGY,
  type TwapFill,
  VENUE_HISTORY_STRATEGY,
} from "./journal.js";
import { KILL_SWITCH_STRATEGY } from "./killSwitch.js";
import { isMarketPair, marketPair, type Snapshot } from "./snapshot.js";
import type { StrategyMemory } from "./strategies/types.js";
import { usdPerUnit } from "./usd.js";

interface FillDeps {
  info: InfoClient;
  account: string;
  logger: Logger;
  journal: Journal;
}

/** What a cycle knows of its budgeted strategies' TWAPs from the venue's history. */
export interface BudgetFacts {
  /** Per twapId: whether it ended and what it executed. */
  fills: Map<number, TwapFill>;
  /**
   * Per budgeted strategy: the venue's TWAPs on its pair and side that the journal does not have. Its
   * budget would not count them: it holds until a rebuild imports them.
   */
  unjournaled: Map<string, UnjournaledTwaps>;
}

export interface UnjournaledTwaps {
  count: number;
  /** What the ended ones executed, in USD (undefined when the quote has no USD price now). */
  executedUsd: Decimal | undefined;
  /** How many have not ended: the venue's executedNtl of one is 0 until it ends (a newcomer's trial). */
  running: number;
  /** The earliest one's start (venue time, unix ms). */
  first: number;
}

interface BudgetedStrategy {
  name: string;
  coin: string;
  quote: string;
  side: "buy" | "sell";
}

function budgetedStrategies(strategies: ReadonlyArray<{ name: string; kind: string; params: unknown }>) {
  const out: BudgetedStrategy[] = [];
  for (const s of strategies) {
    if (s.kind !== "twap-accumulate") continue;
    const p = s.params as { budgetUsd?: unknown; coin: string; quote: string; side: "buy" | "sell" };
    if (p.budgetUsd !== undefined) out.push({ name: s.name, coin: p.coin, quote: p.quote, side: p.side });
  }
  return out;
}

/**
 * The venue's view of the account's TWAPs (twapHistory: status and executed notional per twapId), read
 * only when a strategy of this cycle has a budget. Unreadable: undefined, and budgets count every
 * submission in full (fail closed), as before; the check for TWAPs of an earlier journal waits for a
 * cycle that reads it.
 */
export async function twapFillsForBudgets(
  deps: FillDeps,
  strategies: ReadonlyArray<{ name: string; kind: string; params: unknown }>,
  snapshot: Snapshot,
  signal: AbortSignal | undefined,
): Promise<BudgetFacts | undefined> {
  const budgeted = budgetedStrategies(strategies);
  if (budgeted.length === 0) return undefined;
  let history: TwapHistory;
  try {
    // The cycle's snapshot read it already when it read running TWAPs (every DCA does): not read twice.
    history = snapshot.twapHistory ?? (await deps.info.twapHistory({ user: deps.account }, signal));
  } catch (err) {
    if (signal?.aborted) throw err;
    deps.logger.warn(
      { err: describeError(err) },
      "twapHistory unreadable: budgets count every TWAP in full this cycle",
    );
    return undefined;
  }
  const fills = new Map<number, TwapFill>();
  for (const t of endedAndFilled(history)) {
    const pair = snapshot.pairs.get(t.coin);
    const quoteUsd = pair ? usdPerUnit(snapshot, pair.quote.name) : undefined;
    fills.set(t.twapId, { ended: t.ended, executedNtl: t.executedNtl, quoteUsdNow: quoteUsd });
  }
  return { fills, unjournaled: unjournaledTwaps(deps, budgeted, snapshot, history) };
}

/**
 * A journal that lacks some of the account's TWAPs would let a budget be spent again: a new state folder
 * (the old one lost, a second machine, a container without its volume) starts empty, and an older copy
 * restored whole (its identity marks with it, so nothing else notices) lacks what was bought since it
 * was taken (a trial's DCA bought 16% over its budget after a restore). The venue's TWAPs on a budgeted
 * strategy's pair and side that the journal neither placed nor imported with `hlbot journal rebuild`,
 * whenever they started, are that risk (a TWAP placed by hand in the venue's UI too: the venue does not
 * say who placed it, so the rebuild counts it against the budget, conservative).
 */
function unjournaledTwaps(
  deps: FillDeps,
  budgeted: readonly BudgetedStrategy[],
  snapshot: Snapshot,
  history: TwapHistory,
): Map<string, UnjournaledTwaps> {
  const out = new Map<string, UnjournaledTwaps>();
  const began = deps.journal.began(deps.account);
  if (began === undefined) return out;
  for (const entry of latestTwapEntries(history)) {
    const pair = snapshot.pairs.get(entry.state.coin);
    if (pair === undefined) continue;
    const side = entry.state.side === "B" ? "buy" : "sell";
    const owners = budgeted.filter((b) => b.side === side && isMarketPair(b, pair));
    if (owners.length === 0 || deps.journal.hasVenueTwap(deps.account, entry)) continue;
    const ended = twapHasEnded(entry);
    const executed = ended ? usdPerUnit(snapshot, pair.quote.name)?.times(entry.state.executedNtl) : ZERO;
    for (const b of owners) {
      const seen = out.get(b.name) ?? {
        count: 0,
        executedUsd: ZERO,
        first: entry.state.timestamp,
        running: 0,
      };
      out.set(b.name, {
        count: seen.count + 1,
        // Unknown once one of them cannot be valued.
        executedUsd: executed === undefined ? undefined : seen.executedUsd?.plus(executed),
        first: Math.min(seen.first, entry.state.timestamp),
        running: seen.running + (ended ? 0 : 1),
      });
    }
  }
  return out;
}

type TwapHistory = Awaited<ReturnType<InfoClient["twapHistory"]>>;

/**
 * The latest state of each TWAP with an id and its executed notional (in the pair's quote token), kept
 * per answer object: a long history is walked and its amounts parsed once.
 */
const endedAndFilled = perAnswer((history: TwapHistory) =>
  latestTwapEntries(history).flatMap((entry) =>
    entry.twapId === undefined
      ? []
      : [
          {
            twapId: entry.twapId,
            coin: entry.state.coin,
            ended: twapHasEnded(entry),
            executedNtl: new Decimal(entry.state.executedNtl),
          },
        ],
  ),
);

/**
 * A budgeted strategy's spend. The journal knows a strategy by its name, so a DCA renamed in its file
 * would otherwise start its lifetime budget again (six reviews found ways: a rename, by SIGHUP too, a
 * rename back, an old name reused, a switch of side or pair, names swapped), and a rebuild gives each
 * venue TWAP to one strategy, so another budgeted one on the market would start from nothing (the venue
 * does not say who placed it). Guessing who was renamed into whom failed every time, so it counts,
 * failing closed:
 * - the TWAPs a DCA of its name decided, on any market (its file may have changed its side or pair);
 * - on its market (its pair and side), the TWAPs a DCA decided (or unmarked: a journal from before the
 *   mark, for a name not configured at the first live start after it) under a name that is no DCA of
 *   this market now (such a DCA counts its own);
 * - on its market, the TWAPs `hlbot journal rebuild` imported, unless it gave them to a DCA without a
 *   budget of this market or to no strategy.
 * So it may count TWAPs that were not its own (a DCA removed, or moved to another market, beside it):
 * the reason names them, and raising budgetUsd by that amount is the way on. `configured`: the
 * configuration's strategies by name, disabled ones included.
 */
export function budgetMemory(
  deps: { journal: Journal; account: string },
  strategy: { name: string; kind: string; params: unknown },
  configured: ReadonlyMap<string, { name: string; kind: string; params: unknown }>,
  snapshot: Snapshot,
  fills: ReadonlyMap<number, TwapFill> | undefined,
): Pick<StrategyMemory, "spentUsd" | "inheritedUsd"> {
  const [b] = budgetedStrategies([strategy]);
  // No budget, nothing to count (a DCA reads spentUsd only against its budgetUsd): summing every TWAP it
  // ever placed at each cycle made a long run's cycles grow with its history.
  if (b === undefined) return {};
  // The pair the strategy trades (pairFor: the canonical one where several match, as the strategy picks).
  const pair = marketPair(snapshot, b.coin, b.quote);
  // A pair the venue no longer lists: its own rows by name (nothing else can be placed there).
  if (pair === undefined) return { spentUsd: deps.journal.spentUsd(strategy.name, fills) };
  const mine = { assetId: pair.assetId, coin: pair.name, side: b.side };
  /** Whether a configured strategy is a DCA of this market (its TWAPs here are its own); its budget. */
  const dcaHere = (name: string) => {
    const s = configured.get(name);
    if (s?.kind !== "twap-accumulate") return undefined;
    const p = s.params as { coin?: unknown; quote?: unknown; side?: unknown; budgetUsd?: unknown };
    if (p.side !== b.side || typeof p.coin !== "string" || typeof p.quote !== "string") return undefined;
    // The same market written either way ("HYPE" or "@107") is this one.
    if (!isMarketPair({ coin: p.coin, quote: p.quote }, pair)) return undefined;
    return { budgeted: p.budgetUsd !== undefined };
  };
  let total = ZERO;
  /** Of total, what is not its own name's on its market: named in the reason. */
  let beside = ZERO;
  const from = new Set<string>();
  const count = (r: BudgetCandidate, why?: string) => {
    const c = countedUsd(r, fills);
    total = total.plus(c);
    if (why === undefined) return;
    beside = beside.plus(c);
    from.add(why);
  };
  for (const r of deps.journal.budgetCandidates(deps.account, strategy.name, mine)) {
    const where = rowMarket(r, snapshot);
    const here = where !== undefined && where.assetId === mine.assetId && where.side === mine.side;
    if (r.strategy === strategy.name) {
      // Not a DCA's decision: another kind of strategy had this name before (a removed rebalancer's
      // buys and sells were counted as a new DCA's spend).
      if (r.byDca === 0) continue;
      count(r, here || where === undefined ? undefined : "its own name's TWAPs on another pair or side");
      continue;
    }
    if (!here || RESERVED.has(r.strategy)) continue;
    const holder = dcaHere(r.strategy);
    if (r.rebuilt) {
      if (holder === undefined || holder.budgeted)
        count(r, "TWAPs `hlbot journal rebuild` imported on this pair and side");
      continue;
    }
    if (r.byDca === 0 || holder !== undefined) continue;
    count(
      r,
      `${r.strategy} (${configured.has(r.strategy) ? "now another strategy's name" : "no longer configured"}) on this pair and side`,
    );
  }
  // What it traded by netting against another strategy's opposing TWAP (no TWAP of its own for it).
  total = total.plus(deps.journal.nettedUsd(deps.account, strategy.name, mine));
  if (from.size === 0) return { spentUsd: total };
  return { spentUsd: total, inheritedUsd: { from: [...from], usd: beside } };
}

/** A journaled TWAP's market: a bot row's asset and side, a rebuilt row's venue coin and side. */
function rowMarket(
  r: BudgetCandidate,
  snapshot: Snapshot,
): { assetId: number; side: "buy" | "sell" } | undefined {
  if (r.asset !== null && r.isBuy !== null) return { assetId: r.asset, side: r.isBuy ? "buy" : "sell" };
  const pair = r.recordCoin === null ? undefined : snapshot.pairs.get(r.recordCoin);
  if (pair === undefined || (r.recordSide !== "B" && r.recordSide !== "A")) return undefined;
  return { assetId: pair.assetId, side: r.recordSide === "B" ? "buy" : "sell" };
}

/** Names under which the journal keeps what no strategy decided: manual actions and the kill switch. */
const RESERVED = new Set([MANUAL_STRATEGY, VENUE_HISTORY_STRATEGY, KILL_SWITCH_STRATEGY]);

/** The strategy's latest ended TWAP, for its reasons ("filled nothing"). */
export function lastEndedTwap(
  journal: Journal,
  strategy: string,
  fills: ReadonlyMap<number, TwapFill> | undefined,
): Pick<StrategyMemory, "lastEndedTwap"> {
  if (fills === undefined) return {};
  for (const r of journal.twapSubmissionsNewestFirst(strategy)) {
    if (r.twapId === null) continue;
    const fill = fills.get(r.twapId);
    if (fill === undefined) continue;
    const executedUsd = fill.ended ? filledUsd(fill, r.quoteUsd) : undefined;
    if (executedUsd === undefined || !r.notionalUsd) return {};
    return { lastEndedTwap: { twapId: r.twapId, submittedUsd: new Decimal(r.notionalUsd), executedUsd } };
  }
  return {};
}

/**
 * Rejections the venue never judged (executor.ts journals the code when it gave no answer): every
 * attempt rate limited, no connection, never sent, and another non-2xx status that means the request was
 * not processed (a 408, a proxy's 403 or 404: a review found one holding a DCA 6 hours). A 422 (the
 * venue could not read these very bytes) holds.
 */
const NOT_JUDGED: ReadonlySet<string> = new Set<RejectionCode>([...NEVER_PROCESSED, "not-sent"]);

/** Whether a rejected submission's journaled result is a refusal the venue made. */
function judgedByVenue(result: string | null): boolean {
  if (result === null || result === "null") return false;
  try {
    const rejection = (JSON.parse(result) as { rejection?: unknown } | null)?.rejection;
    return typeof rejection !== "string" || !NOT_JUDGED.has(rejection);
  } catch {
    return true;
  }
}

/**
 * Per strategy with a TWAP intent now: its latest TWAP submission, when the venue refused the order,
 * with the balances of the cycle that sent it. The allocator holds an identical order back while
 * those balances stand, for a while (allocate.ts).
 */
export function lastRefusedTwaps(journal: Journal, intents: readonly Intent[]): Map<string, RefusedOrder> {
  const out = new Map<string, RefusedOrder>();
  const strategies = new Set(intents.filter((i) => i.kind === "twapOrder").map((i) => i.strategy));
  for (const strategy of strategies) {
    const row = journal.lastTwapSubmission(strategy);
    if (row === undefined || row.status !== "rejected") continue;
    // Only the venue's refusal of the order (its answer, or a 422 for the same bytes): a request it
    // never judged (NOT_JUDGED) holds nothing back. Older rows journaled none of this ("null"):
    // nothing held.
    if (!judgedByVenue(row.result) || refusesRequestNotOrder(row.reason ?? "")) continue;
    try {
      const body = JSON.parse(row.request) as {
        action?: { twap?: { a?: unknown; b?: unknown; s?: unknown; m?: unknown } };
      };
      const twap = body.action?.twap;
      if (typeof twap?.a !== "number" || typeof twap.b !== "boolean" || typeof twap.s !== "string") continue;
      out.set(strategy, {
        assetId: twap.a,
        side: twap.b ? "buy" : "sell",
        size: new Decimal(twap.s),
        ...(typeof twap.m === "number" ? { minutes: twap.m } : {}),
        notionalUsd: row.notionalUsd ? new Decimal(row.notionalUsd) : undefined,
        reason: row.reason ?? "refused",
        at: row.updatedAt,
        balances: journal.cycleBalances(row.cycleId),
      });
    } catch {
      // An unreadable body cannot be compared: nothing to back off from.
    }
  }
  return out;
}
