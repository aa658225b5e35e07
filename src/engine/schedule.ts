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

  constructor(
    readonly expression: string,
    readonly timezone = "UTC",
  ) {
    validateCron(expression);
    this.task = cron.createTask(expression, () => undefined, { timezone });
    this.hasSeconds = expression.trim().split(/\s+/).length === 6;
  }

  /** The first matching instant strictly after `afterMs`, or undefined within five years. */
  next(afterMs: number): number | undefined {
    const step = this.hasSeconds ? 1000 : MINUTE;
    let t = Math.floor(afterMs / step) * step + step;
    const end = afterMs + HORIZON_MS;
    for (; t <= end; t += step) {
      if (this.task.match(new Date(t))) return t;
    }
    return undefined;
  }
}
