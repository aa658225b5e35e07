// Command-line options shared by commands that talk to the venue, sign, or keep state: where requests
// go (--network, --base-url), who signs (--keystore, --password-env, --password-file, --key-env,
// --account), where the state lives (--state), how results are printed (--json) and whether anything
// is sent (--live). Each `add*` function declares a group on a commander command; the matching
// `read*` function turns commander's raw strings into checked values, throwing ValidationError (exit
// 2) before anything is signed or sent. Kept free of heavy imports: it is loaded for `--help`.
import type { Command } from "commander";
import { checksumProblem } from "../lib/address.js";
import { ValidationError } from "../lib/errors.js";
import { ADDRESS_PATTERN } from "../venue/constants.js";
import { type Endpoints, type NetworkName, parseNetworkName, resolveEndpoints } from "../venue/networks.js";

/** Environment variable read for the signing key when no keystore is given. */
export const DEFAULT_KEY_ENV = "HLBOT_PRIVATE_KEY";

/** Raw values commander collects for the option groups below (all strings, as typed). */
export interface RawCommonOptions {
  network?: string;
  baseUrl?: string;
  explorerUrl?: string;
  timeout?: string;
  keystore?: string;
  passwordEnv?: string;
  passwordFile?: string;
  keyEnv?: string;
  account?: string;
  state?: string;
  json?: boolean;
  live?: boolean;
  dryRun?: boolean;
}

/**
 * `botFile`: the command also reads a bot file (the manual actions), whose `network:` is the default;
 * commander then sets no default, so readNetworkOptions can tell a typed --network from none.
 */
export function addNetworkOptions(command: Command, o: { botFile?: boolean } = {}): Command {
  return command
    .option(
      "--network <name>",
      o.botFile
        ? "mainnet or testnet; selects the signing chain (default: the bot file's network, else testnet)"
        : "mainnet or testnet; selects the signing chain",
      ...(o.botFile ? [] : ["testnet"]),
    )
    .option("--base-url <url>", "send requests to this base URL instead (keeps the network's signing chain)")
    .option(
      "--explorer-url <url>",
      "post explorer queries (txDetails) to this URL (default: the network's explorer, or {base}/info with --base-url)",
    )
    .option("--timeout <ms>", "per-request timeout in milliseconds (default 10000)");
}

/** --network of a command that also reads a bot file (the manual actions): its network is the default. */
export function addBotFileNetworkOptions(command: Command): Command {
  return addNetworkOptions(command, { botFile: true });
}

export function addSignerOptions(command: Command): Command {
  return command
    .option(
      "--keystore <file>",
      "encrypted JSON keystore holding the signing key (without a key option: the bot file's wallet, else $HLBOT_PRIVATE_KEY)",
    )
    .option(
      "--password-env <name>",
      "environment variable holding the keystore password (default HLBOT_KEYSTORE_PASSWORD)",
    )
    .option("--password-file <file>", "file holding the keystore password")
    .option(
      "--key-env <name>",
      `environment variable holding the hex private key (default: the bot file's wallet, else ${DEFAULT_KEY_ENV})`,
    )
    .option(
      "--account <address>",
      "account acted for (default: the bot file's `account:`, else the signer's own address; differs for an API wallet)",
    );
}

export function addStateOption(command: Command): Command {
  return command.option(
    "--state <dir>",
    "state folder holding the nonce store (default: the bot file's, else $HLBOT_STATE_DIR, $STATE_DIRECTORY or $XDG_STATE_HOME/hlbot)",
  );
}

export function addOutputOptions(command: Command): Command {
  return command.option("--json", "print machine-readable JSON on one line");
}

export function addLiveOption(command: Command): Command {
  return command
    .option(
      "--live",
      "really send to the venue (default: dry run, print the request unsigned, or signed with --sign)",
    )
    .option("--dry-run", "never send, even with --live (dry run is the default)");
}

export interface NetworkSelection {
  network: NetworkName;
  endpoints: Endpoints;
  baseUrl: string | undefined;
  timeoutMs: number | undefined;
}

/** `fallback`: the network when --network is not given (the bot file's, for the manual actions). */
export function readNetworkOptions(
  raw: RawCommonOptions,
  fallback: NetworkName = "testnet",
): NetworkSelection {
  const network = parseNetworkName(raw.network ?? fallback, "--network");
  const endpoints = resolveEndpoints(network, raw.baseUrl, raw.explorerUrl);
  const timeoutMs = raw.timeout === undefined ? undefined : parseInteger(raw.timeout, "--timeout", 1);
  return { network, endpoints, baseUrl: raw.baseUrl, timeoutMs };
}

export interface SignerSelection {
  keystore: string | undefined;
  passwordEnv: string | undefined;
  passwordFile: string | undefined;
  /** --key-env; undefined when not given (the bot file's wallet, else HLBOT_PRIVATE_KEY). */
  keyEnv: string | undefined;
  account: string | undefined;
}

export function readSignerOptions(raw: RawCommonOptions): SignerSelection {
  const issues: { path: string; message: string }[] = [];
  if (raw.keystore === undefined && (raw.passwordEnv !== undefined || raw.passwordFile !== undefined)) {
    issues.push({ path: "--password-env/--password-file", message: "only apply with --keystore" });
  }
  if (raw.keystore !== undefined && raw.keyEnv !== undefined) {
    issues.push({ path: "--key-env", message: "cannot be combined with --keystore" });
  }
  if (raw.account !== undefined && !ADDRESS_PATTERN.test(raw.account)) {
    issues.push({
      path: "--account",
      message: `expected 0x followed by 40 hex digits, got ${JSON.stringify(raw.account)}`,
    });
  } else if (raw.account !== undefined && checksumProblem(raw.account) !== undefined) {
    issues.push({ path: "--account", message: checksumProblem(raw.account)! });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return {
    keystore: raw.keystore,
    passwordEnv: raw.passwordEnv,
    passwordFile: raw.passwordFile,
    keyEnv: raw.keyEnv,
    account: raw.account?.toLowerCase(),
  };
}

/** A whole number written in decimal digits only (no sign, exponent or fraction), at least `min`. */
export function parseInteger(text: string, flag: string, min = 0): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ValidationError([
      { path: flag, message: `expected a whole number >= ${min}, got ${JSON.stringify(text)}` },
    ]);
  }
  return value;
}

/**
 * A decimal amount as typed (kept as text so nothing passes through floating point); ".5" is read as
 * "0.5" (it passed here and was then refused as no decimal number: an audit).
 */
export function parseAmountText(text: string | undefined, flag: string): string {
  if (text === undefined || !/^\d+(\.\d+)?$|^\.\d+$/.test(text.trim())) {
    throw new ValidationError([
      { path: flag, message: `expected a positive decimal number, got ${JSON.stringify(text)}` },
    ]);
  }
  const trimmed = text.trim();
  return trimmed.startsWith(".") ? `0${trimmed}` : trimmed;
}

/** An address flag, lower-cased. */
export function parseAddress(text: string | undefined, flag: string): string {
  if (text === undefined || !ADDRESS_PATTERN.test(text)) {
    throw new ValidationError([
      { path: flag, message: `expected 0x followed by 40 hex digits, got ${JSON.stringify(text)}` },
    ]);
  }
  const problem = checksumProblem(text);
  if (problem !== undefined) throw new ValidationError([{ path: flag, message: problem }]);
  return text.toLowerCase();
}

/** --config of the commands that run the bot: where the bot file is looked for (resolveConfigPath). */
export const CONFIG_OPTION_HELP =
  "bot configuration (default: $HLBOT_CONFIG, else ./hlbot.yaml, else ~/.config/hlbot/config.yaml, else config/default.yaml)";
