// What a cycle tells strategies about their own past TWAPs: what the venue says they filled (budgets
// count fills, not submissions) and which of their orders the venue refused (the allocator never
// resends an identical refused order).
import type { Logger } from "pino";
import { Decimal } from "../lib/decimal.js";
import { describeError } from "../lib/errors.js";
import type { InfoClient } from "../venue/info/client.js";
import { latestTwapEntries, twapHasEnded } from "../venue/info/methods/index.js";
import { perAnswer } from "../venue/info/query.js";
import type { RefusedOrder } from "./allocate.js";
import type { Intent } from "./intents.js";
import type { Journal, TwapFill } from "./journal.js";
import type { Snapshot } from "./snapshot.js";
import type { StrategyMemory } from "./strategies/types.js";
import { usdPerUnit } from "./usd.js";

interface FillDeps {
  info: InfoClient;
  account: string;
  logger: Logger;
}

/**
 * The venue's view of the account's TWAPs (twapHistory: status and executed notional per twapId), read
 * only when a strategy of this cycle has a budget. Unreadable: undefined, and budgets count every
 * submission in full (fail closed), as before.
 */
export async function twapFillsForBudgets(
  deps: FillDeps,
  strategies: ReadonlyArray<{ kind: string; params: unknown }>,
  snapshot: Snapshot,
  signal: AbortSignal | undefined,
): Promise<Map<number, TwapFill> | undefined> {
  const budgeted = strategies.some(
    (s) => s.kind === "twap-accumulate" && (s.params as { budgetUsd?: unknown }).budgetUsd !== undefined,
  );
  if (!budgeted) return undefined;
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
  return fills;
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
