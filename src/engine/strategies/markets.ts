// Before a bot acts (plan, once, run, simulate), the spot markets its strategies name are looked up in
// the venue's metadata: a misspelt coin ("HYPEE") is an error with the strategy file's line, where it
// would otherwise be a skip ("no spot pair trades HYPEE against USDC") on every run, forever.
import { formatKeyPath } from "../../lib/yamlSource.js";
import type { InfoClient } from "../../venue/info/client.js";
import { type ConfigIssue, ConfigIssuesError, didYouMean } from "../config/issues.js";
import { displayPath, lineInFile } from "../config/loader.js";
import { spotUniverse } from "../readSnapshot.js";
import { pairFor } from "../snapshot.js";
import { type Strategy, strategyMarkets } from "./registry.js";
import { strategyConflicts } from "./shared.js";

export interface MarketCheckOptions {
  signal?: AbortSignal;
  /** Told of strategies that fight over a market named by its venue name (see strategyConflicts). */
  warn?: (message: string) => void;
  /**
   * The tokens of `limits.keepOnSpot`: one the venue does not list ("usdc") protects nothing, so every
   * strategy is left out (fail closed) with an issue naming the bot file.
   */
  floorTokens?: Iterable<string>;
  /** The bot file, for a floor's issue (keepOnSpot is one of its limits). */
  botFile?: string;
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
    .flatMap((s) => strategyMarkets(s).map((m) => ({ strategy: s, ...m })));
  const floors = [...(o.floorTokens ?? [])];
  const capitals = strategies.filter((s) => s.enabled && s.capital !== undefined && s.capital.size > 0);
  if (wanted.length === 0 && floors.length === 0 && capitals.length === 0)
    return { issues, strategies: names };
  // The metadata as the cycles read it (with the asset contexts): the same query, not one more kind.
  const [meta] = await info.spotMetaAndAssetCtxs({}, signal);
  const universe = spotUniverse(meta, {});
  const notToken = (token: string) => {
    const guess = didYouMean(token, universe.tokens.keys());
    return `${JSON.stringify(token)} is not a spot token on the venue${guess ? ` (did you mean "${guess}"?)` : ""}`;
  };
  // A floor on a token the venue does not list (a case slip: "usdc") protects nothing: no strategy acts
  // (a new user's floor of 950 USDC written `usdc` was a warning, and the DCA spent through it).
  for (const token of floors) {
    if (universe.tokens.has(token)) continue;
    const bot = o.botFile ?? "the bot file";
    issues.push({
      file: displayPath(bot),
      line:
        o.botFile === undefined ? undefined : await lineInFile(o.botFile, ["limits", "keepOnSpot", token]),
      keyPath: formatKeyPath(["limits", "keepOnSpot", token]),
      message: `${notToken(token)}: no floor would apply to it, so no strategy acts until it is fixed`,
    });
    for (const s of strategies) if (s.enabled) names.add(s.name);
  }
  // Capital on a token the venue does not list caps nothing: the strategy would spend the account's.
  for (const s of capitals) {
    for (const token of s.capital!.keys()) {
      if (universe.tokens.has(token)) continue;
      names.add(s.name);
      issues.push({
        file: displayPath(s.file),
        line: await lineInFile(s.file, ["capital", token]),
        keyPath: formatKeyPath(["capital", token]),
        message: `${notToken(token)}: this capital would cap nothing (the strategy would see and spend all of the account's)`,
      });
    }
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
    /** Leaves the strategy out with an issue at its coin's line (or `at`, another key of its file). */
    const refuse = async (message: string, at: ReadonlyArray<string | number> = w.keyPath) => {
      names.add(w.strategy.name);
      issues.push({
        file: displayPath(w.strategy.file),
        line: await lineInFile(w.strategy.file, at),
        keyPath: formatKeyPath([...at]),
        message,
      });
    };
    const named = universe.pairs.get(w.coin);
    if (named !== undefined && w.tokenOnly === true && !universe.tokens.has(w.coin)) {
      await refuse(
        `${w.coin} is the pair ${named.base.name}/${named.quote.name}, not a token: name the token (${named.base.name})`,
      );
      continue;
    }
    if (named !== undefined) {
      // A pair named by its venue name trades its own quote: another quote written beside it would be
      // silently ignored (a new user's `coin: "@107", quote: PURR` paid in USDC).
      if (w.quoteKeyPath !== undefined && named.quote.name !== w.quote)
        await refuse(
          `${w.coin} is the pair ${named.base.name}/${named.quote.name}, which trades against ${named.quote.name}, not ${w.quote}: write quote: ${named.quote.name}, or name the coin (${named.base.name}) with the quote you mean`,
          w.quoteKeyPath,
        );
      continue;
    }
    if (pairFor(universe, w.coin, w.quote) !== undefined) continue;
    const missing = [w.coin, w.quote].find((t) => !universe.tokens.has(t));
    const guess = missing === undefined ? undefined : didYouMean(missing, universe.tokens.keys());
    // "HYPE/USDC" where the venue names that pair "@107" (only PURR/USDC has a name like it): say how
    // to write it (a config trial got "not a spot token" alone, while PURR/USDC worked).
    const [slashBase, slashQuote, ...rest] = w.coin.split("/");
    const asTokens =
      missing === w.coin && rest.length === 0 && slashBase && slashQuote
        ? pairFor(universe, slashBase, slashQuote)
        : undefined;
    await refuse(
      asTokens !== undefined
        ? `${w.coin} is not a pair name on the venue (it names this pair ${asTokens.name}): ${w.tokenOnly === true ? `name the token (${slashBase})` : `write coin: ${slashBase}${w.quoteKeyPath === undefined ? "" : ` and quote: ${slashQuote}`}`}`
        : missing !== undefined
          ? `${missing} is not a spot token on the venue${guess ? ` (did you mean "${guess}"?)` : ""}`
          : `no spot pair trades ${w.coin} against ${w.quote} on the venue`,
      // The quote's own line when it is the quote that is unknown (a config trial: `quote: usdc` was
      // reported at the coin's line, as params.coin).
      missing !== undefined && missing !== w.coin && missing === w.quote ? w.quoteKeyPath : undefined,
    );
  }
  return { issues, strategies: names };
}
