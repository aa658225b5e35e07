// Turning schema failures into messages a person can act on: each issue names the file, the line, the
// key path and what was expected, and an unknown key or value that is a near miss of a known one gets a
// "did you mean". Several issues are reported together so one run shows everything to fix.
import type * as z from "zod";
import { didYouMean } from "../../lib/didYouMean.js";
import { ConfigError } from "../../lib/errors.js";
import { formatKeyPath, type KeyPath, lineOf, type YamlSource } from "../../lib/yamlSource.js";

export { didYouMean, levenshtein } from "../../lib/didYouMean.js";

export interface ConfigIssue {
  file: string;
  line: number | undefined;
  /** `limits.maxOrderUsd`, `params.allow[0]`; empty for the whole document. */
  keyPath: string;
  message: string;
}

export function formatIssue(issue: ConfigIssue): string {
  // An issue of no file (the environment's HLBOT_STATE_DIR) has no place to name: not ": message".
  const place = [issue.file, issue.line].filter((p) => p !== undefined && p !== "").join(":");
  return `${place ? `${place}: ` : ""}${issue.keyPath ? `${issue.keyPath}: ` : ""}${issue.message}`;
}

/** Every issue of one or more files; the message lists them all, one per line. */
export class ConfigIssuesError extends ConfigError {
  readonly issues: readonly ConfigIssue[];
  constructor(issues: readonly ConfigIssue[]) {
    const [first, ...rest] = issues;
    if (!first) throw new RangeError("ConfigIssuesError needs at least one issue");
    const more = rest.map((i) => `\n  ${formatIssue(i)}`).join("");
    super(`${first.message}${more}`, {
      file: first.file,
      ...(first.line === undefined ? {} : { line: first.line }),
      ...(first.keyPath ? { keyPath: first.keyPath } : {}),
    });
    this.issues = issues;
  }
}

/** The issues of a ConfigError of any shape (a plain ConfigError is one issue). */
export function issuesOf(err: ConfigError): readonly ConfigIssue[] {
  if (err instanceof ConfigIssuesError) return err.issues;
  // ConfigError bakes "file:line: key: " into its message; take it off again to avoid saying it twice.
  const place = [err.file, err.line].filter((p) => p !== undefined).join(":");
  const prefix = `${place ? `${place}: ` : ""}${err.keyPath ? `${err.keyPath}: ` : ""}`;
  const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  return [{ file: err.file ?? "", line: err.line, keyPath: err.keyPath ?? "", message }];
}

// --- walking zod schemas, to know which keys an object accepts ------------------------------------

type AnySchema = z.core.$ZodType;
interface Def {
  type: string;
  [k: string]: unknown;
}
const defOf = (s: AnySchema) => s._zod.def as unknown as Def;

/** Strips wrappers (optional, default, pipe…) down to the schema that sees the input. */
function unwrap(schema: AnySchema): AnySchema {
  let s = schema;
  for (let guard = 0; guard < 32; guard++) {
    const def = defOf(s);
    if (
      ["optional", "nullable", "default", "prefault", "readonly", "catch", "nonoptional"].includes(def.type)
    ) {
      s = def.innerType as AnySchema;
    } else if (def.type === "pipe") {
      s = def.in as AnySchema;
    } else if (def.type === "lazy") {
      s = (def.getter as () => AnySchema)();
    } else {
      return s;
    }
  }
  return s;
}

/** The option of a union that applies to `data` (by discriminator, or the first object option). */
function pickOption(schema: AnySchema, data: unknown): AnySchema | undefined {
  const def = defOf(schema);
  const options = (def.options as AnySchema[]).map(unwrap);
  const disc = def.discriminator as string | undefined;
  if (disc && data !== null && typeof data === "object") {
    const value = (data as Record<string, unknown>)[disc];
    for (const o of options) {
      const field =
        defOf(o).type === "object" ? (defOf(o).shape as Record<string, AnySchema>)[disc] : undefined;
      const values = field ? (defOf(unwrap(field)).values as unknown[] | undefined) : undefined;
      if (values?.includes(value)) return o;
    }
    return undefined;
  }
  return options.find((o) => defOf(o).type === (Array.isArray(data) ? "array" : "object"));
}

function resolveAt(schema: AnySchema, path: KeyPath, data: unknown): AnySchema | undefined {
  let s: AnySchema | undefined = unwrap(schema);
  let d = data;
  for (const seg of path) {
    if (!s) return undefined;
    if (defOf(s).type === "union") s = pickOption(s, d);
    if (!s) return undefined;
    const def = defOf(s);
    if (def.type === "object") s = (def.shape as Record<string, AnySchema>)[String(seg)];
    else if (def.type === "record") s = def.valueType as AnySchema;
    else if (def.type === "array") s = def.element as AnySchema;
    else return undefined;
    d = d !== null && typeof d === "object" ? (d as Record<string | number, unknown>)[seg] : undefined;
    s = s ? unwrap(s) : undefined;
  }
  if (s && defOf(s).type === "union") s = pickOption(s, d);
  return s;
}

/** Keys the object schema at `path` accepts, given the data (which picks union options). */
export function knownKeysAt(schema: AnySchema, path: KeyPath, data: unknown): string[] {
  const s = resolveAt(schema, path, data);
  if (!s || defOf(s).type !== "object") return [];
  return Object.keys(defOf(s).shape as Record<string, AnySchema>);
}

function valueAt(data: unknown, path: KeyPath): unknown {
  let d = data;
  for (const seg of path) {
    if (d === null || typeof d !== "object") return undefined;
    d = (d as Record<string | number, unknown>)[seg];
  }
  return d;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

const KIND_NAMES: Record<string, string> = {
  object: "a mapping",
  array: "a list",
  record: "a mapping",
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
};

/** Converts the issues of a failed parse of `data` (read from `src`) into located, explained issues. */
export function issuesFromZod(
  src: YamlSource,
  issues: readonly z.core.$ZodIssue[],
  schema: AnySchema,
  data: unknown,
): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  // A misspelt required key is one mistake: report the unknown key with its "did you mean", not also
  // the key it was meant to be as missing.
  const missing = new Set<ConfigIssue>();
  const meant = new Set<string>();
  for (const issue of issues) {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
    const at = (message: string, p: KeyPath = path, key?: string): ConfigIssue => {
      const keyPath = formatKeyPath(key === undefined ? p : [...p, key]);
      return { file: src.file, line: lineOf(src, p, key), keyPath, message: message + envNote(src, keyPath) };
    };
    const required = (message: string) => {
      const i = at(message);
      missing.add(i);
      out.push(i);
    };
    switch (issue.code) {
      case "unrecognized_keys": {
        const known = knownKeysAt(schema, path, data);
        for (const key of issue.keys) {
          // A YAML merge key (`<<: *defaults`) is read as a key of its own: the keys it would bring are
          // missing too, which is the one mistake (a config trial).
          if (key === "<<") {
            out.push(
              at(
                "YAML merge keys (<<: *anchor) are not supported: write the keys out (an anchor of a whole value, key: *anchor, works)",
                path,
                key,
              ),
            );
            continue;
          }
          const guess = didYouMean(key, known);
          if (guess) meant.add(formatKeyPath([...path, guess]));
          const hint = guess
            ? ` (did you mean "${guess}"?)`
            : known.length
              ? `; expected one of: ${known.join(", ")}`
              : "";
          out.push(at(`unknown key "${key}"${hint}`, path, key));
        }
        break;
      }
      case "invalid_union": {
        const options = (issue as { options?: unknown[] }).options;
        if ((issue as { note?: string }).note === "No matching discriminator" && options) {
          const value = valueAt(data, path);
          const names = options.map(String);
          if (value === undefined) {
            required(`is required; expected one of: ${names.join(", ")}`);
          } else {
            const guess = typeof value === "string" ? didYouMean(value, names) : undefined;
            out.push(
              at(
                `unknown value ${JSON.stringify(value)}` +
                  (guess ? ` (did you mean "${guess}"?)` : `; expected one of: ${names.join(", ")}`),
              ),
            );
          }
        } else {
          const value = valueAt(data, path);
          if (value === undefined) required(`is required (${issue.message})`);
          else out.push(at(`${issue.message}, got ${describeValue(value)}`));
        }
        break;
      }
      case "invalid_value": {
        const names = issue.values.map((v) => String(v));
        const value = valueAt(data, path);
        if (value === undefined) {
          required(`is required; expected one of: ${names.join(", ")}`);
          break;
        }
        const guess = typeof value === "string" ? didYouMean(value, names) : undefined;
        out.push(
          at(
            `expected one of: ${names.join(", ")}, got ${describeValue(value)}` +
              (guess ? ` (did you mean "${guess}"?)` : ""),
          ),
        );
        break;
      }
      case "invalid_type": {
        const value = valueAt(data, path);
        const expected = KIND_NAMES[issue.expected] ?? issue.expected;
        if (value === undefined) required(`is required (expected ${expected})`);
        else if (issue.message.startsWith("Invalid input"))
          out.push(at(`expected ${expected}, got ${describeValue(value)}`));
        else out.push(at(issue.message));
        break;
      }
      default:
        out.push(at(issue.message));
    }
  }
  // Top to bottom, as a person fixes them.
  return out
    .filter((o) => !(missing.has(o) && meant.has(o.keyPath)))
    .map((o, i) => ({ o, i }))
    .sort((a, b) => (a.o.line ?? 0) - (b.o.line ?? 0) || a.i - b.i)
    .map(({ o }) => o);
}

/**
 * " (the value of ${NAME})" for a value that came from the environment, with a word on characters one
 * cannot see in it (a CRLF env file's carriage return, a zero-width space).
 */
function envNote(src: YamlSource, keyPath: string): string {
  const from = src.fromEnv?.get(keyPath);
  if (from === undefined) return "";
  const hidden = /[\r\u200b-\u200d\ufeff\u00a0]/.test(from.value)
    ? `, which holds ${from.value.includes("\r") ? "a carriage return (an env file with CRLF line ends?)" : "an invisible character"}`
    : "";
  return ` (the value of \${${from.names.join("}, ${")}}${hidden})`;
}
