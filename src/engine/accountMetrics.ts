import { collectDefaultMetrics, Gauge } from "prom-client";
import { type Decimal, ZERO } from "../lib/decimal.js";
import { STAKING_KINDS } from "./allocate.js";
import { type Capital, capitalView, floorView } from "./capital.js";
import type { Journal, TwapFill } from "./journal.js";
import type { BotMetrics } from "./metrics.js";
import { endedTwapFills, LIMIT_WINDOW_MS, mergeUsage, venueUsage } from "./risk.js";
import type { Snapshot } from "./snapshot.js";
import { rebalancerWeights, type TwapRebalanceParams } from "./strategies/twapRebalance.js";
import { valueUsdPerUnit } from "./usd.js";
import { portfolioValueUsd } from "./valuation.js";

interface AccountGauges {
  value: Gauge;
  balance: Gauge<"token" | "kind">;
  balanceUsd: Gauge<"token" | "kind">;
  weight: Gauge<"strategy" | "token">;
  targetWeight: Gauge<"strategy" | "token">;
  notional: Gauge<"kind">;
  open: Gauge<"status">;
  killSwitch: Gauge;
  nextRun: Gauge<"strategy">;
  previousRun: Gauge<"strategy">;
  period: Gauge<"strategy">;
  twaps: Gauge;
  twapProgress: Gauge<"twap_id" | "coin" | "side">;
}

const gauges = new WeakMap<BotMetrics, AccountGauges>();

/**
 * A gauge without labels that exports nothing until first set. prom-client starts one at 0, so before
 * the daemon's first cycle /metrics said "portfolio value 0", "kill switch 0" and "running TWAPs 0"
 * (a TWAP was running): data that was never read. (prom-client 15 keeps a gauge's samples in
 * `hashMap`; test/engine/accountMetrics.test.ts holds this to what /metrics shows.)
 */
function unsetUntilRead(g: Gauge): Gauge {
  (g as unknown as { hashMap: Record<string, unknown> }).hashMap = {};
  return g;
}
/** The staking balances last read, per metrics registry: cycles that do not read them value with these. */
const lastStaking = new WeakMap<BotMetrics, Snapshot["staking"]>();
/**
 * The account's running TWAPs as last read, plus those the bot placed since, minus those it cancelled,
 * each with its scheduled end, per registry: the running-TWAP gauge counts those not ended at scrape
 * time (from a snapshot alone, a daily DCA's TWAP never showed, and one placed showed for a day after
 * its end). Absent until a cycle read them. Keyed by TWAP id (or coin and start without one).
 */
const runningTwaps = new WeakMap<BotMetrics, Map<string, { coin: string; side: string; endsAt: number }>>();
/** The cycle's clock per registry (the gauge is computed when scraped). */
const clocks = new WeakMap<BotMetrics, () => number>();
const nowOf = (metrics: BotMetrics): number => (clocks.get(metrics) ?? Date.now)();

/** Drops the ended TWAPs (and their progress series) and sets the gauge to what runs now. */
function countRunning(metrics: BotMetrics, g: AccountGauges): void {
  const running = runningTwaps.get(metrics);
  if (running === undefined) return;
  const now = nowOf(metrics);
  for (const [id, t] of running) {
    if (t.endsAt > now) continue;
    running.delete(id);
    g.twapProgress.remove({ twap_id: id, coin: t.coin, side: t.side });
  }
  g.twaps.set(running.size);
}

function gaugesOf(metrics: BotMetrics): AccountGauges {
  let g = gauges.get(metrics);
  if (g) return g;
  const registers = [metrics.registry];
  g = {
    value: unsetUntilRead(
      new Gauge({
        name: "hlbot_portfolio_value_usd",
        help: "The account's value in USD: spot balances plus staked, idle and pending-withdrawal HYPE, at the last cycle's mids",
        registers,
      }),
    ),
    balance: new Gauge({
      name: "hlbot_balance",
      help: "Holdings in token units by kind: spot (total), staked (delegated), idle_stake (in staking, not delegated), pending_withdrawal",
      labelNames: ["token", "kind"] as const,
      registers,
    }),
    balanceUsd: new Gauge({
      name: "hlbot_balance_usd",
      help: "Holdings in USD by token and kind (tokens without a USD price are left out)",
      labelNames: ["token", "kind"] as const,
      registers,
    }),
    weight: new Gauge({
      name: "hlbot_strategy_weight",
      help: "A rebalancer's current weight of each target token in its targets' total value",
      labelNames: ["strategy", "token"] as const,
      registers,
    }),
    targetWeight: new Gauge({
      name: "hlbot_strategy_target_weight",
      help: "A rebalancer's target weight of each token",
      labelNames: ["strategy", "token"] as const,
      registers,
    }),
    notional: new Gauge({
      name: "hlbot_daily_notional_usd",
      help: "TWAP notional in the limits' rolling day (24 h less 5 min; kind=used) and limits.maxDailyNotionalUsd (kind=limit)",
      labelNames: ["kind"] as const,
      registers,
    }),
    open: new Gauge({
      name: "hlbot_submissions_open",
      help: "Submissions without a final answer: pending (journaled, answer not yet in) and unknown (being reconciled)",
      labelNames: ["status"] as const,
      registers,
    }),
    killSwitch: unsetUntilRead(
      new Gauge({
        name: "hlbot_kill_switch_engaged",
        help: "1 while the kill switch is engaged (no new action is sent), else 0; checked every minute by the daemon",
        registers,
      }),
    ),
    nextRun: new Gauge({
      name: "hlbot_next_run_timestamp_seconds",
      help: "Unix time of each strategy's next cron slot",
      labelNames: ["strategy"] as const,
      registers,
    }),
    previousRun: new Gauge({
      name: "hlbot_previous_run_timestamp_seconds",
      help: "Unix time of each strategy's latest cron slot at or before now (within 8 days)",
      labelNames: ["strategy"] as const,
      registers,
    }),
    period: new Gauge({
      name: "hlbot_schedule_period_seconds",
      help: "Seconds between each strategy's next cron slot and the one after it",
      labelNames: ["strategy"] as const,
      registers,
    }),
    twaps: unsetUntilRead(
      new Gauge({
        name: "hlbot_running_twaps",
        help: "TWAPs of the account running: as the last cycle read them, with those the bot placed or cancelled since, until their scheduled end",
        registers,
        collect() {
          const own = gauges.get(metrics);
          if (own) countRunning(metrics, own);
        },
      }),
    ),
    twapProgress: new Gauge({
      name: "hlbot_twap_progress_ratio",
      help: "Share of each running TWAP's size filled so far",
      labelNames: ["twap_id", "coin", "side"] as const,
      registers,
    }),
  };
  gauges.set(metrics, g);
  return g;
}

/**
 * Registers hlbot_build_info and the standard process and Node.js metrics (process_cpu_seconds_total,
 * nodejs_heap_size_used_bytes, …) on the daemon's registry. Once per registry.
 */
export function registerProcessMetrics(metrics: BotMetrics, version: string): void {
  if (metrics.registry.getSingleMetric("hlbot_build_info")) return;
  const info = new Gauge({
    name: "hlbot_build_info",
    help: "Always 1; the labels say which hlbot and Node.js are running",
    labelNames: ["version", "node"] as const,
    registers: [metrics.registry],
  });
  info.set({ version, node: process.versions.node }, 1);
  collectDefaultMetrics({ register: metrics.registry });
}

/**
 * Registers hlbot_account_info: always 1, labelled with the account, network and mode this daemon acts
 * for, so a dashboard of several bots can join any series on its instance (the series themselves carry
 * no account label: one daemon, one account).
 */
export function registerAccountInfo(
  metrics: BotMetrics,
  o: { account: string; network: string; mode: "live" | "dry-run" },
): void {
  if (metrics.registry.getSingleMetric("hlbot_account_info")) return;
  new Gauge({
    name: "hlbot_account_info",
    help: "Always 1; the labels say which account, network and mode this hlbot acts for",
    labelNames: ["account", "network", "mode"] as const,
    registers: [metrics.registry],
  }).set({ account: o.account, network: o.network, mode: o.mode }, 1);
}

export interface AccountMetricsInput {
  snapshot: Snapshot;
  /** Whether the staking balances were read this cycle (else the last ones read are used). */
  staking: boolean;
  /** Whether running TWAPs were read this cycle (else the TWAP gauges keep their last value). */
  twaps?: boolean;
  journal: Journal;
  account: string;
  maxDailyNotionalUsd: Decimal;
  killSwitchEngaged: boolean;
  /** The strategies of this cycle, for the rebalancers' weights (seen through their capital). */
  strategies: readonly { name: string; kind: string; params: unknown; capital?: Capital | undefined }[];
  /** The account's floors (limits.keepOnSpot): a rebalancer weighs what is above them. */
  floors?: ReadonlyMap<string, Decimal> | undefined;
  now: number;
  /** The cycle's clock: the running-TWAP gauge is counted with it when scraped. */
  clock?: () => number;
}

/**
 * Whether a cycle should read the staking balances for the metrics although its strategies do not:
 * whenever metrics are kept (two small reads). Read only on a process's first cycle and after its own
 * staking actions, a stake moved by hand (the CLI, the app) or a withdrawal landing was never seen: a
 * consistency trial's gauges took 100 HYPE staked from the CLI off spot without adding them to the
 * stake, a false 4% drop until the daemon restarted, and the idle-stake alert read a stale figure.
 */
export function metricsNeedStaking(metrics: BotMetrics | undefined): boolean {
  return metrics !== undefined;
}

/**
 * What a cycle's send changed, on the gauges its snapshot (read before the send) set: an accepted TWAP
 * runs (a daily DCA's TWAP never showed, the next read being a day away), a cancelled one does not; a
 * staking action moved HYPE, so the staking balances are read again at the next cycle (valued with
 * the read from before a deposit, the account lost the deposit from its value, a 15% false drop on a
 * trial's dashboard for up to six hours).
 */
export function recordSent(
  metrics: BotMetrics | undefined,
  intent: { kind: string; coin?: string; side?: string; minutes?: number; twapId?: number },
  action: { outcome: string; twapId?: number | undefined },
): void {
  if (!metrics) return;
  if (STAKING_KINDS.has(intent.kind) && (action.outcome === "accepted" || action.outcome === "unknown"))
    lastStaking.delete(metrics);
  const running = runningTwaps.get(metrics);
  const twapId = intent.kind === "twapCancel" ? intent.twapId : action.twapId;
  if (running === undefined || action.outcome !== "accepted" || twapId === undefined) return;
  const g = gaugesOf(metrics);
  const id = String(twapId);
  if (intent.kind === "twapOrder" && intent.coin !== undefined && intent.side !== undefined) {
    running.set(id, {
      coin: intent.coin,
      side: intent.side,
      endsAt: nowOf(metrics) + (intent.minutes ?? 0) * 60_000,
    });
    g.twapProgress.set({ twap_id: id, coin: intent.coin, side: intent.side }, 0);
  }
  if (intent.kind === "twapCancel") {
    const t = running.get(id);
    running.delete(id);
    if (t) g.twapProgress.remove({ twap_id: id, coin: t.coin, side: t.side });
  }
  countRunning(metrics, g);
}

/** The kill switch as the daemon finds it every minute (a cycle may be a day away). */
export function recordKillSwitch(metrics: BotMetrics | undefined, engaged: boolean): void {
  if (metrics) gaugesOf(metrics).killSwitch.set(engaged ? 1 : 0);
}

/** Refreshes the account gauges from one cycle's snapshot and the journal. */
export function recordAccount(metrics: BotMetrics | undefined, o: AccountMetricsInput): void {
  if (!metrics) return;
  const g = gaugesOf(metrics);
  const s = o.snapshot;
  const put = (token: string, kind: string, amount: Decimal): void => {
    g.balance.set({ token, kind }, amount.toNumber());
    const price = valueUsdPerUnit(s, token);
    if (price === undefined) {
      g.balanceUsd.remove({ token, kind });
      return;
    }
    g.balanceUsd.set({ token, kind }, amount.times(price).toNumber());
  };
  g.balance.reset();
  g.balanceUsd.reset();
  for (const b of s.balances.values()) put(b.coin, "spot", b.total);
  // A cycle that did not read the staking balances values them as last read (a staking strategy's
  // cycle every few hours): the account value and the staked series do not drop out between them.
  if (o.staking) lastStaking.set(metrics, s.staking);
  const staking = lastStaking.get(metrics);
  if (staking !== undefined) {
    put("HYPE", "staked", staking.delegated);
    put("HYPE", "idle_stake", staking.undelegated);
    put("HYPE", "pending_withdrawal", staking.totalPendingWithdrawal);
  }
  const value = portfolioValueUsd(staking === undefined ? s : { ...s, staking }, staking !== undefined);
  if (value !== undefined) g.value.set(value.toNumber());

  // Running TWAPs only from a cycle that read them (a staking-only cycle reads none).
  if (o.clock) clocks.set(metrics, o.clock);
  else {
    // Without the cycle's clock: its time, carried forward by the wall clock.
    const at = Date.now();
    clocks.set(metrics, () => o.now + (Date.now() - at));
  }
  if (o.twaps !== false) {
    runningTwaps.set(
      metrics,
      new Map(
        s.twaps.map((t) => [
          t.twapId === undefined ? `${t.coin}:${t.startedAt}` : String(t.twapId),
          // A TWAP waiting for its trigger has no end yet: counted until the next snapshot says otherwise.
          {
            coin: t.coin,
            side: t.side,
            endsAt: t.waiting ? Number.POSITIVE_INFINITY : t.startedAt + t.minutes * 60_000,
          },
        ]),
      ),
    );
    g.twaps.set(s.twaps.length);
    if (s.twaps.length === 0) g.twapProgress.reset();
  }

  recordJournal(metrics, { ...o, fills: endedTwapFills(s), snapshot: s });
  g.killSwitch.set(o.killSwitchEngaged ? 1 : 0);

  const floored = floorView(s, o.floors);
  for (const strategy of o.strategies) recordWeights(g, floored, strategy);
}

/**
 * What the journal says: the rolling 24-hour notional against its limit and the submissions still
 * open. Set with the snapshot, and again once a cycle has sent (so an alert on the daily limit does not
 * wait for the next cycle).
 */
export function recordJournal(
  metrics: BotMetrics | undefined,
  o: Pick<AccountMetricsInput, "journal" | "account" | "now" | "maxDailyNotionalUsd"> & {
    /** TWAPs the venue shows as ended, counted at what they executed (as the limits count them). */
    fills?: ReadonlyMap<number, TwapFill>;
    /** The cycle's account: what the venue shows of the day counts too, as for the limit. */
    snapshot?: Snapshot;
  },
): void {
  if (!metrics) return;
  const g = gaugesOf(metrics);
  // The limits' own window and count, so the gauge says what the limit sees: the larger of the journal
  // and the venue (another state folder's TWAPs count; a bookkeeper's gauge read 3,068 of about 5,800).
  const journaled = o.journal.usage(o.account, o.now - LIMIT_WINDOW_MS, o.fills);
  const used =
    o.snapshot === undefined
      ? journaled.notionalUsd
      : (mergeUsage(journaled, venueUsage(o.snapshot, o.now - LIMIT_WINDOW_MS)).notionalUsd ??
        journaled.notionalUsd);
  g.notional.set({ kind: "used" }, used.toNumber());
  g.notional.set({ kind: "limit" }, o.maxDailyNotionalUsd.toNumber());
  const open = { pending: 0, unknown: 0 };
  for (const row of o.journal.unresolved(o.account)) {
    if (row.status === "pending" || row.status === "unknown") open[row.status] += 1;
  }
  g.open.set({ status: "pending" }, open.pending);
  g.open.set({ status: "unknown" }, open.unknown);
}

/**
 * A rebalancer's weights over its own target tokens, as the strategy weighs them (rebalancerWeights):
 * above the account's floors (`s` is the floored view), within its capital, staked HYPE counted with
 * `countStaked`.
 */
function recordWeights(
  g: AccountGauges,
  s: Snapshot,
  strategy: { name: string; kind: string; params: unknown; capital?: Capital | undefined },
): void {
  if (strategy.kind !== "twap-rebalance") return;
  const p = strategy.params as TwapRebalanceParams;
  for (const [token, target] of Object.entries(p.targets))
    g.targetWeight.set({ strategy: strategy.name, token }, target.toNumber());
  const weights = rebalancerWeights(capitalView(s, strategy.capital), p);
  if (weights === undefined) return;
  for (const [token, weight] of weights) g.weight.set({ strategy: strategy.name, token }, weight.toNumber());
}

/** Sets each strategy's next cron slot and its schedule's period (for "no success for 2 periods" alerts). */
export function recordNextRuns(
  metrics: BotMetrics | undefined,
  next: ReadonlyMap<
    string,
    { next: number | undefined; periodMs: number | undefined; previous?: number | undefined }
  >,
): void {
  if (!metrics) return;
  const g = gaugesOf(metrics);
  g.nextRun.reset();
  g.previousRun.reset();
  g.period.reset();
  for (const [strategy, slot] of next) {
    if (slot.next !== undefined) g.nextRun.set({ strategy }, slot.next / 1000);
    if (slot.previous !== undefined) g.previousRun.set({ strategy }, slot.previous / 1000);
    if (slot.periodMs !== undefined) g.period.set({ strategy }, slot.periodMs / 1000);
  }
}

/**
 * Each running TWAP's filled share, from its slice fills (twapHistory reports a TWAP's state only at
 * its status changes, so its executed size stays 0 while it runs). One read, only while a TWAP runs;
 * a failed read leaves the gauge as it was and never fails the cycle.
 */
export function recordTwapProgress(
  metrics: BotMetrics | undefined,
  snapshot: Pick<Snapshot, "twaps" | "twapFilled">,
): void {
  // The snapshot's slice fills (read while a TWAP runs); unread: the gauge keeps its last values.
  const filled = snapshot.twapFilled;
  if (!metrics || snapshot.twaps.length === 0 || filled === undefined) return;
  const g = gaugesOf(metrics);
  g.twapProgress.reset();
  for (const t of snapshot.twaps) {
    if (t.twapId === undefined || !t.size.gt(0)) continue;
    const share = (filled.get(t.twapId) ?? ZERO).div(t.size);
    g.twapProgress.set(
      { twap_id: String(t.twapId), coin: t.coin, side: t.side },
      Math.min(1, share.toNumber()),
    );
  }
}
