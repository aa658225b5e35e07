// One YAML file as hlbot reads it (the bot configuration, strategy files, simulator scenarios): the text, the parsed document with line positions, and the
// operations that need positions: refusing inline private keys (before anything else reads the text),
// `${ENV}` interpolation, keeping exact decimals that a JS number would round, and finding the line of
// a key path for error messages.

import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  Scalar,
  visit,
} from "yaml";
import { Decimal, isDecimalString } from "./decimal.js";
import { ConfigError } from "./errors.js";
import { argumentHoldsSecret, isSecretVariable } from "./secrets.js";

export type KeyPath = ReadonlyArray<string | number>;

export interface YamlSource {
  /** The file as shown in messages. */
  file: string;
  text: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /**
   * Values that came from environment variables (interpolateEnv), by key path: an error about one
   * names the variable (a config trial read `got "5,000"` of a value its file did not hold).
   */
  fromEnv?: Map<string, { names: readonly string[]; value: string }>;
}

/** `params.allow[0]`-style rendering of a key path. */
export function formatKeyPath(path: KeyPath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

// 64 hex digits (optionally 0x-prefixed) not part of a longer hex run: the shape of a private key.
const INLINE_KEY = /(?<![0-9a-fA-F])(?:0[xX])?[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;
const HAS_INLINE_KEY = /(?<![0-9a-fA-F])(?:0[xX])?[0-9a-fA-F]{64}(?![0-9a-fA-F])/;

const KEY_ADVICE =
  "keys must come from the environment (wallet.privateKeyEnv), a key file of their own (wallet.privateKeyFile) or an encrypted keystore (wallet.keystore), never from this file";

/**
 * Parses YAML text. Refuses, before parsing, any text holding something shaped like a private key, in
 * any value, key or comment; the message names the place and never the value. YAML syntax errors
 * become ConfigErrors with the line.
 */
export function parseYamlSource(file: string, text: string): YamlSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    strict: true,
  });
  const found = INLINE_KEY.exec(text);
  INLINE_KEY.lastIndex = 0;
  if (found) {
    const offset = found.index;
    const line = lines.linePos(offset).line;
    let path = doc.errors.length === 0 ? pathAtOffset(doc.contents, offset, []) : undefined;
    // When the key-shaped text is a key itself, its path would repeat it: say only the line.
    if (path?.some((seg) => HAS_INLINE_KEY.test(String(seg)))) path = [];
    throw new ConfigError(
      `${path === undefined ? "this line" : "this value"} looks like an inline private key (64 hex digits); ${KEY_ADVICE}`,
      { file, line, ...(path?.length ? { keyPath: formatKeyPath(path) } : {}) },
    );
  }
  const error = doc.errors[0];
  if (error) {
    const line = lines.linePos(error.pos[0]).line;
    const message = error.message.replace(/ at line \d+, column \d+[\s\S]*$/, "");
    throw new ConfigError(`invalid YAML: ${message}${starHint(text.split(/\r?\n/)[line - 1])}`, {
      file,
      line,
    });
  }
  return { file, text, doc, lines };
}

/**
 * YAML reads an unquoted value starting with `*` as an alias, so an unquoted cron schedule that starts
 * with a star (every 5 minutes, say) fails with "Unexpected alias…", which says nothing of the fix.
 */
function starHint(line: string | undefined): string {
  const m = line === undefined ? null : /^\s*(?:-\s+)?([\w.-]+):\s+([*@`][^#]*?)\s*(?:#.*)?$/.exec(line);
  if (!m) return "";
  // "@" and "`" are reserved too: a pair's venue name (`coin: @107`) must be quoted (a config trial).
  const why = m[2]!.startsWith("*") ? "YAML reads * as an alias" : `YAML reserves ${m[2]![0]}`;
  return `; a value starting with ${m[2]![0]} must be quoted (${why}): ${m[1]}: "${m[2]}"`;
}

/** The key path of the scalar (value or key) covering `offset`, if any. */
function pathAtOffset(node: unknown, offset: number, path: Array<string | number>): KeyPath | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : "?";
      const keyRange = isScalar(pair.key) ? pair.key.range : undefined;
      if (keyRange && offset >= keyRange[0] && offset < keyRange[1]) return [...path, key];
      const inner = pathAtOffset(pair.value, offset, [...path, key]);
      if (inner) return inner;
    }
    return undefined;
  }
  if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const inner = pathAtOffset(node.items[i], offset, [...path, i]);
      if (inner) return inner;
    }
    return undefined;
  }
  if (isScalar(node) && node.range && offset >= node.range[0] && offset < node.range[1]) return path;
  return undefined;
}

type ScalarVisitor = (node: Scalar, path: KeyPath) => void;

/** Calls `fn` for every value scalar (not keys, not aliases) with its key path. */
function eachValueScalar(node: unknown, path: Array<string | number>, fn: ScalarVisitor): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      eachValueScalar(pair.value, [...path, key], fn);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      eachValueScalar(item, [...path, i], fn);
    });
  } else if (isScalar(node)) {
    fn(node, path);
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REFERENCE = /\$\$|\$\{([^}]*)\}/g;

/**
 * Replaces `${NAME}` in string values with the environment variable (`${NAME:-default}` when it may be
 * unset; `$$` is a literal `$`). A plain (unquoted) value that is exactly one reference and expands to a
 * plain decimal number or true/false takes that type, so `minutes: ${TWAP_MINUTES}` is a number; quote it to keep a
 * string; one that expands to nothing (`${NAME:-}`) leaves its key out. A missing or empty variable (without `:-`), a malformed reference, or a value that looks like a private key is a
 * ConfigError naming the variable and the place.
 */
export function interpolateEnv(src: YamlSource, env: Readonly<Record<string, string | undefined>>): void {
  const unset: KeyPath[] = [];
  eachValueScalar(src.doc.contents, [], (node, path) => {
    if (typeof node.value !== "string" || !node.value.includes("$")) return;
    const original = node.value;
    const where = { file: src.file, line: lineOfNode(src, node), keyPath: formatKeyPath(path) };
    const used: string[] = [];
    const expanded = original.replace(REFERENCE, (match, body: string | undefined) => {
      if (match === "$$") return "$";
      const text = body ?? "";
      // `${A:-${B}/x}` would read as the reference `${A:-${B}` and a stray `/x}`: a state folder named
      // "${B/x}" (a config trial's fresh journal, its budgets and daily limits forgotten).
      if (text.includes("${"))
        throw new ConfigError(
          `nested reference \${${text}}…: a default may not hold another \${…} (write the value out, or set the variable)`,
          where,
        );
      const sep = text.indexOf(":-");
      const name = sep === -1 ? text : text.slice(0, sep);
      if (!ENV_NAME.test(name)) {
        throw new ConfigError(
          `malformed reference \${${text}}: expected \${NAME} or \${NAME:-default}`,
          where,
        );
      }
      // The key and the keystore password are read by the wallet alone: anywhere else they would end up
      // in a URL, a log line or an error (`baseUrl: http://host/${HLBOT_PRIVATE_KEY}0/`).
      if (isSecretVariable(name)) {
        throw new ConfigError(
          `\${${name}} holds a secret (the signing key or the keystore password) and may not be used in the configuration; the wallet reads it by itself (wallet.privateKeyEnv, wallet.passwordEnv)`,
          where,
        );
      }
      const value = env[name];
      if (value === undefined || (sep !== -1 && value === "")) {
        if (sep !== -1) return text.slice(sep + 2);
        throw new ConfigError(`environment variable ${name} is not set (referenced as \${${name}})`, where);
      }
      // Set but empty (`BUDGET=` in an env file, compose substituting ""): without `:-` the value was
      // asked for, and an empty one would leave the key out: a DCA without its budget or price ceiling,
      // a state folder elsewhere (a config trial).
      if (value.trim() === "" && sep === -1)
        throw new ConfigError(
          `environment variable ${name} is empty (referenced as \${${name}}); set it, or write \${${name}:-} ` +
            (/^\$\{[^}]*\}$/.test(original)
              ? "where an empty value should leave the key out"
              : "where it may be empty (it then adds nothing to the value)"),
          where,
        );
      used.push(name);
      return value;
    });
    if (/\$\{/.test(original.replace(REFERENCE, "")))
      throw new ConfigError("malformed reference: `$" + "{` without a closing `}`", where);
    // `${X:-/tmp/x}}`: one brace too many, read as a path ending in "}".
    // A brace closing an opening one (`{${X}}`, a literal around a reference) is not one too many.
    const rest = original.replace(REFERENCE, "");
    const unbalanced = (rest.match(/\}/g)?.length ?? 0) > (rest.match(/\{/g)?.length ?? 0);
    const stray = unbalanced ? /(?<!\$)\$\{[^}]*\}\}/.exec(original) : null;
    if (stray !== null)
      throw new ConfigError(
        `malformed reference: a \`}\` right after ${stray[0].slice(0, -1)} (one too many?)`,
        where,
      );
    if (argumentHoldsSecret(expanded) && !argumentHoldsSecret(original)) {
      throw new ConfigError(
        `the value of \${${used.join("}, ${")}} holds a secret (the signing key or the keystore password); secrets are read by the wallet alone`,
        where,
      );
    }
    if (HAS_INLINE_KEY.test(expanded) && !HAS_INLINE_KEY.test(original)) {
      throw new ConfigError(
        `the value of \${${used.join("}, ${")}} looks like a private key; ${KEY_ADVICE}`,
        where,
      );
    }
    if (used.length > 0) {
      src.fromEnv ??= new Map();
      src.fromEnv.set(formatKeyPath(path), { names: used, value: expanded });
    }
    let value: unknown = expanded;
    const single = /^\$\{[^}]*\}$/.test(original);
    // `account: ${HLBOT_ACCOUNT:-}` with the variable unset or empty leaves the key out, as if the
    // line were not there: one file serves both cases (the Docker image's config relies on it).
    if (single && node.type === Scalar.PLAIN && expanded.trim() === "") {
      unset.push([...path]);
      return;
    }
    if (single && node.type === Scalar.PLAIN) {
      // Only plain decimals and true/false: "0x01" must stay an address, not become the number 1.
      const text = expanded.trim();
      if (isDecimalString(text)) value = exactNumber(text, Number(text));
      else if (text === "true" || text === "false") value = text === "true";
    }
    node.value = value;
  });
  // Backwards, so removing a list item does not shift the index of one still to remove.
  for (const path of unset.reverse()) src.doc.deleteIn(path);
}

/**
 * A YAML number whose spelling holds more precision than a JS number keeps (`0.1234567890123456789`,
 * a 20-digit integer) becomes its exact decimal string, which decimal fields accept and parse exactly;
 * integer fields then refuse it instead of using a rounded value.
 */
function exactNumber(source: string, value: number): number | string {
  const plain = source.replace(/^\+/, "");
  if (!isDecimalString(plain)) return value;
  const exact = new Decimal(plain);
  return exact.eq(new Decimal(value)) ? value : exact.toFixed();
}

/**
 * Applies `exactNumber` to every plain numeric scalar of the document, and keeps unquoted hex
 * (`0x…`) as text: in hlbot's files that is always an address or a hash, never a number, and YAML
 * would otherwise turn an unquoted address into a (rounded) integer.
 */
export function keepExactNumbers(src: YamlSource): void {
  eachValueScalar(src.doc.contents, [], (node) => {
    if (typeof node.value === "number" && node.type === Scalar.PLAIN && node.source !== undefined) {
      const source = String(node.source).trim();
      node.value = /^0x/i.test(source) ? source : exactNumber(source, node.value);
    }
  });
}

/** The line of the first alias `*name` in the file, or undefined. */
export function aliasLine(src: YamlSource, name: string): number | undefined {
  let line: number | undefined;
  visit(src.doc, {
    Alias(_key, node) {
      if (node.source !== name) return undefined;
      line = lineOfNode(src, node);
      return visit.BREAK;
    },
  });
  return line;
}

function lineOfNode(src: YamlSource, node: Node | null | undefined): number | undefined {
  const start = node?.range?.[0];
  return start === undefined ? undefined : src.lines.linePos(start).line;
}

/** The node at `path` (following aliases), or undefined. */
function nodeAt(src: YamlSource, path: KeyPath): unknown {
  let node: unknown = src.doc.contents;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(src.doc);
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg),
      );
      if (!pair) return undefined;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number") {
      node = node.items[seg];
    } else {
      return undefined;
    }
  }
  return node;
}

/**
 * Line of the value at `path`, or of the nearest ancestor that exists (a missing key is reported on
 * its parent's line). With `key`, the line of that key inside the mapping at `path`.
 */
export function lineOf(src: YamlSource, path: KeyPath, key?: string): number | undefined {
  if (key !== undefined) {
    const map = nodeAt(src, path);
    if (isMap(map)) {
      const pair = map.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
      const line = pair && isScalar(pair.key) ? lineOfNode(src, pair.key) : undefined;
      if (line !== undefined) return line;
    }
  }
  for (let n = path.length; n >= 0; n--) {
    const prefix = path.slice(0, n);
    const node = nodeAt(src, prefix);
    if (node === undefined || node === null) continue;
    // For a value, point at its key when there is one: that is where a person looks.
    if (n > 0) {
      const parent = nodeAt(src, prefix.slice(0, -1));
      const last = prefix[prefix.length - 1];
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(last));
        if (pair && isScalar(pair.key)) return lineOfNode(src, pair.key);
      }
    }
    const line = lineOfNode(src, node as Node);
    if (line !== undefined) return line;
  }
  return 1;
}
