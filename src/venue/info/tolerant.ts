// What hlbot tolerates in a venue answer, and how it says so.
//
// The rule (README "What hlbot checks strictly and what it tolerates"): a field hlbot ACTS ON (balances,
// stakes, delegations, TWAP state, prices, nonces, action answers) is checked strictly, and a wrong value
// refuses the answer with its path. A field hlbot only SHOWS or IGNORES accepts enum and union variants
// the venue adds later: the value is kept as the string the venue sent, shown as-is, and reported once
// per process per (query, field, value), so one new word from the venue never stops trading.
//
// Unknown values are noted while zod parses (parsing is synchronous, so one collector at a time is
// enough) and reported by runInfoQuery only when the whole answer was accepted.
import { z } from "zod";

/** One value the venue sent that hlbot does not know, kept as-is. */
export interface UnknownValue {
  /** The info query, e.g. "subAccounts2". */
  query: string;
  /** Where in the answer, e.g. "[].abstraction" (array items are written `[]`). */
  field: string;
  value: string;
}

/** Receives each unknown value once per process, with a ready-made one-line message. */
export type UnknownValueWarn = (message: string, unknown: UnknownValue) => void;

let collecting: Array<Omit<UnknownValue, "query">> | undefined;
const reported = new Set<string>();

function note(field: string, value: string): void {
  collecting?.push({ field, value });
}

/**
 * A string from a known set that the venue may extend. Known values keep their literal type; any other
 * string is accepted as-is and reported. Anything but a string is still refused (it is not a variant,
 * it is a different shape).
 */
export function openEnum<const T extends readonly string[]>(field: string, known: T) {
  return z.string().transform((value): T[number] | (string & {}) => {
    if (!known.includes(value)) note(field, value);
    return value;
  });
}

/**
 * The discriminator of a union variant hlbot does not know: a string that is NOT one of the known
 * variants (so a known variant with a broken payload still fails on its own branch, with its path).
 * Use it as the last branch of a z.union.
 */
export function unknownVariant<const T extends readonly string[]>(field: string, known: T) {
  return z
    .string()
    .refine((value) => !known.includes(value), { error: KNOWN_VARIANT_MESSAGE, abort: true })
    .transform((value): string & {} => {
      note(field, value);
      return value;
    });
}

/**
 * The message of the unknown-variant branch refusing a known value: when a known variant has a broken
 * payload, validate.ts reports the known branch's issues, not this one.
 */
export const KNOWN_VARIANT_MESSAGE = "a known variant (checked by its own branch)";

/**
 * A field hlbot only shows (a fee schedule, a token's full name, a supply): a value of `schema`'s shape is
 * kept; a missing one is undefined, and one of another shape is undefined and reported once, instead of
 * refusing the whole answer (an audit: a `userFees` answer without `feeSchedule.tiers.mm`, a rebate table only `hlbot
 * info` prints, failed every TWAP cycle and the kill switch's cancels with it). Never for a value hlbot
 * acts on: those stay strict.
 */
export function shown<S extends z.ZodType>(field: string, schema: S) {
  // Optional before the transform: a missing key is left out without a word (zod runs no transform for
  // it), and is not refused as "nonoptional".
  return z
    .unknown()
    .optional()
    .transform((value): z.output<S> | undefined => {
      if (value === undefined) return undefined;
      const r = schema.safeParse(value);
      if (r.success) return r.data;
      note(field, ANOTHER_SHAPE);
      return undefined;
    });
}

const ANOTHER_SHAPE = "(of another shape)";

/** Notes every key of `value` that is not in `known` (an object whose keys are variants). */
export function noteUnknownKeys(field: string, known: readonly string[], value: object): void {
  for (const key of Object.keys(value)) if (!known.includes(key)) note(field, key);
}

/** Runs a synchronous parse and returns the unknown values it noted. */
export function collectUnknown<T>(parse: () => T): {
  result: T;
  unknown: Array<Omit<UnknownValue, "query">>;
} {
  const outer = collecting;
  const mine: Array<Omit<UnknownValue, "query">> = [];
  collecting = mine;
  try {
    return { result: parse(), unknown: mine };
  } finally {
    collecting = outer;
  }
}

/** Reports each (query, field, value) once per process. */
export function reportUnknown(
  query: string,
  unknown: ReadonlyArray<Omit<UnknownValue, "query">>,
  warn: UnknownValueWarn = warnOnStderr,
): void {
  for (const u of unknown) {
    const key = `${query}\u0000${u.field}\u0000${u.value}`;
    if (reported.has(key)) continue;
    reported.add(key);
    const full: UnknownValue = { query, ...u };
    warn(unknownValueMessage(full), full);
  }
}

export function unknownValueMessage(u: UnknownValue): string {
  if (u.value === ANOTHER_SHAPE)
    return `the venue answered ${u.query} with ${u.field} in a shape hlbot does not know; hlbot only shows it, leaves it out and carries on`;
  return `the venue answered ${u.query} with an unknown ${u.field} value ${JSON.stringify(u.value)}; hlbot does not act on it, shows it as-is and carries on`;
}

/** The default when the caller gave no warn hook (commands without a logger). */
function warnOnStderr(message: string): void {
  process.stderr.write(`hlbot: warning: ${message}\n`);
}

/** Test helper: forget what was reported, so a test can see a warning again. */
export function resetUnknownReports(): void {
  reported.clear();
}
