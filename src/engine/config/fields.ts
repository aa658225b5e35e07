// Reusable zod field types for the YAML files: exact decimals that may be written as YAML numbers or as
// decimal strings, addresses, durations in minutes. Kept here so the bot schema and every strategy's
// params schema speak the same language, and so the generated JSON Schema describes them the same way.
import * as z from "zod";
import { checksumProblem } from "../../lib/address.js";
import { type Decimal, parseDecimal } from "../../lib/decimal.js";
import { ADDRESS_PATTERN, HYPE_WEI_DECIMALS } from "../../venue/constants.js";

const DECIMAL_TEXT = /^\s*-?\d+(?:\.\d+)?\s*$/;
const DECIMAL_EXPECTED = 'expected a decimal number, written as 12.5 or "12.5"';

/** The message, with what was written ("1,000", "10%": a config trial saw no echo of its value). */
function decimalExpected(issue: { input?: unknown }): string {
  const v = issue.input;
  if (v === undefined || v === null || typeof v === "object") return DECIMAL_EXPECTED;
  const text = JSON.stringify(v);
  return `${DECIMAL_EXPECTED}, got ${text.length > 40 ? `${text.slice(0, 37)}…` : text}`;
}

interface DecimalBounds {
  /** Inclusive lower bound. */
  min?: string | number;
  /** Exclusive lower bound. */
  gt?: string | number;
  /** Inclusive upper bound. */
  max?: string | number;
}

/**
 * An exact decimal. YAML numbers and decimal strings mean the same value (`0.1` and `"0.1"` both become
 * exactly 0.1); exponents and other spellings are refused so nothing is silently rounded.
 */
export function decimal(bounds: DecimalBounds = {}) {
  return z
    .union(
      [z.number({ error: decimalExpected }), z.string().regex(DECIMAL_TEXT, { error: decimalExpected })],
      {
        error: decimalExpected,
      },
    )
    .transform((value, ctx): Decimal => {
      const d = parseDecimal(value);
      if (bounds.min !== undefined && d.lt(parseDecimal(bounds.min))) {
        ctx.addIssue({ code: "custom", message: `must be at least ${bounds.min}, got ${d.toFixed()}` });
      }
      if (bounds.gt !== undefined && d.lte(parseDecimal(bounds.gt))) {
        ctx.addIssue({ code: "custom", message: `must be greater than ${bounds.gt}, got ${d.toFixed()}` });
      }
      if (bounds.max !== undefined && d.gt(parseDecimal(bounds.max))) {
        // A fraction's bound: a percent written as a number (50 for 50%) is the likely mistake.
        const hint = String(bounds.max) === "1" && d.gt(1) ? " (a fraction: 0.5 means 50%)" : "";
        ctx.addIssue({ code: "custom", message: `must be at most ${bounds.max}${hint}, got ${d.toFixed()}` });
      }
      return d;
    });
}

/** A positive exact decimal (amounts, prices). */
export const positiveDecimal = () => decimal({ gt: 0 });

/** HYPE moves on the venue in whole wei: 10^-8 HYPE. */
export const HYPE_DECIMALS = HYPE_WEI_DECIMALS;

/**
 * A HYPE amount: an exact decimal the venue can represent (at most 8 decimals). A finer value would
 * be silently truncated to whole wei, so it is refused where it is written.
 */
export function hypeAmount(bounds: DecimalBounds = {}) {
  return decimal(bounds).superRefine((d, ctx) => {
    if (d.decimalPlaces() > HYPE_DECIMALS) {
      ctx.addIssue({
        code: "custom",
        message: `${d.toFixed()} has more than ${HYPE_DECIMALS} decimal places (HYPE amounts are whole wei, 0.00000001)`,
      });
    }
  });
}

/** A fraction between 0 and 1 inclusive (weights, commissions, uptime). */
export const fraction = () => decimal({ min: 0, max: 1 });

const ADDRESS = ADDRESS_PATTERN;

/** A 20-byte hex address, normalised to lower case (the venue wants lower case). */
export const address = () =>
  z
    .string()
    .regex(ADDRESS, { error: "expected a 0x-prefixed 40-hex-digit address" })
    .superRefine((a, ctx) => {
      // Not of something that is no address at all (`ValiDAO` was also told its case was no checksum).
      if (!ADDRESS.test(a)) return;
      const problem = checksumProblem(a);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
    .transform((a) => a.toLowerCase());

/**
 * An address no one holds a key for: the zero address and the low ones examples put in its place
 * (0x…0001). A value below 2^64 has 24 leading zero hex digits, which a real key gives about once in
 * 2^96 tries. Acting with another account on a permanent link must refuse them.
 */
export function isPlaceholderAddress(a: string): boolean {
  return /^0x0{24}[0-9a-f]{16}$/i.test(a);
}

/** A whole number (a plain `${ENV}` value that spells a number is re-typed as one by interpolation). */
export function integer(bounds: { min?: number; max?: number } = {}) {
  let n = z.int({ error: "expected a whole number" });
  if (bounds.min !== undefined) n = n.min(bounds.min, { error: `must be at least ${bounds.min}` });
  if (bounds.max !== undefined) n = n.max(bounds.max, { error: `must be at most ${bounds.max}` });
  return n;
}

/** Decimal-valued config fields in outputs: re-exported so callers need not import decimal.js. */
export type { Decimal };
