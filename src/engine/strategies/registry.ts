// The strategy kinds hlbot knows: kind → params schema and decide function. Adding a kind means writing
// its module and adding one line here; the YAML schema, the JSON Schema and `runStrategy` follow.
import type * as z from "zod";
import type { Capital } from "../capital.js";
import type { Decision } from "../intents.js";
import type { SnapshotPart } from "../readSnapshot.js";
import type { Snapshot } from "../snapshot.js";
import { linkStaking } from "./linkStaking.js";
import { twapAccumulate } from "./twapAccumulate.js";
import { twapRebalance } from "./twapRebalance.js";
import type { StrategyMarket, StrategyMemory } from "./types.js";
import { validatorStaking } from "./validatorStaking.js";

export const STRATEGIES = {
  "twap-rebalance": twapRebalance,
  "twap-accumulate": twapAccumulate,
  "validator-staking": validatorStaking,
  "link-staking": linkStaking,
} as const;

export type StrategyKind = keyof typeof STRATEGIES;
export const STRATEGY_KINDS = Object.keys(STRATEGIES) as StrategyKind[];

/** Validated params of a kind (decimals as Decimal, defaults filled in). */
export type ParamsOf<K extends StrategyKind> = z.output<(typeof STRATEGIES)[K]["paramsSchema"]>;

/**
 * A strategy: its name, its kind with that kind's validated params, and from its file how it runs. The
 * one shape every part of the engine uses (the loader makes it, the scheduler, the daemon, cycles and
 * simulations take it); code that builds one (tests, the TWAP watch) gives what it needs.
 */
export type Strategy = {
  [K in StrategyKind]: {
    name: string;
    kind: K;
    params: ParamsOf<K>;
    /** When it runs: a cron expression (UTC; five fields, or six with seconds). */
    schedule: string;
    /** false: loaded and checked, never run. */
    enabled: boolean;
    description?: string | undefined;
    /** Allocation order among strategies sharing the account (smaller first); undefined: as listed. */
    priority?: number | undefined;
    /** Per-strategy capital: token → most it sees and is allocated per cycle (src/engine/capital.ts). */
    capital?: Capital | undefined;
    /** Absolute path of the file it came from (or a name for one made in code), for messages. */
    file: string;
  };
}[StrategyKind];

/** The snapshot parts a cycle of these strategy kinds reads: the union of what each kind declares. */
export function snapshotParts(kinds: Iterable<StrategyKind>): Set<SnapshotPart> {
  const parts = new Set<SnapshotPart>();
  for (const kind of kinds) for (const p of STRATEGIES[kind].reads) parts.add(p);
  return parts;
}

/** Whether strategies of this kind read their StrategyMemory (see StrategyDefinition.remembers). */
/** The spot markets a strategy's params name (none for a kind that trades none). */
export function strategyMarkets(s: Pick<Strategy, "kind" | "params">): ReadonlyArray<StrategyMarket> {
  const markets = (STRATEGIES[s.kind] as { markets?: (p: unknown) => ReadonlyArray<StrategyMarket> }).markets;
  return markets?.(s.params) ?? [];
}

export function remembers(kind: StrategyKind): boolean {
  return STRATEGIES[kind].remembers === true;
}

export function isStrategyKind(kind: string): kind is StrategyKind {
  return Object.hasOwn(STRATEGIES, kind);
}

/**
 * Runs one strategy on a snapshot. Pure: the same arguments give the same decisions. Whether the
 * strategy is enabled, due, or blocked by an unresolved submission is the caller's business.
 */
export function runStrategy(
  strategy: Pick<Strategy, "name" | "kind" | "params">,
  snapshot: Snapshot,
  now: number,
  memory: StrategyMemory,
): Decision[] {
  const definition = STRATEGIES[strategy.kind];
  // The union of (kind, params) pairs is checked at load time; TypeScript cannot correlate them here.
  const decide = definition.decide as (
    s: Snapshot,
    p: unknown,
    n: number,
    m: StrategyMemory,
    name: string,
  ) => Decision[];
  return decide(snapshot, strategy.params, now, memory, strategy.name);
}
