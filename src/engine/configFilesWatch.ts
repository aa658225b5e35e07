// Edits of the bot file and its strategy files while `hlbot run` runs (an owner's edit trial: a daemon
// kept its old strategies, limits and mode after the files were edited, and nothing said so until a
// SIGHUP). `run` reads them at start and at SIGHUP only, as documented; this watch says, once per edit,
// that what is on disk is not what runs, and how to apply it.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Logger } from "pino";

export const CONFIG_FILES_CHECK_MS = 60_000;

export interface ConfigFilesWatchOptions {
  /** The bot file (its edits need a restart, not a SIGHUP, except its `strategies:` list). */
  botFile: string;
  /** The strategy files as they are now (a folder's current *.yaml files, or the configured list). */
  strategyFiles: () => Promise<string[]>;
  logger: Pick<Logger, "warn">;
  pid?: number;
}

/**
 * A hash of a file's content, or "absent": a file put back as it was is what runs (its time alone said
 * "changed" of a strategy file restored after a refused SIGHUP: an SRE's trial).
 */
async function fingerprint(path: string): Promise<string> {
  try {
    return createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  } catch {
    return ABSENT;
  }
}

const ABSENT = "absent";

export class ConfigFilesWatch {
  private readonly o: ConfigFilesWatchOptions;
  /** The files as last read (start, SIGHUP): path → fingerprint. */
  private read = new Map<string, string>();
  /** The last edit warned about, so one edit is said once and not every minute. */
  private warned = "";

  constructor(o: ConfigFilesWatchOptions) {
    this.o = o;
  }

  /** Each file's fingerprint now: taken before files are read, it becomes the baseline once applied. */
  async fingerprints(): Promise<Map<string, string>> {
    let strategyFiles: string[];
    try {
      strategyFiles = await this.o.strategyFiles();
    } catch {
      strategyFiles = [...this.read.keys()].filter((p) => p !== this.o.botFile);
    }
    const paths = [this.o.botFile, ...strategyFiles];
    const prints = await Promise.all(paths.map(fingerprint));
    return new Map(paths.map((p, i) => [p, prints[i]!]));
  }

  /**
   * What runs: the fingerprints taken before its files were read (an edit made while a start or a
   * SIGHUP still read the venue was taken into the baseline and never said: a review), else the files
   * as they are now.
   */
  async baseline(prints?: Map<string, string>): Promise<void> {
    this.read = prints ?? (await this.fingerprints());
    this.warned = "";
  }

  /** The files edited, added or removed since the baseline; warns once per distinct edit. */
  async check(): Promise<string[]> {
    const now = await this.fingerprints();
    const changed: string[] = [];
    for (const [path, print] of now) if (this.read.get(path) !== print) changed.push(path);
    for (const path of this.read.keys()) if (!now.has(path)) changed.push(path);
    if (changed.length === 0) return changed;
    const key = JSON.stringify([...now]);
    if (key === this.warned) return changed;
    this.warned = key;
    const botFile = changed.includes(this.o.botFile);
    const hup = this.o.pid === undefined ? "SIGHUP" : `SIGHUP (kill -HUP ${this.o.pid})`;
    // Said as what happened to each: a deleted strategy file read "changed" (an SRE's trial), and a
    // SIGHUP then stops that strategy.
    const was = (path: string) => {
      const before = this.read.get(path);
      const after = now.get(path);
      return before === undefined || before === ABSENT
        ? "added"
        : after === undefined || after === ABSENT
          ? "removed"
          : "edited";
    };
    const what = changed.map((p) => `${p} ${was(p)}`).join(", ");
    const removed = changed.some((p) => was(p) === "removed" && p !== this.o.botFile);
    this.o.logger.warn(
      { changed },
      `${what} on disk since this daemon read ${changed.length === 1 ? "it" : "them"}: ` +
        `it still runs what it read; ${hup} applies the strategy files and the bot file's strategies: list` +
        (removed ? " (a strategy whose file is removed stops)" : "") +
        (botFile ? "; mode, limits and the bot file's other settings take effect only at a restart" : ""),
    );
    return changed;
  }
}
