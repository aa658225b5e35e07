// Reading a text file a user names (a scenario, a candle file) as the loader reads bot files: a regular
// file of a sensible size only. `--scenario /dev/zero` was read until memory ran out (the process
// aborted) and a FIFO blocked for ever (a config trial); a folder said "EISDIR".
import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "./errors.js";

/** Largest scenario file read (one with a year of hourly price points is about 300 KB). */
export const MAX_SCENARIO_BYTES = 64 * 1024 * 1024;

/** The text of `file`, or a ConfigError naming it: not found, a folder, not a regular file, too large. */
export function readRegularTextFile(file: string, what: string, maxBytes: number): string {
  const fail = (why: string, err?: unknown): never => {
    throw new ConfigError(`${what}: ${why}`, { file }, err === undefined ? {} : { cause: err });
  };
  const whyNot = (err: unknown) => {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ENOENT") return "file not found";
    if (e.code === "EACCES") return "no permission to read it";
    return `cannot read (${e.code ?? e.message ?? String(err)})`;
  };
  let size = 0;
  try {
    const info = statSync(file);
    if (info.isDirectory()) fail("is a folder, expected a file");
    if (!info.isFile()) fail("is not a regular file (a device, FIFO or socket)");
    size = info.size;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    fail(whyNot(err), err);
  }
  if (size > maxBytes) fail(`is ${size} bytes; at most ${maxBytes} are read`);
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    return fail(whyNot(err), err);
  }
}
