// The daemon behind `hlbot run`: each enabled strategy runs on its cron schedule (UTC) through the same
// scheduler as `once` and `simulate` (src/engine/scheduler.ts): at each cron tick the strategies whose
// slot is due run, those due in the same slot instant together in one cycle (the reason is in
// scheduler.ts), through the same `runCycle` as every other mode. Cycles run one at a time, in the order
// they were queued. A tick of a strategy whose previous run is still queued or running is skipped with a
// log line (a run never overlaps itself). A failed cycle leaves its slot due and is retried after a
// back-off in time (1, 2, 4 … minutes, capped; never later than the strategy's next slot, and only
// within the catch-up window); at start, slots missed while the daemon was down are caught up the same
// way. Every minute a light watch checks the guards of running TWAPs (src/engine/guards.ts). Only a
// broken configuration or state database stops the daemon. `stop()` stops scheduling and lets the
// running cycle finish within a grace period before aborting it. Scheduling is injectable, so tests drive
// it with fake timers.
import cron from "node-cron";
import type { Logger } from "pino";
import { ConfigError, describeError, HlbotError, isFatalError } from "../lib/errors.js";
import type { SkewBounds } from "../venue/clockSkew.js";
import { latestTwapEntries, type TwapHistoryResponse, twapMayTrade } from "../venue/info/methods/index.js";
import { recordKillSwitch, recordNextRuns } from "./accountMetrics.js";
import { ClockWatch, type ClockWatchOptions, type SchedulerHealth } from "./clockWatch.js";
import { ConfigIssuesError, formatIssue, issuesOf } from "./config/issues.js";
import {
  displayPath,
  type LoadedConfig,
  loadStrategyFiles,
  strategyFilesIn,
  twapMinutesIssues,
} from "./config/loader.js";
import {
  type CycleReport,
  deferralReason,
  failedRuns,
  failedRunsText,
  runCycle,
  unprocessedText,
} from "./cycle.js";
import { WATCH_INTERVAL_MS, watchNeeded, watchRunningTwaps } from "./guards.js";
import { newCycleId } from "./journal.js";
import { killSwitchEngaged, killSwitchState } from "./killSwitch.js";
import type { BotMetrics } from "./metrics.js";
import type { DaemonNotices } from "./notify/daemonNotices.js";
import type { Runtime } from "./runtime.js";
import { CronSchedule, validateSchedule } from "./schedule.js";
import { iso, lostSlots, missedCauses, Scheduler, type SlotGroup } from "./scheduler.js";
import type { Strategy } from "./strategies/registry.js";
import { resolveSharedDefaults } from "./strategies/shared.js";

/** A running schedule; `stop()` ends it for good. */
export interface ScheduledJob {
  stop(): void;
}

/** Calls `onTick` at each occurrence of `expression` in UTC until the job is stopped. */
export type ScheduleFn = (
  expression: string,
  onTick: (scheduledAt: Date) => void,
  options: { name: string; logger: Logger },
) => ScheduledJob;

/** The part of a Runtime the daemon uses. */
export type DaemonRuntime = Pick<
  Runtime,
  "facts" | "refreshFacts" | "cycleDeps" | "clock" | "journal" | "account" | "exchange"
> & {
  config?: Pick<Runtime["config"], "schedule"> & {
    limits?: Pick<Runtime["config"]["limits"], "killSwitchFile" | "keepOnSpot" | "killSwitchCancelRunning">;
  };
  /** Reads the venue once, to date its clock now (Runtime.refreshVenueClock). */
  refreshVenueClock?(): Promise<void>;
  /** The venue's clock (VenueClock), compared with ours every minute. */
  venueClock?: { readonly skew: SkewBounds | undefined; now?(): number | undefined };
};

export interface DaemonOptions {
  runtime: DaemonRuntime;
  strategies: readonly Strategy[];
  /** The configuration's disabled strategies: their slots pass quietly (Scheduler.setDisabled). */
  disabled?: readonly Strategy[];
  logger: Logger;
  metrics?: BotMetrics;
  /** Default: node-cron in UTC. */
  schedule?: ScheduleFn;
  /** First retry after a failed cycle, doubling with each failure in a row (default one minute). */
  retryBaseMs?: number;
  /** Longest wait between retries of a failed slot (default 30 minutes). */
  retryMaxMs?: number;
  /** How late a slot may still be run (default: the config's `schedule.catchUp`, else 2 h). */
  catchUpMs?: number;
  /** How often running TWAPs' guards are checked (default one minute; 0 turns the watch off). */
  watchIntervalMs?: number;
  /** How often the account facts (multi-sig) are read again (default 1 h). */
  factsRefreshMs?: number;
  /** Clock-step and skew checks and the scheduler heartbeat (src/engine/clockWatch.ts). */
  clockWatch?: Omit<ClockWatchOptions, "logger">;
  /** /health turns unhealthy after this many failed cycles in a row (default 3; 0: never for failures). */
  unhealthyAfterFailures?: number;
  /** What to tell the owner (notify: in the bot file); nothing without. */
  notices?: DaemonNotices;
  /**
   * Why no strategy runs though the daemon does (a strategy file that does not load): the TWAP watch
   * still runs, /health says this (503) until a reload applies a set.
   */
  held?: string;
}

export type DaemonStop =
  /** Stopped on request. `clean` is false when the grace period ran out and running work was aborted. */
  | { reason: "stopped"; clean: boolean }
  /** A broken configuration or state database: the daemon cannot go on. */
  | { reason: "fatal"; error: unknown };

export const DEFAULT_GRACE_MS = 30_000;
/** Failed cycles in a row after which /health answers 503. */
export const DEFAULT_UNHEALTHY_AFTER_FAILURES = 3;
export const DEFAULT_FACTS_REFRESH_MS = 60 * 60_000;
/** After the grace period the running cycle is aborted; this bounds how long its unwinding may take. */
const ABORT_SETTLE_MS = 5_000;
/** How long skipped ticks are gathered into one log line (noteSkip); a slot's timers fire within ms. */
const SKIP_LINE_WINDOW_MS = 500;

/** node-cron drops a tick whose timer fired later than this (a blocked event loop); be generous. */
const MISSED_TICK_TOLERANCE_MS = 60_000;
/**
 * A cron tick that has not come this long after its slot is overdue: its timer was lost or waits on a
 * clock that no longer matches the wall clock (the one known cause, a clock set back and put right, is
 * caught by ClockWatch; this catches any other). Twice node-cron's own tolerance for a late tick.
 */
export const TICK_OVERDUE_MS = 2 * MISSED_TICK_TOLERANCE_MS;
/** The failure counter of ticks whose scheduling (the journal's slot reads) failed: not a strategy. */
const SCHEDULING = "(scheduling)";
/** Wait before scheduling again after it failed. */
const SCHEDULING_RETRY_MS = 60_000;
/** How early a timer may fire against the clock it was set for (Node's timers and the wall clock drift). */
const TIMER_EARLY_MS = 1_000;

/**
 * The time a timer's plan is made at: the time the timer was set for (`at`) when it fired a little early,
 * so what it was set for is due; the clock's time otherwise. A time far ahead of the clock was set while
 * the clock ran ahead and has been corrected since: planned there, tomorrow's slot was due and a daily
 * DCA bought twice in one real day (a review).
 */
export function timerPlanTime(clock: number, at: number): number {
  return at - clock <= TIMER_EARLY_MS ? Math.max(clock, at) : clock;
}

/** The enabled strategies of loaded strategy files, with their schedules. */
export function scheduledStrategies(loaded: readonly Strategy[]): Strategy[] {
  // Allocation order and capital go with the strategy into `run`, `once` and `simulate` cycles.
  return loaded.filter((s) => s.enabled);
}

/**
 * Reads and validates the configured strategy files again (the folder's current *.yaml files, or the
 * configured list), for SIGHUP, disabled ones included. Throws a ConfigError naming file:line for
 * anything wrong.
 */
export async function loadStrategySet(
  config: Pick<LoadedConfig, "strategySource" | "file" | "schedule" | "venue">,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Strategy[]> {
  let files: string[];
  if ("folder" in config.strategySource) {
    const { folder } = config.strategySource;
    try {
      files = await strategyFilesIn(folder);
    } catch (err) {
      throw new ConfigError(
        `cannot list the strategy folder ${folder}: ${describeError(err)}`,
        { file: displayPath(config.file), keyPath: "strategies" },
        { cause: err },
      );
    }
  } else {
    files = config.strategySource.files;
  }
  // The same defaults as at start-up (a rebalancer's countStaked depends on the other strategies): a
  // reload without them changed the rebalancer's view of staked HYPE.
  // Disabled ones too: the daemon schedules the enabled ones and keeps the whole set as the
  // configuration (a paused DCA's past spend stays its own; budget.ts).
  const loaded = await loadStrategyFiles(files, env, {
    allowSeconds: config.schedule?.allowSeconds === true,
  });
  // The same TWAP-length check against the bot file's venue range as at start-up (a review: a reload
  // took a length start-up refuses, then cut every TWAP to the maximum).
  const outOfRange = await twapMinutesIssues(loaded, config.venue.rules);
  if (outOfRange.issues.length > 0) throw new ConfigIssuesError(outOfRange.issues);
  return resolveSharedDefaults(loaded);
}

/** node-cron, in UTC, with its warnings routed to our logger. */
export const cronSchedule: ScheduleFn = (expression, onTick, { name, logger }) => {
  // node-cron 4 reads "now" through local-time Date methods even with timezone "UTC": on a host whose
  // zone has DST, in the repeated autumn hour it re-armed zero-delay timers for the whole hour and
  // dropped every tick in it as missed (a clock trial, Europe/Berlin and America/New_York). hlbot keeps
  // every time in UTC (schedules, logs, reports), so the daemon's process runs in UTC.
  if (process.env.TZ !== "UTC") process.env.TZ = "UTC";
  const log = logger.child({ strategy: name });
  const task = cron.createTask(expression, (context) => onTick(context.date), {
    name,
    timezone: "UTC",
    missedExecutionTolerance: MISSED_TICK_TOLERANCE_MS,
    logger: {
      info: (m) => log.debug(`node-cron: ${m}`),
      warn: (m) => log.warn(`node-cron: ${m}`),
      error: (m, e) => log.error({ err: describeError(e ?? m) }, `node-cron: ${describeError(m)}`),
      debug: (m) => log.debug(`node-cron: ${describeError(m)}`),
    },
  });
  // A forward clock step (or a long sleep) misses many slots at once: one line for the lot. node-cron's
  // timers run on the monotonic clock: a laptop asleep over a slot, or a clock stepped forward, fires the
  // slot's timer late, and node-cron drops it. The latest is delivered anyway, once: the scheduler plans
  // from the wall clock and the journal and runs the slot if it is within schedule.catchUp (a clock
  // trial: a lone daily DCA lost its buy after any sleep, though the log said it would be caught up).
  let missed: Date[] = [];
  task.on("execution:missed", (context) => {
    missed.push(context.date);
    if (missed.length > 1) return;
    setTimeout(() => {
      const ticks = missed;
      missed = [];
      const first = ticks[0]!.toISOString();
      const last = ticks[ticks.length - 1]!.toISOString();
      const then = "its slot runs now if within schedule.catchUp";
      if (ticks.length === 1)
        log.warn(
          { tick: first },
          `a tick came late (the process was blocked or asleep, or the clock stepped): ${then}`,
        );
      else
        log.warn(
          { ticks: ticks.length, first, last },
          `${ticks.length} ticks came late, from ${first} to ${last} (the process was blocked or asleep, or the clock stepped forward): the latest one's slot runs now if within schedule.catchUp`,
        );
      onTick(ticks[ticks.length - 1]!);
    }, 0).unref?.();
  });
  void task.start();
  return { stop: () => void task.destroy() };
};

interface Entry {
  def: Strategy;
  job: ScheduledJob | undefined;
  /** The slot whose cron tick the armed job owes next (wall time), to notice a tick that never comes. */
  awaited?: number;
  /** Checks in a row that found that tick overdue (reset by a tick): 2 after a re-arm is a stall. */
  overdue?: number;
  cron?: CronSchedule;
}

/** Work of the daemon, one at a time: a slot group's cycle, or a watch of running TWAPs. */
type Work = { kind: "slots"; group: SlotGroup } | { kind: "watch" };

type State = "new" | "running" | "stopping" | "stopped";

export class Daemon {
  private readonly runtime: DaemonRuntime;
  private readonly logger: Logger;
  private readonly metrics: BotMetrics | undefined;
  private readonly unhealthyAfterFailures: number;
  private readonly notices: DaemonNotices | undefined;
  private summaryJob: ScheduledJob | undefined;
  /**
   * Per strategy, its runs that failed in a row (a cycle that failed, or it threw while deciding), and
   * until when that says anything: the failed slot's catch-up window (a daily strategy whose slot has
   * gone by is retried no more, so it no longer holds /health at 503 all day: a review); and SCHEDULING,
   * the ticks in a row whose scheduling failed (for a few minutes after the last).
   */
  private readonly failing = new Map<string, { count: number; until: number }>();
  /** DaemonOptions.held, cleared by a reload that applies. */
  private held: string | undefined;
  private lastFailure = "";

  /** The most runs in a row any strategy failed, among failures that still count (health, notices). */
  private get failedInARow(): number {
    const now = this.runtime.clock();
    let most = 0;
    for (const f of this.failing.values()) if (f.until > now) most = Math.max(most, f.count);
    return most;
  }

  /** Counts a failed run of `names` (counting until `until`); returns the most failures in a row among them. */
  private countFailure(names: readonly string[], error: string, until: number): number {
    const now = this.runtime.clock();
    for (const n of names) {
      // Failures whose slot could no longer be retried are over: a new one starts a new run of them (a
      // review: the next day's first failure read "5 in a row" and skipped its cycle.failed).
      const before = this.failing.get(n);
      const still = before !== undefined && before.until > now;
      this.failing.set(n, {
        count: (still ? before.count : 0) + 1,
        until: Math.max(until, still ? before.until : 0),
      });
    }
    this.lastFailure = error;
    return Math.max(...names.map((n) => this.failing.get(n)?.count ?? 0));
  }
  private readonly scheduleFn: ScheduleFn;
  private readonly scheduler: Scheduler;
  private readonly factsRefreshMs: number;
  private readonly watchIntervalMs: number;
  private readonly clockWatch: ClockWatch;
  private watchTimer: ReturnType<typeof setInterval> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** The kill switch at the last look (recordKillSwitch); undefined before the first. */
  private killSwitchEngaged: boolean | undefined;
  private schedulingRetry: ReturnType<typeof setTimeout> | undefined;
  /** Ticks skipped for an overlap, by slot and cause, said together (noteSkip). */
  private readonly skipped = new Map<string, string[]>();
  private skipFlush: ReturnType<typeof setTimeout> | undefined;
  /** The TWAP watch's failures in a row (told from the third: DaemonNotices.watchFailed). */
  private watchFailures = 0;
  // One controller for all work in flight: aborted only when the grace period is over.
  private readonly controller = new AbortController();
  // Reads of the running cycle (facts, reconciliation, snapshot) are aborted at once on shutdown:
  // nothing has been sent while a cycle still reads, so there is nothing to wait for.
  private readonly reads = new AbortController();
  private readonly entries = new Map<string, Entry>();
  /** The whole strategy set of the last reload (disabled ones too); before any, the runtime's. */
  private configured: readonly Strategy[] | undefined;
  private readonly queue: Work[] = [];
  private current: { work: Work; promise: Promise<void>; startedAt: number } | undefined;
  private state: State = "new";
  private contacted = false;
  private factsTimer: ReturnType<typeof setInterval> | undefined;
  /** Keeps the process up while the daemon runs (cleared when it stops). */
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private idleWaiters: Array<() => void> = [];
  private stopping: Promise<DaemonStop> | undefined;
  private reloading: Promise<boolean> = Promise.resolve(true);
  private resolveDone!: (result: DaemonStop) => void;
  /** Resolves once the daemon has stopped, on request or because it cannot go on. */
  readonly done: Promise<DaemonStop>;

  constructor(o: DaemonOptions) {
    this.runtime = o.runtime;
    this.logger = o.logger;
    this.metrics = o.metrics;
    this.unhealthyAfterFailures = o.unhealthyAfterFailures ?? DEFAULT_UNHEALTHY_AFTER_FAILURES;
    this.notices = o.notices;
    this.scheduleFn = o.schedule ?? cronSchedule;
    this.factsRefreshMs = o.factsRefreshMs ?? DEFAULT_FACTS_REFRESH_MS;
    this.watchIntervalMs = o.watchIntervalMs ?? WATCH_INTERVAL_MS;
    const venueClock = o.runtime.venueClock;
    this.clockWatch = new ClockWatch({
      logger: o.logger,
      // node-cron follows Date, so the step check does too (the default).
      venueSkew: () => venueClock?.skew,
      busySince: () => this.current?.startedAt,
      onStep: (stepMs, resumeAt) => this.notices?.clockStepped(stepMs, resumeAt),
      onRearm: () => this.rearmSchedules(),
      onCheck: (wall, paused) => this.checkTicks(wall, paused),
      ...o.clockWatch,
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    checkStrategies(o.strategies);
    this.held = o.held;
    for (const def of o.strategies) this.entries.set(def.name, { def, job: undefined });
    const catchUpMs = o.catchUpMs ?? o.runtime.config?.schedule?.catchUpMs;
    this.scheduler = new Scheduler({
      journal: o.runtime.journal,
      account: o.runtime.account,
      mode: o.runtime.exchange?.mode ?? "unsigned",
      strategies: o.strategies,
      ...(catchUpMs === undefined ? {} : { catchUpMs }),
      ...(o.retryBaseMs === undefined ? {} : { retryBaseMs: o.retryBaseMs }),
      ...(o.retryMaxMs === undefined ? {} : { retryMaxMs: o.retryMaxMs }),
      ...(o.runtime.config?.schedule?.maxClockSkewMs === undefined
        ? {}
        : { maxClockSkewMs: o.runtime.config.schedule.maxClockSkewMs }),
      venueNow: () => o.runtime.venueClock?.now?.(),
      ...(o.disabled ? { disabled: o.disabled } : {}),
    });
  }

  /** Aborted when the grace period of a stop runs out. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Schedules every strategy and makes the first contact with the venue (in the background). */
  start(): void {
    if (this.state !== "new") throw new Error(`daemon already ${this.state}`);
    this.state = "running";
    this.metrics?.zeroFor(this.strategies().map((s) => s.name));
    // First sight of a strategy starts its slots; slots missed while the daemon was down are caught up
    // (request() at the end of start).
    this.scheduler.register(this.runtime.clock());
    for (const entry of this.entries.values()) this.scheduleEntry(entry);
    this.seedLastSuccess();
    this.clockWatch.start();
    this.recordKillSwitch();
    if (this.notices?.notifier.wants("daily.summary"))
      this.summaryJob = this.scheduleFn("0 0 * * *", () => this.notices?.dailySummary(), {
        name: "daily-summary",
        logger: this.logger,
      });
    if (this.watchIntervalMs > 0) {
      this.watchTimer = setInterval(() => this.onWatch(), this.watchIntervalMs);
      this.watchTimer.unref?.();
    }
    this.factsTimer = setInterval(() => {
      this.runtime.refreshFacts();
      this.logger.debug("account facts will be read again at the next run");
    }, this.factsRefreshMs);
    this.factsTimer.unref?.();
    // The daemon runs until it is stopped, whatever else keeps the process up: held with no strategy
    // (a strategy file that does not load), every other timer is unref'd and the process exited with
    // Node's code 13 right after saying the TWAP guards still run (a config trial).
    this.keepAlive = setInterval(() => undefined, 2 ** 31 - 1);
    this.logger.info(
      { strategies: [...this.entries.values()].map((e) => `${e.def.name} (${e.def.schedule})`) },
      `scheduling ${this.entries.size} ${this.entries.size === 1 ? "strategy" : "strategies"} (UTC)`,
    );
    this.runtime.facts(this.signal).then(
      () => {
        if (!this.contacted) this.logger.info("venue reachable: ready");
        this.contacted = true;
      },
      (err: unknown) => {
        // The venue answered and refutes the configuration (an API-wallet key as its own account): it
        // stops now, not at the first slot hours later, and is not called unreachable (a review).
        if (isFatalError(err)) {
          this.logger.fatal({ err: describeError(err) }, `cannot go on: ${describeError(err)}`);
          void this.halt(DEFAULT_GRACE_MS, { error: err });
          return;
        }
        this.logger.warn(
          { err: describeError(err) },
          `venue not reachable yet (${describeError(err)}); trying again at the next scheduled run`,
        );
      },
    );
    this.request();
  }

  /**
   * hlbot_last_success_timestamp_seconds from the journal at start: a restart during an outage (a
   * liveness probe restarting the pod every few minutes) no longer wipes it, so an alert on its age
   * still fires (an operator's trial found the metric absent until the first success after each start).
   */
  private seedLastSuccess(): void {
    if (!this.metrics) return;
    const wanted = new Set(this.entries.keys());
    let rows: ReturnType<DaemonRuntime["journal"]["recentCycles"]>;
    try {
      rows = this.runtime.journal.recentCycles(2_000);
    } catch {
      return;
    }
    for (const c of rows) {
      if (wanted.size === 0) break;
      if (c.status !== "ok" || c.trigger !== "run") continue;
      for (const name of JSON.parse(c.strategies) as string[]) {
        // A run the strategy failed in a cycle that ran (it threw, or was held for the clock) is no
        // success: each restart during a hold reset the age the alerts watch (a review).
        if (!wanted.has(name) || this.runtime.journal.strategyFailedIn(c.id, name)) continue;
        wanted.delete(name);
        this.metrics.lastSuccess.set({ strategy: name }, (c.finishedAt ?? c.startedAt) / 1000);
      }
    }
  }

  /** Ready: scheduling, and the venue has answered at least once. False while shutting down. */
  ready(): boolean {
    return this.state === "running" && this.contacted;
  }

  /** Live (/live): the scheduler's cron ticks come (src/engine/clockWatch.ts); nothing else. */
  live(): SchedulerHealth {
    if (this.state !== "running") return { ok: true };
    const clock = this.clockWatch.health();
    return clock.ok ? this.stalledTicks() : clock;
  }

  /** Healthy (/health): the scheduler runs, its cron ticks come, and its cycles work. */
  alive(): SchedulerHealth {
    if (this.state !== "running") return { ok: true };
    const clock = this.live();
    if (!clock.ok) return clock;
    if (this.held !== undefined) return { ok: false, reason: this.held };
    const n = this.unhealthyAfterFailures;
    if (n > 0 && this.failedInARow >= n)
      return {
        ok: false,
        reason: `${this.failedInARow} cycles in a row failed; the last: ${this.lastFailure}`,
      };
    return clock;
  }

  /** The strategies scheduled now. */
  strategies(): Strategy[] {
    return [...this.entries.values()].map((e) => e.def);
  }

  /** Failures and back-off of one strategy (for logs and tests). */
  health(name: string): { failures: number; retryAt: number | undefined; running: boolean } | undefined {
    const h = this.scheduler.health(name);
    if (!h || !this.entries.has(name)) return undefined;
    return { ...h, running: this.busy().has(name) };
  }

  /** Strategies queued or running. */
  private busy(): Set<string> {
    const names = new Set<string>();
    for (const w of [...this.queue, ...(this.current ? [this.current.work] : [])])
      if (w.kind === "slots") for (const s of w.group.strategies) names.add(s.name);
    return names;
  }

  /** The slot a queued or running group of this strategy acts in. */
  private slotInFlight(name: string): number | undefined {
    for (const w of [...(this.current ? [this.current.work] : []), ...this.queue])
      if (w.kind === "slots" && w.group.strategies.some((s) => s.name === name)) return w.group.slot;
    return undefined;
  }

  /** Resolves when no run is queued or running. */
  idle(): Promise<void> {
    if (!this.current && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Replaces the strategy set. Unchanged strategies keep their schedule and back-off; changed ones are
   * rescheduled with a fresh back-off; removed ones stop (a run in flight finishes). Throws (and
   * changes nothing) if the set is invalid.
   */
  reload(loaded: readonly Strategy[]): void {
    checkStrategies(loaded);
    if (this.state === "stopping" || this.state === "stopped") return;
    this.configured = loaded;
    this.metrics?.zeroFor(loaded.map((s) => s.name));
    const next = scheduledStrategies(loaded);
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    const nextNames = new Set(next.map((s) => s.name));
    // A removed strategy's failures no longer say anything about the bot's health.
    for (const name of this.failing.keys())
      if (name !== SCHEDULING && !nextNames.has(name)) this.failing.delete(name);
    for (const [name, entry] of this.entries) {
      if (nextNames.has(name)) continue;
      entry.job?.stop();
      this.entries.delete(name);
      removed.push(name);
    }
    for (const def of next) {
      const old = this.entries.get(def.name);
      if (old && sameStrategy(old.def, def)) {
        old.def = def;
        continue;
      }
      old?.job?.stop();
      (old ? changed : added).push(def.name);
      const entry: Entry = { def, job: undefined };
      this.entries.set(def.name, entry);
      if (this.state === "running") this.scheduleEntry(entry);
    }
    this.scheduler.setStrategies([...this.entries.values()].map((e) => e.def));
    this.scheduler.setDisabled(loaded.filter((s) => !s.enabled));
    if (this.state === "running") this.scheduler.register(this.runtime.clock());
    if (this.held !== undefined) {
      this.logger.info(`the strategy files load again: strategies run (was: ${this.held})`);
      // Told too: the owner's last notice said NO STRATEGY RUNS (a review).
      this.notices?.strategiesResumed([...this.entries.keys()], this.held);
      this.held = undefined;
    }
    // A queued run of a removed strategy does not start.
    const kept: Work[] = [];
    for (const w of this.queue) {
      if (w.kind === "watch") kept.push(w);
      else {
        const strategies = w.group.strategies.filter((s) => this.entries.has(s.name));
        if (strategies.length > 0) kept.push({ kind: "slots", group: { slot: w.group.slot, strategies } });
      }
    }
    this.queue.splice(0, this.queue.length, ...kept);
    this.logger.info(
      { added, changed, removed, unchanged: next.length - added.length - changed.length },
      `strategies reloaded: ${this.entries.size} scheduled` +
        (added.length ? `; added ${added.join(", ")}` : "") +
        (changed.length ? `; changed ${changed.join(", ")}` : "") +
        (removed.length ? `; removed ${removed.join(", ")}` : ""),
    );
    this.warnTwapsLeftBy([...removed, ...changed]);
    if (this.entries.size === 0)
      this.logger.warn("no enabled strategy left: nothing will run until a reload");
  }

  /**
   * The TWAPs that strategies removed or changed by a reload placed and the venue may still run (journal,
   * no network): they keep filling, so they are named with how to cancel them (an owner removed a
   * strategy whose 2,000-USD buy ran 5 more minutes; the log said only "removed").
   */
  private warnTwapsLeftBy(names: readonly string[]): void {
    if (names.length === 0) return;
    const now = this.runtime.clock();
    let rows: ReturnType<DaemonRuntime["journal"]["runningTwaps"]>;
    try {
      rows = this.runtime.journal
        .twapsNotCancelled(this.runtime.account, now)
        .filter((r) => names.includes(r.strategy));
    } catch {
      return; // the journal's error is said where a cycle reads it
    }
    for (const r of rows)
      this.logger.warn(
        { strategy: r.strategy, twapId: r.twapId },
        `${r.strategy} was ${this.entries.has(r.strategy) ? "changed" : "removed"} by the reload, and its TWAP #${r.twapId} may still run until ${new Date(r.expectedEnd).toISOString().slice(11, 16)} UTC: it keeps filling (its guards are still watched); \`hlbot twap-cancel --twap-id ${r.twapId}\` cancels it`,
      );
  }

  /**
   * Loads a new strategy set with `load` and applies it; if loading or validation fails, reports every
   * problem (file:line) and keeps the current set. Reloads run one after another. Resolves to whether
   * the new set was applied.
   */
  reloadFrom(load: () => Promise<readonly Strategy[]>): Promise<boolean> {
    this.reloading = this.reloading.then(async () => {
      try {
        this.reload(await load());
        return true;
      } catch (err) {
        const lines = problemLines(err);
        for (const line of lines) this.logger.error({ problem: line }, `strategy reload: ${line}`);
        this.logger.error(
          { problems: lines.length },
          `strategy reload refused: keeping the ${this.entries.size} current ${this.entries.size === 1 ? "strategy" : "strategies"}`,
        );
        // Told, not only logged: /health stays ok (the current strategies run), and the edit that
        // did not apply would otherwise go unnoticed (an operator's trial).
        this.notices?.reloadRefused(lines, this.entries.size);
        return false;
      }
    });
    return this.reloading;
  }

  /**
   * Stops scheduling, drops queued runs, and waits up to `graceMs` for the running cycle (and its
   * submission) to finish; then aborts it. Resolves (also via `done`) once nothing runs any more.
   */
  stop(graceMs = DEFAULT_GRACE_MS): Promise<DaemonStop> {
    return this.halt(graceMs, undefined);
  }

  private halt(graceMs: number, fatal: { error: unknown } | undefined): Promise<DaemonStop> {
    if (this.stopping) return this.stopping;
    const wasRunning = this.state === "running";
    this.state = "stopping";
    this.stopping = (async (): Promise<DaemonStop> => {
      for (const entry of this.entries.values()) {
        entry.job?.stop();
        entry.job = undefined;
      }
      if (this.factsTimer !== undefined) clearInterval(this.factsTimer);
      if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
      this.summaryJob?.stop();
      if (this.watchTimer !== undefined) clearInterval(this.watchTimer);
      this.clockWatch.stop();
      if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
      if (this.schedulingRetry !== undefined) clearTimeout(this.schedulingRetry);
      this.flushSkips();
      const dropped = this.queue
        .splice(0)
        .flatMap((w) => (w.kind === "slots" ? w.group.strategies.map((s) => s.name) : []));
      if (dropped.length) this.logger.info({ dropped }, `not starting queued runs of ${dropped.join(", ")}`);
      let clean = true;
      this.reads.abort(new Error("shutdown"));
      const running = this.current;
      if (running && wasRunning) {
        const name = workName(running.work);
        this.logger.info(
          { strategy: name, graceMs },
          `waiting up to ${graceMs} ms for the running cycle of ${name} to finish`,
        );
        if (!(await settlesWithin(running.promise, graceMs))) {
          clean = false;
          this.logger.warn(
            { strategy: name, graceMs },
            `grace period of ${graceMs} ms over: aborting the running cycle of ${name}`,
          );
          this.controller.abort(new Error("shutdown: grace period over"));
          await settlesWithin(running.promise, ABORT_SETTLE_MS);
        }
      }
      this.state = "stopped";
      this.wakeIdle();
      const result: DaemonStop = fatal
        ? { reason: "fatal", error: fatal.error }
        : { reason: "stopped", clean };
      this.resolveDone(result);
      return result;
    })();
    return this.stopping;
  }

  /** Every strategy's cron task made anew from the wall clock as it is now (ClockWatch onRearm). */
  private rearmSchedules(): void {
    if (this.state !== "running") return;
    for (const entry of this.entries.values()) {
      entry.job?.stop();
      this.scheduleEntry(entry);
    }
    // What the old timers would have run late (a slot the step went past, within schedule.catchUp).
    this.request();
  }

  private scheduleEntry(entry: Entry): void {
    const { name, schedule } = entry.def;
    entry.job = this.scheduleFn(schedule, (at) => this.onTick(name, at), { name, logger: this.logger });
    entry.cron ??= new CronSchedule(schedule);
    entry.awaited = entry.cron.next(this.clockWatch.wallNow());
  }

  /**
   * Each strategy's cron tick came by its slot (ClockWatch's minute check). /live saw only that the
   * scheduler beat, and the clock check and the TWAP watch beat it themselves: a timer that waited too
   * long went unseen (a long-running operator's trial). An overdue tick re-arms every timer and plans
   * at once (what it would have run is caught up within schedule.catchUp); a tick overdue again after
   * that makes /live unhealthy, for a restart.
   */
  private checkTicks(wall: number, paused = false): void {
    if (this.state !== "running") return;
    const late = [...this.entries.values()].flatMap((e) =>
      e.awaited !== undefined && wall - e.awaited > TICK_OVERDUE_MS ? [{ e, slot: e.awaited }] : [],
    );
    if (late.length === 0) return;
    // A slot that passed while the process itself did not run (frozen twice in a row, an SRE's trial:
    // /live 503 "again after re-arming" with timers that were fine) is re-armed, not counted.
    if (!paused) for (const { e } of late) e.overdue = (e.overdue ?? 0) + 1;
    const what = late.map(({ e, slot }) => `${e.def.name} (${iso(slot)})`).join(", ");
    const oldest = Math.min(...late.map((l) => l.slot));
    this.logger.warn(
      { strategies: late.map(({ e }) => e.def.name), slots: late.map(({ slot }) => iso(slot)) },
      `the cron tick of ${what} has not come ${Math.round((wall - oldest) / 60_000)} min after its slot` +
        `${paused ? " (this process did not run meanwhile: frozen or suspended)" : ""}: ` +
        "re-arming the schedules and planning now (a missed slot runs if within schedule.catchUp)",
    );
    this.rearmSchedules();
  }

  /** A strategy whose tick was overdue again after its timers were re-armed (checkTicks). */
  private stalledTicks(): SchedulerHealth {
    const stalled = [...this.entries.values()].filter((e) => (e.overdue ?? 0) >= 2);
    if (stalled.length === 0) return { ok: true };
    return {
      ok: false,
      reason: `scheduler stalled: the cron ticks of ${stalled.map((e) => e.def.name).join(", ")} did not come, again after re-arming their timers (restart hlbot)`,
    };
  }

  private onTick(name: string, at: Date): void {
    if (this.state !== "running") return;
    this.clockWatch.beat();
    this.notices?.checkKillSwitch();
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.overdue = 0;
    entry.awaited = entry.cron?.next(Math.max(at.getTime(), this.clockWatch.wallNow()));
    const tick = at.toISOString();
    const inFlight = this.slotInFlight(name);
    if (inFlight !== undefined) {
      // Already in the cycle of this very slot (grouped with another strategy's tick): nothing to say.
      if (inFlight >= at.getTime() - 1000) return;
      const running =
        this.current?.work.kind === "slots" &&
        this.current.work.group.strategies.some((s) => s.name === name);
      this.metrics?.cycles.inc({ strategy: name, outcome: "skipped" });
      this.noteSkip(
        name,
        tick,
        running
          ? "still going"
          : `still waiting behind ${this.current ? workName(this.current.work) : "another"}`,
      );
      return;
    }
    this.request(timerPlanTime(this.runtime.clock(), at.getTime()));
  }

  /**
   * A skipped tick, said in one line per slot and cause: the timers of strategies sharing a schedule
   * fire a few ms apart, so they are gathered for SKIP_LINE_WINDOW_MS (an SRE's trial: 22 strategies
   * at "*\/2" behind a slow venue wrote 21 lines a tick).
   */
  private noteSkip(name: string, tick: string, cause: string): void {
    const key = `${tick}\u0000${cause}`;
    const pending = this.skipped.get(key);
    if (pending !== undefined) {
      pending.push(name);
      return;
    }
    this.skipped.set(key, [name]);
    if (this.skipFlush === undefined)
      this.skipFlush = setTimeout(() => this.flushSkips(), SKIP_LINE_WINDOW_MS);
  }

  private flushSkips(): void {
    if (this.skipFlush !== undefined) clearTimeout(this.skipFlush);
    this.skipFlush = undefined;
    for (const [key, names] of this.skipped) {
      const [tick, cause] = key.split("\u0000") as [string, string];
      const one = names.length === 1;
      this.logger.warn(
        { strategy: one ? names[0] : undefined, strategies: names, tick, reason: "overlap" },
        `skipping the ${tick} run of ${names.join(", ")}: ${one ? "its previous run is" : "their previous runs are"} ${cause}`,
      );
    }
    this.skipped.clear();
  }

  /** Whether a slot state is ahead of `now`; false when the journal cannot say (plan reports that). */
  private safeAhead(now: number): boolean {
    try {
      return this.scheduler.aheadOfClock(now);
    } catch {
      return false;
    }
  }

  /** Queues the slot groups due now (a tick, a retry, the start). */
  private request(now = this.runtime.clock(), venueRead = false): void {
    if (this.state !== "running") return;
    // A state ahead of the clock is moved back only with the clock right (Scheduler.plan), judged by the
    // venue's time read now, not by an answer from before a step of the local clock (runDueSlots).
    const refresh = this.runtime.refreshVenueClock?.bind(this.runtime);
    if (!venueRead && refresh !== undefined && this.safeAhead(now)) {
      void refresh()
        .catch(() => undefined)
        .then(() => this.request(now, true));
      return;
    }
    let plan: ReturnType<Scheduler["plan"]>;
    try {
      plan = this.scheduler.plan(now, this.busy());
    } catch (err) {
      // The scheduler reads and writes the journal: a broken state database stops the daemon.
      if (isFatalError(err)) {
        this.logger.fatal({ err: describeError(err) }, `cannot go on: ${describeError(err)}`);
        void this.halt(DEFAULT_GRACE_MS, { error: err });
      } else {
        // Nothing can run while it fails (a journal another process keeps locked): counted for /health
        // and told as a failed cycle, as a cycle's failure is (an operator's trial held the database
        // 150 s with /health 200).
        const error = `scheduling failed: ${describeError(err)}`;
        this.logger.error({ err: describeError(err) }, error);
        const inARow = this.countFailure([SCHEDULING], error, now + SCHEDULING_RETRY_MS * 5);
        this.notices?.cycleFailed([SCHEDULING], error, inARow, this.unhealthyAfterFailures);
        // Tried again in a minute, not only at the next tick (a daily slot would wait a day).
        if (this.schedulingRetry === undefined && this.state === "running") {
          this.schedulingRetry = setTimeout(() => {
            this.schedulingRetry = undefined;
            this.request();
          }, SCHEDULING_RETRY_MS);
          this.schedulingRetry.unref?.();
        }
      }
      return;
    }
    this.failing.delete(SCHEDULING);
    recordNextRuns(this.metrics, this.scheduler.nextSlots(now));
    // Live only: a dry run keeps its own slot memory (its misses are not the bot's).
    if (this.runtime.exchange?.mode === "live" && this.notices) {
      const lost = lostSlots(plan);
      if (lost.length > 0)
        this.notices.missedSlots(
          lost,
          this.scheduler.catchUpMs,
          missedCauses(this.runtime.journal, this.runtime.account, lost),
        );
    }
    for (const m of plan.missed) {
      const fields = {
        strategy: m.strategy,
        missed: m.count,
        latest: m.latest === undefined ? undefined : iso(m.latest),
      };
      // A deferred strategy (waiting behind another TWAP on its pair) on a frequent schedule has a slot
      // superseded at every tick while it waits: expected, said at info, not a warning a minute.
      if (m.whileDeferred)
        this.logger.info(
          fields,
          `${m.strategy}: ${m.count} slot${m.count === 1 ? "" : "s"} superseded by a later one while it waited (deferred: its order could not go out yet)`,
        );
      else
        this.logger.warn(
          fields,
          `${m.strategy}: missed ${m.count} slot${m.count === 1 ? "" : "s"} (older than the catch-up window or superseded by a later one)`,
        );
    }
    for (const group of plan.groups) {
      this.logger.debug(
        { slot: iso(group.slot), strategies: group.strategies.map((s) => s.name) },
        `slot ${iso(group.slot)} due`,
      );
      this.queue.push({ kind: "slots", group });
    }
    this.armRetry(now);
    this.pump();
  }

  /** One timer for the earliest retry of a failed slot. */
  private armRetry(now: number): void {
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (this.state !== "running") return;
    const at = this.scheduler.nextRetry(now);
    if (at === undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.request(timerPlanTime(this.runtime.clock(), at));
    }, at - now);
    this.retryTimer.unref?.();
  }

  private onWatch(): void {
    if (this.state !== "running") return;
    this.clockWatch.beat();
    this.notices?.checkKillSwitch();
    this.recordKillSwitch();
    if (this.queue.some((w) => w.kind === "watch") || this.current?.work.kind === "watch") return;
    this.queue.push({ kind: "watch" });
    this.pump();
  }

  /**
   * The kill switch, from the file itself, each minute and at start: its gauge (`hlbot stop` shows on
   * /metrics within a minute), a warning in the log when it is engaged or released (an operator's trial:
   * a daemon started with it engaged, or stopped while running, said nothing of it in its log), and,
   * once released, the slots it held are tried now (within their catch-up window they are acted in).
   */
  private recordKillSwitch(): void {
    const file = this.runtime.config?.limits?.killSwitchFile;
    const engaged = file === undefined ? undefined : killSwitchEngaged(file);
    if (file === undefined || engaged === undefined) return;
    if (this.metrics) recordKillSwitch(this.metrics, engaged);
    const was = this.killSwitchEngaged;
    this.killSwitchEngaged = engaged;
    if (engaged && was !== true)
      this.logger.warn(
        { killSwitchFile: file },
        `the kill switch is engaged (${file}): no order or staking action goes out, and the slots it holds stay due until \`hlbot resume\``,
      );
    if (!engaged && was === true) {
      this.logger.warn(
        { killSwitchFile: file },
        "the kill switch was released: the slots it held are tried now",
      );
      const now = this.runtime.clock();
      this.scheduler.retryDeferredNow(now);
      this.request(now);
    }
  }

  private pump(): void {
    if (this.current || this.state !== "running") return;
    const work = this.queue.shift();
    if (work === undefined) {
      this.wakeIdle();
      return;
    }
    const promise = (work.kind === "slots" ? this.runGroup(work.group) : this.runWatch()).finally(() => {
      this.current = undefined;
      if (this.state === "running") this.pump();
      else this.wakeIdle();
    });
    this.current = { work, promise, startedAt: this.clockWatch.monoNow() };
  }

  private wakeIdle(): void {
    if (this.current || (this.queue.length > 0 && this.state === "running")) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Whether the running TWAPs were cancelled since the kill switch was last seen engaged (with
   * limits.killSwitchCancelRunning): undefined while it is released.
   */
  private stopCancelsDone: boolean | undefined;
  /** The TWAPs that may still trade as the last kill-switch cancel cycle saw them (its own cancels too). */
  private stopCancelsSeen: ReadonlySet<string> = new Set();

  /**
   * With limits.killSwitchCancelRunning, the running TWAPs are cancelled at the first watch after the
   * switch is engaged (`touch STOP`, `hlbot stop`), then at each watch until every cancel was accepted.
   * A seller's trial: the daemon cancelled nothing until the strategy's next slot, hours later, while
   * a sale kept filling (`hlbot once` cancels at once; README says the file is the same as `hlbot stop`).
   */
  private async cancelForKillSwitch(): Promise<void> {
    const limits = this.runtime.config?.limits;
    if (limits?.killSwitchCancelRunning !== true || limits.killSwitchFile === undefined) return;
    if (!killSwitchState(limits.killSwitchFile).engaged) {
      this.stopCancelsDone = undefined;
      this.stopCancelsSeen = new Set();
      return;
    }
    const deps = this.cycleDeps(await this.runtime.facts(this.reads.signal));
    // Done, but the switch still engaged: a TWAP placed since (by hand in the app, another instance) is
    // cancelled too, as `once` would (a risk trial: one placed 11 s after the sweep kept filling until the
    // strategy's 09:00 slot). One twapHistory read a watch; a cancel cycle only for a TWAP not seen before.
    if (this.stopCancelsDone === true) {
      const history = await deps.info.twapHistory({ user: this.runtime.account }, this.reads.signal);
      const now = deps.venueNow?.() ?? this.runtime.clock();
      if ([...tradingTwaps(history, now)].every((key) => this.stopCancelsSeen.has(key))) return;
    }
    const report = await runCycle(deps, {
      trigger: "run",
      strategies: [],
      killSwitchActive: true,
      cancelRunning: true,
      signal: this.signal,
      readSignal: this.reads.signal,
    });
    logDecisions(this.logger.child({ cycle: report.cycleId, trigger: "kill switch" }), report);
    this.notices?.watched(report);
    // Done once every cancel it could send was accepted (a TWAP it cannot cancel, say on a perp or
    // without an id, is skipped for good: a review saw a cancel cycle every minute for its whole life),
    // and no order's lost answer could still land a TWAP to cancel.
    this.stopCancelsDone =
      report.actions.every((a) => a.outcome === "accepted" || a.outcome === "dry-run") &&
      !this.runtime.journal.hasUnresolved(this.runtime.account, "twapOrder");
    const history = report.snapshot.twapHistory;
    this.stopCancelsSeen =
      history === undefined ? new Set() : tradingTwaps(history, deps.venueNow?.() ?? this.runtime.clock());
  }

  /** The runtime's cycle dependencies with the daemon's logger and metrics. */
  private cycleDeps(facts: Awaited<ReturnType<DaemonRuntime["facts"]>>) {
    return {
      ...this.runtime.cycleDeps(facts),
      logger: this.logger,
      ...(this.metrics ? { metrics: this.metrics } : {}),
    };
  }

  /** One watch of running TWAPs' guards. Never rejects. */
  private async runWatch(): Promise<void> {
    // Whether the failure is the watch's reads of guarded TWAPs (counted and notified), not the kill
    // switch's cancel sweep before it (a review: with no TWAP running, a failed sweep was told as
    // "running TWAPs' price limits are not checked").
    let watching = false;
    try {
      await this.cancelForKillSwitch();
      // Nothing to read while no guarded TWAP of ours runs, none spends a floored token and none has a
      // lost answer (the journal says so).
      if (
        !watchNeeded(
          this.runtime.journal,
          this.runtime.account,
          this.runtime.clock(),
          this.strategies(),
          this.runtime.config?.limits?.keepOnSpot,
        )
      ) {
        // A failure told, then nothing left to watch (the TWAPs ended): said, so it does not stay open.
        if (this.watchFailures > 0) this.notices?.watchIdle(this.watchFailures);
        this.watchFailures = 0;
        return;
      }
      watching = true;
      const deps = this.cycleDeps(await this.runtime.facts(this.reads.signal));
      const result = await watchRunningTwaps(deps, this.strategies(), { signal: this.signal });
      if (this.watchFailures > 0) this.notices?.watchRecovered(this.watchFailures);
      this.watchFailures = 0;
      for (const r of result.reconciled ?? [])
        this.logger.info(
          { submission: r.submissionId, strategy: r.strategy, action: r.actionType, verdict: r.verdict },
          `reconciled submission #${r.submissionId} (${r.strategy}, ${r.actionType}): ${r.verdict}, ${r.detail}`,
        );
      if (result.reconciled) {
        this.notices?.reconciled(result.reconciled);
        // A submission found absent reopened its strategy's slot (Journal.reopenSlot): planned now, not
        // at the next tick (a review: a daily DCA's lost 08:30 buy waited for the next day).
        if (result.reconciled.some((r) => r.verdict === "absent")) this.request();
      }
      if (result.report) {
        logDecisions(this.logger.child({ cycle: result.report.cycleId, trigger: "watch" }), result.report);
        this.notices?.watched(result.report);
      } else if (result.checked > 0) {
        this.logger.debug(
          { checked: result.checked },
          `TWAP watch: ${result.checked} guarded TWAP(s) within limits`,
        );
      }
    } catch (err) {
      if (this.signal.aborted || this.reads.signal.aborted) return;
      if (isFatalError(err)) {
        this.logger.fatal({ err: describeError(err) }, `cannot go on: ${describeError(err)}`);
        void this.halt(DEFAULT_GRACE_MS, { error: err });
        return;
      }
      if (watching) this.watchFailures++;
      this.logger.error(
        { err: describeError(err), ...(watching ? { failures: this.watchFailures } : {}) },
        `TWAP watch failed: ${describeError(err)}; trying again in a minute`,
      );
      if (watching) this.notices?.watchFailed(describeError(err), this.watchFailures);
    }
  }

  /** One cycle of one slot group. Never rejects: every failure is logged and counted here. */
  private async runGroup(group: SlotGroup): Promise<void> {
    const names = group.strategies.map((s) => s.name);
    const label = names.join(", ");
    const cycleId = newCycleId(this.runtime.clock());
    const log = this.logger.child({
      strategy: names.length === 1 ? names[0] : label,
      strategies: names,
      cycle: cycleId,
      slot: iso(group.slot),
    });
    const startedAt = Date.now();
    try {
      let facts: Awaited<ReturnType<DaemonRuntime["facts"]>>;
      try {
        facts = await this.runtime.facts(this.reads.signal);
      } catch (err) {
        this.journalUnstartedCycle(cycleId, names, err);
        throw err;
      }
      this.contacted = true;
      const deps = {
        ...this.cycleDeps(facts),
        // The strategies as of the last reload (SIGHUP), not as the runtime opened: a rebalancer
        // disabled since must not hold a staking deposit back, one added must.
        peers: this.strategies(),
        // Every strategy of the files as last reloaded, disabled ones included (budget.ts).
        ...(this.configured ? { configured: this.configured } : {}),
      };
      const report = await runCycle(deps, {
        trigger: "run",
        strategies: group.strategies,
        slot: group.slot,
        cycleId,
        signal: this.signal,
        readSignal: this.reads.signal,
      });
      const { deferred, failed } = this.scheduler.settle(group, report, this.runtime.clock());
      // A submission of another strategy found absent reopened that strategy's slot: planned now.
      if (report.reconciled.some((r) => r.verdict === "absent" && !names.includes(r.strategy)))
        this.request();
      // Each decision line names its own strategy (the group's child logger names them all).
      const decisionLog = this.logger.child({ strategies: names, cycle: cycleId, slot: iso(group.slot) });
      if (report.cutShort) {
        // Stopping: what was sent is journaled; the strategies that sent nothing stay due.
        logDecisions(decisionLog, report);
        log.warn(
          { notSent: report.cutShort.notSent, due: deferred },
          `cycle cut short by the shutdown: ${report.cutShort.notSent} action(s) not sent` +
            (deferred.length ? `; still due at the next start: ${deferred.join(", ")}` : ""),
        );
        return;
      }
      if (deferred.length > 0) this.armRetry(this.runtime.clock());
      // A strategy that threw while deciding failed its run though the cycle ran: counted as a failure
      // (metrics, health, cycle.failed), not a success (an operator's trial: a DCA failing every run
      // showed /health ok, its cycles ok and a fresh last success).
      const ok = names.filter((n) => !failed.includes(n));
      const recoveredAfter = Math.max(0, ...ok.map((n) => this.failing.get(n)?.count ?? 0));
      if (recoveredAfter > 0)
        log.info({ failedInARow: recoveredAfter }, `cycle ok again after ${recoveredAfter} failed`);
      for (const n of ok) this.failing.delete(n);
      this.notices?.afterCycle(report, ok, recoveredAfter);
      for (const name of ok) {
        this.metrics?.cycles.inc({ strategy: name, outcome: "ok" });
        this.metrics?.lastSuccess.set({ strategy: name }, this.runtime.clock() / 1000);
      }
      if (failed.length > 0) {
        const why = [
          failedRunsText(failedRuns(report).filter((d) => failed.includes(d.decision.strategy))),
          unprocessedText(report, failed),
        ]
          .filter(Boolean)
          .join("; ");
        const inARow = this.countFailure(failed, why, group.slot + this.scheduler.catchUpMs);
        for (const name of failed) this.metrics?.cycles.inc({ strategy: name, outcome: "failed" });
        this.notices?.cycleFailed(failed, why, inARow, this.unhealthyAfterFailures);
      }
      logDecisions(decisionLog, report);
      // A cycle that ran but whose submission was refused or lost is said at warn with it.
      // A strategy's failed run (held for the clock, threw while deciding) too, and each deferral with its
      // reason: an operator's trial read "cycle ok … deferred" at info for hours while /health counted the
      // runs failed (the clock held them) or the kill switch held them.
      const troubled =
        failed.length > 0 || report.actions.some((a) => a.outcome === "unknown" || a.outcome === "rejected");
      const held = deferred.filter((n) => !failed.includes(n));
      log[troubled ? "warn" : "info"](
        {
          ms: Date.now() - startedAt,
          outcomes: outcomeCounts(report),
          ...(deferred.length ? { deferred } : {}),
          ...(failed.length ? { failed } : {}),
        },
        `${failed.length > 0 ? `cycle ran, ${failed.length} strategy run(s) failed (${failed.map((n) => `${n}: ${deferralReason(report, n)}`).join("; ")})` : "cycle ok"}: ${summarize(report)}` +
          (held.length
            ? `; deferred (slot stays due): ${held.map((n) => `${n} (${deferralReason(report, n)})`).join(", ")}`
            : ""),
      );
    } catch (err) {
      for (const name of names) this.metrics?.cycles.inc({ strategy: name, outcome: "failed" });
      if (this.signal.aborted || this.reads.signal.aborted) {
        log.warn({ err: describeError(err) }, `cycle cut short by the shutdown: ${describeError(err)}`);
        return;
      }
      if (isFatalError(err)) {
        log.fatal({ err: describeError(err) }, `cannot go on: ${describeError(err)}`);
        void this.halt(DEFAULT_GRACE_MS, { error: err });
        return;
      }
      const inARow = this.countFailure(names, describeError(err), group.slot + this.scheduler.catchUpMs);
      this.notices?.cycleFailed(names, this.lastFailure, inARow, this.unhealthyAfterFailures);
      const now = this.runtime.clock();
      const retries = this.scheduler.failed(group, now);
      const failures = Math.max(...retries.map((r) => r.failures));
      const retryAt = Math.min(...retries.map((r) => r.retryAt));
      log.error(
        {
          err: describeError(err),
          code: err instanceof HlbotError ? err.code : undefined,
          failures,
          retryAt: Number.isFinite(retryAt) ? iso(retryAt) : undefined,
        },
        `cycle failed (${failures} in a row): ${describeError(err)}; ` +
          (Number.isFinite(retryAt)
            ? `retrying in ${formatDelay(retryAt - now)} (at ${iso(retryAt)}) while the slot is within the catch-up window`
            : "retrying at the next slot"),
      );
      this.armRetry(now);
    }
  }

  /** A run that failed before its cycle began (the venue did not answer): still one journal row. */
  private journalUnstartedCycle(cycleId: string, strategies: string[], err: unknown): void {
    this.runtime.journal.recordUnstartedCycle(
      {
        id: cycleId,
        trigger: "run",
        mode: this.runtime.exchange?.mode ?? "unsigned",
        account: this.runtime.account,
        strategies,
      },
      describeError(err),
    );
  }
}

/** The TWAPs of a history that may still trade (any market: the cancel cycle judges which it can cancel). */
function tradingTwaps(history: TwapHistoryResponse, now: number): Set<string> {
  const keys = new Set<string>();
  for (const e of latestTwapEntries(history))
    if (twapMayTrade(e, now))
      keys.add(e.twapId === undefined ? `t${e.state.timestamp}:${e.state.coin}` : `id${e.twapId}`);
  return keys;
}

function checkStrategies(list: readonly Strategy[]): void {
  const seen = new Set<string>();
  for (const s of list) {
    if (seen.has(s.name)) throw new ConfigError(`strategy name "${s.name}" is used twice`);
    seen.add(s.name);
    validateSchedule(s.schedule, `${s.name}.schedule`);
  }
}

function sameStrategy(a: Strategy, b: Strategy): boolean {
  return (
    a.kind === b.kind && a.schedule === b.schedule && JSON.stringify(a.params) === JSON.stringify(b.params)
  );
}

/** Resolves true if `promise` settles within `ms`, false otherwise; leaves no timer behind. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}

function problemLines(err: unknown): string[] {
  return err instanceof ConfigError ? issuesOf(err).map(formatIssue) : [describeError(err)];
}

function outcomeCounts(report: CycleReport): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of report.actions) counts[a.outcome] = (counts[a.outcome] ?? 0) + 1;
  return counts;
}

function summarize(report: CycleReport): string {
  if (report.actions.length === 0) {
    const skipped = report.decisions.filter((d) => d.guard === "skipped" || d.guard === "blocked").length;
    return skipped > 0 ? `no action (${skipped} skipped or blocked)` : "nothing to do";
  }
  return report.actions.map((a) => `${a.action} ${a.outcome}`).join(", ");
}

/** Each decision of a cycle at info, with its reason (skipped and blocked ones included). */
function logDecisions(log: Logger, report: CycleReport): void {
  for (const { decision, guard, action } of report.decisions) {
    if (action) continue; // acted-on intents are logged by the cycle with their outcome
    log.info(
      {
        strategy: decision.strategy,
        decision: decision.kind,
        guard,
        ...(decision.kind === "skip" && decision.considered ? { considered: decision.considered } : {}),
        ...(decision.kind === "skip" && decision.defer ? { deferred: true } : {}),
      },
      `${decision.strategy}: ${guard === "blocked" ? "BLOCKED" : guard === "skipped" ? "skip" : decision.kind}: ${decision.reason}`,
    );
  }
}

function workName(w: Work): string {
  return w.kind === "watch" ? "the TWAP watch" : w.group.strategies.map((s) => s.name).join(", ");
}

function formatDelay(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 6_000) / 10} min` : `${Math.round(ms / 1000)} s`;
}
