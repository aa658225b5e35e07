// The contract every strategy kind fulfils: a params schema (validated when the YAML is loaded) and a
// pure `decide` function. Strategies read only their arguments: no I/O, no clock, no randomness, so the
// same snapshot always yields the same decisions and tests can pin them down exactly.
import type * as z from "zod";
import type { Decimal } from "../../lib/decimal.js";
import type { Decision } from "../intents.js";
import type { SnapshotPart } from "../readSnapshot.js";
import type { Snapshot } from "../snapshot.js";

/** What the journal knows about one strategy's past, handed to it on every run. */
export interface StrategyMemory {
  /**
   * USD spent so far by this strategy's TWAPs (Journal.spentUsd): what ended TWAPs filled, as the venue
   * reports it, plus the full amount of running TWAPs and of submissions whose outcome is not known yet.
   * `undefined` means unknown: budgeted strategies then do nothing.
   */
  spentUsd?: Decimal;
  /**
   * Of spentUsd, what TWAPs on this strategy's pair and side spent that are not its own by name: of
   * budgeted strategies no longer configured, and imported by `hlbot journal rebuild` (budget.ts).
   */
  inheritedUsd?: { from: readonly string[]; usd: Decimal };
  /** The strategy's latest ended TWAP, when the venue's history has it (for reasons a person reads). */
  lastEndedTwap?: { twapId: number; submittedUsd: Decimal; executedUsd: Decimal };
}

/**
 * Decides what to do now. `now` is the cycle's clock (ms) and is the only notion of time a strategy has;
 * `name` is the strategy's name from its file, stamped on every decision. Intents come back in the
 * order they must be executed (a cDeposit before the delegations it funds, undelegations first).
 */
export type DecideFn<P> = (
  snapshot: Snapshot,
  params: P,
  now: number,
  memory: StrategyMemory,
  name: string,
) => Decision[];

export interface StrategyDefinition<S extends z.ZodType = z.ZodType> {
  /** One line for `hlbot config schema` and documentation. */
  description: string;
  paramsSchema: S;
  /** The groups of venue reads its `decide` needs (a cycle reads the union over its strategies). */
  reads: readonly SnapshotPart[];
  /** Whether `decide` reads its StrategyMemory; the cycle asks the journal only for those that do. */
  remembers?: boolean;
  decide: DecideFn<z.output<S>>;
  /**
   * The spot markets its params name, each with the key path it comes from: checked against the venue's
   * metadata before a bot runs (a misspelt coin is an error with its file and line, not a skip every run).
   */
  markets?: (params: z.output<S>) => ReadonlyArray<StrategyMarket>;
}

/** A spot market a strategy trades: `coin` (a token, or a pair's venue name) against `quote`. */
export interface StrategyMarket {
  coin: string;
  quote: string;
  keyPath: ReadonlyArray<string | number>;
  /**
   * Where the quote is written, when the strategy may name a pair by its venue name in `coin`: a quote
   * written there that is not the pair's own is an error (the pair's quote would be spent instead).
   */
  quoteKeyPath?: ReadonlyArray<string | number>;
  /**
   * `coin` must be a token's name, not a pair's (a rebalancer's targets): "@107" or "PURR/USDC" there
   * was skipped at every run as "not listed", with no error (a config trial).
   */
  tokenOnly?: boolean;
}

/** Type helper so each strategy module checks its `decide` against its own schema. */
export function defineStrategy<S extends z.ZodType>(
  definition: StrategyDefinition<S>,
): StrategyDefinition<S> {
  return definition;
}
