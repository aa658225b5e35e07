// The SQLite state database: the one file that survives restarts (nonce counters, the engine's
// journal). It is shared by every hlbot process pointed at the same state folder (the daemon and
// manual CLI commands), so it runs in WAL mode with a busy timeout, and writers that must not
// interleave use BEGIN IMMEDIATE. The folder is private to the user (0700) and the files 0600: the
// journal holds signed requests, which are not secret but are nobody else's business.
//
// Modules own their tables: each declares an ordered list of migrations with globally unique ids
// (prefix them with the module name, e.g. `nonces-001`) and applies it with `applyMigrations` when it
// opens its store, or registers it with `registerMigrations` so `openStateDb` applies it. An applied
// id is recorded and never run again, so a list may only ever be appended to.
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Database as Db } from "better-sqlite3";
import { ConfigError, damagedDatabaseAdvice, InternalError } from "./errors.js";

export type StateDatabase = Db;

/** File name of the state database inside the state folder. */
export const STATE_DB_FILE = "hlbot.db";
/**
 * SQLite's page cache per connection, in KiB: SQLite's own default (2 MB). better-sqlite3 builds SQLite
 * with 16 MB (SQLITE_DEFAULT_CACHE_SIZE=-16000 in its deps/defines.gypi), which a daemon fills as its
 * journal grows, glibc keeping about as much again around those pages: a memory investigation measured
 * a year-long daemon at RSS 157 to 163 MiB, and 136 MiB with this cache (and linkSignals).
 */
export const STATE_DB_CACHE_KIB = 2000;

/** State folder used when neither `--state` nor HLBOT_STATE_DIR says otherwise (relative to the cwd). */
export const STATE_DIR_ENV = "HLBOT_STATE_DIR";

export interface Migration {
  /** Globally unique and stable forever, e.g. `journal-001`. */
  id: string;
  /** SQL run with `exec` (may hold several statements). */
  sql?: string;
  /** For changes SQL alone cannot express. Runs inside the migration transaction. */
  up?: (db: StateDatabase) => void;
}

export interface OpenStateDbOptions {
  /** The state folder; created (0700) when missing. */
  dir: string;
  /** Database file name inside `dir` (default `hlbot.db`). */
  file?: string;
  /** How long a statement waits for another process's write lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * `FULL` (default) makes every commit durable across power loss; the nonce counter and the journal's
   * "pending before send" row rely on that. `NORMAL` is only durable across process crashes.
   */
  synchronous?: "FULL" | "NORMAL";
  /** Extra migrations to apply after the registered ones. */
  migrations?: readonly Migration[];
}

const registry: Migration[] = [];

/** Adds migrations that every later `openStateDb` applies (in registration order). Idempotent per id. */
export function registerMigrations(migrations: readonly Migration[]): void {
  for (const m of migrations) {
    const known = registry.find((r) => r.id === m.id);
    if (known === undefined) registry.push(m);
    else if (known !== m && (known.sql !== m.sql || known.up !== m.up)) {
      throw new InternalError(`two different migrations share the id ${m.id}`);
    }
  }
}

/**
 * The state folder when nothing names one explicitly: $HLBOT_STATE_DIR, else systemd's
 * $STATE_DIRECTORY (StateDirectory=; the first of a list), else $XDG_STATE_HOME/hlbot, else
 * ~/.local/state/hlbot. The same answer from any working directory, so the daemon, `once` and a manual
 * action run elsewhere share one nonce store and one journal.
 */
export function defaultStateDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const set = (v: string | undefined) => (v !== undefined && v.trim() !== "" ? v : undefined);
  const own = set(env[STATE_DIR_ENV]);
  // A relative one named a different folder from each working directory (a config trial: the daemon and
  // a manual command with two journals, two nonce stores, two daily limits, two default STOP files), and
  // `~/x` from a unit file's Environment= is not expanded: refused.
  if (own !== undefined) {
    if (!isAbsolute(own))
      throw new ConfigError(
        `${STATE_DIR_ENV} must be an absolute path (got ${JSON.stringify(own)}): relative, it names another folder from each working directory${own.startsWith("~") ? "; ~ is not expanded outside a shell: write the home folder out" : `; from here it names ${resolve(own)} (older versions took it so: write that if your journal is there)`}`,
      );
    return resolve(own);
  }
  const systemd = set(env.STATE_DIRECTORY)?.split(":")[0];
  if (systemd) return resolve(systemd);
  // The XDG spec: a relative $XDG_STATE_HOME is invalid and ignored.
  const xdg = set(env.XDG_STATE_HOME);
  return xdg !== undefined && isAbsolute(xdg)
    ? resolve(xdg, "hlbot")
    : join(env.HOME ?? homedir(), ".local", "state", "hlbot");
}

/** The state folder: `--state` when given, else `defaultStateDir`. */
export function resolveStateDir(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return explicit !== undefined ? resolve(explicit) : defaultStateDir(env);
}

export function stateDbPath(dir: string, file = STATE_DB_FILE): string {
  return join(resolve(dir), file);
}

/** Opens (creating when needed) the state database, in WAL mode, with every registered migration applied. */
/** The state database this process opened last: what a damage met later is in (cli/main.ts names it). */
let lastOpened: string | undefined;

export function lastOpenedStateDb(): string | undefined {
  return lastOpened;
}

export async function openStateDb(options: OpenStateDbOptions): Promise<StateDatabase> {
  // Imported lazily: the native addon is not needed by commands that never touch the state.
  const { default: Database } = await import("better-sqlite3");
  // The addon loads on first use: an install with scripts disabled has no compiled binding.
  const openDb = (path: string, timeout: number): StateDatabase => {
    try {
      return new Database(path, { timeout }) as StateDatabase;
    } catch (err) {
      const text = (err as Error).message ?? "";
      if (
        /Could not locate the bindings file|NODE_MODULE_VERSION|ERR_DLOPEN_FAILED|invalid ELF header/.test(
          text,
        )
      )
        throw new ConfigError(
          "the SQLite binding (better-sqlite3) is missing or built for another Node.js: run `npm rebuild better-sqlite3` in hlbot's folder (installs with --ignore-scripts skip building it)",
          {},
          { cause: err },
        );
      throw err;
    }
  };
  const dir = resolve(options.dir);
  const path = stateDbPath(dir, options.file);
  lastOpened = path;
  prepareFolder(dir);
  // Create the file ourselves so it is born 0600; SQLite gives its -wal and -shm files the same mode.
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));

  const busyMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000));
  const deadline = Date.now() + busyMs;
  for (let attempt = 1; ; attempt++) {
    let db: StateDatabase;
    try {
      db = openDb(path, busyMs);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(
        `cannot open the state database: ${(err as Error).message}`,
        { file: path },
        {
          cause: err,
        },
      );
    }
    try {
      db.pragma(`busy_timeout = ${busyMs}`);
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (String(mode).toLowerCase() !== "wal") {
        throw new ConfigError(`the state database cannot use WAL mode (got ${String(mode)})`, { file: path });
      }
      db.pragma(`synchronous = ${options.synchronous ?? "FULL"}`);
      db.pragma("foreign_keys = ON");
      db.pragma(`cache_size = -${STATE_DB_CACHE_KIB}`);
      applyMigrations(db, [...registry, ...(options.migrations ?? [])]);
      tightenFileModes(path);
      return db;
    } catch (err) {
      db.close();
      if (err instanceof ConfigError || err instanceof InternalError) throw err;
      // Two processes preparing a new database at once: SQLite answers "locked" without waiting where
      // waiting could deadlock (switching to WAL, the WAL index being made). Try again, within the
      // busy timeout.
      const code = (err as { code?: unknown }).code;
      if (typeof code === "string" && code.startsWith("SQLITE_BUSY") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, Math.min(200, 20 * attempt)));
        continue;
      }
      const damaged = damagedDatabaseAdvice(err, path);
      throw new ConfigError(
        `cannot prepare the state database: ${(err as Error).message}${damaged === undefined ? "" : `; ${damaged}`}`,
        { file: path },
        {
          cause: err,
        },
      );
    }
  }
}

/**
 * Applies, in order, every migration of `migrations` whose id is not yet recorded, each in its own
 * BEGIN IMMEDIATE transaction so two processes starting together never run one twice. Returns the
 * ids applied now.
 */
export function applyMigrations(db: StateDatabase, migrations: readonly Migration[]): string[] {
  const seen = new Set<string>();
  for (const m of migrations) {
    if (seen.has(m.id)) throw new InternalError(`migration id ${m.id} appears twice`);
    if ((m.sql === undefined) === (m.up === undefined)) {
      throw new InternalError(`migration ${m.id} must have exactly one of sql or up`);
    }
    seen.add(m.id);
  }
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT",
  );
  // A migration of this module that this version does not know: a newer hlbot wrote the database. This
  // version would misread what the newer one keeps there, so it refuses (an upgrade trial: older builds
  // opened a newer journal without a word and traded from it).
  const modules = new Set(migrations.map((m) => moduleOf(m.id)));
  const unknown = (
    db.prepare("SELECT id FROM schema_migrations ORDER BY rowid").all() as Array<{ id: string }>
  )
    .map((r) => r.id)
    .filter((id) => modules.has(moduleOf(id)) && !seen.has(id));
  if (unknown.length > 0)
    throw new ConfigError(
      `the state database was written by a newer version of hlbot (it has ${unknown.join(", ")}, which this version does not know): upgrade hlbot, or point \`state:\` at another folder`,
      { file: db.name },
    );
  const isApplied = db.prepare<[string], { id: string }>("SELECT id FROM schema_migrations WHERE id = ?");
  const record = db.prepare<[string, number]>("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)");
  const applied: string[] = [];
  for (const m of migrations) {
    const run = db.transaction(() => {
      // Re-checked inside the write lock: another process may have applied it a moment ago.
      if (isApplied.get(m.id) !== undefined) return false;
      if (m.sql !== undefined) db.exec(m.sql);
      else m.up?.(db);
      record.run(m.id, Date.now());
      return true;
    });
    if (run.immediate()) applied.push(m.id);
  }
  return applied;
}

/** The module a migration id belongs to: `journal` of `journal-003-schedule-slots`. */
function moduleOf(id: string): string {
  return id.split("-")[0] ?? id;
}

/** Ids of the migrations recorded in `db`, in the order they were applied. */
export function appliedMigrations(db: StateDatabase): string[] {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (exists === undefined) return [];
  return db
    .prepare<[], { id: string }>("SELECT id FROM schema_migrations ORDER BY applied_at, rowid")
    .all()
    .map((r) => r.id);
}

function prepareFolder(dir: string): void {
  const existing = statSync(dir, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isDirectory())
    throw new ConfigError("the state path is a file, not a folder: set `state:` to a folder", { file: dir });
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new ConfigError(
      `cannot create the state folder: ${(err as Error).message}`,
      { file: dir },
      {
        cause: err,
      },
    );
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new ConfigError("the state path is not a folder", { file: dir });
}

function tightenFileModes(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    } catch {
      // Owned by another user (a shared folder): SQLite already opened it, so it is usable; leave it.
    }
  }
}

// ---- the state's identity: is this the journal that belongs here? ----------------------------------
// Limits and budgets live in the journal. A deleted, truncated or swapped `hlbot.db` would silently
// start them from zero (a 150-USD budget spent again, a daily cap reset), so the database carries an
// id and the state folder a marker file with the same id. A database without the folder's id is not
// the journal this folder had: acting refuses until the user rebuilds it from the venue and confirms
// (`hlbot journal rebuild`).

/** Marker file in the state folder holding the id of its journal database. */
export const STATE_ID_FILE = "hlbot.id";

/**
 * Marker file in the state folder holding the id of the latest submission the journal wrote, updated
 * after each one. SQLite keeps recent commits in its write-ahead log (`hlbot.db-wal`): delete that file
 * (or restore an older copy of `hlbot.db`) and the journal silently loses its latest submissions, and
 * with them the day's usage. The mark outlives that: a journal that ends before its mark has lost writes.
 */
export const STATE_MARK_FILE = "hlbot.mark";

export type StateIdentity = { status: "ok" } | { status: "lost"; detail: string };

/** Records that the journal in `dbFile`'s folder has written submission `id` (atomic replace). */
export function recordSubmissionMark(dbFile: string, id: number): void {
  if (dbFile === "" || dbFile === ":memory:") return; // an in-memory journal (a dry run) has no folder
  const mark = join(dirname(resolve(dbFile)), STATE_MARK_FILE);
  writeFileSync(`${mark}.tmp`, `${id}\n`, { mode: 0o600 });
  renameSync(`${mark}.tmp`, mark);
}

function lastSubmissionId(db: StateDatabase): number {
  try {
    return (db.prepare("SELECT COALESCE(MAX(id), 0) AS id FROM submissions").get() as { id: number }).id;
  } catch {
    return 0; // no journal tables yet
  }
}

function readMark(dir: string): number | undefined {
  try {
    const n = Number(readFileSync(join(resolve(dir), STATE_MARK_FILE), "utf8").trim());
    return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The network a state folder's journal belongs to, recorded by the first runtime that opens it. Slots,
 * budgets, daily limits and TWAP ids are the network's: a testnet bot sharing a mainnet bot's folder
 * (same key on both, no `state:` in either bot file) took the mainnet DCA's slot and its staking limit.
 * Returns the recorded network when it is another one; records `network` when none is.
 */
export function claimStateNetwork(db: StateDatabase, network: string): string | undefined {
  db.exec("CREATE TABLE IF NOT EXISTS state_network (network TEXT NOT NULL)");
  const row = db.prepare("SELECT network FROM state_network LIMIT 1").get() as
    | { network: string }
    | undefined;
  if (row !== undefined) return row.network === network ? undefined : row.network;
  db.prepare("INSERT INTO state_network (network) VALUES (?)").run(network);
  return undefined;
}

/**
 * The account a state folder's journal belongs to, recorded by the first bot (a runtime: `once`, `run`,
 * `plan`) that opens it: its kill switch, slots, budgets and daily limits are that account's. Two bot
 * files of two accounts with no `state:` shared the default folder: `hlbot stop` for one stopped the
 * other's daemon, `hlbot resume` for one released the other's stop, and one bot's history listed the
 * other's orders (an operator of several bots). Returns the recorded account when it is another one (lower
 * case); records `account` when none is. Manual actions for a sub-account (--vault) do not claim it.
 */
export function claimStateAccount(db: StateDatabase, account: string): string | undefined {
  db.exec("CREATE TABLE IF NOT EXISTS state_account (account TEXT NOT NULL)");
  const row = db.prepare("SELECT account FROM state_account LIMIT 1").get() as
    | { account: string }
    | undefined;
  const mine = account.toLowerCase();
  if (row !== undefined) return row.account === mine ? undefined : row.account;
  // A folder a version before the claim wrote: the account whose bot ran there (live `run` and `once`
  // cycles) owns it, when there is exactly one; not the first bot of any account this version opens it
  // with (an upgrade trial: another account's dry run claimed a folder of 11 live cycles of its owner).
  const owner = soleLiveAccount(db) ?? mine;
  db.prepare("INSERT INTO state_account (account) VALUES (?)").run(owner);
  return owner === mine ? undefined : owner;
}

/** The one account of a journal's live bot cycles, if exactly one ran there. */
function soleLiveAccount(db: StateDatabase): string | undefined {
  try {
    const rows = db
      .prepare(
        "SELECT DISTINCT lower(account) AS account FROM cycles WHERE trigger IN ('run', 'once') AND mode = 'live' LIMIT 2",
      )
      .all() as Array<{ account: string }>;
    return rows.length === 1 ? rows[0]!.account : undefined;
  } catch {
    return undefined; // no journal yet
  }
}

/** Why a state folder of another account is refused, and what to do. */
export function otherAccountMessage(dir: string, recorded: string, account: string): string {
  return (
    `the state folder ${dir} belongs to the bot of account ${recorded} (the first to use it, or the one whose live runs its journal held), and this bot file is for ${account.toLowerCase()}. ` +
    "Its kill switch, slots, budgets and daily limits are that account's: give this bot its own folder with `state:` in its bot file " +
    "(or, if that account's bot is gone for good, move the folder aside and run `hlbot journal rebuild`)"
  );
}

/** Why a state folder of another network is refused, and what to do. */
export function otherNetworkMessage(
  dir: string,
  recorded: string,
  network: string,
  from: "bot file" | "command" = "bot file",
): string {
  const asked =
    from === "bot file" ? `this bot file says network: ${network}` : `this command acts on ${network}`;
  const remedy =
    from === "bot file"
      ? "give this bot its own folder with `state:` in its bot file"
      : `give it a ${network} state folder with --state (or the bot file of a ${network} bot with --config)`;
  return (
    `the state folder ${dir} belongs to a ${recorded} bot (its journal was first used on ${recorded}), and ${asked}. ` +
    `Slots, budgets, daily limits and TWAP ids are per network: ${remedy}`
  );
}

const IDENTITY_TABLE =
  "CREATE TABLE IF NOT EXISTS state_identity (id TEXT NOT NULL, created_at INTEGER NOT NULL)";

function storedId(db: StateDatabase): string | undefined {
  db.exec(IDENTITY_TABLE);
  return (db.prepare("SELECT id FROM state_identity LIMIT 1").get() as { id: string } | undefined)?.id;
}

function markerPath(dir: string): string {
  return join(resolve(dir), STATE_ID_FILE);
}

/** Gives the database a new id and writes it to the folder's marker: this journal now belongs here. */
export function confirmStateIdentity(db: StateDatabase, dir: string): string {
  const id = randomUUID();
  db.exec(IDENTITY_TABLE);
  db.transaction(() => {
    db.prepare("DELETE FROM state_identity").run();
    db.prepare("INSERT INTO state_identity (id, created_at) VALUES (?, ?)").run(id, Date.now());
  }).immediate();
  writeFileSync(markerPath(dir), `${id}\n`, { mode: 0o600 });
  recordSubmissionMark(join(resolve(dir), STATE_DB_FILE), lastSubmissionId(db));
  return id;
}

/**
 * Checks that `db` is the journal of the state folder `dir`. A brand-new folder (no marker, empty
 * journal) and a journal from before the marker existed are adopted. A folder whose marker names
 * another journal, or that has a marker but a database without an id (deleted, truncated, replaced),
 * is `lost`.
 */
export function checkStateIdentity(db: StateDatabase, dir: string): StateIdentity {
  const id = storedId(db);
  const file = markerPath(dir);
  let marker: string | undefined;
  try {
    marker = readFileSync(file, "utf8").trim() || undefined;
  } catch {
    marker = undefined;
  }
  if (id !== undefined && (marker === undefined || marker === id)) {
    if (marker === undefined) writeFileSync(file, `${id}\n`, { mode: 0o600 });
    const mark = readMark(dir);
    const last = lastSubmissionId(db);
    if (mark !== undefined && last < mark) {
      return {
        status: "lost",
        detail: `the journal ${stateDbPath(dir)} ends at submission #${last}, but this state folder recorded #${mark} (${STATE_MARK_FILE}): its latest writes were lost (a deleted ${STATE_DB_FILE}-wal, or an older copy restored)`,
      };
    }
    return { status: "ok" };
  }
  if (id === undefined && marker === undefined) {
    // New folder, or a journal written before this check existed: it is the only one there is.
    confirmStateIdentity(db, dir);
    return { status: "ok" };
  }
  return {
    status: "lost",
    detail:
      id === undefined
        ? `the journal ${stateDbPath(dir)} is new, but this state folder had one (${STATE_ID_FILE}): it was deleted, truncated or replaced`
        : `the journal ${stateDbPath(dir)} is not the one this state folder had (${STATE_ID_FILE} names another): it was replaced or restored from a copy`,
  };
}
