// Reads the minimum out of the venue's refusal of a too-small TWAP. The venue has answered, e.g.,
// "TWAP order value too small. Min is $1200, which is $10 per minute" (a 120-minute TWAP; quoted in
// hlbot issue #11 from a user report). The wording may change: anything that does not match returns
// undefined, and the refusal is then only reported, never guessed at.
import { Decimal } from "../../lib/decimal.js";

export interface TwapMinimum {
  /** The least the refused order had to be worth, in quote units ("Min is $X"). */
  total: Decimal;
  /** The per-minute rule behind it, when the text names one ("which is $Y per minute"). */
  perMinute: Decimal | undefined;
}

const AMOUNT = String.raw`\$?\s*([0-9][0-9,]*(?:\.[0-9]+)?)`;
const TOO_SMALL = new RegExp(
  String.raw`TWAP order value too small\b.*?\bMin(?:imum)? is ${AMOUNT}(?:[^$0-9]*?\bwhich is ${AMOUNT} per minute)?`,
  "is",
);

export function parseTwapMinimum(reason: string): TwapMinimum | undefined {
  const m = TOO_SMALL.exec(reason);
  if (!m?.[1]) return undefined;
  const amount = (text: string) => new Decimal(text.replaceAll(",", ""));
  const total = amount(m[1]);
  const perMinute = m[2] === undefined ? undefined : amount(m[2]);
  if (!total.gt(0) || (perMinute !== undefined && !perMinute.gt(0))) return undefined;
  return { total, perMinute };
}
