// Reading a text file a user names (a bot or strategy file, a sweep, a scenario, a candle file): a
// regular file of a bounded size only. `/dev/zero` would be read until memory ran out (`--scenario
// /dev/zero` aborted the process), a FIFO blocks until someone writes to it, and a folder said "EISDIR".
// One reader for all of them; each kind of file keeps its own words.
import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "./errors.js";

/** Largest scenario file read (one with a year of hourly price points is about 300 KB). */
export const MAX_SCENARIO_BYTES = 64 * 1024 * 1024;

export interface TextFileWords {
  /** The file as named in the error (default: the path read). */
  shown?: string;
  /** Before each reason ("scenario: "). */
  prefix?: string;
  /** Default "file not found". */
  missing?: string;
  /** Default "is a folder, expected a file". */
  folder?: string;
  /** Default "is not a regular file (a device, FIFO or socket)". */
  notRegular?: string;
  /** Default "is N bytes; at most M are read". */
  tooLarge?: (size: number, maxBytes: number) => string;
}

/** The text of `file`, or a ConfigError naming it: not found, a folder, not a regular file, too large. */
export function readRegularTextFile(file: string, maxBytes: number, words: TextFileWords = {}): string {
  const fail = (why: string, err?: unknown): never => {
    throw new ConfigError(
      `${words.prefix ?? ""}${why}`,
      { file: words.shown ?? file },
      err === undefined ? {} : { cause: err },
    );
  };
  const whyNot = (err: unknown) => {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ENOENT") return words.missing ?? "file not found";
    if (e.code === "EISDIR") return words.folder ?? "is a folder, expected a file";
    if (e.code === "EACCES") return "no permission to read it";
    return `cannot read (${e.code ?? e.message ?? String(err)})`;
  };
  const tooLarge = (size: number) =>
    words.tooLarge?.(size, maxBytes) ?? `is ${size} bytes; at most ${maxBytes} are read`;
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(file);
  } catch (err) {
    return fail(whyNot(err), err);
  }
  if (info.isDirectory()) return fail(words.folder ?? "is a folder, expected a file");
  if (!info.isFile()) return fail(words.notRegular ?? "is not a regular file (a device, FIFO or socket)");
  if (info.size > maxBytes) return fail(tooLarge(info.size));
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    return fail(whyNot(err), err);
  }
  // The file may have grown between stat and read.
  if (text.length > maxBytes) return fail(tooLarge(text.length));
  return text;
}
