// Exact decimal arithmetic for prices, sizes, balances and HYPE amounts. The venue speaks decimal
// strings ("0.0", "12060.16529862"); they are parsed here, never through `number`, and formatted back in
// the one canonical wire form the venue hashes: no exponent, no trailing zeros, no trailing dot.
import { Decimal as DecimalJs } from "decimal.js";
import { ValidationError } from "./errors.js";

/**
 * A Decimal constructor with enough precision that + − × of venue values are exact, and exponent
 * thresholds wide enough that `toString` never switches to scientific notation.
 */
export const Decimal = DecimalJs.clone({
  precision: 120,
  rounding: DecimalJs.ROUND_DOWN,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
export type Decimal = DecimalJs;

export const ZERO = new Decimal(0);

/**
 * The quotient a / b to 30 significant digits, truncated: for ratios that are only shown (a weight as
 * a percentage), where a division to the full 120 digits cost more than the rest of a decision. Never
 * for a value acted on.
 */
export function shownRatio(a: Decimal, b: Decimal): Decimal {
  return SHOWN.div(a, b);
}

const SHOWN = DecimalJs.clone({
  precision: 30,
  rounding: DecimalJs.ROUND_DOWN,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});

const DECIMAL_STRING = /^-?(?:0|[1-9]\d*|\d+)(?:\.\d+)?$/;

/** True for a plain decimal string: optional minus, digits, optional fraction. No exponent, no spaces. */
export function isDecimalString(text: string): boolean {
  return DECIMAL_STRING.test(text);
}

/**
 * Parses a decimal from a string (strict plain notation) or a finite JS number (taken by its shortest
 * round-trip spelling, which is what a person wrote in YAML). Throws a ValidationError naming `field`.
 */
export function parseDecimal(value: string | number | Decimal, field = "value"): Decimal {
  if (value instanceof DecimalJs) return new Decimal(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      throw new ValidationError([{ path: field, message: `not a finite number: ${value}` }]);
    return new Decimal(value);
  }
  const text = value.trim();
  if (!isDecimalString(text)) {
    throw new ValidationError([
      { path: field, message: `expected a decimal number like "12.5", got ${JSON.stringify(value)}` },
    ]);
  }
  return new Decimal(text);
}

/** The venue's canonical spelling: `1.50` → `"1.5"`, `1e-8` → `"0.00000001"`, `-0` → `"0"`. */
export function toWireDecimal(value: Decimal): string {
  if (!value.isFinite()) throw new ValidationError(`not a finite decimal: ${value.toString()}`);
  if (value.isZero()) return "0";
  // decimal.js keeps no trailing zeros in its coefficient, and toFixed() never uses an exponent.
  return value.toFixed();
}

/** Truncates toward zero to at most `decimals` fractional digits. Never rounds up. */
export function truncateDecimals(value: Decimal, decimals: number): Decimal {
  if (!Number.isInteger(decimals) || decimals < 0) throw new ValidationError(`invalid decimals: ${decimals}`);
  return value.toDecimalPlaces(decimals, DecimalJs.ROUND_DOWN);
}

/** Number of digits after the point in the canonical spelling. */
export function fractionDigits(value: Decimal): number {
  return value.decimalPlaces();
}

/**
 * Converts a token amount to its integer base units (HYPE has 8 wei decimals): exact, or a
 * ValidationError when the amount has more fractional digits than the token allows, is negative, or
 * does not fit in a uint64.
 */
export function toWei(amount: Decimal | string | number, weiDecimals: number, field = "amount"): bigint {
  const value = parseDecimal(amount, field);
  if (value.isNegative())
    throw new ValidationError([
      { path: field, message: `must not be negative, got ${toWireDecimal(value)}` },
    ]);
  const scaled = value.times(new Decimal(10).pow(weiDecimals));
  if (!scaled.isInteger()) {
    throw new ValidationError([
      {
        path: field,
        message: `${toWireDecimal(value)} has more than ${weiDecimals} decimal places and cannot be represented exactly`,
      },
    ]);
  }
  const wei = BigInt(scaled.toFixed(0));
  if (wei > MAX_UINT64)
    throw new ValidationError([
      { path: field, message: `${toWireDecimal(value)} is too large (exceeds uint64 wei)` },
    ]);
  return wei;
}

/** Integer base units back to a decimal amount (exact: the digits with the point moved, no division). */
export function fromWei(wei: bigint | number, weiDecimals: number): Decimal {
  return new Decimal(`${wei.toString()}e-${weiDecimals}`);
}

export const MAX_UINT64 = (1n << 64n) - 1n;

/** Sum of decimals (exact). */
export function sum(values: Iterable<Decimal>): Decimal {
  let total = ZERO;
  for (const v of values) total = total.plus(v);
  return total;
}
