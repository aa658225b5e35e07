// Secret hygiene. Every private key hlbot loads is registered here the moment it is read, and every
// message that can leave the process (errors, logs, CLI output, journal rows) passes through `redact`,
// which removes the key in every spelling: with or without 0x, any letter case. This is the last line
// of defence; the first is never putting a key into a message at all.

import { statSync } from "node:fs";

const secrets = new Set<string>();
let pattern: RegExp | undefined;

/** Registers a secret (a hex private key, a password). Empty or very short values are ignored. */
export function registerSecret(secret: string): void {
  const normalized = secret.trim().replace(/^0x/i, "").toLowerCase();
  if (normalized.length < 8 || secrets.has(normalized)) return;
  secrets.add(normalized);
  pattern = new RegExp(
    [...secrets].map((s) => `(?:0x)?${s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`).join("|"),
    "gi",
  );
}

/** Replaces every registered secret in `text` with `[REDACTED]`. */
export function redact(text: string): string {
  if (!pattern) return text;
  pattern.lastIndex = 0;
  return text.replace(pattern, "[REDACTED]");
}

/** Test hook: forget every registered secret. */
export function clearSecretsForTests(): void {
  secrets.clear();
  pattern = undefined;
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

/** A 32-byte hex private key, as it might be pasted into a file: used to reject inline keys. */
export const PRIVATE_KEY_PATTERN = /^(?:0x)?[0-9a-fA-F]{64}$/;
