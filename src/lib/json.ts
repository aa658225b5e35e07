// Lossless JSON. The venue sends integers beyond 2^53 (validatorSummaries `stake`), and actions carry
// uint64 `wei`. Parsing: integers that are not safe JS numbers become `bigint`; everything else is a
// plain number. Serializing: `bigint` is written as bare digits. Both have a fast path through the
// native JSON functions when no big integer can be present.
import { isSafeNumber, parse as losslessParse, stringify as losslessStringify } from "lossless-json";

/**
 * 16 or more digits starting a value (after `:`, `,` or `[`, or as the whole document): the only way a
 * JSON text can hold an integer beyond 2^53 − 1. Digit runs inside strings (a hex address of repeated
 * digits, a hash) do not match unless a `:`, `,` or `[` happens to precede them in the string.
 */
const LONG_NUMBER_START = /(?:^|[:,[])\s*-?\d{16}/;
/** Any 16 digits in a row: a cheaper first test, true for every text LONG_NUMBER_START matches. */
const LONG_DIGIT_RUN = /\d{16}/;

function parseNumber(text: string): number | bigint {
  if (/^-?\d+$/.test(text) && !isSafeNumber(text)) return BigInt(text);
  return Number(text);
}

/**
 * An integer token of 16+ digits in value position: after `:`, `,` or `[` and before `,`, `]` or `}`
 * (whitespace allowed), so never part of a fraction, an exponent or an object key. The same characters
 * can occur inside a string ("a:12345678901234567890,"); see parseJson for why that is still safe.
 */
const LONG_INTEGER_VALUE = /([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g;
/** Prefix of the placeholder an unsafe integer becomes, as parsed (NUL) and as written in the JSON text. */
const BIG_MARK = "\u0000bigint:";
const BIG_MARK_JSON = "\\u0000bigint:";
/** A placeholder as JSON.stringify writes it, with the digits captured. */
const BIG_MARK_WRITTEN = /"\\u0000bigint:(-?\d+)"/g;

/**
 * Deepest nesting of arrays and objects `parseJson` accepts by default. The venue's answers nest fewer
 * than 10 levels; a body nested thousands deep is hostile or broken, and every recursive walk of it
 * (this module's own, zod's, JSON.stringify when the journal stores it) would end in "Maximum call stack
 * size exceeded" somewhere far from the cause.
 */
export const MAX_JSON_DEPTH = 512;

/** Thrown by parseJson for text nested deeper than allowed (a SyntaxError, like any unreadable JSON). */
export class JsonDepthError extends SyntaxError {
  constructor(readonly maxDepth: number) {
    super(`JSON nested deeper than ${maxDepth} levels`);
    this.name = "JsonDepthError";
  }
}

/** How many times `char` occurs in `text`, counting no further than `limit` + 1. */
function occurrences(text: string, char: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1 && n <= limit; i = text.indexOf(char, i + 1)) n++;
  return n;
}

/** Throws JsonDepthError when brackets outside strings nest deeper than `maxDepth`. One linear scan. */
function checkDepth(text: string, maxDepth: number): void {
  // Nesting deeper than maxDepth needs more than 2 × maxDepth characters, and more than maxDepth
  // opening brackets (counted natively; those inside strings only make the count larger).
  if (text.length <= 2 * maxDepth) return;
  if (occurrences(text, "[", maxDepth) + occurrences(text, "{", maxDepth) <= maxDepth) return;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) throw new JsonDepthError(maxDepth);
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
}

/**
 * Parses JSON text; unsafe integers become `bigint`. Throws SyntaxError on invalid JSON, and
 * JsonDepthError (a SyntaxError) on text nested deeper than `maxDepth` (default MAX_JSON_DEPTH). A key
 * given twice in an object keeps its last value, as the native parser does; only the exact parser,
 * taken for text holding an integer beyond 2^53, refuses it.
 */
export function parseJson(text: string, options: { maxDepth?: number } = {}): unknown {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  // The native parser first (it nests without recursion, so deep text is no danger to it); then one
  // walk of the value checks the nesting and looks for a number beyond the safe integers: an integer
  // token beyond 2^53 − 1 always parses to one. Only then, and for text the native parser refuses (for
  // the same errors as ever), the exact path. (A scan of the text for long digit runs cost more than
  // the native parse itself on a long TWAP history full of 13-digit times.)
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseExactly(text, maxDepth);
  }
  return holdsUnsafeNumber(value, maxDepth, 0) ? parseExactly(text, maxDepth) : value;
}

/**
 * Whether a number in `value` is beyond the safe integers (it may stand for a bigint token: every
 * double that large is integer-valued, and a token too long for a double is Infinity); throws
 * JsonDepthError when arrays and objects nest deeper than `maxDepth`.
 */
function holdsUnsafeNumber(value: unknown, maxDepth: number, depth: number): boolean {
  if (typeof value === "number") return Math.abs(value) > Number.MAX_SAFE_INTEGER;
  if (value === null || typeof value !== "object") return false;
  if (depth >= maxDepth) throw new JsonDepthError(maxDepth);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsUnsafeNumber(value[i], maxDepth, depth + 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) if (holdsUnsafeNumber(record[key], maxDepth, depth + 1)) return true;
  return false;
}

/** Unsafe integers as `bigint`, exactly: text that holds some, or that the native parser refused. */
function parseExactly(text: string, maxDepth: number): unknown {
  checkDepth(text, maxDepth);
  // Native JSON.parse is exact when no number token starts with 16+ digits. The same digits inside a
  // string after one of those characters only send us to the slower path; they never make it wrong.
  if (!LONG_DIGIT_RUN.test(text) || !LONG_NUMBER_START.test(text)) return JSON.parse(text);
  // Fast exact path (several times faster than the parser written in JS): turn each unsafe integer
  // into a placeholder string, let the native parser do the rest, then put the bigints back. A text
  // holding an escaped NUL could collide with the placeholders and takes the exact parser.
  if (text.includes("\\u0000")) return exactParse(text);
  let replaced = 0;
  const marked = text.replace(LONG_INTEGER_VALUE, (match, before: string, digits: string) => {
    // Safe integers and malformed ones (leading zeros, which JSON.parse refuses) stay as written.
    if (/^-?0/.test(digits) || isSafeNumber(digits)) return match;
    replaced++;
    return `${before}"${BIG_MARK_JSON}${digits}"`;
  });
  if (replaced === 0) {
    // The only value position the pattern cannot see: a document that is one bare integer.
    const bare = /^\s*(-?(?:0|[1-9]\d*))\s*$/.exec(text);
    return bare ? parseNumber(bare[1]!) : JSON.parse(text);
  }
  // A match inside a string closes that string early and leaves the placeholder's backslash outside any
  // string, which JSON.parse always refuses: such rare texts, and any count mismatch, take the exact
  // parser, which also gives the right SyntaxError for text that is really invalid.
  let value: unknown;
  try {
    value = JSON.parse(marked);
  } catch {
    return exactParse(text);
  }
  const restored = { count: 0 };
  value = restoreBigInts(value, restored);
  return restored.count === replaced ? value : exactParse(text);
}

function exactParse(text: string): unknown {
  return losslessParse(text, null, parseNumber);
}

function restoreBigInts(value: unknown, restored: { count: number }): unknown {
  if (typeof value === "string") {
    if (!value.startsWith(BIG_MARK)) return value;
    restored.count++;
    return BigInt(value.slice(BIG_MARK.length));
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restoreBigInts(value[i], restored);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) record[key] = restoreBigInts(record[key], restored);
  return value;
}

/** Thrown by markBigInts beyond MAX_JSON_DEPTH levels (a cycle, or a structure no answer has). */
class TooDeep extends Error {}

/**
 * A copy of `value` as JSON.stringify sees it (toJSON applied, own enumerable keys in their order,
 * boxed primitives kept), each bigint replaced by its placeholder string and counted: every bigint the
 * native writer would meet (one a toJSON returns, a boxed one) is written as digits.
 */
function markBigInts(
  value: unknown,
  key: string,
  count: { bigints: number },
  depth: number,
  converted = false,
): unknown {
  if (typeof value === "bigint") {
    count.bigints++;
    return `${BIG_MARK}${value}`;
  }
  if (value === null || typeof value !== "object") return value;
  // A boxed bigint is its value to the native writer (which then refuses it): written as digits too.
  if (value instanceof BigInt) return markBigInts(value.valueOf(), key, count, depth, true);
  if (depth > MAX_JSON_DEPTH) throw new TooDeep();
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  // Applied once per value, as the native writer does (what it returns is not converted again).
  if (!converted && typeof toJSON === "function")
    return markBigInts(toJSON.call(value, key), key, count, depth, true);
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = markBigInts(value[i], String(i), count, depth + 1);
    return out;
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value;
  const record = value as Record<string, unknown>;
  // No prototype: an own "__proto__" key of the input stays a key.
  const out = Object.create(null) as Record<string, unknown>;
  for (const k of Object.keys(record)) out[k] = markBigInts(record[k], k, count, depth + 1);
  return out;
}

/** Serializes to JSON; `bigint` values are written as bare integer digits, never quoted or rounded. */
export function stringifyJson(value: unknown, indent?: number): string {
  // The native writer first: it refuses a bigint with a TypeError (no BigInt.prototype.toJSON is ever
  // defined here), which sends the value to the exact path below; most values hold none, and a walk
  // looking for one before writing cost as much as the writing.
  try {
    return JSON.stringify(value, null, indent);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
  // Fast exact path, the mirror of parseJson's: the native writer on a copy with each bigint as a
  // placeholder string, then the placeholders turned into bare digits. A string of the input that reads
  // like a placeholder makes the counts differ, and the writer written in JS does it instead. (A copy,
  // not a replacer function: the native writer calling back into JS for every value is several times
  // slower.) What the copy cannot take (a cycle, a nesting too deep) goes to the replacer, which throws
  // the native writer's own errors.
  const count = { bigints: 0 };
  let marked: string;
  try {
    marked = JSON.stringify(markBigInts(value, "", count, 0), null, indent);
  } catch (err) {
    if (!(err instanceof TooDeep)) throw err;
    count.bigints = 0;
    marked = JSON.stringify(
      value,
      (_key, v: unknown) => {
        if (typeof v !== "bigint") return v;
        count.bigints++;
        return `${BIG_MARK}${v}`;
      },
      indent,
    );
  }
  const bigints = count.bigints;
  let replaced = 0;
  const fast = marked.replace(BIG_MARK_WRITTEN, (_match, digits: string) => {
    replaced++;
    return digits;
  });
  if (replaced === bigints) return fast;
  const out = losslessStringify(value, null, indent);
  if (out === undefined) throw new TypeError("value is not serializable to JSON");
  return out;
}

/** Freezes a parsed JSON value and everything in it (objects and arrays), and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    // Walked in place (Object.values made an array of every object's values: answers are frozen every
    // cycle).
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let i = 0; i < keys.length; i++) deepFreeze(record[keys[i]!]);
    }
  }
  return value;
}
