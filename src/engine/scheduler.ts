// The one scheduler behind `run`, `once` and `simulate`. A strategy acts only in a cron slot that is
// due (src/engine/schedule.ts `slotVerdict`): the latest slot since the one it last settled, within the
// catch-up window. The journal remembers each strategy's last settled slot, so a slot is acted in at
// most once whichever command finds it due, a slot missed by downtime or a failed run is caught up once
// (in time), and older ones are reported as missed.
//
// Grouping: strategies due in the same slot instant run in ONE cycle, in every mode. They then decide
// from one snapshot and their intents go through the allocator and the risk limits together (so two
// strategies cannot spend the same balance or together overshoot a daily limit each respected alone);
// strategies due at different instants run in separate cycles, in slot order, one at a time. The daemon
// used to run one strategy per cycle while simulate and once grouped them: all three now group alike,
// so a simulation shows what `run` does.
//
// A cycle that fails leaves its slot due: it is retried after a back-off in time (1, 2, 4 … minutes,
// capped), never later than the strategy's next slot, and only while the slot is within the catch-up
// window. A slot whose decisions were all deferred skips (`defer: true`, CONTRACTS #1) stays due too.
import { describeError } from "../lib/errors.js";
import { type CycleDeps, type CycleOptions, type CycleReport, runCycle, unprocessedOnly } from "./cycle.js";
import type { Journal } from "./journal.js";
import type { ReconcileResult } from "./reconcile.js";
import {
  CronSchedule,
  DEFAULT_CATCH_UP_MS,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  lastSlotAtOrBefore,
  rewoundSlotState,
  type SlotState,
  slotVerdict,
} from "./schedule.js";
import type { Strategy } from "./strategies/registry.js";

export interface SlotGroup {
  /** The slot instant (unix ms) the strategies of this group act in. */
  slot: number;
  strategies: Strategy[];
}

export interface NotDue {
  strategy: string;
  /** Why, in words: "next slot 2026-…", "backing off until …", "running". */
  reason: string;
  next: number | undefined;
}

/**
 * A strategy whose next slot is ahead. Its reason is made when read (a simulation plans at every step
 * and never reads it), by a getter on the class: one in an object literal is made again for each object.
 */
class NextSlotNotDue implements NotDue {
  constructor(
    readonly strategy: string,
    readonly next: number | undefined,
  ) {}

  get reason(): string {
    return `not due: next slot ${this.next === undefined ? "never" : iso(this.next)}`;
  }
}

export interface Missed {
  strategy: string;
  /** How many slots were missed (not acted in, too old to catch up or superseded by a later one). */
  count: number;
  /** The latest missed slot. */
  latest: number | undefined;
  /**
   * The strategy was waiting in a deferred slot (its orders could not go out yet, e.g. behind another
   * TWAP on its pair) when a later slot superseded it: expected, not a fault of the schedule.
   */
  whileDeferred: boolean;
}

export interface SchedulePlan {
  at: number;
  /** Due strategies grouped by slot instant, oldest slot first. */
  groups: SlotGroup[];
  notDue: NotDue[];
  missed: Missed[];
  /**
   * local − venue (ms) when the local clock is further from the venue's than maxClockSkew: nothing was
   * settled, rewound or re-dated, and what runs holds until it is corrected.
   */
  clockSkewMs?: number;
}

/**
 * Missed slots after which the strategy did not run at all in this plan: no later slot of it was due
 * either (a daily DCA whose `once` comes 15 hours after its slot, a daemon down past the catch-up
 * window). Slots superseded by a later slot that runs, or while deferred, are not lost: its decision
 * was made at the later one.
 */
export function lostSlots(plan: SchedulePlan): Missed[] {
  const running = new Set(plan.groups.flatMap((g) => g.strategies.map((s) => s.name)));
  return plan.missed.filter((m) => !m.whileDeferred && !running.has(m.strategy));
}

export const MINUTE_MS = 60_000;
/** First retry after a failed cycle; doubles with each failure in a row. */
export const DEFAULT_RETRY_BASE_MS = MINUTE_MS;
/** Longest wait between retries of a failed slot. */
export const DEFAULT_RETRY_MAX_MS = 30 * MINUTE_MS;

/** Wait before retrying after `failures` failed cycles in a row: 1, 2, 4, 8 … minutes, up to `max`. */
export function retryDelayMs(
  failures: number,
  base = DEFAULT_RETRY_BASE_MS,
  max = DEFAULT_RETRY_MAX_MS,
): number {
  if (failures <= 0) return 0;
  return Math.min(base * 2 ** Math.min(failures - 1, 30), max);
}

/** How long before a slot's catch-up window closes its last retry comes (Scheduler.backOff). */
const LAST_CHANCE_MS = 60_000;

interface Entry {
  def: Strategy;
  cron: CronSchedule;
  failures: number;
  /** Cycles in a row whose decisions for this strategy were all deferred. */
  deferrals: number;
  /** No attempt before this instant (back-off after a failure or a deferral). */
  retryAt: number;
}

export interface SchedulerOptions {
  journal: Journal;
  account: string;
  /**
   * The exchange mode of the cycles this scheduler runs. A dry run keeps its own slot memory, so that
   * `once --dry-run` (a preview) or a dry-run daemon never uses up a slot the live bot must still act in.
   */
  mode?: "live" | "dry-run" | "unsigned";
  strategies: readonly Strategy[];
  catchUpMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * How far the local clock may be from the venue's (schedule.maxClockSkew): a slot acted in up to this
   * early is kept as acted once the clock is corrected, and while the clock is further off than this no
   * slot is settled as missed (the cycles hold).
   */
  maxClockSkewMs?: number;
  /** The venue's time as its answers tell (VenueClock.now), undefined before any did. */
  venueNow?: () => number | undefined;
  /** The configuration's disabled strategies: their slots pass quietly (Scheduler.setDisabled). */
  disabled?: readonly Strategy[];
}

/**
 * The key of an account's slot memory in the journal: the account itself for live cycles, and a key of
 * its own per other mode, so a dry run never uses up a slot the live bot must still act in.
 */
export function slotAccount(account: string, mode?: "live" | "dry-run" | "unsigned"): string {
  return mode === undefined || mode === "live" ? account : `${account}#${mode}`;
}

export class Scheduler {
  private readonly journal: Journal;
  /** The slot memory's key (slotAccount). */
  private readonly account: string;
  /** The account itself, whose submissions are journaled under it. */
  private readonly sendAccount: string;
  /** Live cycles only: a dry run sends nothing, so no submission can show a slot as acted. */
  private readonly live: boolean;
  readonly catchUpMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxClockSkewMs: number;
  private readonly venueNow: (() => number | undefined) | undefined;
  private entries = new Map<string, Entry>();
  private disabled = new Map<string, CronSchedule>();

  constructor(o: SchedulerOptions) {
    this.journal = o.journal;
    this.account = slotAccount(o.account, o.mode);
    this.sendAccount = o.account.toLowerCase();
    this.live = o.mode === undefined || o.mode === "live";
    this.catchUpMs = o.catchUpMs ?? DEFAULT_CATCH_UP_MS;
    this.retryBaseMs = o.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    this.retryMaxMs = o.retryMaxMs ?? DEFAULT_RETRY_MAX_MS;
    this.maxClockSkewMs = o.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
    this.venueNow = o.venueNow;
    this.setStrategies(o.strategies);
    this.setDisabled(o.disabled ?? []);
  }

  /**
   * The configuration's disabled strategies. Each plan settles their slots past the catch-up window as
   * passed over, so that, once enabled again, the slots of the time they were off are not reported
   * missed with advice to call `once` more often (a cron trial: three days disabled, then "missed 3 slots … nothing ran for it" and
   * a schedule.missed notice for a pause the owner chose). A strategy removed from the files is not known
   * here: its slots are reported missed when it comes back.
   */
  setDisabled(list: readonly Strategy[]): void {
    this.disabled = new Map(
      list.filter((d) => !this.entries.has(d.name)).map((d) => [d.name, new CronSchedule(d.schedule)]),
    );
  }

  /** Replaces the strategy set; unchanged strategies keep their back-off. */
  setStrategies(list: readonly Strategy[]): void {
    const next = new Map<string, Entry>();
    for (const def of list) {
      const old = this.entries.get(def.name);
      next.set(
        def.name,
        old && old.def.schedule === def.schedule
          ? { ...old, def }
          : { def, cron: new CronSchedule(def.schedule), failures: 0, deferrals: 0, retryAt: 0 },
      );
    }
    this.entries = next;
  }

  strategies(): Strategy[] {
    return [...this.entries.values()].map((e) => e.def);
  }

  /** Registers every strategy as seen (its slots count from its first sighting). */
  register(now: number): void {
    for (const name of this.entries.keys()) this.journal.slotState(this.account, name, now);
  }

  /** The next slot of any strategy after `after` (simulate jumps there). */
  nextSlot(after: number): number | undefined {
    let best: number | undefined;
    for (const e of this.entries.values()) {
      const t = e.cron.next(after);
      if (t !== undefined && (best === undefined || t < best)) best = t;
    }
    return best;
  }

  /**
   * Each strategy's next slot after `after` and the gap to the slot after it (its schedule's period
   * there); `next` undefined: its expression never matches again.
   */
  nextSlots(
    after: number,
  ): Map<string, { next: number | undefined; periodMs: number | undefined; previous: number | undefined }> {
    const out = new Map<
      string,
      { next: number | undefined; periodMs: number | undefined; previous: number | undefined }
    >();
    for (const [name, e] of this.entries) {
      const next = e.cron.next(after);
      const later = next === undefined ? undefined : e.cron.next(next);
      out.set(name, {
        next,
        periodMs: next !== undefined && later !== undefined ? later - next : undefined,
        // The latest slot at or before `after`: an alert on "no success since a slot" needs it, the
        // period alone paged all night after a block of runs (an SRE's trial: "*/2 6 * * *").
        previous: lastSlotAtOrBefore(e.cron, after - 8 * 86_400_000, after),
      });
    }
    return out;
  }

  /** The earliest pending retry after `after`, if any. */
  nextRetry(after: number): number | undefined {
    let best: number | undefined;
    for (const e of this.entries.values())
      if (waiting(e) && e.retryAt > after && (best === undefined || e.retryAt < best)) best = e.retryAt;
    return best;
  }

  /**
   * How far ahead of the clock a slot state may be and still stand (its slot acted in early): within
   * maxClockSkew, the skew the cycles decide within, up to half the schedule's period after that slot
   * (nearer to it than to the slot before: the upcoming slot, acted in early), and at least the
   * default's 5 minutes. Brought back, a slot acted in early came due again and bought twice (a clock
   * trial: maxClockSkew 10m, the clock 9 minutes ahead). Further ahead, the clock was wrong by more
   * than a slot: the state is brought back and what was sent counts in the slot it was sent in, on the
   * venue's time (a clock a day ahead with maxClockSkew 3d must not hold a daily DCA a day).
   */
  /**
   * The tolerance for a state ahead of `reference` (the venue's time when known): earlyToleranceMs, or
   * all of it when two cycles of the strategy sent since the slot before `reference` (live): the slot
   * before had its run, so the later send was the early run of the slot ahead, which stands (a review:
   * an hourly DCA with maxClockSkew 1h, the clock 35 minutes ahead, bought three times in two slots
   * once the clock was right; brought back, that early send counted in the slot before, already bought).
   */
  private standsAhead(name: string, cron: CronSchedule, state: SlotState, reference: number): number {
    const early = this.earlyToleranceMs(cron, state);
    const ahead = state.lastSlot === undefined ? 0 : state.lastSlot - reference;
    if (!this.live || state.lastActed !== true || ahead <= early || ahead > this.maxClockSkewMs) return early;
    const before = lastSlotAtOrBefore(cron, state.firstSeen, reference);
    if (before === undefined) return early;
    return this.journal.sendingCyclesSince(this.sendAccount, name, before) >= 2 ? ahead : early;
  }

  private earlyToleranceMs(cron: CronSchedule, state: SlotState): number {
    const floor = Math.min(this.maxClockSkewMs, DEFAULT_MAX_CLOCK_SKEW_MS);
    const slot = state.lastSlot;
    const next = slot === undefined ? undefined : cron.next(slot);
    // Only a slot acted in: one settled missed while the clock ran ahead was not missed (a daily
    // strategy's slot 2 hours on, settled missed by a clock 12 hours ahead, must still run when it comes).
    if (slot === undefined || next === undefined || state.lastActed !== true) return floor;
    return Math.max(floor, Math.min(this.maxClockSkewMs, (next - slot) / 2));
  }

  /**
   * Whether a strategy's slot state is ahead of `now` (written while the clock ran ahead, or the clock now
   * behind). Reads only: a strategy never seen is not registered here but by the plan that follows, so
   * its slots count from that plan's time (registered here, a slot between this check and the plan was
   * due at a strategy's first sighting: a CI run's `once` on a 2-second schedule acted at its first call).
   * Any state ahead, also within the tolerance: the plan judges it against the venue's time, which must
   * then be fresh (a clock trial: the venue's time estimated with the skew of a run made 9 minutes
   * ahead put the corrected clock 9 minutes behind, and the slot acted in early was brought back).
   */
  aheadOfClock(now: number): boolean {
    const states = this.journal.slotStates(this.account, [...this.entries.keys()], now, false);
    for (const [name, e] of this.entries) {
      const state = states.get(name);
      if (state !== undefined && rewoundSlotState(e.cron, state, now) !== undefined) return true;
    }
    return false;
  }

  /**
   * What is due at `now`. Strategies in `busy` (a run in flight) are left out. Missed slots found are
   * settled as missed, so they are reported once.
   */
  plan(now: number, busy: ReadonlySet<string> = new Set()): SchedulePlan {
    const bySlot = new Map<number, Strategy[]>();
    const notDue: NotDue[] = [];
    const missed: Missed[] = [];
    const names = [...this.entries.keys()].filter((name) => !busy.has(name));
    const states = this.journal.slotStates(this.account, names, now);
    if (this.disabled.size > 0) {
      const off = this.journal.slotStates(this.account, [...this.disabled.keys()], now);
      for (const [name, cron] of this.disabled) {
        const state = off.get(name)!;
        // Only slots already past their catch-up window: one within it still acts if the strategy is
        // enabled again in time, and another bot file on this state folder that runs it still may (a
        // review: a second file with it disabled used up the first file's slot).
        const passed = lastSlotAtOrBefore(cron, state.lastSlot ?? state.firstSeen, now - this.catchUpMs - 1);
        if (passed !== undefined)
          this.journal.settleSlot(this.account, name, passed, "disabled", cron.expression);
      }
    }
    let redated = false;
    // A clock further from the venue's than maxClockSkew: the cycles hold every strategy until it is
    // corrected, so no slot is settled as missed meanwhile (a cron user's trial: 3 hours ahead, the day's
    // slot was settled missed before it came, and that day's buy was lost once the clock was corrected).
    const venue = this.venueNow?.();
    const skewed = venue !== undefined && Math.abs(now - venue) > this.maxClockSkewMs;
    for (const [name, e] of this.entries) {
      if (busy.has(name)) {
        notDue.push({ strategy: name, reason: "its previous run is still going", next: undefined });
        continue;
      }
      // slotStates answers for every name it is given (registering the new ones).
      let state = states.get(name)!;
      // Written while the clock ran ahead: brought back to now, and kept so (schedule.ts). The journal's
      // rows from then are dated back first, so what was sent then counts in the slot it was sent in.
      // A slot acted in up to maxClockSkew early (the clock ahead, corrected since) stays acted: brought
      // back, it let the slot run again when it came (a daily DCA bought twice: a cron user's trial, and
      // a clock trial with maxClockSkew raised to 10m). A strategy then waits for that slot to pass: it
      // was acted in. (maxClockSkew above an hour is warned of by config validate.)
      // Only with the clock right: a state ahead of a clock now far behind the venue's (known from its
      // answers) was written in time, and it is the clock that is wrong. Rewound, the slot it acted in
      // was due again, and the journal's rows were dated back before their venue time: a DCA bought
      // twice in one slot once its TWAP ended and the clock was right again (a disaster trial).
      // "Ahead" is judged against the venue's time when it is known (read now: runDueSlots): a state at
      // or before it was written in time, whatever the local clock says and however wide maxClockSkew
      // is (a review: with maxClockSkew 30m, a clock 10 minutes behind still rewound the slot).
      const reference = venue ?? now;
      const early = this.standsAhead(name, e.cron, state, reference);
      if (!skewed && rewoundSlotState(e.cron, state, reference, undefined, early) !== undefined && !redated) {
        this.journal.redateFuture(reference);
        redated = true;
      }
      const rewound = skewed
        ? undefined
        : rewoundSlotState(
            e.cron,
            state,
            reference,
            (slot) => this.journal.sentSince(this.sendAccount, name, slot),
            early,
          );
      if (rewound !== undefined) {
        this.journal.rewindSlot(this.account, name, rewound, reference);
        state = rewound;
      }
      const v = slotVerdict(e.cron, state, now, this.catchUpMs, early);
      if (v.missed > 0 && !skewed)
        missed.push({
          strategy: name,
          count: v.missed,
          latest: v.latestMissed,
          // Deferred, not failing since, and a later slot is due: a slot lost to failed runs (an outage),
          // or one that aged out of the catch-up window while deferred (a daily DCA held all its window
          // for a pair without a book: a review found it said "superseded" and told nothing), is warned of.
          whileDeferred: e.deferrals > 0 && e.failures === 0 && v.due,
        });
      // Settled once reported, also before a due slot (it stays due: it is later), so a slot missed while
      // a due one is retried is not reported again by each plan or each `once`.
      if (v.latestMissed !== undefined && !skewed)
        this.journal.settleSlot(this.account, name, v.latestMissed, "missed", e.cron.expression);
      if (!v.due) {
        e.failures = 0;
        e.deferrals = 0;
        notDue.push(new NextSlotNotDue(name, v.next));
        continue;
      }
      // Sent something in this slot already, but the process died before the slot was settled (a crash
      // between the send and the journal's slot row): the slot is acted in, not acted in again.
      if (this.live && this.journal.sentSince(this.sendAccount, name, v.slot)) {
        this.journal.settleSlot(this.account, name, v.slot, "acted", e.cron.expression);
        e.failures = 0;
        e.deferrals = 0;
        notDue.push({
          strategy: name,
          reason: `acted in the slot of ${iso(v.slot)} already (an earlier run sent its actions): next slot ${v.next === undefined ? "never" : iso(v.next)}`,
          next: v.next,
        });
        continue;
      }
      // What it sent in this slot proved absent (never on the venue: an exchange answering 5xx, each send
      // unknown, then absent, the slot reopened): tried again after the back-off of as many failed runs,
      // counted from the last send, not at once (a DCA's trial: a send every 2 minutes through a 2-hour
      // outage, 61 in all, each an unknown submission and a reconciliation). A first loss found absent
      // minutes later (cron) is tried again at once, as before.
      const lost =
        this.live && state.reopened === true
          ? this.journal.absentSince(this.sendAccount, name, v.slot)
          : undefined;
      if (lost !== undefined) {
        // A last chance a minute before the catch-up window closes and before the next slot supersedes
        // this one (a review: an hourly DCA's hold after six losses ran to 10:02, the exchange back at
        // 09:55, and the 09:00 buy was lost to the 10:00 slot).
        const at = Math.min(
          lost.lastAt + retryDelayMs(lost.count, this.retryBaseMs, this.retryMaxMs),
          v.slot + this.catchUpMs - LAST_CHANCE_MS,
          (e.cron.next(v.slot) ?? Number.POSITIVE_INFINITY) - LAST_CHANCE_MS,
        );
        if (at > now) {
          e.failures = Math.max(e.failures, lost.count);
          e.retryAt = at;
          notDue.push({
            strategy: name,
            reason: `${lost.count} ${lost.count === 1 ? "send" : "sends"} of this slot found absent (never on the venue): next attempt ${iso(e.retryAt)}`,
            next: e.retryAt,
          });
          continue;
        }
      }
      // A back-off is never longer than retryMaxMs: one ending later than that from now was set while the
      // clock ran ahead (corrected since), and would hold the strategy until the clock got there (a
      // review: a deferral's retry a day ahead). It is over.
      if (waiting(e) && e.retryAt > now + this.retryMaxMs) e.retryAt = now;
      if (waiting(e) && e.retryAt > now) {
        notDue.push({
          strategy: name,
          reason:
            e.failures > 0
              ? `backing off after ${e.failures} failed ${e.failures === 1 ? "run" : "runs"}: next attempt ${iso(e.retryAt)}`
              : `deferred: next attempt ${iso(e.retryAt)}`,
          next: e.retryAt,
        });
        continue;
      }
      const list = bySlot.get(v.slot) ?? [];
      list.push(e.def);
      bySlot.set(v.slot, list);
    }
    const groups = [...bySlot.entries()]
      .sort(([a], [b]) => a - b)
      .map(([slot, strategies]) => ({ slot, strategies }));
    return { at: now, groups, notDue, missed, ...(skewed ? { clockSkewMs: now - venue! } : {}) };
  }

  /**
   * Records the outcome of a group's cycle: a strategy that sent something, or decided without anything
   * waiting, has acted in the slot; one that sent nothing while something of it waits (a deferred skip)
   * or failed keeps it due.
   */
  settle(
    group: SlotGroup,
    report: CycleReport,
    now = report.startedAt,
  ): { acted: string[]; deferred: string[]; failed: string[] } {
    const acted: string[] = [];
    const deferred: string[] = [];
    /** Threw while deciding, or none of its sends was processed (also in `deferred`: its slot stays due). */
    const failed: string[] = [];
    for (const s of group.strategies) {
      const own = report.decisions.filter((d) => d.decision.strategy === s.name);
      // Cut short by a stop before it sent anything: it stays due, for the next start to decide again.
      // One that sent something is settled, so a restart does not act in the slot twice.
      const sent = report.actions.some((a) => a.strategy === s.name);
      // Everything it sent was refused before the venue looked at it (rate limited, unreachable): the
      // slot stays due, tried again after a back-off (a chaos trial: a 429 burst at 08:30 skipped the day).
      const unprocessed = unprocessedOnly(report, [s.name]).length > 0;
      const stoppedUnsent = report.cutShort?.strategies.has(s.name) === true && !sent;
      // Blocked by the kill switch, it stays due too: resumed within the catch-up window, it acts.
      const pausedUnsent = report.killSwitchEngaged === true && !sent;
      // Nothing of it sent, and something waits for a temporary reason (a daily limit, a TWAP running on
      // its pair): the slot stays due, whatever its other decisions ("within band" of a second token
      // settled a three-token rebalancer's blocked sale: a review).
      const onlySkips = !sent && own.length > 0 && own.every((d) => d.decision.kind === "skip");
      const waits = onlySkips && own.some((d) => d.decision.kind === "skip" && d.decision.defer === true);
      // It threw while deciding: a failure (back-off, health), its slot due like a failed cycle's.
      const threw = onlySkips && own.some((d) => d.decision.kind === "skip" && d.decision.failed === true);
      const allDeferred = stoppedUnsent || pausedUnsent || waits;
      const e = this.entries.get(s.name);
      if (threw) {
        if (e) this.backOff(e, ++e.failures, now, group.slot);
        deferred.push(s.name);
        failed.push(s.name);
        continue;
      }
      // Not processed (the venue rate limiting or unreachable, a proxy refused it): due again after a back-off, counted as a
      // failure so a slot lost to it is reported missed (as a deferral, a review's daemon said nothing).
      if (unprocessed) {
        if (e) this.backOff(e, ++e.failures, now, group.slot);
        deferred.push(s.name);
        // A failure for health and the last-success metric too (a review: a daemon whose every send
        // was rate limited for days showed /health 200 and a fresh last success).
        failed.push(s.name);
        continue;
      }
      if (allDeferred) {
        // Tried again after a back-off like a failure's, never later than the next slot.
        if (e) {
          // The cycle ran (it is not failing); a later failure counts from here.
          e.failures = 0;
          this.backOff(e, ++e.deferrals, now, group.slot);
        }
        deferred.push(s.name);
        continue;
      }
      this.journal.settleSlot(this.account, s.name, group.slot, "acted", e?.cron.expression ?? null);
      if (e) {
        e.failures = 0;
        e.deferrals = 0;
        e.retryAt = 0;
      }
      acted.push(s.name);
    }
    return { acted, deferred, failed };
  }

  /**
   * Records a failed cycle: its slot stays due, retried after the back-off but never later than the
   * strategy's next slot. Returns when each strategy may be tried again.
   */
  failed(group: SlotGroup, now: number): Array<{ strategy: string; failures: number; retryAt: number }> {
    const out: Array<{ strategy: string; failures: number; retryAt: number }> = [];
    for (const s of group.strategies) {
      const e = this.entries.get(s.name);
      if (!e) continue;
      this.backOff(e, ++e.failures, now, group.slot);
      out.push({ strategy: s.name, failures: e.failures, retryAt: e.retryAt });
    }
    return out;
  }

  /**
   * The next attempt after `attempts` in a row (failures or deferrals): the back-off, never past the next
   * slot, and one last attempt a minute before the slot's catch-up window closes. Without it a back-off
   * grown to 30 min jumped over the window's end: a daily 08:30 DCA held by the kill switch, resumed at
   * 10:05, was retried at 10:01 and next at 10:31, and its slot was missed (an operator's trial).
   */
  private backOff(e: Entry, attempts: number, now: number, slot: number): void {
    const lastChance = slot + this.catchUpMs - LAST_CHANCE_MS;
    e.retryAt = Math.min(
      now + retryDelayMs(attempts, this.retryBaseMs, this.retryMaxMs),
      e.cron.next(now) ?? Number.POSITIVE_INFINITY,
      lastChance > now ? lastChance : Number.POSITIVE_INFINITY,
    );
  }

  /**
   * Deferred strategies (not failing) are tried at the next plan, not after their back-off: the kill
   * switch was released, and a slot it held is to be acted in now (README: "resumed within
   * schedule.catchUp, the strategy acts in it"; an operator's trial: resumed at 13:26, the 13:26 slot was
   * never tried, its back-off reaching past the next slot).
   */
  retryDeferredNow(now: number): void {
    for (const e of this.entries.values()) if (e.deferrals > 0 && e.failures === 0) e.retryAt = now;
  }

  /** Failures in a row and the next attempt of one strategy. */
  health(name: string): { failures: number; retryAt: number | undefined } | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    return { failures: e.failures, retryAt: e.failures > 0 ? e.retryAt : undefined };
  }
}

/** Runs one slot group as one cycle and settles it. A failure is recorded (back-off) and rethrown. */
export async function runSlotGroup(
  scheduler: Scheduler,
  deps: CycleDeps,
  group: SlotGroup,
  o: Omit<CycleOptions, "strategies">,
): Promise<{ report: CycleReport; acted: string[]; deferred: string[] }> {
  let report: CycleReport;
  try {
    report = await runCycle(deps, { ...o, strategies: group.strategies, slot: group.slot });
  } catch (err) {
    const retries = scheduler.failed(group, deps.clock());
    deps.logger.debug({ retries, err: describeError(err) }, "slot stays due after a failed cycle");
    throw err;
  }
  return { report, ...scheduler.settle(group, report) };
}

function waiting(e: Entry): boolean {
  return e.failures > 0 || e.deferrals > 0;
}

/**
 * Per strategy, the submission of `account` it waits for (its outcome still unknown), in words, for the
 * strategies given: a slot missed while waiting is told with its cause (a cron user's schedule.missed
 * offered the cron cadence, the kill switch or a daily limit, every 6 hours for 2 days, never this).
 */
export function waitingOn(
  journal: Journal,
  account: string,
  strategies: readonly string[],
): Map<string, string> {
  const out = new Map<string, string>();
  if (strategies.length === 0) return out;
  const wanted = new Set(strategies);
  for (const r of journal.unresolved(account)) {
    if (!wanted.has(r.strategy) || out.has(r.strategy)) continue;
    out.set(
      r.strategy,
      `it waited for the outcome of its ${r.actionType} #${r.id} (sent ${iso(r.createdAt)}), still unknown: it acts again once that is settled (${r.expiresAfter === null ? "a staking action: until its nonce window has passed, venue.userSignedGraceMs after it was signed (2 days by default)" : `after its expiresAfter, ${iso(r.expiresAfter)}`})`,
    );
  }
  return out;
}

/**
 * Per lost slot's strategy, what is known of why nothing was done for it: the submission it waited for
 * (waitingOn), or that it ran after the slot and was held each time until the slot was too old (a pair
 * without a book all morning: once said "nothing ran for it", a cron user's trial).
 */
export function missedCauses(
  journal: Journal,
  account: string,
  missed: readonly Pick<Missed, "strategy" | "latest">[],
): Map<string, string> {
  const out = waitingOn(
    journal,
    account,
    missed.map((m) => m.strategy),
  );
  for (const m of missed) {
    if (out.has(m.strategy) || m.latest === undefined) continue;
    const latest = journal.latestDecisionSince(account, m.strategy, m.latest);
    if (latest === undefined) continue;
    out.set(
      m.strategy,
      latest.kind === "skip"
        ? `it ran after the slot and was held each time until the slot was too old (latest: ${latest.reason})`
        : // It decided to act and what it sent was not taken (refused, not processed): `history` has the answers.
          `it ran after the slot, but what it sent was not accepted before the slot was too old (latest: ${latest.reason}; \`hlbot history\` shows the venue's answers)`,
    );
  }
  return out;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export interface DueRun {
  group: SlotGroup;
  report: CycleReport | undefined;
  error: string | undefined;
  acted: string[];
  deferred: string[];
}

/**
 * Plans at the clock's time and runs each due slot group as its own cycle, oldest slot first: what
 * `once` does at each call. The daemon (daemon.ts runGroup) and simulate (runner.ts) plan with the same
 * Scheduler and run each group through the same runCycle and settle, with their own timing. A failed
 * group is reported and leaves its slot due; the other groups still run.
 */
export async function runDueSlots(
  scheduler: Scheduler,
  deps: CycleDeps,
  o: Omit<CycleOptions, "strategies" | "cycleId"> & { busy?: ReadonlySet<string> },
): Promise<{ plan: SchedulePlan; runs: DueRun[]; stopped: SlotGroup[] }> {
  // A state ahead of the local clock is moved back only with the clock right (plan): the venue's time is
  // read now for it, as the last answer may predate a step of the local clock (a daemon's stale sample
  // would call a corrected clock skewed). Not read otherwise; an unreadable venue leaves what is known.
  if (deps.refreshVenueClock !== undefined && scheduler.aheadOfClock(deps.clock()))
    await deps.refreshVenueClock().catch(() => undefined);
  const plan = scheduler.plan(deps.clock(), o.busy);
  const runs: DueRun[] = [];
  const stopped: SlotGroup[] = [];
  const { busy: _busy, ...cycle } = o;
  for (const group of plan.groups) {
    // Stopping (readSignal): the groups not started stay due, unrun, and are said so.
    if (o.readSignal?.aborted) {
      stopped.push(group);
      continue;
    }
    try {
      const r = await runSlotGroup(scheduler, deps, group, cycle);
      runs.push({ group, report: r.report, error: undefined, acted: r.acted, deferred: r.deferred });
    } catch (err) {
      if (o.signal?.aborted) throw err;
      runs.push({ group, report: undefined, error: describeError(err), acted: [], deferred: [] });
    }
  }
  return { plan, runs, stopped };
}

export interface OncePass {
  watch: {
    checked: number;
    report: CycleReport | undefined;
    error: string | undefined;
    /** Lost answers the watch's reconciliation settled (landed or absent). */
    reconciled?: ReconcileResult[];
  };
  plan: SchedulePlan;
  runs: DueRun[];
  /** Due groups not started: the pass was stopped (SIGINT, SIGTERM) first; their slots stay due. */
  stopped: SlotGroup[];
}

/**
 * One `hlbot once`: the guards of running TWAPs first (a cancel must not wait behind new orders), then
 * the due slots. A fresh Scheduler each call: everything it needs to know is in the journal.
 */
export async function oncePass(
  deps: CycleDeps,
  strategies: readonly Strategy[],
  o: {
    catchUpMs?: number;
    trigger?: CycleOptions["trigger"];
    killSwitchActive?: boolean;
    /** Aborted by a stop (SIGINT): reads end, nothing new is sent but cancels, later slots stay due. */
    readSignal?: AbortSignal;
    /**
     * The strategies whose guards the watch reads from their files (default: `strategies`): all that
     * loaded, also when none may run (a strategy file that does not load), so a limit added since the
     * TWAP was sent still applies.
     */
    watchStrategies?: readonly Strategy[];
    /** The configuration's disabled strategies (their slots pass quietly). */
    disabled?: readonly Strategy[];
  } = {},
): Promise<OncePass> {
  const { watchRunningTwaps } = await import("./guards.js");
  let watch: OncePass["watch"];
  try {
    const w = await watchRunningTwaps(deps, o.watchStrategies ?? strategies, {
      ...(o.killSwitchActive === undefined ? {} : { killSwitchActive: o.killSwitchActive }),
    });
    watch = {
      checked: w.checked,
      report: w.report,
      error: undefined,
      ...(w.reconciled ? { reconciled: w.reconciled } : {}),
    };
  } catch (err) {
    watch = { checked: 0, report: undefined, error: describeError(err) };
  }
  const scheduler = new Scheduler({
    journal: deps.journal,
    account: deps.account,
    mode: deps.exchange?.mode ?? "unsigned",
    strategies,
    ...(o.catchUpMs === undefined ? {} : { catchUpMs: o.catchUpMs }),
    ...(deps.maxClockSkewMs === undefined ? {} : { maxClockSkewMs: deps.maxClockSkewMs }),
    ...(deps.venueNow ? { venueNow: deps.venueNow } : {}),
    ...(o.disabled ? { disabled: o.disabled } : {}),
  });
  const { plan, runs, stopped } = await runDueSlots(scheduler, deps, {
    trigger: o.trigger ?? "once",
    ...(o.killSwitchActive === undefined ? {} : { killSwitchActive: o.killSwitchActive }),
    ...(o.readSignal ? { readSignal: o.readSignal } : {}),
  });
  return { watch, plan, runs, stopped };
}
