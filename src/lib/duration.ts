// Durations written by hand in bot and scenario files: "90s", "15m", "2h", "1.5d", and compound ones
// ("1d8h", "2h 30m": a bear-market trial wrote "36h33m" for an event and was refused).

/** Milliseconds per unit. */
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

export type DurationUnit = keyof typeof UNIT_MS;

const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/y;

/**
 * The milliseconds of a text of one or more number–unit parts, each unit one of `units` and larger than
 * the one after it ("1d8h", not "8h1d" or "1h1h"); undefined when it is not one.
 */
export function durationText(text: string, units: readonly DurationUnit[]): number | undefined {
  const s = text.trim();
  if (s === "") return undefined;
  let at = 0;
  let total = 0;
  let previous = Number.POSITIVE_INFINITY;
  while (at < s.length) {
    PART.lastIndex = at;
    const m = PART.exec(s);
    if (!m) return undefined;
    const unit = m[2] as DurationUnit;
    if (!units.includes(unit) || UNIT_MS[unit] >= previous) return undefined;
    previous = UNIT_MS[unit];
    total += Number(m[1]) * UNIT_MS[unit];
    at = PART.lastIndex;
    while (s[at] === " ") at++;
  }
  return Math.round(total);
}
