// The version of the installed hlbot package (--version, hlbot_build_info), read from its package.json.
import { readFileSync } from "node:fs";

let cached: string | undefined;

/** The `version` of hlbot's package.json (src/lib and dist/lib both sit two levels below it). */
export function packageVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
  return cached;
}
