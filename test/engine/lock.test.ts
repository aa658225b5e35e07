import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { acquireInstanceLock, LockHeldError } from "../../src/engine/lock.js";
import { buildOnce } from "../helpers/build.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Starts a child process that takes the lock through the compiled module and reports "locked". */
function holdLockInChild(stateDir: string): Promise<ChildProcess> {
  const script = `
    const { acquireInstanceLock } = await import(${JSON.stringify(join(ROOT, "dist/engine/lock.js"))});
    acquireInstanceLock(${JSON.stringify(stateDir)}, "hlbot run --config test.yaml");
    process.stdout.write("locked\\n");
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolveChild, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      if (d.toString().includes("locked")) resolveChild(child);
    });
    child.on("exit", (code) => reject(new Error(`lock holder exited early with ${code}`)));
  });
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((r) =>
    child.exitCode !== null || child.signalCode !== null ? r() : child.once("exit", () => r()),
  );
}

describe("instance lock", () => {
  let dir: string;
  beforeAll(() => buildOnce(), 120_000);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "hlbot-lock-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("lets one process in, tells the second who holds it, and recovers after SIGKILL", async () => {
    const child = await holdLockInChild(dir);
    try {
      let error: unknown;
      try {
        acquireInstanceLock(dir, "hlbot once");
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(LockHeldError);
      expect((error as LockHeldError).holder?.pid).toBe(child.pid);
      expect((error as Error).message).toContain("hlbot run --config test.yaml");
      expect((error as LockHeldError).exitCode).toBe(2);
    } finally {
      child.kill("SIGKILL");
      await waitExit(child);
    }
    // The kernel released the dead holder's lock: no manual cleanup needed.
    const lock = acquireInstanceLock(dir, "hlbot once");
    expect(existsSync(join(dir, "lock.json"))).toBe(true);
    lock.release();
    expect(existsSync(join(dir, "lock.json"))).toBe(false);
  });

  it("names the holder when two start together: it waits for the winner's lock.json, else asks the kernel", async () => {
    // A user's trial: two racing `hlbot once` runs; the loser said "in use by another hlbot process"
    // without a name, because the winner had the lock but had not written lock.json yet. The child
    // takes the SQLite lock as acquireInstanceLock does and writes lock.json only after `delay` ms.
    const holdRaw = (delayMs: number | undefined): Promise<ChildProcess> => {
      const script = `
        const { default: Database } = await import(${JSON.stringify(join(ROOT, "node_modules/better-sqlite3/lib/index.js"))});
        const { writeFileSync } = await import("node:fs");
        const { hostname } = await import("node:os");
        const db = new Database(${JSON.stringify(join(dir, "lock.db"))}, { timeout: 0 });
        db.pragma("journal_mode = DELETE");
        db.pragma("locking_mode = EXCLUSIVE");
        db.exec("CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY, pid INTEGER)");
        db.prepare("INSERT OR REPLACE INTO holder (id, pid) VALUES (1, ?)").run(process.pid);
        process.stdout.write("locked\\n");
        ${delayMs === undefined ? "" : `setTimeout(() => writeFileSync(${JSON.stringify(join(dir, "lock.json"))}, JSON.stringify({ pid: process.pid, hostname: hostname(), command: "hlbot once --config racing.yaml", startedAt: new Date().toISOString() })), ${delayMs});`}
        setInterval(() => {}, 1000);
      `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      return new Promise((ok, reject) => {
        child.stdout?.on("data", (d: Buffer) => {
          if (d.toString().includes("locked")) ok(child);
        });
        child.on("exit", (code) => reject(new Error(`holder exited early with ${code}`)));
      });
    };
    const loserError = (): LockHeldError => {
      try {
        acquireInstanceLock(dir, "hlbot once");
      } catch (err) {
        expect(err).toBeInstanceOf(LockHeldError);
        return err as LockHeldError;
      }
      throw new Error("the lock was taken twice");
    };

    const late = await holdRaw(200);
    try {
      const error = loserError();
      expect(error.holder?.pid).toBe(late.pid);
      expect(error.message).toContain("`hlbot once --config racing.yaml`");
    } finally {
      late.kill("SIGKILL");
      await waitExit(late);
    }
    rmSync(join(dir, "lock.json"), { force: true });
    if (process.platform !== "linux") return;
    const silent = await holdRaw(undefined);
    try {
      const error = loserError();
      expect(error.holder?.pid).toBe(silent.pid);
      expect(error.message).toContain(`pid ${silent.pid}`);
      expect(error.message).toContain("--input-type=module");
    } finally {
      silent.kill("SIGKILL");
      await waitExit(silent);
    }
  });

  it("can be taken again after a clean release", () => {
    acquireInstanceLock(dir, "a").release();
    const again = acquireInstanceLock(dir, "b");
    again.release();
  });
});
