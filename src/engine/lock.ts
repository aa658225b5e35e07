// One hlbot instance per state folder. The lock is an exclusive SQLite lock on `state/lock.db`, held for
// the life of the process: the kernel drops it when the process dies, even on SIGKILL, so a stale lock
// is recovered by construction, with no guessing from pids. A sidecar `lock.json` says who holds it, so
// the second instance can print a useful message. (Like every fcntl lock, this is unreliable on some
// network file systems: keep the state folder on a local disk.)
import {
  chmodSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { HlbotError } from "../lib/errors.js";
import { maskKeyShaped } from "../lib/secrets.js";

export interface LockHolder {
  pid: number;
  hostname: string;
  command: string;
  /** Unknown when the holder was found from the kernel's lock table (it had not written lock.json yet). */
  startedAt?: string;
}

/** Another live process holds the state folder. Exit code 2: nothing was done. */
export class LockHeldError extends HlbotError {
  readonly code = "LOCKED";
  readonly family = "config";
  constructor(
    readonly stateDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      holder
        ? `state folder ${stateDir} is in use by another hlbot (\`${maskKeyShaped(holder.command)}\`, pid ${holder.pid} on ${holder.hostname}${holder.startedAt === undefined ? "" : `, since ${holder.startedAt}`}); stop it first or use another state folder`
        : `state folder ${stateDir} is in use by another hlbot process; stop it first or use another state folder`,
    );
  }
}

export interface InstanceLock {
  readonly stateDir: string;
  /**
   * False once lock.db was removed or replaced under us: another process may now take the folder.
   * A long-running holder checks it now and then and stops when it is false.
   */
  stillHeld(): boolean;
  release(): void;
}

/** Takes the instance lock of `stateDir` (which must exist) or throws LockHeldError at once. */
export function acquireInstanceLock(stateDir: string, command: string): InstanceLock {
  const file = join(stateDir, "lock.db");
  // Private like every file of the state folder: created 0600 by us rather than with the umask by SQLite
  // (which gives its own journal the same mode), and tightened if an older run left it looser.
  try {
    if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
    else if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch {
    // Not ours to change (a shared folder): SQLite opens it as it is.
  }
  const db = new Database(file, { timeout: 0 });
  const infoFile = join(stateDir, "lock.json");
  try {
    db.pragma("journal_mode = DELETE");
    db.pragma("locking_mode = EXCLUSIVE");
    // The first write takes the exclusive lock; locking_mode EXCLUSIVE keeps it until the connection closes.
    db.exec(
      "CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, at TEXT)",
    );
    db.prepare("INSERT OR REPLACE INTO holder (id, pid, at) VALUES (1, ?, ?)").run(
      process.pid,
      new Date().toISOString(),
    );
  } catch (err) {
    db.close();
    if (
      (err as { code?: string }).code === "SQLITE_BUSY" ||
      (err as { code?: string }).code === "SQLITE_LOCKED"
    ) {
      throw new LockHeldError(stateDir, lockHolder(file, infoFile));
    }
    throw err;
  }
  // The SQLite lock is on lock.db's inode: after `rm state/lock.db` a second process would lock a new
  // file while the first still runs. The holder file says whether a live hlbot on this host holds the
  // folder; if so, the fresh lock.db means nothing.
  const previous = readHolder(infoFile);
  if (previous && holderIsAlive(previous)) {
    db.close();
    throw new LockHeldError(stateDir, previous);
  }
  const inode = inodeOf(file);
  const holder: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    command,
    startedAt: new Date().toISOString(),
  };
  writeFileSync(infoFile, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  let released = false;
  return {
    stateDir,
    stillHeld() {
      return !released && inode !== undefined && inodeOf(file) === inode;
    },
    release() {
      if (released) return;
      released = true;
      rmSync(infoFile, { force: true });
      db.close();
    },
  };
}

/** How long a process that lost the lock waits for the winner's lock.json (written just after it locks). */
const HOLDER_WAIT_MS = 1_000;

/**
 * Who holds the lock on `file`: its lock.json, waited for briefly (two commands started together: the
 * winner has the lock but has not written it yet), else, on Linux, the process the kernel's lock table
 * names, with its command line.
 */
function lockHolder(file: string, infoFile: string): LockHolder | undefined {
  const deadline = Date.now() + HOLDER_WAIT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const holder = readHolder(infoFile);
    if (holder) return holder;
    if (Date.now() >= deadline) break;
    Atomics.wait(pause, 0, 0, 25);
  }
  return kernelLockHolder(file);
}

/** The process holding a POSIX lock on `file`, from /proc/locks (Linux only). */
function kernelLockHolder(file: string): LockHolder | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const ino = statSync(file).ino;
    for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
      // "1: POSIX  ADVISORY  WRITE 4242 fd:01:1234567 1073741824 1073742335"; waiters have "->".
      const f = line.trim().split(/\s+/);
      if (f[1] !== "POSIX" || f[4] === undefined || f[5] === undefined) continue;
      const pid = Number(f[4]);
      if (Number(f[5].split(":")[2]) !== ino || pid === process.pid || !Number.isSafeInteger(pid)) continue;
      let command = "unknown command";
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() || command;
      } catch {
        // Another user's process, or gone: the pid is still worth saying.
      }
      return { pid, hostname: hostname(), command };
    }
  } catch {
    // No lock table to read: the message says the folder is in use without a name.
  }
  return undefined;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as LockHolder;
  } catch {
    return undefined;
  }
}

function inodeOf(file: string): number | undefined {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process a holder file names is an hlbot still running on this host. Another host's
 * holder cannot be checked (the kernel lock is what protects a shared folder there). On Linux the
 * command line must mention hlbot, so a reused pid does not lock the folder forever.
 */
function holderIsAlive(holder: LockHolder): boolean {
  if (holder.hostname !== hostname() || holder.pid === process.pid || !Number.isSafeInteger(holder.pid))
    return false;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    return readFileSync(`/proc/${holder.pid}/cmdline`, "utf8").includes("hlbot");
  } catch {
    return true;
  }
}

/**
 * Who holds the instance lock of `stateDir` now: "none" when nothing does (or the folder does not exist
 * yet), else the holder when its sidecar names it. Probes by taking the lock and releasing it at once.
 */
export function instanceLockHolder(stateDir: string): { held: false } | { held: true; holder?: LockHolder } {
  if (!existsSync(stateDir)) return { held: false };
  try {
    acquireInstanceLock(stateDir, "lock probe").release();
    return { held: false };
  } catch (err) {
    if (err instanceof LockHeldError) return err.holder ? { held: true, holder: err.holder } : { held: true };
    throw err;
  }
}
