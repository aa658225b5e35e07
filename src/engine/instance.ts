// The one way a process that acts for an account (`hlbot once`, `hlbot run`) takes its state folder:
// create it private, take the instance lock (a second process exits 2 before touching anything), open
// the runtime, and close the cycles an earlier process left marked running (it crashed or was killed:
// holding the lock proves it is gone). `close()` undoes it in the opposite order.
import { mkdirSync } from "node:fs";
import { stateFolderError } from "../lib/errors.js";
import { acquireInstanceLock, type InstanceLock } from "./lock.js";
import { openRuntime, type Runtime, type RuntimeOptions } from "./runtime.js";

/** Cycle kinds a process of ours may leave running when it dies. */
const CYCLE_KINDS = ["run", "once", "watch"];

/** A manual action's cycle still `running` after this long was cut short (a manual action takes seconds). */
const MANUAL_CYCLE_STALE_MS = 60 * 60_000;

export interface Instance {
  readonly runtime: Runtime;
  readonly lock: InstanceLock;
  /** Cycles of an earlier process found running and marked interrupted. */
  readonly interrupted: number;
  /** Closes the runtime, then releases the lock. */
  close(): Promise<void>;
}

/** `command` names the holder in the lock's sidecar, for the message the next process prints. */
export async function openInstance(o: RuntimeOptions & { command: string }): Promise<Instance> {
  const { config, logger } = o;
  // A folder this user cannot write is a configuration problem (exit 2) named with its fix.
  const unwritable = (err: unknown) => stateFolderError(err, config.state, { file: config.file });
  let lock: InstanceLock;
  try {
    mkdirSync(config.state, { recursive: true, mode: 0o700 });
    lock = acquireInstanceLock(config.state, o.command);
  } catch (err) {
    throw unwritable(err);
  }
  let runtime: Runtime;
  try {
    runtime = await openRuntime(o);
  } catch (err) {
    lock.release();
    throw unwritable(err);
  }
  // And manual actions (they take no lock) started over an hour ago: one killed mid-send stayed
  // `running` in history for good, its submission long reconciled (an upgrade trial).
  const interrupted =
    runtime.journal.closeInterruptedCycles(CYCLE_KINDS) +
    runtime.journal.closeInterruptedCycles(["manual"], runtime.clock() - MANUAL_CYCLE_STALE_MS);
  if (interrupted > 0)
    logger.warn(
      { interrupted },
      `${interrupted} cycle(s) of an earlier process were cut short; marked interrupted`,
    );
  let closed = false;
  return {
    runtime,
    lock,
    interrupted,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await runtime.close();
      } finally {
        lock.release();
      }
    },
  };
}
