// Shared zod primitives of the info API. Request primitives encode the seed's exact wire formats
// (addresses 42 chars `^0[xX][0-9a-fA-F]+$`, tokenId 34, tx hash 66) and are what the simulator uses to
// answer 422 for undeserializable bodies. Response primitives keep decimal strings as strings (checked
// to be plain decimals; do arithmetic with src/lib/decimal.ts), timestamps as numbers, and integers that
// may exceed 2^53 as bigint.
import { z } from "zod";
import { isDecimalString } from "../../lib/decimal.js";
import { ADDRESS_PATTERN } from "../constants.js";

const HEX_PREFIXED = /^0[xX][0-9a-fA-F]+$/;

function hexOfLength(length: number, what: string) {
  return z
    .string({ error: (iss) => (iss.input === undefined ? "required" : `expected ${what} (a string)`) })
    .refine((s) => s.length === length && HEX_PREFIXED.test(s), {
      error: `expected ${what}: "0x" followed by ${length - 2} hex digits (${length} characters)`,
    });
}

// ---- Request fields ----

/** A user or validator address in a request. Validated, then sent lower-case (the venue's convention). */
export const Address = hexOfLength(42, "an address").transform((s) => s.toLowerCase() as `0x${string}`);

// Hex request fields are sent lower-case, "0x" prefix included, as the public SDK does
// (@nktkas/hyperliquid api/_schemas.ts `Hex`: validate, then toLowerCase).

/** A token id from spotMeta.tokens[].tokenId (34 characters). Validated, then sent lower-case. */
export const TokenId = hexOfLength(34, "a token id").transform((s) => s.toLowerCase() as `0x${string}`);

/** A transaction hash (66 characters). Validated, then sent lower-case. */
export const TxHash = hexOfLength(66, "a transaction hash").transform(
  (s) => s.toLowerCase() as `0x${string}`,
);

/** A perp dex name; "" is the main dex. */
export const DexName = z.string({ error: "expected a dex name (a string)" }).max(64);

// ---- Response fields ----

/** An address as the venue returns it (0x + 40 hex digits, case kept). */
export const AddressOut = z
  .string()
  .regex(ADDRESS_PATTERN, { error: "expected an address (0x + 40 hex digits)" })
  .transform((s) => s as `0x${string}`);

/** A 32-byte hash as the venue returns it. */
export const HashOut = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, { error: "expected a hash (0x + 64 hex digits)" })
  .transform((s) => s as `0x${string}`);

/** A token id as the venue returns it (0x + 32 hex digits). */
export const TokenIdOut = z
  .string()
  .regex(/^0x[0-9a-fA-F]{32}$/, { error: "expected a token id (0x + 32 hex digits)" })
  .transform((s) => s as `0x${string}`);

/**
 * A decimal number as a string ("0.0", "-12.5", "2000"). Kept as the string the venue sent; parse it
 * with parseDecimal for arithmetic, never through `number`.
 */
export const DecimalString = z.string().refine(isDecimalString, { error: "expected a decimal string" });

/** A JSON integer that fits a JS number exactly. */
export const SafeInt = z.number().int({ error: "expected an integer" });

/** A non-negative safe integer (counts, indices, ids). */
export const UInt = SafeInt.nonnegative({ error: "expected a non-negative integer" });

/** Unix milliseconds. */
export const TimestampMs = UInt;

/**
 * An integer that may exceed 2^53 (validatorSummaries stake, HYPE × 1e8). parseJson delivers it as a
 * number when safe and as a bigint otherwise; callers always get a bigint.
 */
export const BigIntValue = z
  .union([z.bigint(), z.number().int()], { error: "expected an integer" })
  .transform((v) => (typeof v === "bigint" ? v : BigInt(v)));

/** A `[tokenIndex, decimal]` pair, as in tokenToPortfolioBorrowRatio. */
export const TokenDecimalPair = z.tuple([UInt, DecimalString]);

/** Order side: "B" bid/buy, "A" ask/sell. */
export const Side = z.enum(["B", "A"]);
