// What a cycle tells strategies about their own past TWAPs: what the venue says they filled (budgets
// count fills, not submissions) and which of their orders the venue refused (the allocator never
// resends an identical refused order).
import type { Logger } from "pino";
import { Decimal, ZERO } from "../lib/decimal.js";
import { describeError } from "../lib/errors.js";
import type { InfoClient } from "../venue/info/client.js";
import { latestTwapEntries, twapHasEnded } from "../venue/info/methods/index.js";
import { perAnswer } from "../venue/info/query.js";
import type { RefusedOrder } from "./allocate.js";
import type { Intent } from "./intents.js";
import {
  type BudgetCandidate,
  countedUsd,
  type Journal,
  MANUAL_STRATEGY,
  type TwapFill,
  VENUE_HISTORY_STRATEGY,
} from "./journal.js";
import { KILL_SWITCH_STRATEGY } from "./killSwitch.js";
import type { Snapshot } from "./snapshot.js";
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
  /** Per twapId: whether it ended and what it executed (USD). */
  fills: Map<number, TwapFill>;
  /**
   * Per budgeted strategy: the venue's TWAPs on its pair and side from before this journal began that the
   * journal does not have. Its budget would count from zero without them: it holds until a rebuild.
   */
  unjournaled: Map<string, UnjournaledTwaps>;
}

export interface UnjournaledTwaps {
  count: number;
  /** What they executed, in USD (undefined when the quote has no USD price now). */
  executedUsd: Decimal | undefined;
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
    history = await deps.info.twapHistory({ user: deps.account }, signal);
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
    fills.set(t.twapId, {
      ended: t.ended,
      executedUsd:
        quoteUsd === undefined ? undefined : quoteUsd.eq(1) ? t.executedNtl : t.executedNtl.times(quoteUsd),
    });
  }
  return { fills, unjournaled: earlierJournalsTwaps(deps, budgeted, snapshot, history) };
}

/**
 * A new state folder (the old one lost, a second machine, a container without its volume) starts its
 * journal empty: a budget over a strategy's lifetime would count from zero and be spent again. The
 * venue's TWAPs on a budgeted strategy's pair and side from before this journal began, and not imported
 * by `hlbot journal rebuild`, are that risk (a manual TWAP there too: the venue does not say who placed
 * it, so the rebuild counts it against the budget, conservative).
 */
function earlierJournalsTwaps(
  deps: FillDeps,
  budgeted: readonly BudgetedStrategy[],
  snapshot: Snapshot,
  history: TwapHistory,
): Map<string, UnjournaledTwaps> {
  const out = new Map<string, UnjournaledTwaps>();
  const began = deps.journal.began(deps.account);
  if (began === undefined) return out;
  for (const entry of latestTwapEntries(history)) {
    if (entry.state.timestamp >= began) continue;
    const pair = snapshot.pairs.get(entry.state.coin);
    if (pair === undefined) continue;
    const side = entry.state.side === "B" ? "buy" : "sell";
    const owners = budgeted.filter(
      (b) => b.side === side && b.coin === pair.base.name && b.quote === pair.quote.name,
    );
    if (owners.length === 0 || deps.journal.hasVenueTwap(deps.account, entry)) continue;
    const quoteUsd = usdPerUnit(snapshot, pair.quote.name);
    const executed = quoteUsd?.times(entry.state.executedNtl);
    for (const b of owners) {
      const seen = out.get(b.name);
      out.set(b.name, {
        count: (seen?.count ?? 0) + 1,
        executedUsd:
          seen === undefined
            ? executed
            : seen.executedUsd === undefined || executed === undefined
              ? undefined
              : seen.executedUsd.plus(executed),
        first: Math.min(seen?.first ?? entry.state.timestamp, entry.state.timestamp),
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
 * would otherwise start its lifetime budget again (reviews: a used-up 400-USD budget bought again under
 * the new name, after a SIGHUP reload too, and with the old name reused elsewhere); and a rebuild gives
 * each venue TWAP to one strategy, so another budgeted one on the market would start from nothing (the
 * venue does not say who placed it). It counts, on its market (its pair and side):
 * - its own TWAPs, and those on any other market too (its quote or side changed in the file), unless
 *   another budgeted DCA of the configuration trades that market (its old name reused: that one counts
 *   them);
 * - those `hlbot journal rebuild` imported there;
 * - those a strategy with a budget decided there under a name whose strategy now is not a budgeted DCA
 *   of this market (renamed, removed, or its name reused), and unstamped ones (a journal from before
 *   the stamp) whose name's strategy does not trade this market now: fail closed.
 * The reason names what was counted beside its own, so the owner of a strategy that is not one of them
 * renamed can raise its budget. `configured`: the configuration's strategies by name, disabled ones
 * included (a paused DCA's spend is its own).
 */
export function budgetMemory(
  deps: { journal: Journal; account: string },
  strategy: { name: string; kind: string; params: unknown },
  configured: ReadonlyMap<string, { name: string; kind: string; params: unknown }>,
  snapshot: Snapshot,
  fills: ReadonlyMap<number, TwapFill> | undefined,
): Pick<StrategyMemory, "spentUsd" | "inheritedUsd"> {
  const [b] = budgetedStrategies([strategy]);
  if (b === undefined) return { spentUsd: deps.journal.spentUsd(strategy.name, fills) };
  const marketOf = (s: BudgetedStrategy) => {
    const pair = [...snapshot.pairs.values()].find((p) => p.base.name === s.coin && p.quote.name === s.quote);
    return pair === undefined ? undefined : { assetId: pair.assetId, coin: pair.name, side: s.side };
  };
  const mine = marketOf(b);
  // A pair the venue no longer lists: its own rows by name, as before (nothing else can be placed).
  if (mine === undefined) return { spentUsd: deps.journal.spentUsd(strategy.name, fills) };
  const key = (assetId: number, side: "buy" | "sell") => `${assetId}:${side}`;
  /** The markets of the configuration's other budgeted DCAs, with their names. */
  const otherBudgets = new Map<string, Set<string>>();
  for (const s of budgetedStrategies([...configured.values()])) {
    if (s.name === b.name) continue;
    const m = marketOf(s);
    if (m === undefined) continue;
    const k = key(m.assetId, m.side);
    otherBudgets.set(k, (otherBudgets.get(k) ?? new Set()).add(s.name));
  }
  const here = key(mine.assetId, mine.side);
  let own = ZERO;
  let usd = ZERO;
  const from = new Set<string>();
  for (const r of deps.journal.budgetCandidates(deps.account, strategy.name, mine)) {
    const where = rowMarket(r, snapshot);
    const at = where === undefined ? undefined : key(where.assetId, where.side);
    if (r.strategy === strategy.name) {
      if (at === here || at === undefined || !otherBudgets.has(at)) own = own.plus(countedUsd(r, fills));
      continue;
    }
    if (at !== here) continue;
    if (r.rebuilt) {
      usd = usd.plus(countedUsd(r, fills));
      from.add("TWAPs `hlbot journal rebuild` imported");
      continue;
    }
    if (r.budgeted === 0 || RESERVED.has(r.strategy)) continue;
    const holder = configured.get(r.strategy);
    // Stamped: its own only for a budgeted DCA of this market; unstamped: for whatever trades it now.
    if (
      holder !== undefined &&
      (r.budgeted === 1 ? otherBudgets.get(here)?.has(holder.name) === true : tradesMarket(holder, b))
    )
      continue;
    usd = usd.plus(countedUsd(r, fills));
    from.add(
      `${r.strategy} (${holder === undefined ? "no longer configured" : "now another strategy's name"})`,
    );
  }
  if (from.size === 0) return { spentUsd: own };
  return { spentUsd: own.plus(usd), inheritedUsd: { from: [...from], usd } };
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

/** Whether a configured strategy trades this market now (its TWAPs there are its own). */
function tradesMarket(s: { kind: string; params: unknown }, m: BudgetedStrategy): boolean {
  if (s.kind === "twap-accumulate") {
    const p = s.params as { coin?: unknown; quote?: unknown; side?: unknown };
    return p.coin === m.coin && p.quote === m.quote && p.side === m.side;
  }
  if (s.kind === "twap-rebalance") {
    const p = s.params as { targets?: Record<string, unknown>; quote?: unknown };
    return p.quote === m.quote && p.targets !== undefined && Object.hasOwn(p.targets, m.coin);
  }
  return false;
}

/** The strategy's latest ended TWAP, for its reasons ("filled nothing"). */
export function lastEndedTwap(
  journal: Journal,
  strategy: string,
  fills: ReadonlyMap<number, TwapFill> | undefined,
): Pick<StrategyMemory, "lastEndedTwap"> {
  if (fills === undefined) return {};
  const rows = journal.twapSubmissions(strategy);
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i]!;
    if (r.twapId === null) continue;
    const fill = fills.get(r.twapId);
    if (fill === undefined) continue;
    if (!fill.ended || fill.executedUsd === undefined || !r.notionalUsd) return {};
    return {
      lastEndedTwap: {
        twapId: r.twapId,
        submittedUsd: new Decimal(r.notionalUsd),
        executedUsd: fill.executedUsd,
      },
    };
  }
  return {};
}

/**
 * Per strategy with a TWAP intent now: its latest TWAP submission, when the venue refused it. The
 * allocator does not send an identical order again (re-sized from fresh balances it differs).
 */
export function lastRefusedTwaps(journal: Journal, intents: readonly Intent[]): Map<string, RefusedOrder> {
  const out = new Map<string, RefusedOrder>();
  const strategies = new Set(intents.filter((i) => i.kind === "twapOrder").map((i) => i.strategy));
  for (const strategy of strategies) {
    const row = journal.lastTwapSubmission(strategy);
    if (row === undefined || row.status !== "rejected") continue;
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
      });
    } catch {
      // An unreadable body cannot be compared: nothing to back off from.
    }
  }
  return out;
}
