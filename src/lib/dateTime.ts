// Dates as people type them: `Date.parse` rolls a day the month does not have into the next month
// ("2025-02-30" is March 2; a config trial's `--from 2025-04-31` simulated May), so a calendar date is
// checked to exist before it is read.

const LEADING_DATE = /^\s*(\d{4})-(\d{2})-(\d{2})/;

/**
 * `Date.parse(text)`, but NaN when `text` starts with a calendar date (YYYY-MM-DD) that does not exist
 * (month 13, February 30, April 31).
 */
export function parseDateTime(text: string): number {
  const t = Date.parse(text);
  if (Number.isNaN(t)) return t;
  const m = LEADING_DATE.exec(text);
  if (m === null) return t;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d
    ? t
    : Number.NaN;
}

/** " (no such day: …)" when `text` starts with a calendar date that does not exist, else "": for errors. */
export function noSuchDayNote(text: string): string {
  const m = LEADING_DATE.exec(text);
  if (m === null || Number.isNaN(Date.parse(`${m[1]}-${m[2]}-01T00:00:00Z`))) return "";
  return Number.isNaN(parseDateTime(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`))
    ? ` (no such day: ${m[1]}-${m[2]} has no day ${Number(m[3])})`
    : "";
}
