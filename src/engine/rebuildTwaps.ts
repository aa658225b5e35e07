// The venue's TWAPs written into a journal as landed submissions, for `hlbot journal rebuild` (a lost
// journal) and for a simulation's new journal (TWAPs carried from a forked account): one rule for both,
// so a simulation counts a carried TWAP as a live bot's rebuilt journal would.
import { Decimal } from "../lib/decimal.js";
import type { SpotMetaResponse, TwapHistoryResponse } from "../venue/info/methods/index.js";
import { latestTwapEntries, twapHasEnded } from "../venue/info/methods/index.js";
import { twapRecordKey } from "./intentKinds.js";
import { type Journal, VENUE_HISTORY_STRATEGY } from "./journal.js";
import { spotUniverse } from "./readSnapshot.js";
import type { Strategy } from "./strategies/registry.js";
import { usdPerUnit } from "./usd.js";

export interface ImportedTwaps {
  /** Rows added (a TWAP already journaled or imported is skipped). */
  added: number;
  /** "buy HYPE/USDC" → the budgeted strategies that all count its TWAPs. */
  shared: Map<string, string[]>;
}

/**
 * Budgets belong to twap-accumulate strategies: a venue TWAP on a strategy's pair and side is given to
 * the first with a budget there (else the first without one, else "(venue history)"), and every budget
 * on that pair and side counts it (budget.ts budgetMemory; conservative: a TWAP placed by hand there
 * counts too). One still running is valued at its full size at the higher of its average fill and the
 * mid now, an ended one at what it executed, in USD at the quote's mid.
 */
export function importVenueTwaps(
  journal: Journal,
  o: {
    cycleId: string;
    account: string;
    strategies: readonly Strategy[];
    twaps: TwapHistoryResponse;
    meta: SpotMetaResponse;
    mids: Record<string, string>;
  },
): ImportedTwaps {
  const tokenName = new Map(o.meta.tokens.map((t) => [t.index, t.name]));
  const pairLabel = new Map(
    o.meta.universe.map((p) => [p.name, `${tokenName.get(p.tokens[0])}/${tokenName.get(p.tokens[1])}`]),
  );
  const shared = new Map<string, string[]>();
  const owner = (coin: string, side: "buy" | "sell"): string => {
    const matches: Array<{ name: string; budgeted: boolean }> = [];
    for (const s of o.strategies) {
      if (s.kind !== "twap-accumulate") continue;
      const p = s.params as { coin: string; quote: string; side: string; budgetUsd?: unknown };
      if (p.side !== side) continue;
      if (p.coin === coin || pairLabel.get(coin) === `${p.coin}/${p.quote}`)
        matches.push({ name: s.name, budgeted: p.budgetUsd !== undefined });
    }
    const budgeted = matches.filter((m) => m.budgeted).map((m) => m.name);
    if (budgeted.length > 1) shared.set(`${side} ${pairLabel.get(coin) ?? coin}`, budgeted);
    return budgeted[0] ?? matches[0]?.name ?? VENUE_HISTORY_STRATEGY;
  };
  const universe = spotUniverse(o.meta, o.mids);
  let added = 0;
  for (const entry of latestTwapEntries(o.twaps)) {
    const st = entry.state;
    // twapHistory lists perp TWAPs too, named by their perp ("HYPE"): not spot, nobody's budget here
    // (a tokens trial: a perp HYPE TWAP placed by hand used up the spot DCA's budget). A pair the venue
    // no longer lists is no strategy's either.
    if (!universe.pairs.has(st.coin)) continue;
    const size = new Decimal(st.sz);
    const executedSz = new Decimal(st.executedSz);
    const average = executedSz.gt(0) ? new Decimal(st.executedNtl).div(executedSz) : new Decimal(0);
    const mid = o.mids[st.coin] === undefined ? new Decimal(0) : new Decimal(o.mids[st.coin] as string);
    // The value it may reach: its full size at the higher of its average fill and today's mid, in USD
    // at the quote's mid (a pair quoted in HYPE counted in HYPE was 25 times too little).
    const px = Decimal.max(average, mid);
    const quote = universe.pairs.get(st.coin)?.quote.name;
    const quoteUsd = (quote === undefined ? undefined : usdPerUnit(universe, quote)) ?? new Decimal(1);
    // An ended TWAP's record is final: what it executed, not its full size (a review: a fork counted a
    // cancelled 40-HYPE order that filled 1.33 at 999 USD, its DCA's 400-USD budget "used up", where a
    // live bot replaces the full value by the venue's executed notional while the venue lists it).
    const value = twapHasEnded(entry) ? new Decimal(st.executedNtl) : size.times(px);
    const side = st.side === "B" ? "buy" : "sell";
    const imported = journal.importVenueRecord({
      cycleId: o.cycleId,
      strategy: owner(st.coin, side),
      account: o.account,
      actionType: "twapOrder",
      at: st.timestamp,
      key: twapRecordKey(entry),
      record: entry,
      // To the cent's ten-thousandth, up (an average price of many fills has endless digits).
      notionalUsd: value.times(quoteUsd).toDecimalPlaces(6, Decimal.ROUND_UP),
      ...(entry.twapId === undefined ? {} : { twapId: entry.twapId }),
    });
    if (imported) added++;
  }
  return { added, shared };
}
