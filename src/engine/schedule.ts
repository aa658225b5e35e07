// Cron schedules with node-cron's own semantics, usable in real time (the daemon hands expressions to
// node-cron) and in virtual time (`simulate` asks for the next occurrence after any instant).
import cron from "node-cron";
import { ValidationError } from "../lib/errors.js";

export function validateCron(expression: string, field = "schedule"): void {
  const result = cron.validateDetailed(expression);
  if (!result.valid || !cron.validate(expression)) {
    const why =
      result.errors.map((e) => `${e.field}: ${e.message}`).join("; ") || "it never matches any date";
    throw new ValidationError([
      { path: field, message: `invalid cron expression ${JSON.stringify(expression)}: ${why}` },
    ]);
  }
}

const MINUTE = 60_000;
/** Searching further than this for the next match means the expression is effectively never due. */
const HORIZON_MS = 366 * 24 * 60 * MINUTE * 5;

/** Next occurrences of a cron expression in virtual time, using node-cron's matcher. */
export class CronSchedule {
  private readonly task: ReturnType<typeof cron.createTask>;
  private readonly hasSeconds: boolean;
  /** In UTC the parsed hour/minute/second sets let the search skip whole hours and minutes. */
  private readonly fast: { hours: Set<number>; minutes: number[]; seconds: number[] } | undefined;

  constructor(
    readonly expression: string,
    readonly timezone = "UTC",
  ) {
    validateCron(expression);
    this.task = cron.createTask(expression, () => undefined, { timezone });
    this.hasSeconds = expression.trim().split(/\s+/).length === 6;
    if (timezone === "UTC") {
      const fields = cron.parse(expression);
      this.fast = {
        hours: new Set(fields.hour),
        minutes: [...fields.minute].sort((a, b) => a - b),
        seconds: [...fields.second].sort((a, b) => a - b),
      };
    }
  }

  /** The first matching instant strictly after `afterMs`, or undefined within five years. */
  next(afterMs: number): number | undefined {
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
      if (this.task.match(new Date(t))) return t;
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
