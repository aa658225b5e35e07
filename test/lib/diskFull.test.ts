// A full disk under the state database: the operator on the worst day read a bare "database or disk is
// full" (or ENOSPC) naming no folder. The advice names the file and the way out; other errors get none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, diskFullAdvice } from "../../src/lib/errors.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("diskFullAdvice", () => {
  it("names the state database and says to free space, for SQLite's SQLITE_FULL and the system's ENOSPC", () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-full-"));
    dirs.push(dir);
    const file = join(dir, "hlbot.db");
    const db = new Database(file);
    // A database that may not grow: what a full disk does to SQLite, on a real file.
    db.exec("CREATE TABLE t (x BLOB)");
    db.pragma("max_page_count = 3");
    let full: unknown;
    try {
      for (let i = 0; i < 100; i++) db.prepare("INSERT INTO t VALUES (?)").run(Buffer.alloc(4096));
    } catch (err) {
      full = err;
    }
    db.close();
    expect((full as { code?: string }).code).toBe("SQLITE_FULL");
    expect(diskFullAdvice(full, file)).toBe(
      `the disk holding ${file} is full: free space on it, then run again (what a run journaled before it stopped is reconciled with the venue at the next run)`,
    );
    // The system's, as the cause of another error (the instance lock's write).
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    expect(diskFullAdvice(new ConfigError("cannot take the lock", {}, { cause: enospc }), file)).toMatch(
      /^the disk holding .* is full/,
    );
    expect(diskFullAdvice(new Error("something else"), file)).toBeUndefined();
  });
});
