// The TWAP minimum the venue itself has stated. When it refuses a TWAP as too small ("Min is $X",
// parsed by src/venue/exchange/twapMinimum.ts), the refusal is journaled with its text; every cycle
// then plans with rules at least that strict, so the next attempt is sized by the venue's own number
// instead of repeating the refused order. The latest such refusal of the account wins.
import { Decimal } from "../lib/decimal.js";
import { parseTwapMinimum } from "../venue/exchange/twapMinimum.js";
import type { SubmissionRow } from "./journal.js";
import type { VenueRules } from "./snapshot.js";

/** How many recent submissions are searched for a refusal. */
export const LEARN_WINDOW = 500;

export interface LearntRules {
  rules: VenueRules;
  /** What was learnt, for a log line; undefined when the configured rules stand. */
  note: string | undefined;
}

/** `configured`, made as strict as the latest too-small refusal among `recent` (newest first). */
export function rulesWithVenueMinimum(
  configured: VenueRules,
  recent: readonly Pick<SubmissionRow, "account" | "actionType" | "status" | "reason">[],
  account: string,
): LearntRules {
  for (const row of recent) {
    if (row.account !== account || row.actionType !== "twapOrder" || row.status !== "rejected") continue;
    const min = row.reason === null ? undefined : parseTwapMinimum(row.reason);
    if (min === undefined) continue;
    if (min.perMinute !== undefined) {
      // A per-minute rule: the whole order must be worth perMinute × minutes, i.e. each slice
      // perMinute × sliceSeconds / 60. Longer TWAPs are shortened to satisfy it.
      const perSlice = min.perMinute.times(configured.twapSliceSeconds).div(60);
      if (perSlice.lte(configured.twapMinSliceValue)) return { rules: configured, note: undefined };
      return {
        rules: { ...configured, twapMinSliceValue: perSlice },
        note: `the venue refused a TWAP as too small (${min.perMinute.toFixed()} per minute): TWAPs are planned with at least ${perSlice.toFixed()} per ${configured.twapSliceSeconds}-s slice`,
      };
    }
    if (min.total.lte(configured.twapMinOrderValue)) return { rules: configured, note: undefined };
    return {
      rules: { ...configured, twapMinOrderValue: Decimal.max(configured.twapMinOrderValue, min.total) },
      note: `the venue refused a TWAP as too small (min ${min.total.toFixed()}): TWAPs are planned at ${min.total.toFixed()} or more`,
    };
  }
  return { rules: configured, note: undefined };
}
