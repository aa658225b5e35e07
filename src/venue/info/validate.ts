// Turns zod failures into hlbot's typed errors: bad request parameters become a ValidationError naming
// the field (raised before any I/O), a response that does not match its schema becomes a
// BadResponseError whose issues carry the dotted path of every offending value.
import type { z } from "zod";
import { BadResponseError, ValidationError, type ValidationIssue } from "../../lib/errors.js";
import { collectUnknown, KNOWN_VARIANT_MESSAGE, reportUnknown, type UnknownValueWarn } from "./tolerant.js";

/** Flattens zod issues into dotted paths (`stats.0.1.uptimeFraction`), descending into unions. */
export function zodIssues(error: z.ZodError, prefix: PropertyKey[] = []): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of error.issues) collect(issue as IssueLike, prefix, out);
  return out;
}

interface IssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  errors?: IssueLike[][];
  keys?: string[];
}

function collect(issue: IssueLike, prefix: PropertyKey[], out: ValidationIssue[]): void {
  const path = [...prefix, ...issue.path];
  // Name each unexpected key as its own field, so "--foo" style mistakes point at themselves.
  if (issue.code === "unrecognized_keys" && issue.keys) {
    for (const key of issue.keys)
      out.push({ path: [...path, key].map(String).join("."), message: "unknown field" });
    return;
  }
  // A union failure: report the branch that got furthest (deepest issue path) so the message names
  // the field that is actually wrong rather than "invalid input".
  if (issue.code === "invalid_union" && issue.errors && issue.errors.length > 0) {
    // The catch-all branch of a tolerant union (tolerant.ts unknownVariant) only says "this is a
    // known variant": the known variant's own branch names what is wrong with it.
    const branches = issue.errors.filter((b) => !b.every((i) => i.message === KNOWN_VARIANT_MESSAGE));
    const best = [...(branches.length > 0 ? branches : issue.errors)].sort((a, b) => depth(b) - depth(a))[0]!;
    if (best.length > 0 && depth(best) > 0) {
      for (const inner of best) collect(inner, path, out);
      return;
    }
  }
  out.push({ path: path.map(String).join("."), message: issue.message });
}

function depth(issues: IssueLike[]): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}

/** Validates request parameters; throws ValidationError (nothing has been sent). */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(zodIssues(result.error));
}

/**
 * Validates a venue response; throws BadResponseError naming every wrong path. Values of tolerant
 * fields the schema does not know (see ./tolerant.ts) are reported through `onUnknown` once per
 * process, and only when the whole answer was accepted.
 */
export function parseResponse<S extends z.ZodType>(
  schema: S,
  value: unknown,
  meta: { what: string; url?: string; onUnknown?: UnknownValueWarn },
): z.output<S> {
  const { result, unknown } = collectUnknown(() => schema.safeParse(value));
  if (result.success) {
    reportUnknown(meta.what, unknown, meta.onUnknown);
    return result.data;
  }
  throw new BadResponseError(`unexpected ${meta.what} response`, zodIssues(result.error), { url: meta.url });
}
