// Before a bot acts (plan, once, run, simulate), the spot markets its strategies name are looked up in
// the venue's metadata: a misspelt coin ("HYPEE") is an error with the strategy file's line, where it
// would otherwise be a skip ("no spot pair trades HYPEE against USDC") on every run, forever.
import { formatKeyPath } from "../../lib/yamlSource.js";
import type { InfoClient } from "../../venue/info/client.js";
import { type ConfigIssue, ConfigIssuesError, didYouMean } from "../config/issues.js";
import { displayPath, lineInFile } from "../config/loader.js";
import { spotUniverse } from "../readSnapshot.js";
import { pairFor } from "../snapshot.js";
import { STRATEGIES, type Strategy } from "./registry.js";
import { strategyConflicts } from "./shared.js";
import type { StrategyMarket } from "./types.js";

export interface MarketCheckOptions {
  signal?: AbortSignal;
  /** Told of strategies that fight over a market named by its venue name (see strategyConflicts). */
  warn?: (message: string) => void;
  /** The tokens of `limits.keepOnSpot`: one the venue does not list is warned about. */
  floorTokens?: Iterable<string>;
}

/** Throws ConfigIssuesError naming every enabled strategy's market the venue does not list. */
export async function checkStrategyMarkets(
  info: InfoClient,
  strategies: readonly Strategy[],
  o: MarketCheckOptions = {},
): Promise<void> {
  const { issues } = await unknownMarkets(info, strategies, o);
  if (issues.length > 0) throw new ConfigIssuesError(issues);
}

/**
 * The enabled strategies' markets the venue does not list: each as an issue (file, line, key), and the
 * names of the strategies that name one. Commands that also guard or cancel running TWAPs (once, run)
 * leave those strategies out and run the others, rather than stopping everything.
 */
export async function unknownMarkets(
  info: InfoClient,
  strategies: readonly Strategy[],
  o: MarketCheckOptions = {},
): Promise<{ issues: ConfigIssue[]; strategies: Set<string> }> {
  const { signal } = o;
  const names = new Set<string>();
  const issues: ConfigIssue[] = [];
  const wanted = strategies
    .filter((s) => s.enabled)
    .flatMap((s) => {
      const markets = (STRATEGIES[s.kind] as { markets?: (p: unknown) => ReadonlyArray<StrategyMarket> })
        .markets;
      return (markets?.(s.params) ?? []).map((m) => ({ strategy: s, ...m }));
    });
  const floors = [...(o.floorTokens ?? [])];
  if (wanted.length === 0 && floors.length === 0) return { issues, strategies: names };
  // The metadata as the cycles read it (with the asset contexts): the same query, not one more kind.
  const [meta] = await info.spotMetaAndAssetCtxs({}, signal);
  const universe = spotUniverse(meta, {});
  // A floor on a token the venue does not list (a case slip: "usdc") protects nothing.
  for (const token of floors) {
    if (universe.tokens.has(token)) continue;
    const guess = didYouMean(token, universe.tokens.keys());
    o.warn?.(
      `limits.keepOnSpot names ${JSON.stringify(token)}, which is not a spot token on the venue${guess ? ` (did you mean "${guess}"?)` : ""}: no floor applies to it`,
    );
  }
  // Strategies that fight over a token named by its pair's venue name ("@107"): only the metadata
  // says which token that is, so `config validate` could not warn of them.
  const offline = new Set(strategyConflicts(strategies));
  const tokensOf = (coin: string) => {
    const pair = universe.pairs.get(coin);
    return pair === undefined ? undefined : { base: pair.base.name, quote: pair.quote.name };
  };
  for (const w of strategyConflicts(strategies, tokensOf)) if (!offline.has(w)) o.warn?.(w);
  for (const w of wanted) {
    if (universe.pairs.has(w.coin) || pairFor(universe, w.coin, w.quote) !== undefined) continue;
    names.add(w.strategy.name);
    const missing = [w.coin, w.quote].find((t) => !universe.tokens.has(t));
    const guess = missing === undefined ? undefined : didYouMean(missing, universe.tokens.keys());
    issues.push({
      file: displayPath(w.strategy.file),
      line: await lineInFile(w.strategy.file, w.keyPath),
      keyPath: formatKeyPath([...w.keyPath]),
      message:
        missing !== undefined
          ? `${missing} is not a spot token on the venue${guess ? ` (did you mean "${guess}"?)` : ""}`
          : `no spot pair trades ${w.coin} against ${w.quote} on the venue`,
    });
  }
  return { issues, strategies: names };
}
