// A bot file for manual-command tests: its limits and venue, one disabled strategy (a bot file names at
// least one), and the CLI run in-process with a key in the environment.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";

/** Writes `dir`/bot.yaml (state ./state) beside a disabled link-staking strategy; returns its path. */
export function writeManualBotFile(
  dir: string,
  o: { baseUrl: string; limits: Record<string, unknown>; mode?: "live" | "dry-run"; logLevel?: string },
): string {
  writeFileSync(
    join(dir, "noop.yaml"),
    stringify({
      name: "noop",
      kind: "link-staking",
      schedule: "0 0 * * *",
      enabled: false,
      params: { counterparty: "0x3333333333333333333333333333333333333333" },
    }),
  );
  const file = join(dir, "bot.yaml");
  writeFileSync(
    file,
    stringify({
      network: "testnet",
      baseUrl: o.baseUrl,
      mode: o.mode ?? "live",
      strategies: ["noop.yaml"],
      state: "./state",
      limits: o.limits,
      log: o.logLevel === "silent" ? { level: "silent" } : { level: o.logLevel ?? "warn", format: "json" },
    }),
  );
  return file;
}

/** The CLI in-process with HLBOT_PRIVATE_KEY = `key`: its exit code and what it printed. */
export async function cliWithKey(key: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    env: { HLBOT_PRIVATE_KEY: key },
    isTTY: false,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}
