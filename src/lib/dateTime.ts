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

/** An ISO date ("2025-01-31") or date-time ("2025-01-31T08:00", seconds, ms and a zone optional). */
const ISO_DATE_TIME = /^\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,3})?)?([Zz]|[+-]\d\d:?\d\d)?)?$/;

/**
 * An ISO date or date-time as people type it, read in UTC unless it names a zone (the venue's clock):
 * `Date.parse` reads a date-time without a zone in the machine's local time, so one scenario file gave
 * a different run on a laptop in New York and on a UTC server (a scenario author's trial). NaN for
 * anything else ("Jan 2 2025", "2025") and for a day the calendar does not have.
 */
export function parseUtcDateTime(text: string): number {
  const trimmed = text.trim();
  if (!ISO_DATE_TIME.test(trimmed)) return Number.NaN;
  const t = trimmed.replace(" ", "T");
  const utc = /^\d{4}-\d\d-\d\d$/.test(t) ? `${t}T00:00:00Z` : /([Zz]|[+-]\d\d:?\d\d)$/.test(t) ? t : `${t}Z`;
  return parseDateTime(utc);
}
