// Finding the user's bot file, and the secrets its wallet names, without loading the configuration:
// light enough for every command's start (src/cli/main.ts), before any argument is parsed or sent.
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import type { Document } from "yaml";
import { ConfigError } from "../../lib/errors.js";
import { registerSecretFile, registerSecretVariables } from "../../lib/secrets.js";

export type Env = Readonly<Record<string, string | undefined>>;

export const CONFIG_PATH_ENV = "HLBOT_CONFIG";

/** Largest configuration or strategy file read (they are a few KB; anything near this is not one). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * A bot file the user made, from any working directory: the --config option, else $HLBOT_CONFIG,
 * else ./hlbot.yaml, else $XDG_CONFIG_HOME/hlbot/config.yaml (~/.config/hlbot/config.yaml); undefined
 * when there is none. Manual actions use only these (never a shipped example's limits).
 */
export function discoverConfigPath(
  option: string | undefined,
  env: Env,
  cwd = process.cwd(),
): string | undefined {
  // `--config "$CONF"` with CONF unset (a cron line, a unit file) ran whichever file discovery found: the
  // option given empty is refused. An empty $HLBOT_CONFIG stays "unset".
  if (option !== undefined && option.trim() === "")
    throw new ConfigError(
      "--config: the path is empty (an unset variable on the command line?); give the bot file, or leave the option out to use $HLBOT_CONFIG or ./hlbot.yaml",
    );
  const named = option ?? env[CONFIG_PATH_ENV];
  if (named !== undefined && named !== "") return resolve(cwd, named);
  const local = resolve(cwd, "hlbot.yaml");
  if (existsSync(local)) return local;
  const xdg = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), ".config");
  const user = join(xdg, "hlbot", "config.yaml");
  if (existsSync(user)) return user;
  return undefined;
}

/** A path of a bot file, relative to its folder; `~` is the home folder. */
export function resolvePath(base: string, p: string): string {
  if (p === "~" || p.startsWith(`~/`) || p.startsWith(`~${sep}`)) return join(homedir(), p.slice(1));
  return resolve(base, p);
}

/**
 * Registers the secrets a bot file's wallet names (its `privateKeyEnv` and `passwordEnv` variables, its
 * `privateKeyFile`) before any command runs, read from those lines alone: a command given --base-url or
 * --network, or whose bot file does not load, never loads the wallet, and a key pasted into its
 * arguments (`tx <hash>`, a URL) went out to the venue (a security audit). Whatever cannot be read is
 * left out silently: the command itself reports a broken file.
 */
export async function preregisterWalletSecrets(file: string | undefined, env: Env): Promise<void> {
  if (file === undefined) return;
  // Loaded only when there is a file: `hlbot --version` and a command without a bot file stay quick.
  const { parseDocument } = await import("yaml");
  let doc: Document;
  try {
    // A regular file of a configuration's size only, as the loader reads: `--config /dev/zero` was read
    // until memory ran out, and a FIFO would block every command (the reliability tests).
    const info = statSync(file);
    if (!info.isFile() || info.size > MAX_CONFIG_BYTES) return;
    doc = parseDocument(readFileSync(file, "utf8"));
  } catch {
    return;
  }
  registerSecretVariables(env, [walletLine(doc, "privateKeyEnv"), walletLine(doc, "passwordEnv")]);
  const keyFile = walletLine(doc, "privateKeyFile");
  if (keyFile !== undefined) registerSecretFile(resolvePath(dirname(file), keyFile));
}

/**
 * A bot file's `wallet.<key>` as written, when a plain string: one holding `${...}` names no variable or
 * file until interpolated (the loader refuses a secret variable interpolated anywhere).
 */
export function walletLine(doc: Document, key: string): string | undefined {
  const value: unknown = doc.getIn(["wallet", key]);
  return typeof value === "string" && !value.includes("$") ? value : undefined;
}
