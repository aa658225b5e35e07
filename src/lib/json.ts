// Lossless JSON. The venue sends integers beyond 2^53 (validatorSummaries `stake`), and actions carry
// uint64 `wei`. Parsing: integers that are not safe JS numbers become `bigint`; everything else is a
// plain number. Serializing: `bigint` is written as bare digits. Both have a fast path through the
// native JSON functions when no big integer can be present.
import { isSafeNumber, parse as losslessParse, stringify as losslessStringify } from "lossless-json";

/** 16 or more consecutive digits: the only way a JSON text can hold an integer beyond 2^53 − 1. */
const LONG_DIGIT_RUN = /\d{16}/;

function parseNumber(text: string): number | bigint {
  if (/^-?\d+$/.test(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/** Parses JSON text; unsafe integers become `bigint`. Throws SyntaxError on invalid JSON. */
export function parseJson(text: string): unknown {
  // Native JSON.parse is exact when no number token has 16+ digits. A long digit run inside a string
  // (a hash) only sends us to the slower exact parser; it never makes the result wrong.
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return losslessParse(text, null, parseNumber);
}

function hasBigInt(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(hasBigInt);
  for (const v of Object.values(value)) if (hasBigInt(v)) return true;
  return false;
}

/** Serializes to JSON; `bigint` values are written as bare integer digits, never quoted or rounded. */
export function stringifyJson(value: unknown, indent?: number): string {
  if (!hasBigInt(value)) return JSON.stringify(value, null, indent);
  const out = losslessStringify(value, null, indent);
  if (out === undefined) throw new TypeError("value is not serializable to JSON");
  return out;
}
