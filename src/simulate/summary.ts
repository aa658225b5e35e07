// The summary of a simulation, computed from its record: trades, fees, deposits, delegations and
// rewards come from the simulator's ledger (the venue's ground truth, not what the bot believes it
// did); what the strategies decided and skipped comes from the cycles; values come from the start and
// end valuations. Pure data with decimals as strings, identical for the same scenario and seed (no
// cycle ids, no wall-clock times), so `--json` output can be compared byte for byte.
import { Decimal, toWireDecimal, ZERO } from "../lib/decimal.js";
import type { LedgerEntry } from "../simulator/index.js";
import {
  type CycleRecord,
  DAY_MS,
  type ReplayedPrices,
  replayCoverage,
  type SimulationRecord,
  STAKED_HYPE,
  type Valuation,
} from "./runner.js";

export interface AssetSummary {
  asset: string;
  amount: string;
  /** Mid price in the valuation coin; null when the venue has none (the asset is then valued at 0). */
  price: string | null;
  /** Rounded to 2 decimals. */
  value: string;
  /** Share of the portfolio value, rounded to 4 decimals (0.1234 = 12.34%). */
  weight: string;
}

export interface ValuationSummary {
  at: string;
  /** Rounded to 2 decimals. */
  value: string;
  assets: AssetSummary[];
}

export interface TwapSummary {
  twapId: number;
  /** The strategy whose accepted twapOrder created it (from the cycle that placed it). */
  strategy: string | null;
  /** Running at the start (carried from a forked account): not the bot's, kept out of its totals. */
  carried?: true;
  pair: string;
  /** "BASE/QUOTE". */
  label: string;
  side: "buy" | "sell";
  size: string;
  minutes: number;
  placedAt: string;
  /** finished, terminated, or running at the end of the simulation (see twapStatusText). */
  status: "finished" | "terminated" | "running";
  slices: number;
  skippedSlices: number;
  /** Skipped slices by the venue's reason (halted, insufficient balance, price limit, …). */
  skipReasons: Record<string, number>;
  executedSize: string;
  /** Quote amount traded (exact sum of the slices' notionals). */
  executedNotional: string;
  /** executedNotional / executedSize, rounded to 8 decimals; null when nothing executed. */
  averagePrice: string | null;
  fee: string;
  feeToken: string | null;
  /** Size that did not execute (running, terminated, or left over by the slippage limit). */
  unfilledSize: string;
  /**
   * The mid the strategy decided at (its decision's mid; a resend after an outage places the TWAP later,
   * and the drift in between counts as slippage). The placement's mid for a TWAP no decision names.
   */
  decisionMid: string | null;
  /**
   * The time-weighted mid of its run: the mids at its slices (filled or not), each standing for the time
   * around it (randomized slices are 10 to 50 s apart; a plain mean of them is not weighted by time).
   */
  twMid: string | null;
  /** Cost against the decision mid, positive = worse for the account (buys above, sells below). */
  slippageBps: string | null;
  /** The same in quote: executed size × (average − decision mid), signed as slippageBps; 2 decimals. */
  slippage: string;
  /** Cost against the time-weighted mid of the run (the execution shortfall), bps and quote. */
  shortfallBps: string | null;
  shortfall: string;
  /** Spread and impact paid: Σ size × (fill − that slice's mid), signed as above, in quote. */
  impact: string;
  /**
   * Why it is not what its strategy decided or did not run its course: what reduced it (limits, the
   * allocator, netting) and what cancelled it (the watch: limitPx, maxDeviation; the kill switch), from
   * the decisions' reasons; null when nothing did.
   */
  note: string | null;
}

export interface ExecutionTotal {
  /**
   * In the valuation coin (quote converted at the end price), 2 decimals; positive = cost. Each bps is
   * over the notional at its reference price (decision mids, run mids, slice mids), as a TWAP's row is.
   */
  notional: string;
  slippage: string;
  slippageBps: string | null;
  shortfall: string;
  shortfallBps: string | null;
  impact: string;
  impactBps: string | null;
  fees: string;
  /** Fees over the notional traded (bps); null when nothing was traded. */
  feesBps: string | null;
  /** Fees plus spread and impact over the notional traded (bps): the cost per amount traded. */
  costsBps: string | null;
}

export interface ReasonGroup {
  strategy: string;
  guard: string;
  /** The reason with its numbers replaced by "#": decisions that differ only by numbers share it. */
  template: string;
  count: number;
  /** How many different exact wordings the group holds. */
  distinct: number;
  /** The latest exact wording, with its numbers. */
  latest: string;
  latestAt: string;
  first: string;
}

/**
 * Buy and hold: the same scenario, seed and period run on the venue without the bot, so the starting
 * holdings stay untouched at the same mids, their delegations keep earning, and the scenario's deposits
 * and withdrawals happen to them too.
 */
export interface BenchmarkSummary {
  /** What buy and hold holds at the end (spot coins, and HYPE spot plus staked): coin → amount. */
  holdings: Array<{ coin: string; amount: string }>;
  /** The starting holdings at the start prices (the bot's start value). */
  start: string;
  end: string;
  /** end − start, without the deposits and withdrawals (valued when they moved), like `changeExFlows`. */
  change: string;
  /** change over the capital it had to work with, as `changeExFlowsRatio` (change / start without flows). */
  changeRatio: string | null;
  /**
   * The bot's change without deposits and withdrawals − buy and hold's (2 decimals): the end values
   * differ also by any withdrawal one side could pay only in part.
   */
  botMinusBenchmark: string;
  /**
   * Left out of botMinusBenchmark: the move since of what a withdrawal paid to one side and not the
   * other (positive: the bot kept more and it rose); "0" when both were paid alike.
   */
  unequalWithdrawals: string;
  /** Its deposits and withdrawals (scenario events), as `portfolio.flows`: a withdrawal may pay more
   * here than the bot could. */
  flows: FlowSummary[];
  /** Staking rewards of the bot and of buy and hold (its starting delegations left alone), HYPE and
   * value at the end price (2 decimals). */
  rewards: { bot: { amount: string; value: string }; benchmark: { amount: string; value: string } };
  /** Parts of that difference: rewards earned beyond buy and hold's, fees and spread/impact paid, and
   * the rest (market moves on what the bot bought or sold, i.e. its timing). */
  breakdown: { stakingRewards: string; fees: string; spreadAndImpact: string; timingAndOther: string };
}

export interface TradeTotal {
  label: string;
  side: "buy" | "sell";
  /** TWAPs placed, including those that filled nothing. */
  twaps: number;
  /** Of those, the ones that ended (finished or terminated) having filled nothing. */
  filledNothing: number;
  slices: number;
  size: string;
  notional: string;
  averagePrice: string | null;
  /**
   * The pair's mid at the start of the run (its tokens' start prices), to read the average against: what
   * selling (or buying) it all at once at the start would have got, before spread and impact. Null when
   * a token had no price then.
   */
  startMid: string | null;
}

export interface FeeTotal {
  token: string;
  /** Exact sum of the slices' fees in this token. */
  amount: string;
  /** In the valuation coin at each slice's own price, rounded to 2 decimals. */
  value: string;
}

export interface ValidatorStakeSummary {
  validator: string;
  name: string;
  start: string;
  delegated: string;
  undelegated: string;
  /** Compounded rewards: end − start − delegated + undelegated. */
  rewards: string;
  end: string;
  /** The delegator's APR at the end: the week's rate after commission; null when unknown. */
  netApr: string | null;
  /** Set when the validator was jailed or inactive at the end: its delegators earned nothing then. */
  notEarning: "jailed" | "inactive" | null;
}

export interface SkipGroup {
  strategy: string;
  /** The action the strategy considered, when it said. */
  considered: string | null;
  /** "skipped" by the strategy, or "blocked" by a risk limit. */
  guard: string;
  reason: string;
  count: number;
  first: string;
  last: string;
}

/** A candle file replayed in place of its pair's price path, and how much of the run it covered. */
export interface ReplayedSummary {
  coin: string;
  file: string;
  interval: string;
  candles: number;
  /** From the first candle's open to the last one's close. */
  covers: { from: string; to: string };
  /** The file's gaps (whole candles missing): how many, the candles missing, the longest and its line. */
  gaps: { count: number; missing: number; largest: { from: string; to: string; line: number } | null };
  /**
   * The run's time without a candle, where the pair's price was held flat rather than replayed (days, 4
   * decimals): before the first candle, after the last one's close, inside gaps; their total, and its
   * share of the run (4 decimals).
   */
  flat: { before: number; after: number; inGaps: number; total: number; share: string };
}

export interface SimulationSummary {
  /** The bot file simulated (as `hlbot simulate` found it), when the caller names it. */
  configFile?: string;
  /**
   * What `hlbot config validate` warns of in that bot file (strategies that trade against each other, a
   * budget too small for a TWAP …), when the caller names them: a year's report hid a DCA undone by a
   * rebalancer, warned of only in a log line at start (a year-long trial).
   */
  warnings?: string[];
  scenario: string;
  /** Pairs whose prices were replayed from candle files (--prices or the scenario's `prices:`). */
  replayed: ReplayedSummary[];
  /** With some pair replayed: the scenario's other pairs and how their prices were made (not history). */
  notReplayed: Array<{ pair: string; path: string }>;
  seed: number;
  network: string;
  account: string;
  /** Where the simulated account's holdings came from (the scenario's demo account, or defaults). */
  holdingsFrom: string | null;
  /** The real account a `--fork` run copied (its holdings are the ones simulated), else null. */
  forkedFrom: string | null;
  /** The bot file's `account:`: a demo key signed for it; its holdings were simulated only when forked from it. */
  configAccount: string | null;
  valuationCoin: string;
  period: { from: string; to: string; days: number; interrupted: boolean };
  /**
   * `runs`: cycles it took part in that completed, `slots`: the cron slots they were for (a slot's run
   * retried while deferred or failing is several runs); `failedRuns`: those that failed (each retried later);
   * `missedSlots`: slots never run (too old to catch up, or superseded by a later one), the latest at
   * `lastMissed` (ISO; null when none or not known).
   */
  strategies: Array<{
    name: string;
    kind: string;
    schedule: string;
    runs: number;
    slots: number;
    failedRuns: number;
    missedSlots: number;
    lastMissed: string | null;
    /**
     * Runs whose trade an opposing TWAP of another strategy covered in the same cycle (netting), and the
     * USD of it: traded without a TWAP of its own, so its budget counts it. Absent when none.
     */
    netted?: { runs: number; usd: string };
  }>;
  /**
   * `watch`: of the total, the TWAP watch's cycles that cancelled (guard cancels), which are no
   * strategy's run; `watchFailed`: of the failed, the watch's checks whose reads failed (counted as
   * cancels before: a scenario author's trial read "27 of them the TWAP watch's cancels" with none).
   */
  cycles: {
    total: number;
    watch: number;
    watchFailed: number;
    failed: number;
    failures: Array<{ reason: string; count: number }>;
  };
  actions: Array<{ strategy: string; action: string; outcome: string; count: number }>;
  rejections: Array<{ strategy: string; action: string; reason: string; count: number }>;
  /**
   * Submissions whose answer was lost at send (outcome unknown) and what the engine's reconciliation
   * against the venue later concluded: landed, absent, or still unknown when the run ended.
   */
  unknowns: {
    total: number;
    landed: number;
    absent: number;
    unresolved: number;
    submissions: Array<{
      at: string;
      strategy: string;
      action: string;
      status: string;
      settledAt: string | null;
      detail: string | null;
    }>;
  };
  /** Scenario events dated after the end of the run: not applied. */
  eventsNotApplied: Array<{ at: string; type: string; what: string }>;
  /** Scenario events applied during the run, oldest first. */
  eventsApplied: Array<{ at: string; type: string; what: string }>;
  twaps: TwapSummary[];
  trades: TradeTotal[];
  fees: { byToken: FeeTotal[]; value: string };
  staking: {
    /** HYPE moved from spot into staking (cDeposit), exact. */
    deposited: string;
    deposits: number;
    changes: Array<{
      at: string;
      validator: string;
      name: string;
      action: "delegate" | "undelegate";
      amount: string;
    }>;
    validators: ValidatorStakeSummary[];
    rewards: { amount: string; payouts: number; value: string };
    withdrawals: {
      initiated: string;
      finalized: string;
      /** Each withdrawal to spot, when it started and when it landed (null: still queued at the end). */
      list: Array<{ at: string; amount: string; landedAt: string | null }>;
    };
    /** The staking balance at the end by state (HYPE): idle is undelegated and earns nothing. */
    end: { delegated: string; locked: string; idle: string; pendingWithdrawal: string };
  };
  portfolio: {
    start: ValuationSummary;
    end: ValuationSummary;
    /** end − start, rounded to 2 decimals. */
    change: string;
    /** change / start, rounded to 4 decimals; null when the start value is 0. */
    changeRatio: string | null;
    /**
     * Money moved in (+) or out (−) of the account by the scenario's deposit and withdrawal events,
     * valued when it moved; `change` includes it, `changeExFlows` does not (2 decimals).
     */
    netFlows: string;
    changeExFlows: string;
    /**
     * changeExFlows over the capital the run had to work with: the start value plus each deposit (less
     * each withdrawal) weighted by the share of the run it was in the account (modified Dietz), 4
     * decimals; null when that is not positive. Over the start value alone, 25,641 deposited during a run
     * made a gain on 96,641 read as a return on 71,000.
     */
    changeExFlowsRatio: string | null;
    flows: FlowSummary[];
  };
  skipped: SkipGroup[];
  /** Skipped and blocked decisions grouped by their reason's template (numbers aside). */
  reasons: ReasonGroup[];
  /**
   * The book model each traded pair's slices filled against (the scenario's `book:`, assumptions of the
   * simulator), so the costs above can be read for what they are; `book` null: filled at the mid.
   */
  books: Array<{
    pair: string;
    book: {
      class: string;
      spreadBps: number;
      depth: number;
      depthRange: number;
      recoveryMs: number;
      dayVolume: number;
    } | null;
  }>;
  /** Per-TWAP execution figures summed over every TWAP. */
  execution: ExecutionTotal;
  /** Buy and hold: the starting holdings valued along the same prices. */
  benchmark: BenchmarkSummary;
}

/**
 * A reason's template: the same sentence with other numbers, or about other validators, gives the same
 * template. A validator is written "Name (0x1234…abcd)": the names of `validators` (the run's) are taken
 * whole ("Low Fee Node"), any other name's last word: a staking trial's 335 decisions made 77 templates
 * that differed only by which validators they named, and names of several words made "Low Fee <validator>".
 */
export function reasonTemplate(reason: string, validators: readonly string[] = []): string {
  let out = reason;
  // Longest first: a name inside another's ("Node" in "Low Fee Node") is not taken out of it.
  for (const name of [...validators].sort((a, b) => b.length - a.length))
    if (name !== "" && out.includes(name))
      out = out.replace(
        new RegExp(`${escapeRegExp(name)} \\(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\\)`, "g"),
        "<validator>",
      );
  return out
    .replace(/[^\s(),;:]+ \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)/g, "<validator>")
    .replace(/-?\d[\d,]*(\.\d+)?(e[-+]?\d+)?/g, "#");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const iso = (t: number) => new Date(t).toISOString();
const dec = (v: string | number | boolean | null | undefined): Decimal =>
  typeof v === "string" || typeof v === "number" ? new Decimal(v) : ZERO;
const wire = (d: Decimal) => toWireDecimal(d);
const round = (d: Decimal, dp: number) => toWireDecimal(d.toDecimalPlaces(dp, Decimal.ROUND_HALF_EVEN));
/** `d` to the cent, as `round` shows it, still a Decimal (for parts that must add up to a shown total). */
const cents = (d: Decimal) => d.toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN);
/**
 * A price: 8 decimals, or 8 significant digits under 0.01 (8 decimals left 0.00000012 one digit: a
 * numbers audit).
 */
const roundPrice = (d: Decimal) =>
  d.abs().lt("0.01") ? toWireDecimal(d.toSignificantDigits(8, Decimal.ROUND_HALF_EVEN)) : round(d, 8);

function valuationSummary(v: Valuation): ValuationSummary {
  return {
    at: iso(v.at),
    value: round(v.value, 2),
    assets: v.assets.map((a) => ({
      asset: a.asset,
      amount: wire(a.amount),
      price: a.price === undefined ? null : wire(a.price),
      value: round(a.value, 2),
      weight: v.value.gt(0) ? round(a.value.div(v.value), 4) : "0",
    })),
  };
}

function countBy<T>(items: Iterable<T>, key: (t: T) => string): Map<string, { item: T; count: number }> {
  const out = new Map<string, { item: T; count: number }>();
  for (const item of items) {
    const k = key(item);
    const g = out.get(k);
    if (g) g.count++;
    else out.set(k, { item, count: 1 });
  }
  return out;
}

export function buildSummary(r: SimulationRecord): SimulationSummary {
  const label = (pair: string) => {
    const p = r.pairs[pair];
    return p ? `${p.base}/${p.quote}` : pair;
  };
  /** A pair's mid at the start, in its quote, from its tokens' start prices ("HYPE/USDC"). */
  const startMidOf = (pairLabel: string): string | null => {
    const [base, quote] = pairLabel.split("/");
    const b = base === undefined ? undefined : r.start.prices[base];
    const q = quote === undefined ? undefined : r.start.prices[quote];
    return b && q?.gt(0) ? roundPrice(b.div(q)) : null;
  };
  const validatorName = new Map(r.validators.map((v) => [v.address, v.name]));

  // ---- what the strategies did (cycles) ----
  const decisions = r.cycles.flatMap((c) => c.decisions.map((d) => ({ ...d, at: c.at })));
  const twapStrategy = new Map<number, string>();
  const twapNotes = new Map<number, string[]>();
  // A cancel whose answer was lost and that reconciliation found landed cancelled its TWAP too (an
  // accountant's trial: such a TWAP showed "terminated" with no reason).
  const landedCancels = new Set(
    r.unknowns.flatMap((u) =>
      u.action === "twapCancel" && u.status === "landed" && u.twapId !== undefined ? [u.twapId] : [],
    ),
  );
  for (const d of decisions) {
    if (d.twapId === undefined) continue;
    if (d.kind === "twapOrder") twapStrategy.set(d.twapId, d.strategy);
    const note =
      d.kind === "twapOrder" && d.guard === "reduced"
        ? changesOf(d.reason)
        : d.kind === "twapCancel" &&
            (d.outcome === "accepted" || (d.outcome === "unknown" && landedCancels.has(d.twapId)))
          ? // The watch's "cancel TWAP #n (…): why" and the kill switch's "why: cancel the running …".
            `cancelled: ${d.reason.replace(/^cancel TWAP #\d+ \([^)]*\): /, "").replace(/: cancel the running .*$/, "")}`
          : undefined;
    if (note) twapNotes.set(d.twapId, [...(twapNotes.get(d.twapId) ?? []), note]);
  }
  // A twapOrder whose answer was lost names its TWAP only once reconciliation found it landed.
  for (const u of r.unknowns)
    if (u.action === "twapOrder" && u.twapId !== undefined) twapStrategy.set(u.twapId, u.strategy);

  const actions = [
    ...countBy(
      decisions.filter((d) => d.outcome !== undefined),
      (d) => `${d.strategy}\u0000${d.kind}\u0000${d.outcome}`,
    ).values(),
  ].map(({ item, count }) => ({ strategy: item.strategy, action: item.kind, outcome: item.outcome!, count }));
  const rejections = [
    ...countBy(
      decisions.filter((d) => d.outcome === "rejected" || d.outcome === "unknown"),
      (d) => `${d.strategy}\u0000${d.kind}\u0000${d.detail}`,
    ).values(),
  ].map(({ item, count }) => ({
    strategy: item.strategy,
    action: item.kind,
    reason: `${item.outcome}: ${item.detail ?? "no detail"}`,
    count,
  }));

  const skipped: SkipGroup[] = [];
  const skipIndex = new Map<string, SkipGroup>();
  for (const d of decisions) {
    if (d.guard !== "skipped" && d.guard !== "blocked") continue;
    const considered = d.kind === "skip" ? (d.considered ?? null) : d.kind;
    const key = `${d.strategy}\u0000${considered}\u0000${d.guard}\u0000${d.reason}`;
    const g = skipIndex.get(key);
    if (g) {
      g.count++;
      g.last = iso(d.at);
      continue;
    }
    const group: SkipGroup = {
      strategy: d.strategy,
      considered,
      guard: d.guard,
      reason: d.reason,
      count: 1,
      first: iso(d.at),
      last: iso(d.at),
    };
    skipIndex.set(key, group);
    skipped.push(group);
  }

  const failures = [
    ...countBy(
      r.cycles.filter((c) => c.error !== undefined),
      (c) => c.error!,
    ).values(),
  ].map(({ item, count }) => ({ reason: item.error!, count }));

  // ---- what the venue did (ledger) ----
  const byKind = (kind: LedgerEntry["kind"]) => r.ledger.filter((e) => e.kind === kind);
  const twaps = new Map<
    number,
    TwapSummary & {
      fee_: Decimal;
      sz_: Decimal;
      ntl_: Decimal;
      mids_: { at: number; mid: Decimal }[];
      impact_: Decimal;
    }
  >();
  // The mid each TWAP was decided at (a resend places it later, at another mid: the drift in between is
  // the account's cost too); the placement's mid for a TWAP no decision names (one found by reconciliation).
  const decidedAt = new Map<number, string>();
  for (const d of decisions)
    if (d.twapId !== undefined && d.decisionMid !== undefined) decidedAt.set(d.twapId, d.decisionMid);
  // TWAPs running at the start (carried from a forked account): not the bot's trades, and buy and hold
  // runs them too, so their fees, costs and fills are kept out of the bot's totals (a review: the fork's
  // breakdown charged them to the bot, then gave them back as "timing and other"). Listed, marked.
  const carried = new Set<number>();
  for (const e of byKind("twapPlaced")) {
    const id = Number(e.data.twapId);
    const pair = String(e.data.coin);
    if (e.data.carried === true) carried.add(id);
    twaps.set(id, {
      twapId: id,
      strategy: twapStrategy.get(id) ?? null,
      ...(e.data.carried === true ? { carried: true as const } : {}),
      pair,
      label: label(pair),
      side: e.data.side === "B" ? "buy" : "sell",
      size: String(e.data.sz),
      minutes: Number(e.data.minutes),
      placedAt: iso(e.time),
      status: "running",
      slices: 0,
      skippedSlices: 0,
      skipReasons: {},
      executedSize: "0",
      executedNotional: "0",
      averagePrice: null,
      fee: "0",
      feeToken: null,
      unfilledSize: "0",
      decisionMid: decidedAt.get(id) ?? (e.data.mid === undefined ? null : String(e.data.mid)),
      twMid: null,
      slippageBps: null,
      slippage: "0",
      shortfallBps: null,
      shortfall: "0",
      impact: "0",
      note:
        [
          ...(e.data.carried === true
            ? [
                "running at the start (carried from the forked account): size is what was left; not the bot's, so not in its fees, costs or trades (buy and hold runs it too)",
              ]
            : []),
          ...(twapNotes.get(id) ?? []),
        ].join("; ") || null,
      fee_: ZERO,
      sz_: ZERO,
      ntl_: ZERO,
      mids_: [],
      impact_: ZERO,
    });
  }
  const feeTotals = new Map<string, { amount: Decimal; value: Decimal }>();
  const quotePrice = (coin: string) => r.endPrices[coin] ?? new Decimal(1);
  for (const e of byKind("twapSlice")) {
    const t = twaps.get(Number(e.data.twapId));
    if (!t) continue;
    const fee = dec(e.data.fee);
    const feeToken = String(e.data.feeToken);
    t.slices++;
    t.sz_ = t.sz_.plus(dec(e.data.sz));
    t.ntl_ = t.ntl_.plus(dec(e.data.ntl));
    t.fee_ = t.fee_.plus(fee);
    t.feeToken = feeToken;
    if (e.data.mid !== undefined) {
      const mid = dec(e.data.mid);
      t.mids_.push({ at: e.time, mid });
      const diff = dec(e.data.px).minus(mid).times(dec(e.data.sz));
      t.impact_ = t.impact_.plus(t.side === "buy" ? diff : diff.neg());
    }
    if (carried.has(t.twapId)) continue;
    const pair = r.pairs[t.pair];
    // Fees on buys are taken in the base coin (valued at the slice's price), on sells in the quote.
    const inQuote = pair && feeToken === pair.base ? fee.times(dec(e.data.px)) : fee;
    const value = inQuote.times(quotePrice(pair?.quote ?? r.valuationCoin));
    const f = feeTotals.get(feeToken) ?? { amount: ZERO, value: ZERO };
    feeTotals.set(feeToken, { amount: f.amount.plus(fee), value: f.value.plus(value) });
  }
  for (const e of byKind("twapSliceSkipped")) {
    const t = twaps.get(Number(e.data.twapId));
    if (!t) continue;
    t.skippedSlices++;
    const reason = String(e.data.reason ?? "unknown");
    t.skipReasons[reason] = (t.skipReasons[reason] ?? 0) + 1;
    if (e.data.mid !== undefined) t.mids_.push({ at: e.time, mid: dec(e.data.mid) });
  }
  for (const e of [...byKind("twapFinished"), ...byKind("twapTerminated")]) {
    const t = twaps.get(Number(e.data.twapId));
    if (t) t.status = e.kind === "twapFinished" ? "finished" : "terminated";
  }
  // Each cost in bps is over the notional at its own reference price (Σ size × reference), as a TWAP's
  // row is: a total of one TWAP is that TWAP's figure.
  const exec = {
    ntl: ZERO,
    slippage: ZERO,
    shortfall: ZERO,
    impact: ZERO,
    atDecision: ZERO,
    atRunMid: ZERO,
    atSliceMids: ZERO,
  };
  const twapList: TwapSummary[] = [...twaps.values()].map(({ fee_, sz_, ntl_, mids_, impact_, ...t }) => {
    const sign = t.side === "buy" ? 1 : -1;
    const avg = sz_.gt(0) ? ntl_.div(sz_) : undefined;
    const twMid = timeWeighted(mids_);
    const decision = t.decisionMid === null ? undefined : new Decimal(t.decisionMid);
    // Cost against a reference price: size × (average − reference), positive when worse for the account.
    const cost = (ref: Decimal | undefined) => (avg && ref ? sz_.times(avg.minus(ref)).times(sign) : ZERO);
    const costBps = (ref: Decimal | undefined) =>
      avg && ref?.gt(0) ? round(avg.minus(ref).div(ref).times(10_000).times(sign), 2) : null;
    const inValuation = quotePrice(r.pairs[t.pair]?.quote ?? r.valuationCoin);
    if (!carried.has(t.twapId)) {
      exec.ntl = exec.ntl.plus(ntl_.times(inValuation));
      exec.slippage = exec.slippage.plus(cost(decision).times(inValuation));
      exec.shortfall = exec.shortfall.plus(cost(twMid).times(inValuation));
      exec.impact = exec.impact.plus(impact_.times(inValuation));
      if (avg && decision) exec.atDecision = exec.atDecision.plus(sz_.times(decision).times(inValuation));
      if (avg && twMid) exec.atRunMid = exec.atRunMid.plus(sz_.times(twMid).times(inValuation));
      exec.atSliceMids = exec.atSliceMids.plus(ntl_.minus(impact_.times(sign)).times(inValuation));
    }
    return {
      ...t,
      executedSize: wire(sz_),
      executedNotional: wire(ntl_),
      averagePrice: avg ? roundPrice(avg) : null,
      fee: wire(fee_),
      unfilledSize: wire(Decimal.max(ZERO, new Decimal(t.size).minus(sz_))),
      twMid: twMid ? roundPrice(twMid) : null,
      slippageBps: costBps(decision),
      slippage: round(cost(decision), 2),
      shortfallBps: costBps(twMid),
      shortfall: round(cost(twMid), 2),
      impact: round(impact_, 2),
    };
  });

  const tradeTotals = new Map<string, { t: TradeTotal; sz: Decimal; ntl: Decimal }>();
  for (const [id, t] of twaps) {
    if (carried.has(id)) continue;
    const key = `${t.label}\u0000${t.side}`;
    const g = tradeTotals.get(key) ?? {
      t: {
        label: t.label,
        side: t.side,
        twaps: 0,
        filledNothing: 0,
        slices: 0,
        size: "0",
        notional: "0",
        averagePrice: null,
        startMid: startMidOf(t.label),
      },
      sz: ZERO,
      ntl: ZERO,
    };
    g.t.twaps++;
    if (t.status !== "running" && t.sz_.isZero()) g.t.filledNothing++;
    g.t.slices += twaps.get(id)!.slices;
    g.sz = g.sz.plus(t.sz_);
    g.ntl = g.ntl.plus(t.ntl_);
    tradeTotals.set(key, g);
  }
  const trades = [...tradeTotals.values()].map(({ t, sz, ntl }) => ({
    ...t,
    size: wire(sz),
    notional: wire(ntl),
    averagePrice: sz.gt(0) ? roundPrice(ntl.div(sz)) : null,
  }));
  const byToken = [...feeTotals.entries()].map(([token, f]) => ({
    token,
    amount: wire(f.amount),
    value: round(f.value, 2),
  }));
  const feeValue = [...feeTotals.values()].reduce((a, f) => a.plus(f.value), ZERO);

  const deposits = byKind("cDeposit");
  const deposited = deposits.reduce((a, e) => a.plus(dec(e.data.amount)), ZERO);
  const changes = r.ledger
    .filter((e) => e.kind === "delegate" || e.kind === "undelegate")
    .map((e) => {
      const validator = String(e.data.validator);
      return {
        at: iso(e.time),
        validator,
        name: validatorName.get(validator) ?? validator,
        action: e.kind as "delegate" | "undelegate",
        amount: String(e.data.amount),
      };
    });
  const rewardEntries = byKind("reward");
  const rewarded = rewardEntries.reduce((a, e) => a.plus(dec(e.data.amount)), ZERO);

  const addresses = new Set([
    ...Object.keys(r.start.stake),
    ...Object.keys(r.end.stake),
    ...changes.map((c) => c.validator),
  ]);
  const validators: ValidatorStakeSummary[] = r.validators
    .filter((v) => addresses.has(v.address))
    .map((v) => {
      const start = r.start.stake[v.address] ?? ZERO;
      const end = r.end.stake[v.address] ?? ZERO;
      const mine = changes.filter((c) => c.validator === v.address);
      const sumOf = (action: string) =>
        mine.filter((c) => c.action === action).reduce((a, c) => a.plus(c.amount), ZERO);
      const delegated = sumOf("delegate");
      const undelegated = sumOf("undelegate");
      return {
        validator: v.address,
        name: v.name,
        start: wire(start),
        delegated: wire(delegated),
        undelegated: wire(undelegated),
        rewards: wire(end.minus(start).minus(delegated).plus(undelegated)),
        end: wire(end),
        netApr: v.netApr ?? null,
        notEarning: v.notEarning ?? null,
      };
    });
  const sumData = (kind: LedgerEntry["kind"]) =>
    wire(byKind(kind).reduce((a, e) => a.plus(dec(e.data.amount)), ZERO));

  const start = valuationSummary(r.start);
  const end = valuationSummary(r.end);
  const change = r.end.value.minus(r.start.value);
  // Deposits and withdrawals of scenario events: not performance, and the benchmark receives them too.
  const { flows, netFlows } = eventFlows(r.ledger);

  // ---- grouped reasons ----
  const validatorNames = r.validators.map((v) => v.name);
  const reasonIndex = new Map<string, ReasonGroup & { wordings: Set<string> }>();
  for (const g of skipped) {
    const template = reasonTemplate(g.reason, validatorNames);
    const key = `${g.strategy}\u0000${g.guard}\u0000${template}`;
    const seen = reasonIndex.get(key);
    if (!seen) {
      reasonIndex.set(key, {
        strategy: g.strategy,
        guard: g.guard,
        template,
        count: g.count,
        distinct: 1,
        latest: g.reason,
        latestAt: g.last,
        first: g.first,
        wordings: new Set([g.reason]),
      });
      continue;
    }
    seen.count += g.count;
    seen.wordings.add(g.reason);
    seen.distinct = seen.wordings.size;
    if (g.last >= seen.latestAt) {
      seen.latest = g.reason;
      seen.latestAt = g.last;
    }
    if (g.first < seen.first) seen.first = g.first;
  }
  const reasons = [...reasonIndex.values()]
    .map(({ wordings: _, ...g }) => g)
    .sort((a, b) => b.count - a.count || a.strategy.localeCompare(b.strategy));

  // ---- buy and hold ----
  const coinOf = (asset: string) => (asset === STAKED_HYPE ? "HYPE" : asset);
  const hypeEnd = r.endPrices.HYPE ?? ZERO;
  const rewardsValue = rewarded.times(hypeEnd);
  // The venue left alone: its own end holdings, rewards and flows (a withdrawal pays what this account
  // had available, as it would have).
  const b = r.benchmark;
  const holdingsMap = new Map<string, Decimal>();
  for (const a of b.end.assets)
    holdingsMap.set(coinOf(a.asset), (holdingsMap.get(coinOf(a.asset)) ?? ZERO).plus(a.amount));
  const { flows: benchFlowList, netFlows: benchFlows } = eventFlows(b.ledger);
  const benchRewarded = b.ledger
    .filter((e) => e.kind === "reward")
    .reduce((a, e) => a.plus(dec(e.data.amount)), ZERO);
  // Its change, like the bot's `changeExFlows`, leaves the deposits and withdrawals out.
  const benchChange = b.end.value.minus(b.start.value).minus(benchFlows);
  // The bot's lead is the difference of the two changes, each without its own flows: a withdrawal takes
  // what each account had available, so the end values differ by what one could not pay, which is no
  // merit of either (the starts are the same holdings at the same prices): its move since is taken out.
  const unequal = unequalFlowsEffect(flows, benchFlowList, r.endPrices, r.valuationCoin);
  const diff = change.minus(netFlows).minus(benchChange).minus(unequal);
  // Rewards buy and hold earns too are no merit of the bot: only the difference is its part.
  const extraRewards = rewardsValue.minus(benchRewarded.times(hypeEnd));
  const benchmark: BenchmarkSummary = {
    holdings: [...holdingsMap].map(([coin, amount]) => ({ coin, amount: wire(amount) })),
    start: round(b.start.value, 2),
    end: round(b.end.value, 2),
    change: round(benchChange, 2),
    changeRatio: dietzRatio(benchChange, b.start.value, benchFlowList, r.from, r.to),
    botMinusBenchmark: round(diff, 2),
    unequalWithdrawals: round(unequal, 2),
    flows: benchFlowList,
    rewards: {
      bot: { amount: wire(rewarded), value: round(rewardsValue, 2) },
      benchmark: { amount: wire(benchRewarded), value: round(benchRewarded.times(hypeEnd), 2) },
    },
    // The rest is what the rounded parts leave of the rounded total, so the parts shown add up to it
    // to the cent (a quant's check found -4,605.91 of parts for a -4,605.92 total).
    breakdown: {
      stakingRewards: round(extraRewards, 2),
      fees: round(feeValue.neg(), 2),
      spreadAndImpact: round(exec.impact.neg(), 2),
      timingAndOther: round(
        cents(diff).minus(cents(extraRewards)).plus(cents(feeValue)).plus(cents(exec.impact)),
        2,
      ),
    },
  };
  const bpsOf = (d: Decimal, over: Decimal) => (over.gt(0) ? round(d.div(over).times(10_000), 2) : null);
  const execution: ExecutionTotal = {
    notional: round(exec.ntl, 2),
    slippage: round(exec.slippage, 2),
    slippageBps: bpsOf(exec.slippage, exec.atDecision),
    shortfall: round(exec.shortfall, 2),
    shortfallBps: bpsOf(exec.shortfall, exec.atRunMid),
    impact: round(exec.impact, 2),
    impactBps: bpsOf(exec.impact, exec.atSliceMids),
    fees: round(feeValue, 2),
    feesBps: bpsOf(feeValue, exec.ntl),
    // Each part on its own base (fees on what was paid, spread and impact on the slices' mids), so the
    // two add up: over the fills' notional a buy's costs read less than its impact alone (a quant's
    // 1M-USDC PURR buy: 273.18 bps together against 274.47 of impact; the same sell 288.26).
    costsBps:
      exec.ntl.gt(0) && exec.atSliceMids.gt(0)
        ? round(
            cents(feeValue.div(exec.ntl).times(10_000)).plus(
              cents(exec.impact.div(exec.atSliceMids).times(10_000)),
            ),
            2,
          )
        : null,
  };

  return {
    scenario: r.scenario.name,
    replayed: r.replayed.map((x) => replayedSummary(x, r.from, r.to)),
    notReplayed: r.notReplayed ?? [],
    seed: r.seed,
    network: r.network,
    account: r.account,
    holdingsFrom: r.holdings.from ?? null,
    forkedFrom: r.forkOf ?? null,
    configAccount: r.configAccount ?? null,
    valuationCoin: r.valuationCoin,
    period: {
      from: iso(r.from),
      to: iso(r.to),
      days: Number(((r.to - r.from) / DAY_MS).toFixed(4)),
      interrupted: r.interrupted,
    },
    strategies: r.strategies.map((s) => {
      const own = r.cycles.filter((c) => !c.watch && c.strategies.includes(s.name));
      const completed = own.filter((c) => c.error === undefined);
      return {
        name: s.name,
        kind: s.kind,
        schedule: s.schedule,
        runs: completed.length,
        slots: new Set(completed.map((c) => c.slot ?? c.at)).size,
        failedRuns: own.length - completed.length,
        ...missedOf(r.missed, s.name),
        ...nettedOf(completed, s.name),
      };
    }),
    cycles: {
      total: r.cycles.length,
      watch: r.cycles.filter((c) => c.watch && c.error === undefined).length,
      watchFailed: r.cycles.filter((c) => c.watch && c.error !== undefined).length,
      failed: failures.reduce((a, f) => a + f.count, 0),
      failures,
    },
    actions,
    rejections,
    unknowns: unknownSummary(r),
    eventsNotApplied: r.eventsAfterEnd.map((e) => ({ at: iso(e.at), type: e.type, what: e.what })),
    eventsApplied: r.eventsApplied.map((e) => ({ at: iso(e.at), type: e.type, what: e.what })),
    twaps: twapList,
    trades,
    fees: { byToken, value: round(feeValue, 2) },
    staking: {
      deposited: wire(deposited),
      deposits: deposits.length,
      changes,
      validators,
      rewards: {
        amount: wire(rewarded),
        payouts: rewardEntries.length,
        value: round(rewarded.times(r.endPrices.HYPE ?? ZERO), 2),
      },
      withdrawals: {
        initiated: sumData("withdrawalInitiated"),
        finalized: sumData("withdrawalFinalized"),
        list: withdrawalList(byKind("withdrawalInitiated"), byKind("withdrawalFinalized")),
      },
      end: {
        delegated: wire(r.end.staking?.delegated ?? ZERO),
        locked: wire(r.end.staking?.locked ?? ZERO),
        idle: wire(r.end.staking?.idle ?? ZERO),
        pendingWithdrawal: wire(r.end.staking?.pendingWithdrawal ?? ZERO),
      },
    },
    portfolio: {
      start,
      end,
      change: round(change, 2),
      changeRatio: r.start.value.gt(0) ? round(change.div(r.start.value), 4) : null,
      netFlows: round(netFlows, 2),
      changeExFlows: round(change.minus(netFlows), 2),
      changeExFlowsRatio: dietzRatio(change.minus(netFlows), r.start.value, flows, r.from, r.to),
      flows,
    },
    skipped,
    reasons,
    books: [...new Set(twapList.map((t) => t.pair))].sort().map((pair) => {
      const b = r.pairs[pair]?.book;
      return {
        pair: label(pair),
        book:
          b === undefined
            ? null
            : {
                class: b.class,
                spreadBps: b.spreadBps,
                depth: b.depth,
                depthRange: b.depthRange,
                recoveryMs: b.recovery,
                dayVolume: b.dayVolume,
              },
      };
    }),
    execution,
    benchmark,
  };
}

/** A replayed file in the summary, with the part of `from`..`to` it left to a flat price. */
export function replayedSummary(x: ReplayedPrices, from: number, to: number): ReplayedSummary {
  const flat = replayCoverage(x, from, to);
  const total = flat.before + flat.after + flat.inGaps;
  const days = (ms: number) => Number((ms / DAY_MS).toFixed(4));
  const { largest } = x.gaps;
  return {
    coin: x.coin,
    file: x.file,
    interval: x.interval,
    candles: x.candles,
    covers: { from: iso(x.first), to: iso(x.end) },
    gaps: {
      count: x.gaps.count,
      missing: x.gaps.missing,
      largest: largest ? { from: iso(largest.from), to: iso(largest.to), line: largest.line } : null,
    },
    flat: {
      before: days(flat.before),
      after: days(flat.after),
      inGaps: days(flat.inGaps),
      total: days(total),
      share: to > from ? round(new Decimal(total).div(to - from), 4) : "0",
    },
  };
}

function unknownSummary(r: SimulationRecord): SimulationSummary["unknowns"] {
  const list = r.unknowns;
  const count = (status: string) => list.filter((u) => u.status === status).length;
  const landed = count("landed");
  const absent = count("absent");
  return {
    total: list.length,
    landed,
    absent,
    unresolved: list.length - landed - absent,
    submissions: list.map((u) => ({
      at: iso(u.at),
      strategy: u.strategy,
      action: u.action,
      status: u.status,
      settledAt: u.settledAt === undefined ? null : iso(u.settledAt),
      detail: u.detail ?? null,
    })),
  };
}

/** A TWAP's status for people: one that ended having filled nothing says so (a halted pair, a book
 * beyond the price limit), instead of looking like a TWAP that did its job. */
/**
 * Each withdrawal with its landing (a treasurer's trial could not tell a withdrawal for a sale from an
 * undelegation in the list of changes): matched by the initiating transaction's hash.
 */
function withdrawalList(
  initiated: readonly LedgerEntry[],
  finalized: readonly LedgerEntry[],
): SimulationSummary["staking"]["withdrawals"]["list"] {
  const landed = new Map<string, number>();
  for (const e of finalized)
    if (typeof e.data.initiatedHash === "string") landed.set(e.data.initiatedHash, e.time);
  return initiated.map((e) => {
    const at = e.hash === undefined ? undefined : landed.get(e.hash);
    return { at: iso(e.time), amount: String(e.data.amount), landedAt: at === undefined ? null : iso(at) };
  });
}

export function twapStatusText(t: Pick<TwapSummary, "status" | "executedSize">): string {
  return t.status !== "running" && Number(t.executedSize) === 0 ? `${t.status}, filled nothing` : t.status;
}

/**
 * What the limits and the allocator changed in a TWAP's reason: its parts from the first that reduces or
 * nets it ("reduced from 50 to 10.3 … by maxDailyNotionalUsd …"), or undefined.
 */
function changesOf(reason: string): string | undefined {
  const parts = reason.split("; ");
  const first = parts.findIndex((p) => /^(reduced |netted against )/.test(p));
  return first < 0 ? undefined : parts.slice(first).join("; ");
}

/**
 * A gain over the capital that earned it (modified Dietz): the start value plus each flow's value times
 * the share of the run [from, to] it was in the account. Without flows, gain / start. 4 decimals; null
 * when that capital is not positive.
 */
function dietzRatio(
  gain: Decimal,
  start: Decimal,
  flows: readonly FlowSummary[],
  from: number,
  to: number,
): string | null {
  let capital = start;
  const length = to - from;
  for (const f of flows) {
    if (f.value === null || length <= 0) continue;
    const inAccount = Math.min(1, Math.max(0, (to - Date.parse(f.at)) / length));
    capital = capital.plus(new Decimal(f.value).times(inAccount));
  }
  return capital.gt(0) ? round(gain.div(capital), 4) : null;
}

/**
 * The time-weighted mean of a price sampled at times (the mid at each slice of a TWAP): each segment
 * between two samples counts its length at the mean of its two ends (trapezoids); one sample, or all at
 * one time, is their plain mean.
 */
export function timeWeighted(samples: ReadonlyArray<{ at: number; mid: Decimal }>): Decimal | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a.at - b.at);
  const span = sorted[sorted.length - 1]!.at - sorted[0]!.at;
  if (span <= 0) return sorted.reduce((a, s) => a.plus(s.mid), ZERO).div(sorted.length);
  let area = ZERO;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    area = area.plus(
      a.mid
        .plus(b.mid)
        .times(b.at - a.at)
        .div(2),
    );
  }
  return area.div(span);
}

/** A strategy's netted runs and their USD (the decisions carrying nettedUsd), when it has any. */
function nettedOf(
  cycles: readonly CycleRecord[],
  strategy: string,
): { netted?: { runs: number; usd: string } } {
  let runs = 0;
  let usd = ZERO;
  for (const c of cycles) {
    const own = c.decisions.filter((d) => d.strategy === strategy && d.nettedUsd !== undefined);
    if (own.length === 0) continue;
    runs++;
    for (const d of own) usd = usd.plus(dec(d.nettedUsd));
  }
  return runs === 0 ? {} : { netted: { runs, usd: round(usd, 2) } };
}

/** Money moved in (+) or out (−) by a scenario's deposit or withdrawal event, valued when it moved. */
export interface FlowSummary {
  at: string;
  coin: string;
  /** What moved: for a withdrawal, what the venue paid (−). */
  amount: string;
  value: string | null;
  /** A withdrawal the venue paid only in part: what was asked (−). */
  requested?: string;
  /** Of such a withdrawal, what the spot balance held for running orders then (it could not be paid). */
  held?: string;
}

/** The deposits and withdrawals of scenario events in a ledger, and their net value. */
function eventFlows(ledger: readonly LedgerEntry[]): { flows: FlowSummary[]; netFlows: Decimal } {
  const entries = ledger.filter((e) => e.kind === "fund" && e.data.source === "event");
  const flows: FlowSummary[] = entries.map((e) => ({
    at: iso(e.time),
    coin: String(e.data.coin),
    amount: String(e.data.amount),
    value: e.data.value === undefined ? null : String(e.data.value),
  }));
  // A withdrawal paid in part says what was asked; one paid nothing is listed at 0.
  for (const e of ledger) {
    if (e.kind !== "withdrawalShort") continue;
    const at = iso(e.time);
    const coin = String(e.data.coin);
    const requested = `-${String(e.data.requested)}`;
    const held = e.data.held === undefined || dec(e.data.held).isZero() ? {} : { held: String(e.data.held) };
    const paid = flows.find((f) => f.at === at && f.coin === coin && f.amount.startsWith("-"));
    if (paid) Object.assign(paid, { requested, ...held });
    else flows.push({ at, coin, amount: "0", value: "0", requested, ...held });
  }
  flows.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return {
    flows,
    netFlows: entries.reduce((a, e) => a.plus(e.data.value === undefined ? ZERO : dec(e.data.value)), ZERO),
  };
}

/**
 * What a withdrawal paid in different amounts to the bot and to buy and hold made of the comparison:
 * the side that paid less kept the rest, and its move from the withdrawal's price to the end price is
 * in that side's change (a trial: the bot's staked HYPE let it pay 1,000 of 5,000 HYPE against buy and
 * hold's 1,700, and the 700 kept added 4,974 USDC to the bot's lead as HYPE rose). Positive: in the
 * bot's favour.
 */
export function unequalFlowsEffect(
  bot: readonly FlowSummary[],
  bench: readonly FlowSummary[],
  endPrices: Readonly<Record<string, Decimal>>,
  valuationCoin: string,
): Decimal {
  const key = (f: FlowSummary) => `${f.at}\u0000${f.coin}`;
  const sides = new Map<string, { coin: string; bot: Decimal; bench: Decimal; px: Decimal | undefined }>();
  const add = (f: FlowSummary, side: "bot" | "bench") => {
    const k = key(f);
    const seen = sides.get(k) ?? { coin: f.coin, bot: ZERO, bench: ZERO, px: undefined };
    const amount = dec(f.amount);
    seen[side] = seen[side].plus(amount);
    if (seen.px === undefined && f.value !== null && !amount.isZero()) seen.px = dec(f.value).div(amount);
    sides.set(k, seen);
  };
  for (const f of bot) add(f, "bot");
  for (const f of bench) add(f, "bench");
  let effect = ZERO;
  for (const s of sides.values()) {
    const kept = s.bot.minus(s.bench);
    const end = s.coin === valuationCoin ? new Decimal(1) : endPrices[s.coin];
    if (kept.isZero() || s.px === undefined || end === undefined) continue;
    effect = effect.plus(kept.times(end.minus(s.px)));
  }
  return effect;
}

/** How many slots of a strategy were missed in a run, and the latest of them when known. */
function missedOf(
  missed: SimulationRecord["missed"],
  strategy: string,
): { missedSlots: number; lastMissed: string | null } {
  let count = 0;
  let latest: number | undefined;
  for (const m of missed) {
    if (m.strategy !== strategy) continue;
    count += m.count;
    if (m.latest !== undefined && (latest === undefined || m.latest > latest)) latest = m.latest;
  }
  return { missedSlots: count, lastMissed: latest === undefined ? null : iso(latest) };
}
