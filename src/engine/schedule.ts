// Cron schedules with node-cron's own semantics, usable in real time (the daemon hands expressions to
// node-cron) and in virtual time (`simulate` asks for the next occurrence after any instant).
import cron from "node-cron";
import { durationText } from "../lib/duration.js";
import { ValidationError } from "../lib/errors.js";

export function validateCron(expression: string, field = "schedule"): void {
  const result = cron.validateDetailed(expression);
  if (!result.valid || !cron.validate(expression)) {
    const why =
      result.errors
        // node-cron's own wording ("abc is a invalid expression for minute").
        .map((e) => `${e.field}: ${e.message.replace(/ is a invalid expression for /, " is not a valid ")}`)
        .join("; ") || "it never matches any date";
    throw new ValidationError([
      { path: field, message: `invalid cron expression ${JSON.stringify(expression)}: ${why}` },
    ]);
  }
}

/**
 * A schedule as a bot file may give it: a cron expression (validateCron), and no seconds field unless
 * the schedule runs more than once a minute. node-cron reads a sixth field as seconds, first: a stray
 * field ("0 9 * * 1 *", meant weekly) would shift every field and run hourly. A seconds field that is
 * one number adds nothing a 5-field expression cannot say, so it is refused as that likely slip.
 */
export function validateSchedule(expression: string, field = "schedule"): void {
  validateCron(expression, field);
  const words = expression.trim().split(/\s+/);
  if (words.length === 6 && /^\d+$/.test(words[0]!))
    throw new ValidationError([
      {
        path: field,
        message:
          `${JSON.stringify(expression)} has 6 fields, and cron reads the first as seconds: minute ${words[1]}, hour ${words[2]}, ` +
          `day ${words[3]}, month ${words[4]}, weekday ${words[5]}. hlbot schedules by the minute: write the 5 fields ` +
          "minute hour day-of-month month weekday (a seconds field only for a schedule that runs more than once a minute)",
      },
    ]);
}

/** Each field of a 5- or 6-field expression: its name and the range a step counts in. */
const FIELDS = [
  { name: "second", size: 60 },
  { name: "minute", size: 60 },
  { name: "hour", size: 24 },
  { name: "day of month", size: 31 },
  { name: "month", size: 12 },
  { name: "weekday", size: 7 },
] as const;

/**
 * What a valid schedule does that its writer may not mean, in words (config validate warns):
 * - a step as long as its field or longer ("*\/90" minutes) matches only the field's first value: it
 *   runs hourly, not every 90 minutes;
 * - with both the day of month and the weekday restricted ("0 0 1-7 * 1"), node-cron runs on the days
 *   that match both (the first Monday), where crontab runs on the days that match either.
 */
export function scheduleWarnings(expression: string): string[] {
  const words = expression.trim().split(/\s+/);
  const fields = words.length === 6 ? FIELDS : FIELDS.slice(1);
  const out: string[] = [];
  words.forEach((word, i) => {
    const field = fields[i];
    if (field === undefined) return;
    for (const part of word.split(",")) {
      const step = /\/(\d+)$/.exec(part);
      const n = Number(step?.[1]);
      if (step && n >= field.size)
        out.push(
          `${field.name} "${part}": a step of ${step[1]} is not shorter than the ${field.size} values of the field, so it matches only its first value ` +
            `(not "every ${step[1]}"). Cron cannot count steps across hours or days.`,
        );
      // A step that does not divide a clock field restarts at 0 each hour (minute) or day (hour):
      // "*/45" runs at :00 and :45, 45 then 15 minutes apart.
      else if (step && part.startsWith("*/") && field.size % n !== 0 && i < fields.indexOf(FIELDS[3]!)) {
        const last = Math.floor((field.size - 1) / n) * n;
        out.push(
          `${field.name} "${part}": ${field.size} is not a multiple of ${n}, so the steps restart at 0: it runs at ${field.name}s 0 to ${last} ` +
            `every ${n}, then ${field.size - last} after ${last} (not evenly every ${n}).`,
        );
      }
    }
  });
  const [dom, , dow] = words.slice(-3);
  // A field starting with "*" ("*/2") is unrestricted to crontab too, which then also needs both.
  const restricted = (field: string | undefined) =>
    field !== undefined && !field.startsWith("*") && field !== "?";
  if (restricted(dom) && restricted(dow))
    out.push(
      `day of month "${dom}" and weekday "${dow}" are both set: hlbot (node-cron) runs only on days that match both, ` +
        "where crontab runs on days that match either.",
    );
  else if (restricted(dom) && (dow === "*" || dow === "?")) {
    const lacking = monthsLackingDays(expression);
    if (lacking !== undefined) out.push(`day of month "${dom}": ${lacking}`);
  }
  return out;
}

const MONTH_NAMES = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * Days of month some months lack ("0 0 31 * *", "0 0 29 2 *"): the months its month field names in
 * which the schedule does not run in some year of 2025 to 2028 (a leap year among them), in words, or
 * undefined. A monthly DCA on the 31st buys 7 times a year, not 12 (a cron user's trial: unwarned).
 */
function monthsLackingDays(expression: string): string | undefined {
  // By arithmetic on the parsed day-of-month and month sets (the weekday is "*" here): asking the
  // matcher for the next run walked minute by minute, 20 to 45 s for "* * 28 * *" (a review).
  const fields = cron.parse(expression);
  const days = [...fields.dayOfMonth].map(Number);
  // "L" (the last day) and other words than numbers: every month has one.
  if (days.some((d) => !Number.isInteger(d))) return undefined;
  const months = [...new Set(fields.month.map(Number))].sort((a, b) => a - b);
  const actual: boolean[][] = [];
  for (let y = 2025; y <= 2028; y++) {
    const row = new Array<boolean>(12).fill(false);
    for (const m of months) {
      const length = new Date(Date.UTC(y, m, 0)).getUTCDate();
      row[m - 1] = days.some((d) => d <= length);
    }
    actual.push(row);
  }
  const always: string[] = [];
  const sometimes: string[] = [];
  for (const m of months) {
    const years = actual.filter((row) => row[m - 1]).length;
    if (years === 0) always.push(MONTH_NAMES[m - 1]!);
    else if (years < actual.length) sometimes.push(MONTH_NAMES[m - 1]!);
  }
  if (always.length === 0 && sometimes.length === 0) return undefined;
  const perYear = actual.map((row) => row.filter(Boolean).length);
  const parts = [
    always.length > 0 ? `it never runs in ${always.join(", ")} (no such day)` : "",
    sometimes.length > 0 ? `in ${sometimes.join(", ")} it runs only in leap years` : "",
  ].filter(Boolean);
  return (
    `${parts.join("; ")}: it runs in ${[...new Set(perYear)].join(" or ")} month(s) a year, not every month its month field names. ` +
    'For "the last day of the month" use day 1 of the next month (e.g. "0 0 1 * *"), or a day every month has (1 to 28).'
  );
}

/** Whether a (valid) expression has a seconds field: it runs more than once a minute. */
export function hasSecondsField(expression: string): boolean {
  return expression.trim().split(/\s+/).length === 6;
}

const MINUTE = 60_000;
/** Default catch-up window of a cron slot (bot config `schedule.catchUp`). */
export const DEFAULT_CATCH_UP_MS = 2 * 60 * MINUTE;
/**
 * How far the local clock may be from the venue's for strategies to decide (schedule.maxClockSkew):
 * minutes, not the seconds a clock warning is given at (a clock seconds off runs a slot seconds early
 * or late, nothing worse).
 */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5 * MINUTE;
/** Searching further than this for the next match means the expression is effectively never due. */
const HORIZON_MS = 366 * 24 * 60 * MINUTE * 5;
/** Answers a CronSchedule remembers (see `recent`). */
const RECENT_ANSWERS = 8;

/** Next occurrences of a cron expression in virtual time, using node-cron's matcher. */
export class CronSchedule {
  private readonly task: ReturnType<typeof cron.createTask>;
  private readonly hasSeconds: boolean;
  /** In UTC the parsed hour/minute/second sets let the search skip whole hours and minutes. */
  private readonly fast:
    | { hours: Set<number>; minutes: number[]; seconds: number[]; everyDay: boolean }
    | undefined;
  /**
   * Recent answers: `next(after)` was `result`. For any later `after` still before `result` the answer
   * is the same (nothing matched between), so the scheduler's many questions between two slots cost a
   * comparison instead of a search. A few are kept: one verdict asks about now and about the last slot.
   */
  private readonly recent: Array<{ after: number; result: number }> = [];

  constructor(
    readonly expression: string,
    readonly timezone = "UTC",
  ) {
    validateCron(expression);
    this.task = cron.createTask(expression, () => undefined, { timezone });
    const words = expression.trim().split(/\s+/);
    this.hasSeconds = words.length === 6;
    if (timezone === "UTC") {
      const fields = cron.parse(expression);
      this.fast = {
        hours: new Set(fields.hour),
        minutes: [...fields.minute].sort((a, b) => a - b),
        seconds: [...fields.second].sort((a, b) => a - b),
        // Day of month, month and weekday all "*": every day matches, node-cron need not be asked.
        everyDay: words.slice(-3).every((w) => w === "*"),
      };
    }
  }

  /** The first matching instant strictly after `afterMs`, or undefined within five years. */
  next(afterMs: number): number | undefined {
    for (const r of this.recent) if (afterMs >= r.after && afterMs < r.result) return r.result;
    const result = this.search(afterMs);
    if (result !== undefined) {
      this.recent.unshift({ after: afterMs, result });
      if (this.recent.length > RECENT_ANSWERS) this.recent.pop();
    }
    return result;
  }

  private search(afterMs: number): number | undefined {
    const step = this.hasSeconds ? 1000 : MINUTE;
    let t = Math.floor(afterMs / step) * step + step;
    const end = afterMs + HORIZON_MS;
    const fast = this.fast;
    while (t <= end) {
      if (fast) {
        const d = new Date(t);
        if (!fast.hours.has(d.getUTCHours())) {
          t = nextHour(t);
          continue;
        }
        const minute = fast.minutes.find((m) => m >= d.getUTCMinutes());
        if (minute === undefined) {
          t = nextHour(t);
          continue;
        }
        if (minute !== d.getUTCMinutes()) {
          t = startOfHour(t) + minute * MINUTE;
          continue;
        }
        if (this.hasSeconds) {
          const second = fast.seconds.find((x) => x >= d.getUTCSeconds());
          if (second === undefined) {
            t = startOfMinute(t) + MINUTE;
            continue;
          }
          if (second !== d.getUTCSeconds()) {
            t = startOfMinute(t) + second * 1000;
            continue;
          }
        }
      }
      // Day of month, month and weekday (with node-cron's special tokens) are left to node-cron itself.
      if (fast?.everyDay || this.task.match(new Date(t))) return t;
      t += step;
    }
    return undefined;
  }
}

const HOUR = 60 * MINUTE;
function startOfHour(t: number): number {
  return Math.floor(t / HOUR) * HOUR;
}
function nextHour(t: number): number {
  return startOfHour(t) + HOUR;
}
function startOfMinute(t: number): number {
  return Math.floor(t / MINUTE) * MINUTE;
}

/** Most slots counted when reporting missed ones (a long downtime of a per-second schedule). */
const MAX_COUNTED_SLOTS = 10_000;

/** What the scheduler remembers of one strategy (the journal's `schedule_slots` row). */
export interface SlotState {
  /** The latest slot settled: acted in, or reported as missed. Undefined: none yet. */
  lastSlot: number | undefined;
  /** When hlbot first saw the strategy: its slots count from then on. */
  firstSeen: number;
  /** Whether `lastSlot` was acted in (not reported missed). */
  lastActed?: boolean;
  /** The cron expression `lastSlot` was settled under (journals from before it was kept: none). */
  lastSchedule?: string;
  /** What was sent in the last slot proved absent, and the slot is due again (Journal.reopenSlot). */
  reopened?: boolean;
}

export type SlotVerdict =
  | {
      due: true;
      /** The slot to act in now: the latest one that has come, within the catch-up window. */
      slot: number;
      /** Older slots since the last settled one that are not caught up (only the latest is). */
      missed: number;
      /** The latest of them, if any (settled as missed when reported, so each is reported once). */
      latestMissed: number | undefined;
      next: number | undefined;
    }
  | {
      due: false;
      /** Slots that came since the last settled one and are now too old to catch up. */
      missed: number;
      /** The latest of them, if any. */
      latestMissed: number | undefined;
      next: number | undefined;
    };

/**
 * Whether a strategy is due at `now`. Its slots are the instants its cron expression matches after the
 * later of its last settled slot and the moment hlbot first saw it. Of the slots that have come, only
 * the latest is acted in, and only while `now` is within `catchUpMs` of it; older ones are missed
 * (counted, never run). So a slot is acted in at most once, whichever command (`run`, `once`,
 * `simulate`) finds it due, and a slot missed by downtime or a failure is caught up once, in time.
 */
export function slotVerdict(
  cron: CronSchedule,
  given: SlotState,
  now: number,
  catchUpMs: number,
  /** How far ahead a state may stand (the scheduler's: acted in early); beyond it, brought back. */
  toleranceMs = 0,
): SlotVerdict {
  const state = rewoundSlotState(cron, given, now, undefined, toleranceMs) ?? given;
  let after = state.lastSlot ?? state.firstSeen;
  // The schedule changed since the strategy last acted: a slot of the new schedule nearer to that run
  // than half a period (the shorter of the old and the new) counts as the one it ran in. Moved from
  // 08:00 to 08:30 after buying at 08:00, a daily DCA bought again at 08:30 (review of 2026-11-27);
  // moved to 06:30 the next morning it still buys that day, and a daily DCA made weekly after Friday's
  // buy still makes Monday's (the old period, a day, bounds it). Journals from before the expression
  // was kept: a last slot not on this schedule means it changed, measured against the new period.
  const last = state.lastSlot;
  if (last !== undefined && state.lastActed === true) {
    const changed =
      state.lastSchedule !== undefined
        ? state.lastSchedule !== cron.expression
        : cron.next(last - 1) !== last;
    const first = changed ? cron.next(last) : undefined;
    const second = first === undefined ? undefined : cron.next(first);
    if (first !== undefined && second !== undefined) {
      let period = second - first;
      const before = state.lastSchedule === undefined ? undefined : periodAfter(state.lastSchedule, last);
      if (before !== undefined) period = Math.min(period, before);
      if (first - last < period / 2) after = first;
    }
  }
  const next = cron.next(Math.max(now, after));
  let latest: number | undefined;
  let count = 0;
  // Counting from `after` could walk years of per-second slots: start close to `now` when far behind.
  let t = cron.next(Math.max(after, now - catchUpMs - 1));
  if (t !== undefined && t > now) t = undefined;
  if (after < now - catchUpMs - 1) count += countSlots(cron, after, now - catchUpMs - 1);
  let before: number | undefined;
  while (t !== undefined && t <= now) {
    if (latest !== undefined) {
      count++;
      before = latest;
    }
    latest = t;
    t = cron.next(t);
  }
  // The latest missed: the slot before the due one within the window, else the last before the window.
  const latestMissed =
    before ?? (count > 0 ? lastSlotAtOrBefore(cron, after, now - catchUpMs - 1) : undefined);
  if (latest === undefined) return { due: false, missed: count, latestMissed, next };
  return { due: true, slot: latest, missed: count, latestMissed, next };
}

/**
 * A slot state written while the clock ran ahead (a settled slot, or the first sighting, still to come),
 * brought back to `now`; undefined when it is not ahead. Counted from a future slot, nothing was due until
 * the clock reached it again: a clock a day ahead for a minute, then corrected, stopped every strategy for
 * that day (a year ahead, for a year) while /health said "ok" (an operator's trial). The latest slot
 * that has come, under the expression the state was settled under (a schedule edited since is measured
 * against it, as after any run: moved from 08:30 to 09:00 after buying, a DCA does not buy again), is
 * settled as acted when `sent(slot)` says something was sent since it began, else the slot before it, so
 * it is due again. Without `sent` (a pure verdict) it counts as acted: never run twice. The scheduler
 * passes the journal's answer, with the rows written while ahead dated back first (Journal.redateFuture),
 * and writes the result back (Journal.rewindSlot), so later verdicts count from it.
 */
export function rewoundSlotState(
  cron: CronSchedule,
  state: SlotState,
  now: number,
  sent?: (slot: number) => boolean,
  /** How far ahead a state may be and still stand (schedule.maxClockSkew): acted in a little early. */
  toleranceMs = 0,
): SlotState | undefined {
  const until = now + toleranceMs;
  if (state.firstSeen <= until && (state.lastSlot === undefined || state.lastSlot <= until)) return undefined;
  const firstSeen = Math.min(state.firstSeen, now);
  let settledUnder = cron;
  if (state.lastSchedule !== undefined && state.lastSchedule !== cron.expression) {
    try {
      settledUnder = new CronSchedule(state.lastSchedule);
    } catch {
      // An expression no longer valid: the current one.
    }
  }
  const latest = lastSlotAtOrBefore(settledUnder, firstSeen, now);
  if (latest === undefined) return { firstSeen, lastSlot: undefined };
  const acted = sent?.(latest) ?? true;
  const lastSlot = acted ? latest : lastSlotAtOrBefore(settledUnder, firstSeen, latest - 1);
  if (lastSlot === undefined) return { firstSeen, lastSlot: undefined };
  return { firstSeen, lastSlot, lastActed: acted, lastSchedule: settledUnder.expression };
}

/** Time from `slot` to the next slot of `expression` (undefined when it is not a valid expression or never comes). */
function periodAfter(expression: string, slot: number): number | undefined {
  try {
    const next = new CronSchedule(expression).next(slot);
    return next === undefined ? undefined : next - slot;
  } catch {
    return undefined;
  }
}

/** Slots in (after, until], counted up to MAX_COUNTED_SLOTS. */
function countSlots(cron: CronSchedule, after: number, until: number): number {
  let n = 0;
  let t = cron.next(after);
  while (t !== undefined && t <= until && n < MAX_COUNTED_SLOTS) {
    n++;
    t = cron.next(t);
  }
  return n;
}

/** The latest slot in (after, until], or undefined. */
export function lastSlotAtOrBefore(cron: CronSchedule, after: number, until: number): number | undefined {
  // Search back in growing windows so a long gap costs few steps.
  for (let span = HOUR; ; span *= 4) {
    const from = Math.max(after, until - span);
    let last: number | undefined;
    let t = cron.next(from);
    while (t !== undefined && t <= until) {
      last = t;
      t = cron.next(t);
    }
    if (last !== undefined || from === after) return last;
  }
}

/** Parses a duration like "90s", "15m", "2h", "1d", "1d12h" (or a number of minutes) into milliseconds. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? value * MINUTE : undefined;
  return durationText(value, ["s", "m", "h", "d"]);
}
