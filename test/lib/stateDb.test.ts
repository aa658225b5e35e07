import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, InternalError } from "../../src/lib/errors.js";
import {
  appliedMigrations,
  applyMigrations,
  type Migration,
  openStateDb,
  registerMigrations,
  resolveStateDir,
  STATE_DB_FILE,
  type StateDatabase,
} from "../../src/lib/stateDb.js";

let root: string;
const open: StateDatabase[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hlbot-statedb-"));
});
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(root, { recursive: true, force: true });
});

async function openIn(dir: string, migrations?: Migration[]): Promise<StateDatabase> {
  const db = await openStateDb({ dir, migrations });
  open.push(db);
  return db;
}

describe("openStateDb", () => {
  it("creates the folder 0700 and the database files 0600, in WAL mode with a busy timeout", async () => {
    const dir = join(root, "nested", "state");
    const db = await openIn(dir);
    db.exec("CREATE TABLE t (x INTEGER)");
    db.prepare("INSERT INTO t VALUES (1)").run();

    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const suffix of ["", "-wal", "-shm"]) {
      expect(statSync(join(dir, STATE_DB_FILE + suffix)).mode & 0o777).toBe(0o600);
    }
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(db.pragma("synchronous", { simple: true })).toBe(2); // FULL
    // SQLite's 2 MB page cache, not better-sqlite3's 16 MB, which a long-running daemon filled (a memory
    // investigation: about 25 MiB of a year-long daemon's resident memory, with glibc's share).
    expect(db.pragma("cache_size", { simple: true })).toBe(-2000);
  });

  it("reports a state path that is not a folder as a ConfigError naming it", async () => {
    const file = join(root, "not-a-folder");
    writeFileSync(file, "x");
    const attempt = openStateDb({ dir: file });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(openStateDb({ dir: file })).rejects.toThrow("not-a-folder");
    // Said in words, not as the system call's EEXIST.
    await expect(openStateDb({ dir: file })).rejects.toThrow(/the state path is a file, not a folder/);
  });

  it("resolves the state folder from --state, then HLBOT_STATE_DIR, $STATE_DIRECTORY, $XDG_STATE_HOME/hlbot", () => {
    expect(resolveStateDir("/x/y", { HLBOT_STATE_DIR: "/env" })).toBe("/x/y");
    expect(resolveStateDir(undefined, { HLBOT_STATE_DIR: "/env" })).toBe("/env");
    expect(resolveStateDir(undefined, { HLBOT_STATE_DIR: "", STATE_DIRECTORY: "/var/lib/hlbot" })).toBe(
      "/var/lib/hlbot",
    );
    expect(resolveStateDir(undefined, { XDG_STATE_HOME: "/xdg" })).toBe("/xdg/hlbot");
    // Never the working directory: a command started elsewhere finds the same state.
    expect(resolveStateDir(undefined, { HOME: "/home/u" })).toBe("/home/u/.local/state/hlbot");
    // Nor through a relative variable (a config trial: one journal per working directory): refused, or
    // ignored for $XDG_STATE_HOME (the XDG spec).
    for (const rel of ["relstate", "./state", "~/hlbot"])
      expect(() => resolveStateDir(undefined, { HLBOT_STATE_DIR: rel })).toThrow(
        new RegExp(`^HLBOT_STATE_DIR must be an absolute path \\(got "${rel.replace(".", "\\.")}"\\)`),
      );
    expect(() => resolveStateDir(undefined, { HLBOT_STATE_DIR: "~/hlbot" })).toThrow(
      /~ is not expanded outside a shell/,
    );
    // Which folder it named from here, which older versions used (an upgrade trial: a unit file's
    // relative value was refused with no word of where the journal was).
    expect(() => resolveStateDir(undefined, { HLBOT_STATE_DIR: "relstate" })).toThrow(
      `; from here it names ${join(process.cwd(), "relstate")} (older versions took it so: write that if your journal is there)`,
    );
    expect(resolveStateDir(undefined, { XDG_STATE_HOME: "xdg", HOME: "/home/u" })).toBe(
      "/home/u/.local/state/hlbot",
    );
  });
});

describe("migrations", () => {
  const first: Migration = { id: "test-001", sql: "CREATE TABLE a (x INTEGER)" };
  const second: Migration = {
    id: "test-002",
    up: (db) => {
      db.exec("CREATE TABLE b (y INTEGER)");
      db.prepare("INSERT INTO b VALUES (42)").run();
    },
  };

  it("applies each migration once, in order, and only new ones on the next open", async () => {
    const db1 = await openIn(root, [first]);
    expect(appliedMigrations(db1)).toEqual(["test-001"]);
    db1.close();

    const db2 = await openIn(root, [first, second]);
    expect(appliedMigrations(db2)).toEqual(["test-001", "test-002"]);
    expect(db2.prepare("SELECT y FROM b").all()).toEqual([{ y: 42 }]);
    // Running the list again is a no-op (CREATE TABLE without IF NOT EXISTS would throw otherwise).
    expect(applyMigrations(db2, [first, second])).toEqual([]);
  });

  it("rolls a failing migration back entirely and does not record it", async () => {
    const db = await openIn(root);
    const broken: Migration = {
      id: "test-broken",
      sql: "CREATE TABLE c (z INTEGER); INSERT INTO nope VALUES (1);",
    };
    expect(() => applyMigrations(db, [broken])).toThrow();
    expect(appliedMigrations(db)).not.toContain("test-broken");
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'c'").get()).toBeUndefined();
  });

  it("rejects a list with a duplicated id or a migration with neither sql nor up", async () => {
    const db = await openIn(root);
    expect(() => applyMigrations(db, [first, first])).toThrow(InternalError);
    expect(() => applyMigrations(db, [{ id: "empty" }])).toThrow(InternalError);
  });

  it("applies registered migrations on every later open", async () => {
    registerMigrations([{ id: "registered-001", sql: "CREATE TABLE IF NOT EXISTS reg (v TEXT)" }]);
    const db = await openIn(root);
    expect(appliedMigrations(db)).toContain("registered-001");
    expect(() => registerMigrations([{ id: "registered-001", sql: "SELECT 1" }])).toThrow(InternalError);
  });

  it("does not re-run a migration another connection to the same file already applied", async () => {
    const db1 = await openIn(root);
    const db2 = await openIn(root);
    const counted: Migration = { id: "test-race", sql: "CREATE TABLE race (x INTEGER)" };
    const applied = [...applyMigrations(db1, [counted]), ...applyMigrations(db2, [counted])];
    expect(applied).toEqual(["test-race"]);
  });
});
