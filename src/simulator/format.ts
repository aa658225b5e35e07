// How the simulated venue spells numbers in its answers. The venue is inconsistent ("0.0", "2000",
// "12060.16529862"); this simulator writes integers with a trailing ".0" and everything else in the
// canonical form, which every client must accept anyway.
import type { Decimal } from "../lib/decimal.js";
import { toWireDecimal } from "../lib/decimal.js";

/** Venue-style decimal: integers keep a ".0" ("2000.0"), others are canonical ("12.5"). */
export function fmt(d: Decimal): string {
  const s = toWireDecimal(d);
  return s.includes(".") ? s : `${s}.0`;
}
