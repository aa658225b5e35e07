// The summary of a simulation, computed from its record: trades, fees, deposits, delegations and
// rewards come from the simulator's ledger (the venue's ground truth, not what the bot believes it
// did); what the strategies decided and skipped comes from the cycles; values come from the start and
// end valuations. Pure data with decimals as strings, identical for the same scenario and seed (no
// cycle ids, no wall-clock times), so `--json` output can be compared byte for byte.
import { Decimal, toWireDecimal, ZERO } from "../../lib/decimal.js";
import type { LedgerEntry } from "../../simulator/index.js";
import { DAY_MS, type SimulationRecord, type Valuation } from "./runner.js";

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
  pair: string;
  /** "BASE/QUOTE". */
  label: string;
  side: "buy" | "sell";
  size: string;
  minutes: number;
  placedAt: string;
  /** finished, terminated, or running at the end of the simulation. */
  status: "finished" | "terminated" | "running";
  slices: number;
  skippedSlices: number;
  executedSize: string;
  /** Quote amount traded (exact sum of the slices' notionals). */
  executedNotional: string;
  /** executedNotional / executedSize, rounded to 8 decimals; null when nothing executed. */
  averagePrice: string | null;
  fee: string;
  feeToken: string | null;
}

export interface TradeTotal {
  label: string;
  side: "buy" | "sell";
  twaps: number;
  slices: number;
  size: string;
  notional: string;
  averagePrice: string | null;
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
  /** The delegator's APR at the end: predictedApr (week) × (1 − commission); null when unknown. */
  netApr: string | null;
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

export interface SimulationSummary {
  scenario: string;
  seed: number;
  network: string;
  account: string;
  /** Where the simulated account's holdings came from (the scenario's demo account, or defaults). */
  holdingsFrom: string | null;
  valuationCoin: string;
  period: { from: string; to: string; days: number; interrupted: boolean };
  strategies: Array<{ name: string; kind: string; schedule: string; runs: number }>;
  cycles: { total: number; failed: number; failures: Array<{ reason: string; count: number }> };
  actions: Array<{ strategy: string; action: string; outcome: string; count: number }>;
  rejections: Array<{ strategy: string; action: string; reason: string; count: number }>;
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
    withdrawals: { initiated: string; finalized: string };
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
  };
  skipped: SkipGroup[];
}

const iso = (t: number) => new Date(t).toISOString();
const dec = (v: string | number | boolean | null | undefined): Decimal =>
  typeof v === "string" || typeof v === "number" ? new Decimal(v) : ZERO;
const wire = (d: Decimal) => toWireDecimal(d);
const round = (d: Decimal, dp: number) => toWireDecimal(d.toDecimalPlaces(dp, Decimal.ROUND_HALF_EVEN));

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
  const validatorName = new Map(r.validators.map((v) => [v.address, v.name]));

  // ---- what the strategies did (cycles) ----
  const decisions = r.cycles.flatMap((c) => c.decisions.map((d) => ({ ...d, at: c.at })));
  const twapStrategy = new Map<number, string>();
  for (const d of decisions) if (d.twapId !== undefined) twapStrategy.set(d.twapId, d.strategy);

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
  const twaps = new Map<number, TwapSummary & { fee_: Decimal; sz_: Decimal; ntl_: Decimal }>();
  for (const e of byKind("twapPlaced")) {
    const id = Number(e.data.twapId);
    const pair = String(e.data.coin);
    twaps.set(id, {
      twapId: id,
      strategy: twapStrategy.get(id) ?? null,
      pair,
      label: label(pair),
      side: e.data.side === "B" ? "buy" : "sell",
      size: String(e.data.sz),
      minutes: Number(e.data.minutes),
      placedAt: iso(e.time),
      status: "running",
      slices: 0,
      skippedSlices: 0,
      executedSize: "0",
      executedNotional: "0",
      averagePrice: null,
      fee: "0",
      feeToken: null,
      fee_: ZERO,
      sz_: ZERO,
      ntl_: ZERO,
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
    const pair = r.pairs[t.pair];
    // Fees on buys are taken in the base coin (valued at the slice's price), on sells in the quote.
    const inQuote = pair && feeToken === pair.base ? fee.times(dec(e.data.px)) : fee;
    const value = inQuote.times(quotePrice(pair?.quote ?? r.valuationCoin));
    const f = feeTotals.get(feeToken) ?? { amount: ZERO, value: ZERO };
    feeTotals.set(feeToken, { amount: f.amount.plus(fee), value: f.value.plus(value) });
  }
  for (const e of byKind("twapSliceSkipped")) {
    const t = twaps.get(Number(e.data.twapId));
    if (t) t.skippedSlices++;
  }
  for (const e of [...byKind("twapFinished"), ...byKind("twapTerminated")]) {
    const t = twaps.get(Number(e.data.twapId));
    if (t) t.status = e.kind === "twapFinished" ? "finished" : "terminated";
  }
  const twapList: TwapSummary[] = [...twaps.values()].map(({ fee_, sz_, ntl_, ...t }) => ({
    ...t,
    executedSize: wire(sz_),
    executedNotional: wire(ntl_),
    averagePrice: sz_.gt(0) ? round(ntl_.div(sz_), 8) : null,
    fee: wire(fee_),
  }));

  const tradeTotals = new Map<string, { t: TradeTotal; sz: Decimal; ntl: Decimal }>();
  for (const [id, t] of twaps) {
    const key = `${t.label}\u0000${t.side}`;
    const g = tradeTotals.get(key) ?? {
      t: { label: t.label, side: t.side, twaps: 0, slices: 0, size: "0", notional: "0", averagePrice: null },
      sz: ZERO,
      ntl: ZERO,
    };
    g.t.twaps++;
    g.t.slices += twaps.get(id)!.slices;
    g.sz = g.sz.plus(t.sz_);
    g.ntl = g.ntl.plus(t.ntl_);
    tradeTotals.set(key, g);
  }
  const trades = [...tradeTotals.values()].map(({ t, sz, ntl }) => ({
    ...t,
    size: wire(sz),
    notional: wire(ntl),
    averagePrice: sz.gt(0) ? round(ntl.div(sz), 8) : null,
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
      };
    });
  const sumData = (kind: LedgerEntry["kind"]) =>
    wire(byKind(kind).reduce((a, e) => a.plus(dec(e.data.amount)), ZERO));

  const start = valuationSummary(r.start);
  const end = valuationSummary(r.end);
  const change = r.end.value.minus(r.start.value);

  return {
    scenario: r.scenario.name,
    seed: r.seed,
    network: r.network,
    account: r.account,
    holdingsFrom: r.holdings.from ?? null,
    valuationCoin: r.valuationCoin,
    period: {
      from: iso(r.from),
      to: iso(r.to),
      days: Number(((r.to - r.from) / DAY_MS).toFixed(4)),
      interrupted: r.interrupted,
    },
    strategies: r.strategies.map((s) => ({
      name: s.name,
      kind: s.kind,
      schedule: s.schedule,
      runs: r.cycles.filter((c) => c.strategies.includes(s.name)).length,
    })),
    cycles: { total: r.cycles.length, failed: failures.reduce((a, f) => a + f.count, 0), failures },
    actions,
    rejections,
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
      withdrawals: { initiated: sumData("withdrawalInitiated"), finalized: sumData("withdrawalFinalized") },
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
    },
    skipped,
  };
}
