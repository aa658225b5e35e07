// What the daemon tells its owner, and when: each answered (or lost) submission, a TWAP that ended
// (with what it filled and at what average price), the first failed cycle and the recovery, the kill
// switch engaged or released, start and stop, and a daily summary. Everything here only queues
// messages; reads it needs (a TWAP's final record, the day's rewards and fees) run in the background
// and a failed read costs a message, never a cycle.
import type { Logger } from "pino";
import { Decimal, ZERO } from "../../lib/decimal.js";
import { describeError } from "../../lib/errors.js";
import { USER_FILLS_MAX } from "../../venue/constants.js";
import type { InfoClient } from "../../venue/info/client.js";
import { latestTwapEntries, twapHasEnded, twapMayBeRunning } from "../../venue/info/methods/twapHistory.js";
import type { CycleReport } from "../cycle.js";
import { type Journal, VENUE_HISTORY_STRATEGY } from "../journal.js";
import { killSwitchEngaged } from "../killSwitch.js";
import { isLookalike, spotUniverse } from "../readSnapshot.js";
import type { ReconcileResult } from "../reconcile.js";
import type { Missed } from "../scheduler.js";
import { labelOf, type Snapshot } from "../snapshot.js";
import { endedTwapOf, LOOKBACK_MS, latestByTwapId, twapEndsSince } from "../twapEnds.js";
import { portfolioValueUsd, valueAccount } from "../valuation.js";
import {
  clockSteppedEvent,
  cycleFailedEvent,
  cycleRecoveredEvent,
  daemonEvent,
  dailySummaryEvent,
  type EventContext,
  killSwitchEvent,
  reconciledEvents,
  scheduleMissedEvent,
  strategiesRefusedEvent,
  strategiesResumedEvent,
  submissionEvents,
  TWAP_WATCH,
  twapEndedEvent,
  watchFailedEvent,
  watchIdleEvent,
} from "./events.js";
import type { Notifier } from "./notifier.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Cycles after which a TWAP whose end cannot be read is no longer asked about. */
const ASK_AGAIN_CYCLES = 60;

export interface DaemonNoticesOptions {
  notifier: Notifier;
  info: InfoClient;
  account: string;
  network: string;
  /** limits.killSwitchFile: its appearance and disappearance are told. */
  killSwitchFile?: string | undefined;
  clock: () => number;
  logger: Logger;
  /**
   * TWAPs this bot placed before this process started that may have ended since (followTwapsOf): each is
   * told when it ends as if this process had seen it run (an operator's trial: TWAPs that ended across a
   * restart, or while the daemon was down, were never told).
   */
  placedBefore?: readonly number[];
  /** Where a TWAP's end is recorded as told, so that `once` run later does not tell it again. */
  journal?: Journal;
}

/**
 * The TWAPs of `account` this bot placed (the journal) whose end is not told and was due after the time
 * ends are settled up to (twapEndsSince: the latest daemon cycle, or `once`'s cursor), before this
 * process ran one: no process saw them end. Not the latest cycle of any kind: a `plan` or a manual action
 * run while the daemon was down moved it past them, and their ends were never told.
 */
export function followTwapsOf(journal: Journal, account: string, now: number): number[] {
  const since = twapEndsSince(journal, account);
  if (since === undefined) return [];
  return journal.untoldTwaps(account, Math.max(since, now - LOOKBACK_MS)).map((r) => r.twapId);
}

/** The TWAP watch's failures in a row (a minute apart) before they are told. */
const WATCH_FAILURES_TOLD = 3;
export class DaemonNotices {
  private twaps: Set<number>;
  /** TWAPs gone from the running list whose end is not read yet, with the cycles left to ask. */
  private readonly askAgain = new Map<number, number>();
  private killSwitch: boolean | undefined;
  /** The mode the daemon started in (live, dry-run), for its stop notice. */
  private mode = "";
  private lastSnapshot: Snapshot | undefined;
  private lastStaking: Snapshot["staking"] | undefined;
  private lastSummaryValue: Decimal | undefined;
  /** The venue's time of the latest staking reward and slice fill the daily summaries counted. */
  private lastRewardTime: number | undefined;
  private lastFillTime: number | undefined;
  /**
   * Each strategy's runs since the last daily summary: how many acted (something accepted by the venue)
   * and, of the others, the latest reason. A year-long trial: a DCA whose budget ran out, one out of
   * USDC and a rebalancer unable to sell went silent for months, told nowhere but in info logs.
   */
  private runs = new Map<string, { runs: number; acted: number; latest?: string }>();
  /** Background reads still running (tests and shutdown wait for them). */
  private readonly pending = new Set<Promise<void>>();

  /** When this process started: TWAPs journaled since whose end is untold are followed (othersPlaced). */
  private readonly startedAt: number;
  /** TWAPs whose end was asked about ASK_AGAIN_CYCLES times without an answer: not asked again. */
  private readonly givenUp = new Set<number>();

  constructor(private readonly o: DaemonNoticesOptions) {
    this.twaps = new Set(o.placedBefore ?? []);
    this.startedAt = o.clock();
  }

  /**
   * TWAPs another process journaled (`hlbot twap`, a `once`) while this one runs, whose end is not told:
   * one placed and ended between two cycles was in no snapshot, and `once` later took it for settled by
   * the daemon, so its end was never told (an accountant's trial).
   */
  private othersPlaced(): number[] {
    const journal = this.o.journal;
    if (journal === undefined) return [];
    return journal
      .untoldTwaps(this.o.account, this.startedAt)
      .map((r) => r.twapId)
      .filter((id) => !this.givenUp.has(id));
  }

  get notifier(): Notifier {
    return this.o.notifier;
  }

  private ctx(): EventContext {
    return { account: this.o.account, network: this.o.network, now: this.o.clock() };
  }

  start(mode: string, strategies: readonly string[], held?: string): void {
    this.mode = mode;
    this.o.notifier.notify(
      daemonEvent(this.ctx(), "start", { mode, strategies, ...(held === undefined ? {} : { held }) }),
    );
    this.checkKillSwitch();
  }

  /** A reload after which the strategies of a held daemon run again. */
  strategiesResumed(strategies: readonly string[], was: string): void {
    this.o.notifier.notify(strategiesResumedEvent(this.ctx(), strategies, was));
  }

  /** A SIGHUP reload whose strategy files do not load: the current strategies keep running. */
  reloadRefused(problems: readonly string[], kept: number): void {
    this.o.notifier.notify(strategiesRefusedEvent(this.ctx(), problems, kept));
  }

  /** The wall clock stepped (ClockWatch). */
  clockStepped(stepMs: number, resumeAt: number | undefined): void {
    this.o.notifier.notify(clockSteppedEvent(this.ctx(), stepMs, resumeAt));
  }

  stop(exitCode: number, why = ""): void {
    this.o.notifier.notify(
      daemonEvent(this.ctx(), "stop", { mode: this.mode, exitCode, ...(why === "" ? {} : { why }) }),
    );
  }

  /** After a cycle that ran: its submissions, TWAPs gone since the last one, the kill switch, a recovery. */
  afterCycle(report: CycleReport, strategies: readonly string[], recoveredAfter: number): void {
    const journal = this.o.journal;
    const streak = journal ? (name: string) => journal.unprocessedInARow(this.o.account, name) : undefined;
    for (const e of submissionEvents(this.ctx(), report, streak)) this.o.notifier.notify(e);
    if (recoveredAfter > 0)
      this.o.notifier.notify(cycleRecoveredEvent(this.ctx(), strategies, recoveredAfter));
    this.tally(report);
    this.lastSnapshot = report.snapshot;
    // The staking balances as last read: a cycle that did not read them would value the stake at 0.
    if (report.snapshot.parts?.has("staking") !== false) this.lastStaking = report.snapshot.staking;
    this.noticeEndedTwaps(report);
    this.checkKillSwitch();
  }

  /** Counts a cycle's runs by strategy for the daily summary (the watch's cancel cycles are not runs). */
  private tally(report: CycleReport): void {
    const byStrategy = new Map<string, { acted: boolean; latest?: string }>();
    for (const d of report.decisions) {
      const name = d.decision.strategy;
      const run = byStrategy.get(name) ?? { acted: false };
      // A dry run acts in its way (built and signed, not sent): "0 of N acted (…: dry-run)" read wrong.
      if (d.action?.outcome === "accepted" || d.action?.outcome === "dry-run") run.acted = true;
      else
        run.latest =
          d.action === undefined
            ? d.decision.reason
            : `${d.decision.reason}: ${d.action.outcome}${d.action.detail ? ` (${d.action.detail})` : ""}`;
      byStrategy.set(name, run);
    }
    for (const [name, run] of byStrategy) {
      const t = this.runs.get(name) ?? { runs: 0, acted: 0 };
      t.runs++;
      if (run.acted) t.acted++;
      else if (run.latest !== undefined) t.latest = run.latest;
      this.runs.set(name, t);
    }
  }

  /** The TWAP watch's cancels (a price guard, a floor): told as a cycle's submissions are (a review: never told under `run`). */
  watched(report: CycleReport): void {
    for (const e of submissionEvents(this.ctx(), report)) this.o.notifier.notify(e);
  }

  /** Lost answers the TWAP watch's own reconciliation settled (landed or absent). */
  reconciled(results: readonly ReconcileResult[]): void {
    for (const e of reconciledEvents(this.ctx(), results)) this.o.notifier.notify(e);
  }

  /** The first failure in a row is told, then every `every`-th (default: when /health turns unhealthy). */
  cycleFailed(strategies: readonly string[], error: string, inARow: number, every: number): void {
    if (inARow === 1 || (every > 1 && inARow % every === 0))
      this.o.notifier.notify(cycleFailedEvent(this.ctx(), strategies, error, inARow));
  }

  /**
   * The TWAP watch failed `inARow` minutes running: told at the third (one lost read is no news), then
   * every fifteenth; its recovery is told once it was.
   */
  watchFailed(error: string, inARow: number): void {
    if (inARow === WATCH_FAILURES_TOLD || (inARow > WATCH_FAILURES_TOLD && inARow % 15 === 0))
      this.o.notifier.notify(watchFailedEvent(this.ctx(), error, inARow));
  }

  /** The TWAP watch reads again after `failures` failed minutes (told when its failure was). */
  watchRecovered(failures: number): void {
    if (failures >= WATCH_FAILURES_TOLD)
      this.o.notifier.notify(cycleRecoveredEvent(this.ctx(), [TWAP_WATCH], failures));
  }

  /** The TWAP watch has nothing to check any more after `failures` failed minutes (told when they were). */
  watchIdle(failures: number): void {
    if (failures >= WATCH_FAILURES_TOLD) this.o.notifier.notify(watchIdleEvent(this.ctx(), failures));
  }

  /** Strategies whose slots went by with no run at all (lostSlots), once per slot. */
  missedSlots(missed: readonly Missed[], catchUpMs: number, waitingOn?: ReadonlyMap<string, string>): void {
    if (missed.length > 0)
      this.o.notifier.notify(scheduleMissedEvent(this.ctx(), missed, catchUpMs, waitingOn));
  }

  /** The kill switch file appeared or went away since the last look. */
  checkKillSwitch(): void {
    const file = this.o.killSwitchFile;
    const engaged = file === undefined ? undefined : killSwitchEngaged(file);
    if (file === undefined || engaged === undefined) return;
    if (this.killSwitch !== undefined && engaged !== this.killSwitch)
      this.o.notifier.notify(killSwitchEvent(this.ctx(), engaged, file));
    // At start-up an engaged switch is worth a message too: the bot will not act until released.
    if (this.killSwitch === undefined && engaged)
      this.o.notifier.notify(killSwitchEvent(this.ctx(), true, file));
    this.killSwitch = engaged;
  }

  /** Resolves when the background reads started so far are done. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private background(what: string, work: () => Promise<void>): void {
    const p = work()
      .catch((err: unknown) => {
        this.o.logger.debug(
          { err: describeError(err) },
          `notification not built (${what}): ${describeError(err)}`,
        );
      })
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /**
   * TWAPs watched since they were accepted or seen running; one that is neither running nor just
   * accepted has ended, and the venue's last record of it says how and what it filled.
   */
  private noticeEndedTwaps(report: CycleReport): void {
    const running = new Set<number>();
    for (const t of report.snapshot.twaps) if (t.twapId !== undefined) running.add(t.twapId);
    // Accepted in this cycle, after its snapshot was read: not running in it yet, but ours to watch.
    for (const a of report.actions)
      if (a.outcome === "accepted" && a.twapId !== undefined) running.add(a.twapId);
    // And those whose end could not be read yet (a failed read, no final record yet): asked again (a
    // review: one failed twapHistory read lost the end for good).
    const gone = [...new Set([...this.twaps, ...this.askAgain.keys(), ...this.othersPlaced()])].filter(
      (id) => !running.has(id),
    );
    this.twaps = running;
    if (
      gone.length === 0 ||
      !(this.o.notifier.wants("twap.finished") || this.o.notifier.wants("twap.cancelled"))
    )
      return;
    this.background("ended TWAPs", async () => {
      let latest: ReturnType<typeof latestByTwapId>;
      try {
        latest = latestByTwapId(await this.o.info.twapHistory({ user: this.o.account }));
      } catch (err) {
        for (const id of gone) this.keepAsking(id);
        throw err;
      }
      const label = (coin: string) => labelOf(coin, this.lastSnapshot?.pairs);
      for (const id of gone) {
        const last = latest.get(id);
        // Running, waiting for a trigger, or a status hlbot does not know: not ended (a review).
        if (last === undefined || !twapHasEnded(last)) {
          this.keepAsking(id);
          continue;
        }
        this.askAgain.delete(id);
        if (this.o.journal?.twapEndTold(this.o.account, id)) continue;
        this.o.journal?.markTwapEndTold(this.o.account, id, last.status.status);
        // Named by the strategy that placed it, as `once` names it (an accountant's trial: the daemon's
        // notices said which TWAP ended, not whose).
        const by = this.o.journal?.twapPlacedBy(this.o.account, id);
        const strategy = by === VENUE_HISTORY_STRATEGY ? undefined : by;
        const ended = endedTwapOf(id, last, label);
        this.o.notifier.notify(
          twapEndedEvent(this.ctx(), strategy === undefined ? ended : { ...ended, strategy }),
        );
      }
    });
  }

  /** Asks about `id`'s end again after the next cycle, ASK_AGAIN_CYCLES times at most. */
  private keepAsking(id: number): void {
    const left = (this.askAgain.get(id) ?? ASK_AGAIN_CYCLES) - 1;
    if (left > 0) this.askAgain.set(id, left);
    else {
      this.askAgain.delete(id);
      this.givenUp.add(id);
    }
  }

  /**
   * The account's value in USD (spot and staking, valueAccount's rule) and its running spot TWAPs, read
   * now: seven info reads once a day.
   */
  private async accountNow(): Promise<{ valueUsd: Decimal | undefined; twapsRunning: number }> {
    const user = this.o.account;
    const info = this.o.info;
    const [meta, mids, spot, summary, history] = await Promise.all([
      info.spotMeta({}),
      info.allMids({}),
      info.spotClearinghouseState({ user }),
      info.delegatorSummary({ user }),
      info.twapHistory({ user }),
    ]);
    const universe = spotUniverse(meta, mids);
    const value = valueAccount(universe, {
      spot: spot.balances.flatMap((b) => {
        // Outcome balances are no spot token; a token named like another is not that token.
        return b.token === undefined || !universe.tokens.has(b.coin) || isLookalike(universe.tokens, b)
          ? []
          : [{ coin: b.coin, total: new Decimal(b.total) }];
      }),
      staking: {
        delegated: new Decimal(summary.delegated),
        undelegated: new Decimal(summary.undelegated),
        pendingWithdrawal: new Decimal(summary.totalPendingWithdrawal),
      },
    });
    const now = this.o.clock();
    const twapsRunning = latestTwapEntries(history).filter(
      (e) => universe.pairs.has(e.state.coin) && twapMayBeRunning(e, now),
    ).length;
    return { valueUsd: value.totalUsd, twapsRunning };
  }

  /** Queues the daily summary: value and its change, the day's staking rewards and trading fees. */
  dailySummary(): void {
    if (!this.o.notifier.wants("daily.summary")) return;
    this.background("daily summary", async () => {
      const since = this.o.clock() - DAY_MS;
      const snapshot = this.lastSnapshot;
      const runs = this.runs;
      this.runs = new Map();
      const user = this.o.account;
      const [rewards, fills, now] = await Promise.allSettled([
        this.o.info.delegatorRewards({ user }),
        this.o.info.userTwapSliceFills({ user }),
        this.accountNow(),
      ]);
      // The account as it is now (a consistency trial: the last cycle's snapshot, read before its own
      // TWAP was sent and hours old, said "running TWAPs: 0" beside a running one, and left out a stake
      // no strategy of the daemon reads: 1,400 USD for an account worth 25,400). Failing that, the last
      // cycle's view, spot only until a cycle has read the staking balances.
      const staking = this.lastStaking;
      const valueUsd =
        now.status === "fulfilled"
          ? now.value.valueUsd
          : snapshot === undefined
            ? undefined
            : staking === undefined
              ? portfolioValueUsd(snapshot, false)
              : portfolioValueUsd({ ...snapshot, staking }, true);
      const twapsRunning =
        now.status === "fulfilled" ? now.value.twapsRunning : (snapshot?.twaps.length ?? 0);
      // Each summary counts what came after the last one counted (by the venue's own times), else the
      // last 24 h: a payout the venue booked at 00:00 but showed only after a summary at 00:00 on a clock
      // a little ahead fell out of both days' windows (a bookkeeper's trial).
      const rewardsSince = this.lastRewardTime;
      const rewardsHype =
        rewards.status === "fulfilled"
          ? rewards.value
              .filter(
                (r) =>
                  (rewardsSince === undefined ? r.time >= since : r.time > rewardsSince) &&
                  r.source !== "commission",
              )
              .reduce((a, r) => a.plus(new Decimal(r.totalAmount)), ZERO)
          : undefined;
      if (rewards.status === "fulfilled")
        for (const r of rewards.value)
          if (r.time > (this.lastRewardTime ?? Number.NEGATIVE_INFINITY)) this.lastRewardTime = r.time;
      let fees: Map<string, Decimal> | undefined;
      let feesAtLeast = false;
      if (fills.status === "fulfilled") {
        fees = new Map();
        const fillsSince = this.lastFillTime;
        // Only the latest USER_FILLS_MAX: when the oldest answered is within the window, earlier ones of
        // it are missing (an accountant's trial: 2,880 slices of a day's TWAP, 20 USDC of 28.8 told).
        const oldest = fills.value.reduce((a, f) => Math.min(a, f.fill.time), Number.POSITIVE_INFINITY);
        feesAtLeast =
          fills.value.length >= USER_FILLS_MAX &&
          (fillsSince === undefined ? oldest > since : oldest > fillsSince);
        for (const f of fills.value) {
          if (fillsSince === undefined ? f.fill.time < since : f.fill.time <= fillsSince) continue;
          fees.set(f.fill.feeToken, (fees.get(f.fill.feeToken) ?? ZERO).plus(new Decimal(f.fill.fee)));
        }
        for (const f of fills.value)
          if (f.fill.time > (this.lastFillTime ?? Number.NEGATIVE_INFINITY)) this.lastFillTime = f.fill.time;
      }
      const changeUsd =
        valueUsd !== undefined && this.lastSummaryValue !== undefined
          ? valueUsd.minus(this.lastSummaryValue)
          : undefined;
      if (valueUsd !== undefined) this.lastSummaryValue = valueUsd;
      this.o.notifier.notify(
        dailySummaryEvent(this.ctx(), {
          valueUsd,
          changeUsd,
          rewardsHype,
          fees,
          ...(feesAtLeast ? { feesAtLeast } : {}),
          twapsRunning,
          strategies: [...runs].map(([name, t]) => ({ name, ...t })),
        }),
      );
    });
  }
}
