// The kill switch: while anything exists at the configured path, nothing is submitted except the
// cancellation of running TWAPs. It fails closed: a file the process cannot read, a dangling symlink,
// a folder, a FIFO all mean "stopped" (lstat, never a read of the contents), and a path whose folder
// cannot be examined counts as stopped too. A path whose folder does not exist is a configuration
// error (the switch could never be engaged there), refused at load time and again at each check.

import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { ConfigError, ValidationError } from "../lib/errors.js";
import { maskKeyShaped } from "../lib/secrets.js";
import type { Skip, TwapCancelIntent } from "./intents.js";
import { labelOf, type RunningTwap } from "./snapshot.js";

export interface KillSwitchState {
  engaged: boolean;
  /** Why it counts as engaged (what is at the path), for reasons and logs. */
  detail?: string;
}

/** Throws ConfigError when the folder that should hold the kill-switch file does not exist. */
export function checkKillSwitchFolder(path: string): void {
  const folder = dirname(path);
  let isDir: boolean;
  try {
    isDir = statSync(folder).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") return; // cannot look: the check at run time fails closed
    isDir = false;
  }
  if (!isDir) {
    throw new ConfigError(
      `the kill-switch file's folder ${folder} does not exist: the switch could never be engaged there`,
      { keyPath: "limits.killSwitchFile" },
    );
  }
}

/** Whether the kill switch at `path` is engaged. Anything at the path, or a path that cannot be examined, is. */
/** Whether the switch at `path` is engaged, for a watch that looks again later: undefined when it cannot tell now. */
export function killSwitchEngaged(path: string): boolean | undefined {
  try {
    return killSwitchState(path).engaged;
  } catch {
    return undefined;
  }
}

export function killSwitchState(path: string): KillSwitchState {
  try {
    const st = lstatSync(path);
    const what = st.isSymbolicLink()
      ? "a symlink"
      : st.isDirectory()
        ? "a folder"
        : st.isFile()
          ? "a file"
          : "something";
    return { engaged: true, detail: `${what} exists at ${path}` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      checkKillSwitchFolder(path);
      return { engaged: false };
    }
    // EACCES on a folder on the way, ENOTDIR, ELOOP, EIO…: we cannot tell, so it is engaged.
    return { engaged: true, detail: `${path} cannot be examined (${code ?? String(err)}): failing closed` };
  }
}

/**
 * The kill switch as a person should see it (`status`, `once`): undefined when released, else since when
 * and why (what `stop` wrote; only what the state tells when something else is at the path).
 */
export function killSwitchNotice(path: string): string | undefined {
  let state: KillSwitchState;
  try {
    state = killSwitchState(path);
  } catch (err) {
    // Its folder does not exist (the state folder not made yet): nothing is there to show.
    if (err instanceof ConfigError) return undefined;
    throw err;
  }
  if (!state.engaged) return undefined;
  const written = readEngaged(path);
  // Not a file stop wrote: the state's own words say what is there.
  return written === undefined
    ? `engaged: ${state.detail}; nothing is submitted until \`hlbot resume\``
    : `engaged since ${written.stoppedAt} (${maskKeyShaped(written.reason)}): nothing is submitted until \`hlbot resume\``;
}

/** Engages the switch: writes `path` with the reason and the time (creating its folder only if asked). */
export function engageKillSwitch(path: string, reason: string, now: number, createFolder = false): void {
  if (createFolder) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // The reason is free text a person typed: a key pasted there (one read from a file or a keystore is
  // not known to the command line's check) is written masked, like anything else of its shape.
  // Engaged already (by hlbot): it stays engaged since then, and this reason is added to the first.
  const earlier = readEngaged(path);
  const at = new Date(now).toISOString();
  const record =
    earlier === undefined
      ? { stoppedAt: at, reason: maskKeyShaped(reason) }
      : {
          stoppedAt: earlier.stoppedAt,
          reason: `${earlier.reason}; again at ${at}: ${maskKeyShaped(reason)}`,
        };
  try {
    writeFileSync(path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch (err) {
    // A raw "EACCES … STOP" said neither that the switch is NOT engaged nor what to do (exit 2: config).
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EACCES" && code !== "EPERM" && code !== "EROFS") throw err;
    // No chown helps on a read-only mount.
    if (code === "EROFS")
      throw new ConfigError(
        `the kill switch is NOT engaged: ${path} is on a read-only file system; set limits.killSwitchFile to a path on a writable one, or mount it read-write`,
        {},
        { cause: err },
      );
    throw new ConfigError(
      `the kill switch is NOT engaged: ${path} cannot be written by this user (${(err as Error).message}); give this user write access to ${dirname(path)} (e.g. \`chown "$(id -un)" ${dirname(path)}\`), run hlbot as the user that owns it, or set limits.killSwitchFile to a path it can write`,
      {},
      { cause: err },
    );
  }
}

/** Largest file read back as a record `engageKillSwitch` wrote (it writes one short JSON line). */
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * The record an earlier `engageKillSwitch` wrote at `path`, if one is there. Only a regular file of a
 * record's size is read: opening a FIFO for reading blocks until a writer comes (a review: a FIFO at the
 * path froze the daemon's watch, its liveness and SIGTERM), and a symlink to /dev/zero would not end.
 */
function readEngaged(path: string): { stoppedAt: string; reason: string } | undefined {
  let fd: number | undefined;
  try {
    // Non-blocking and not through a symlink: whatever is there now is what fstat then describes.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_RECORD_BYTES) return undefined;
    const r = JSON.parse(readFileSync(fd, "utf8")) as { stoppedAt?: unknown; reason?: unknown };
    return typeof r.stoppedAt === "string" && typeof r.reason === "string"
      ? { stoppedAt: maskKeyShaped(r.stoppedAt), reason: r.reason }
      : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Releases the switch: removes whatever is at `path` (a file, a symlink, a folder). True when something was there. */
export function releaseKillSwitch(path: string): boolean {
  let isDir: boolean;
  try {
    const st = lstatSync(path);
    isDir = st.isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
  // A folder is removed only when empty (rmdir): resume never deletes anything else someone put there.
  if (isDir) {
    try {
      rmdirSync(path);
    } catch (err) {
      // A raw ENOTEMPTY told an operator nothing (a docs trial): say what to do; the bot stays stopped.
      if (
        (err as NodeJS.ErrnoException).code === "ENOTEMPTY" ||
        (err as NodeJS.ErrnoException).code === "EEXIST"
      )
        throw new ValidationError(
          `${path} is a folder with files in it, so the kill switch stays engaged: hlbot removes only an empty folder (it never deletes what someone put there). Look inside, then remove it yourself (rm -r ${JSON.stringify(path)}) to resume.`,
        );
      throw err;
    }
  } else rmSync(path, { force: true });
  return true;
}

/** Name under which the kill switch's own cancellations are journaled. */
export const KILL_SWITCH_STRATEGY = "kill-switch";

/**
 * The cancellations of the account's running TWAPs while the switch is engaged with cancelRunning:
 * one twapCancel per TWAP the venue reports running, or a skip saying why one cannot be cancelled.
 */
export function killSwitchCancels(
  twaps: readonly RunningTwap[],
  why: string,
  /** The snapshot's pairs, to name a pair as "HYPE/USDC" rather than the venue's "@107". */
  pairs?: ReadonlyMap<string, { base: { name: string }; quote: { name: string } }>,
): Array<TwapCancelIntent | Skip> {
  return twaps.map((t): TwapCancelIntent | Skip => {
    // Its size only: twapHistory's executed size changes only with the TWAP's status, so it would say
    // "0 filled" of a TWAP that has been filling (the cancelled notice reports the fills).
    const what = `${t.side} TWAP ${t.twapId ?? "(no id)"} on ${labelOf(t.coin, pairs)} (size ${t.size.toFixed()})`;
    if (t.twapId === undefined || t.assetId === undefined) {
      return {
        kind: "skip",
        strategy: KILL_SWITCH_STRATEGY,
        considered: "twapCancel",
        reason: `${why}: cannot cancel the running ${what}: ${t.twapId === undefined ? "the venue gave no twapId" : "its pair is unknown"}; cancel it by hand`,
      };
    }
    return {
      kind: "twapCancel",
      strategy: KILL_SWITCH_STRATEGY,
      assetId: t.assetId,
      twapId: t.twapId,
      reason: `${why}: cancel the running ${what}`,
    };
  });
}
