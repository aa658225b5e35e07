// Typed errors shared by every layer. Each error has a stable `code`, a family that decides what the
// caller does with it (input and config errors stop before any I/O; venue errors may be retried by a
// read path; nothing here is retried by string matching), a human message and an optional `cause`.
import { accessSync, constants, mkdtempSync, rmdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { maskKeyShaped, redact, SecretArgumentError } from "./secrets.js";

export type ErrorFamily = "input" | "config" | "venue" | "internal";

export interface HlbotErrorOptions {
  cause?: unknown;
}

export abstract class HlbotError extends Error {
  abstract readonly code: string;
  abstract readonly family: ErrorFamily;
  /** Safe to repeat the same *read* request automatically. Writes are never retried on this flag alone. */
  readonly retryable: boolean = false;

  constructor(message: string, options: HlbotErrorOptions = {}) {
    super(redact(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /** Process exit code for the CLI: 2 for bad input or configuration, 1 for everything else. */
  get exitCode(): 1 | 2 {
    return this.family === "input" || this.family === "config" ? 2 : 1;
  }
}

export interface ValidationIssue {
  /** Dotted path of the offending field, e.g. `user` or `stats.0.1.uptimeFraction`. */
  path: string;
  message: string;
}

/** Caller-supplied input (CLI argument, request parameter, strategy parameter) is invalid. Nothing was sent. */
export class ValidationError extends HlbotError {
  readonly code = "VALIDATION";
  readonly family = "input";
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[] | string, options: HlbotErrorOptions = {}) {
    const list = typeof issues === "string" ? [{ path: "", message: issues }] : issues;
    // What a person typed is echoed back; a key-shaped value in it may be a key not loaded yet (a
    // keystore's), so it is never repeated.
    const masked = list.map((i) => ({ path: maskKeyShaped(i.path), message: maskKeyShaped(i.message) }));
    super(masked.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "), options);
    this.issues = masked;
  }
  get field(): string | undefined {
    return this.issues[0]?.path || undefined;
  }
}

/** A configuration or strategy file is invalid. Carries the file, the line and the key path when known. */
export class ConfigError extends HlbotError {
  readonly code = "CONFIG";
  readonly family = "config";
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly keyPath: string | undefined;
  constructor(
    message: string,
    where: { file?: string; line?: number; keyPath?: string } = {},
    options: HlbotErrorOptions = {},
  ) {
    const place = [where.file, where.line === undefined ? undefined : String(where.line)]
      .filter((p) => p !== undefined)
      .join(":");
    const key = where.keyPath ? `${where.keyPath}: ` : "";
    // Configuration text is echoed back: a key-shaped value in it is never repeated (see ValidationError).
    super(maskKeyShaped(place ? `${place}: ${key}${message}` : `${key}${message}`), options);
    this.file = where.file;
    this.line = where.line;
    this.keyPath = where.keyPath;
  }
}

/** Base class of everything that went wrong talking to the venue (or to the simulator standing in for it). */
export abstract class VenueError extends HlbotError {
  readonly family = "venue";
  /** HTTP status when a response was received. */
  readonly status: number | undefined;
  /** Endpoint (URL) the request went to. */
  readonly url: string | undefined;
  constructor(
    message: string,
    meta: { status?: number; url?: string } = {},
    options: HlbotErrorOptions = {},
  ) {
    super(message, options);
    this.status = meta.status;
    this.url = meta.url;
  }
}

/** HTTP 429. The venue's body is the JSON literal `null`. */
export class RateLimitError extends VenueError {
  readonly code = "RATE_LIMITED";
  override readonly retryable = true;
  /** Milliseconds the server asked us to wait (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(meta: { url?: string; retryAfterMs?: number } = {}) {
    super("rate limited by the venue (HTTP 429)", { status: 429, url: meta.url });
    this.retryAfterMs = meta.retryAfterMs;
  }
}

/** HTTP 5xx. For a write, the request may or may not have taken effect. */
export class ServerError extends VenueError {
  readonly code = "SERVER_ERROR";
  override readonly retryable = true;
  readonly body: string;
  readonly retryAfterMs: number | undefined;
  constructor(status: number, body: string, meta: { url?: string; retryAfterMs?: number } = {}) {
    super(`venue server error (HTTP ${status})${body ? `: ${truncate(body, 200)}` : ""}`, {
      status,
      url: meta.url,
    });
    this.body = body;
    this.retryAfterMs = meta.retryAfterMs;
  }
}

/** HTTP 422: the venue could not deserialize the request. Never retried: the same body fails again. */
export class UnprocessableError extends VenueError {
  readonly code = "UNPROCESSABLE";
  readonly body: string;
  constructor(body: string, meta: { url?: string } = {}) {
    super(`venue rejected the request body (HTTP 422): ${truncate(body, 200)}`, {
      status: 422,
      url: meta.url,
    });
    this.body = body;
  }
}

/** Any other unexpected HTTP status (4xx other than 422/429). */
export class HttpStatusError extends VenueError {
  readonly code = "HTTP_STATUS";
  readonly body: string;
  constructor(status: number, body: string, meta: { url?: string } = {}) {
    super(`unexpected HTTP ${status} from the venue${body ? `: ${truncate(body, 200)}` : ""}`, {
      status,
      url: meta.url,
    });
    this.body = body;
  }
}

export type NetworkErrorKind = "timeout" | "connection" | "reset" | "aborted";

/**
 * No usable response: timeout, refused or reset connection. For a write the request may have reached
 * the venue and taken effect. `aborted` (the caller's own signal) is not retryable.
 */
export class NetworkError extends VenueError {
  readonly code = "NETWORK";
  override readonly retryable: boolean;
  readonly kind: NetworkErrorKind;
  /**
   * True when the failure provably happened before any byte of the request left: the connection was
   * refused, the name did not resolve, or the TLS handshake failed (a plain-HTTP port, a bad
   * certificate). A write that failed so was not sent.
   */
  readonly notSent: boolean;
  constructor(
    kind: NetworkErrorKind,
    message: string,
    meta: { url?: string; notSent?: boolean } = {},
    options: HlbotErrorOptions = {},
  ) {
    super(message, meta, options);
    this.kind = kind;
    this.retryable = kind !== "aborted";
    this.notSent = meta.notSent === true;
  }
}

/** A 200 response whose body is not JSON, or whose JSON does not match the expected schema. */
export class BadResponseError extends VenueError {
  readonly code = "BAD_RESPONSE";
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = [], meta: { status?: number; url?: string } = {}) {
    const where = issues.length
      ? `: ${issues.map((i) => `${i.path || "(root)"}: ${i.message}`).join("; ")}`
      : "";
    super(`${message}${truncate(where, 400)}`, meta);
    this.issues = issues;
  }
}

/**
 * A response body larger than the transport's cap (HttpTransportOptions.maxResponseBytes). Not
 * retried: the same request would get the same answer. For a write it came after the venue answered:
 * the outcome is unknown, never "not sent".
 */
export class ResponseTooLargeError extends VenueError {
  readonly code = "RESPONSE_TOO_LARGE";
  readonly maxBytes: number;
  constructor(maxBytes: number, meta: { status?: number; url?: string } = {}) {
    super(`response body larger than ${maxBytes} bytes (the configured maximum); not read`, meta);
    this.maxBytes = maxBytes;
  }
}

/**
 * A row of the state database that cannot be read (a damaged or hand-edited journal). Names the table
 * and the row, so the person can look at it (`hlbot history`, sqlite3) instead of guessing.
 */
export class StateCorruptError extends HlbotError {
  readonly code = "STATE_CORRUPT";
  readonly family = "internal";
}

/** Something inside hlbot broke an invariant. Always a bug. */
export class InternalError extends HlbotError {
  readonly code = "INTERNAL";
  readonly family = "internal";
}

/** File-system and SQLite codes that mean a folder or a file in it cannot be created or written. */
function isUnwritable(code: unknown): boolean {
  return (
    typeof code === "string" &&
    (code === "EACCES" ||
      code === "EPERM" ||
      code === "EROFS" ||
      code === "SQLITE_PERM" ||
      code.startsWith("SQLITE_READONLY") ||
      code.startsWith("SQLITE_CANTOPEN"))
  );
}

/**
 * `err` as a configuration error (exit 2) when it says the state folder `dir` (or a file in it) cannot
 * be written: SQLite's "attempt to write a readonly database" or a raw EACCES names neither the folder
 * nor what to do. `setting` is where the folder was chosen (`state:` in the bot file, `--state`). Any
 * other error is returned unchanged.
 */
export function stateFolderError(
  err: unknown,
  dir: string,
  where: { file?: string; setting?: string } = {},
): unknown {
  // Also when wrapped (the state database's own "cannot prepare" error keeps SQLite's as its cause).
  const cause = walk(err, (e) => !(e instanceof HlbotError) && isUnwritable((e as { code?: unknown }).code));
  const setting = where.setting ?? "`state:` in the bot file";
  const location = { file: where.file, keyPath: where.file === undefined ? undefined : "state" };
  // A read-only mount: no chown helps (an operator's trial read that advice as root). Node's recursive
  // mkdir says ENOENT there, SQLite "attempt to write a readonly database"; access(2) tells EROFS.
  const system = walk(
    err,
    (e) => !(e instanceof HlbotError) && typeof (e as { code?: unknown }).code === "string",
  );
  if (
    (cause instanceof Error || (system as { code?: unknown } | undefined)?.code === "ENOENT") &&
    onReadOnlyMount(dir)
  )
    return new ConfigError(
      `the state folder ${dir} is on a read-only file system${cause instanceof Error ? ` (${cause.message})` : ""}; mount it read-write, or point ${setting} at a folder on a writable one`,
      location,
      { cause: err },
    );
  if (!(cause instanceof Error)) return err;
  return new ConfigError(
    `the state folder ${dir} cannot be written by this user (${cause.message}); give this user write access to that folder and every file in it (e.g. \`chown -R "$(id -un)" ${dir}\`), or point ${setting} at a folder it can write`,
    location,
    { cause: err },
  );
}

/** Whether `path`, or the nearest folder above it that exists, is on a file system mounted read-only. */
export function onReadOnlyMount(path: string): boolean {
  let at = resolve(path);
  for (;;) {
    try {
      accessSync(at, constants.W_OK);
      // access(2) said writable on an ext4 remounted read-only after an error (emergency_ro), and the
      // advice was to chown a folder root could not write (an SRE's trial): a real write tells.
      return probeWriteIsReadOnly(at);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === "EROFS") return true;
      const up = dirname(at);
      if (code !== "ENOENT" || up === at) return false;
      at = up;
    }
  }
}

/** Whether creating a folder in `dir` fails with EROFS (the probe is removed at once). */
function probeWriteIsReadOnly(dir: string): boolean {
  try {
    rmdirSync(mkdtempSync(join(dir, ".hlbot-write-probe-")));
    return false;
  } catch (err) {
    return (err as { code?: unknown }).code === "EROFS";
  }
}

/** Follows the `cause` chain, returning the first error for which `fn` is true (or the last one). */
export function walk(err: unknown, fn?: (e: unknown) => boolean): unknown {
  let current: unknown = err;
  const seen = new Set<unknown>();
  while (current instanceof Error && !seen.has(current)) {
    if (fn?.(current)) return current;
    seen.add(current);
    const next: unknown = (current as { cause?: unknown }).cause;
    if (next === undefined) break;
    current = next;
  }
  return fn ? undefined : current;
}

/** One line for a person: `CODE: message`. Never includes a stack trace; secrets are redacted. */
export function describeError(err: unknown): string {
  if (err instanceof HlbotError) return redact(`${err.message}`);
  if (err instanceof Error) return redact(err.message || err.name);
  return redact(String(err));
}

/** Exit code for any thrown value: typed errors decide; anything else is an internal failure (1). */
export function exitCodeOf(err: unknown): 1 | 2 {
  if (walk(err, (e) => e instanceof SecretArgumentError) !== undefined) return 2;
  return err instanceof HlbotError ? err.exitCode : 1;
}

function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

/**
 * Whether an error means the daemon must stop rather than retry (and a cycle fail as a whole): a configuration error (for example
 * a multi-sig account), or a state database that can no longer be written (read-only, corrupt, full,
 * gone). A busy database (another hlbot command writing) is transient.
 */
export function isFatalError(err: unknown): boolean {
  return (
    walk(err, (e) => (e instanceof HlbotError && e.family === "config") || isBrokenDatabase(e)) !== undefined
  );
}

/**
 * What to do about a state database SQLite finds damaged ("database disk image is malformed", "file is not
 * a database"), or undefined when `err` is not that: `hlbot journal rebuild` cannot open it either, so it
 * is moved aside first (a recovery trial found no path from the bare SQLite message).
 */
export function damagedDatabaseAdvice(err: unknown, file: string): string | undefined {
  const damaged = walk(err, (e) => {
    const code = (e as { code?: unknown } | undefined)?.code;
    return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
  });
  if (damaged === undefined) return undefined;
  return (
    `the state database ${file} is damaged: stop every hlbot of this state folder, move it aside with its -wal and -shm files ` +
    `(e.g. \`mv ${file} ${file}.broken\`), then run \`hlbot journal rebuild\`, which rebuilds it from the venue (keep the broken copy)`
  );
}

/**
 * A way out when `err` is a full disk (SQLITE_FULL, ENOSPC) under the state database `file`, else
 * undefined: the operator on the worst day read a bare "database or disk is full" or "ENOSPC: no space
 * left on device, write", naming no folder.
 */
export function diskFullAdvice(err: unknown, file: string): string | undefined {
  const full = walk(err, (e) => {
    const code = (e as { code?: unknown } | undefined)?.code;
    return code === "SQLITE_FULL" || code === "ENOSPC";
  });
  if (full === undefined) return undefined;
  return `the disk holding ${file} is full: free space on it, then run again (what a run journaled before it stopped is reconciled with the venue at the next run)`;
}

function isBrokenDatabase(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (e.name === "SqliteError" && typeof code === "string")
    return !code.startsWith("SQLITE_BUSY") && !code.startsWith("SQLITE_LOCKED");
  // better-sqlite3 reports a closed connection as a TypeError.
  return e instanceof TypeError && e.message === "The database connection is not open";
}
