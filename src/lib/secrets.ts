// Secret hygiene. Only what the configuration names is a secret: the variable holding the private key
// (HLBOT_PRIVATE_KEY or the one `wallet.privateKeyEnv` / --key-env names), the keystore password (its
// variable or file) and a keystore's key the moment it is decrypted. Every secret is registered here the
// moment it is read, and every message that can leave the process (errors, logs, CLI output, journal
// rows) passes through `redact`, which removes it in every spelling: with or without 0x/0X, any letter
// case. `redact` also removes `user:password@` credentials from URLs, and the values of query parameters
// named like credentials (`?apikey=`, `&token=`). This is the last line of defence;
// the first is never putting a secret into a message at all.
//
// A value that merely looks like a key (a transaction hash in the environment) is not a secret: it may
// be passed as an argument and printed.

import { readFileSync, statSync } from "node:fs";

/** A 32-byte hex private key, as it might be pasted into a file: used to reject inline keys. */
export const PRIVATE_KEY_PATTERN = /^(?:0[xX])?[0-9a-fA-F]{64}$/;

/** Secrets at least this long are redacted wherever they occur; shorter ones only as a whole word. */
const SUBSTRING_MIN = 8;

/** Normalised secrets: hex keys without prefix, lower case; other secrets lower case (matched ignoring case). */
const secrets = new Map<string, "key" | "password">();
/** Names of environment variables whose values are secrets (the key, the keystore password). */
const secretVariables = new Set<string>();
let pattern: RegExp | undefined;
/** `pattern` without the passwords shorter than SUBSTRING_MIN: for command output (redactOutput). */
let outputPattern: RegExp | undefined;
/** The keys alone: for structured data hlbot reads back (redactKeys). */
let keyPattern: RegExp | undefined;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The canonical spelling of a secret: a hex key loses its 0x/0X prefix and letter case. */
export function normalizeSecret(secret: string): string {
  const trimmed = secret.trim();
  if (PRIVATE_KEY_PATTERN.test(trimmed)) return trimmed.replace(/^0x/i, "").toLowerCase();
  return secret.toLowerCase();
}

/**
 * Registers a secret (a hex private key, a password). Empty values are ignored; a password of any
 * length is registered (short ones are redacted only where they stand as a whole word, so a 3-letter
 * password does not blank every word that contains it).
 */
export function registerSecret(secret: string, o: { checkArguments?: boolean } = {}): void {
  if (typeof secret !== "string" || secret.trim() === "") return;
  const isKey = PRIVATE_KEY_PATTERN.test(secret.trim());
  const normalized = normalizeSecret(secret);
  if (secrets.has(normalized)) return;
  secrets.set(normalized, isKey ? "key" : "password");
  // As JSON writes it too (a log line, a journal row): a password with `"` or `\` is escaped there, and
  // its plain spelling no longer matches (a security audit).
  const escaped = JSON.stringify(normalized).slice(1, -1);
  if (!isKey && escaped !== normalized) secrets.set(escaped, "password");
  // Longest first, so a secret containing another is removed whole.
  const sorted = [...secrets.entries()].sort((a, b) => b[0].length - a[0].length);
  const alternative = ([s, kind]: [string, "key" | "password"]) => {
    if (kind === "key") return `(?:0x)?${s}`;
    const body = escapeRegExp(s);
    return s.length >= SUBSTRING_MIN ? body : `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`;
  };
  pattern = new RegExp(sorted.map(alternative).join("|"), "giu");
  const long = sorted.filter(([s, kind]) => kind === "key" || s.length >= SUBSTRING_MIN);
  outputPattern = long.length === 0 ? undefined : new RegExp(long.map(alternative).join("|"), "giu");
  const keys = sorted.filter(([, kind]) => kind === "key");
  keyPattern = keys.length === 0 ? undefined : new RegExp(keys.map(alternative).join("|"), "giu");
  // A secret registered after the command line was first checked (the bot file's `wallet.privateKeyEnv`
  // or `passwordEnv` variable, a key file, a keystore's password): the arguments are checked again
  // before anything is sent (a security audit: a key pasted into --base-url went out as a URL path).
  const pasted =
    o.checkArguments === false ? -1 : guardedArguments.findIndex((arg) => argumentHoldsSecret(arg));
  // The arguments stay guarded: a caller that swallowed this error meets it again at the next secret.
  if (pasted !== -1) throw new SecretArgumentError(pasted);
}

/** The command-line arguments of the running command: checked whenever a secret is registered. */
let guardedArguments: readonly string[] = [];

/** An argument holds the signing key or the keystore password: refused (exit 2), nothing sent. */
export class SecretArgumentError extends Error {
  readonly code = "SECRET_ARGUMENT";
  readonly exitCode = 2;
  constructor(readonly index: number) {
    super(
      `argument ${index + 1} holds the signing key or the keystore password; refused, nothing was sent. Keys come from the environment or a keystore, never from the command line`,
    );
    this.name = "SecretArgumentError";
  }
}

/**
 * Checks the command line against the secrets known now and keeps it, so that a secret registered later
 * is checked against it too (registerSecret throws SecretArgumentError). Undefined clears it (a
 * command that ended). Returns the index of an argument holding a secret now, or -1.
 */
export function guardArguments(argv: readonly string[] | undefined): number {
  guardedArguments = argv ?? [];
  return guardedArguments.findIndex((arg) => argumentHoldsSecret(arg));
}

/**
 * Registers environment variables as holding secrets: their names (so `${NAME}` can be refused outside
 * the wallet) and their current values.
 */
export function registerSecretVariables(
  env: Readonly<Record<string, string | undefined>>,
  names: ReadonlyArray<string | undefined>,
): void {
  for (const name of names) {
    if (name === undefined || name === "") continue;
    secretVariables.add(name);
    const value = env[name];
    if (value !== undefined) registerSecret(value);
    // `<NAME>_FILE` stands in for an unset `<NAME>` (signer.ts): its key is known now, before the command
    // sends anything (a review: a manual command queried the venue at a --base-url holding the key
    // before it loaded the key file).
    else registerSecretFile(env[`${name}_FILE`]);
  }
}

/** Registers the secret a file holds (a key file), when it can be read; reading it for real reports errors. */
export function registerSecretFile(file: string | undefined): void {
  if (file === undefined || file.trim() === "") return;
  let text: string;
  try {
    // A regular file only: a pipe (`<(pass show …)`, /dev/stdin) can be read once, and this read would
    // drain it before the signer's (a review: every signing command then failed, a FIFO hung them all).
    const info = statSync(file);
    if (!info.isFile() || info.size > 4096) return;
    text = readFileSync(file, "utf8").trim();
  } catch {
    return;
  }
  // Only a key: anything else in a file named as a key file is not known to be a secret.
  if (PRIVATE_KEY_PATTERN.test(text)) registerSecret(text);
}

/** Whether `name` is a variable registered as holding a secret. */
export function isSecretVariable(name: string): boolean {
  return secretVariables.has(name);
}

/**
 * Removes every registered secret variable from `env` (the process environment once the signer is
 * loaded), so a long-lived process does not keep the key where any later code, a dependency that dumps
 * the environment or a child process (which inherits it) could read it. (The kernel's copy of the
 * initial environment, /proc/<pid>/environ, readable by the same user only, is not changed by this.)
 * Returns the names removed.
 */
export function dropSecretVariables(env: Record<string, string | undefined>): string[] {
  const dropped: string[] = [];
  for (const name of secretVariables) {
    if (env[name] === undefined) continue;
    delete env[name];
    dropped.push(name);
  }
  return dropped;
}

/** `scheme://user:password@` or `scheme://token@` in a URL: the part before `@` is a credential. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/**
 * A URL query parameter whose name says it holds a credential (`?apikey=…`, `&access_token=…`,
 * `?auth=…`, `?sig=…`): its value (a security audit: a provider's API key in the base URL was printed in
 * errors and journaled).
 */
const URL_QUERY_CREDENTIAL =
  /([?&][\w.-]*(?:key|token|secret|auth|pass|pwd|sig|credential)[\w.-]*=)[^&\s#"'<>()]+/gi;

/** Replaces every registered secret, and every URL credential, in `text` with `[REDACTED]`. */
export function redact(text: string): string {
  return redactWith(text, pattern);
}

/**
 * `redact` for what a command prints on stdout and stderr: the same, but a password shorter than 8
 * characters is left alone. It would blank every number or word equal to it ("100" turned `--json`
 * into invalid JSON, "2025" every date: a review); a short password is warned of when it is read, and
 * logs, journal rows and notifications still redact it.
 */
export function redactOutput(text: string): string {
  return redactWith(text, outputPattern);
}

/**
 * `redact` for structured data hlbot writes and reads back (a signed request, an intent, a venue's
 * answer as JSON in the journal): the keys alone. A password is text a person chose and may be a word
 * such data holds ("testnet", "hyperliquid"): blanked there, it corrupted a signed staking request's
 * row, and reconciliation then failed every cycle calling the database damaged (a security audit).
 * hlbot never puts a password into such data; URL credentials are left too (a URL there is data).
 */
export function redactKeys(text: string): string {
  if (keyPattern === undefined) return text;
  keyPattern.lastIndex = 0;
  return text.replace(keyPattern, "[REDACTED]");
}

function redactWith(text: string, secretPattern: RegExp | undefined): string {
  let out = text.includes("@") ? text.replace(URL_CREDENTIALS, "$1[REDACTED]@") : text;
  if (out.includes("=")) out = out.replace(URL_QUERY_CREDENTIAL, "$1[REDACTED]");
  if (secretPattern) {
    secretPattern.lastIndex = 0;
    out = out.replace(secretPattern, "[REDACTED]");
  }
  return out;
}

/** Whether `text` holds a registered secret (any spelling). */
export function containsSecret(text: string): boolean {
  if (!pattern) return false;
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

/**
 * Whether a command-line argument (or an interpolated configuration value) is, or holds, a secret: it holds a registered key, or a registered
 * password of 8+ characters, or it is exactly a shorter password. (`--amount 1` is not refused because
 * someone's password is "1"; that person is warned that the password is weak: signer.ts.)
 */
export function argumentHoldsSecret(arg: string): boolean {
  const normalized = normalizeSecret(arg);
  for (const [secret, kind] of secrets) {
    if (kind === "key" || secret.length >= SUBSTRING_MIN) {
      if (normalized.includes(secret) || arg.toLowerCase().includes(secret)) return true;
    } else if (normalized === secret || arg.trim().toLowerCase() === secret) return true;
  }
  return false;
}

/** A run of 64 hex digits (optionally 0x/0X): what a pasted key looks like. Not part of a longer run. */
const KEY_SHAPED = /(?<![0-9a-fA-F])(?:0[xX])?[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;

/**
 * Replaces every key-shaped run (64 hex digits) with a placeholder. Used where hlbot echoes what a person
 * typed or wrote (argument and configuration errors): it cannot tell a key it has not decrypted yet (a
 * keystore's) from a hash, and echoing a hash back adds nothing.
 */
export function maskKeyShaped(text: string): string {
  return text.replace(KEY_SHAPED, "[64 hex digits]");
}

/** Test hook: forget every registered secret and secret variable. */
export function clearSecretsForTests(): void {
  guardedArguments = [];
  secrets.clear();
  secretVariables.clear();
  pattern = undefined;
  outputPattern = undefined;
  keyPattern = undefined;
}

/**
 * A warning when a file holding a secret (a keystore, a keystore password) can be read by users other
 * than its owner: group or other permission bits set. Undefined when it is private, on Windows (no POSIX
 * modes) or when the file cannot be examined (reading it reports that).
 */
export function exposedSecretFileWarning(path: string, what: string): string | undefined {
  if (process.platform === "win32") return undefined;
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  const octal = (mode & 0o777).toString(8).padStart(4, "0");
  return `${what} ${path} can be read by other users (mode ${octal}); make it private: chmod 600 ${path}`;
}
