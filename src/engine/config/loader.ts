// Loading the configuration: read the bot file and its strategy files, refuse inline keys, expand
// `${ENV}`, validate against the schemas, resolve relative paths against the bot file's folder, and
// return one typed, immutable result. Every failure is a ConfigError (exit code 2) naming the file,
// the line and the key path; several problems are reported together.
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMap, parseDocument } from "yaml";
import type * as z from "zod";
import { ConfigError } from "../../lib/errors.js";
import type { LogFormat, LogLevel } from "../../lib/log.js";
import { readRegularTextFile } from "../../lib/readText.js";
import { isSecretVariable, registerSecretFile, registerSecretVariables } from "../../lib/secrets.js";
import { defaultStateDir } from "../../lib/stateDb.js";
import {
  aliasLine,
  formatKeyPath,
  interpolateEnv,
  keepExactNumbers,
  lineOf,
  parseYamlSource,
  type YamlSource,
} from "../../lib/yamlSource.js";
import { TWAP_SLICE_SECONDS } from "../../venue/constants.js";
import type { NetworkName } from "../../venue/networks.js";
import type { RiskLimits } from "../risk.js";
import {
  DEFAULT_CATCH_UP_MS,
  DEFAULT_MAX_CLOCK_SKEW_MS,
  hasSecondsField,
  parseDuration,
} from "../schedule.js";
import type { VenueRules } from "../snapshot.js";
import type { Strategy } from "../strategies/registry.js";
import { resolveSharedDefaults } from "../strategies/shared.js";
import {
  CONFIG_PATH_ENV,
  discoverConfigPath,
  type Env,
  MAX_CONFIG_BYTES,
  resolvePath,
  walletLine,
} from "./discover.js";

export {
  CONFIG_PATH_ENV,
  discoverConfigPath,
  type Env,
  MAX_CONFIG_BYTES,
  preregisterWalletSecrets,
} from "./discover.js";

import { type ConfigIssue, ConfigIssuesError, issuesFromZod, issuesOf } from "./issues.js";
import { type BotConfigData, botConfigSchema, type StrategyFileData, strategyFileSchema } from "./schema.js";

/** Where the signing key comes from (the shape `loadSigner` takes). Paths are absolute. */
export interface WalletConfig {
  privateKeyEnv?: string;
  privateKeyFile?: string;
  keystore?: string;
  passwordEnv?: string;
  passwordFile?: string;
}

export interface VenueConfig {
  timeoutMs: number;
  /** TTL of L1 actions; null sends them without expiresAfter. */
  expiresAfterMs: number | null;
  readAttempts: number;
  /** How long an unanswered user-signed submission may still land (reconciliation waits that long). */
  userSignedGraceMs: number;
  weightPerMinute: number;
  /** Largest response body read, in bytes. */
  maxResponseBytes: number;
  /** The rules strategies plan with (put on the Snapshot by its builder). */
  rules: VenueRules;
}

export interface LoadedConfig {
  /** Absolute path of the bot file. */
  file: string;
  /** Its folder: the base of every relative path in it. */
  dir: string;
  network: NetworkName;
  baseUrl: string | undefined;
  /** Where explorer queries (txDetails) go; undefined: see resolveEndpoints. */
  explorerUrl?: string | undefined;
  /** Lower-case account address; undefined means the signer's own address. */
  account: string | undefined;
  wallet: WalletConfig;
  mode: "dry-run" | "live";
  /** The configured folder (every *.yaml/*.yml in it) or list of strategy files, absolute. */
  strategySource: { folder: string } | { files: string[] };
  strategies: Strategy[];
  /**
   * With `leaveOutBroken`: why strategy files were left out (a file that does not validate, a name used
   * twice, a missing file or folder); empty when every strategy loaded. Without it such a file fails
   * the whole load.
   */
  leftOut?: readonly ConfigIssue[];
  /** Folder of the SQLite state and the lock (absolute; not created by the loader). */
  state: string;
  /**
   * No `state:` is set and ./state beside the bot file holds a journal (the default of earlier versions,
   * or another bot file's folder): warned of (configWarnings).
   */
  besideState?: string;
  limits: RiskLimits & { killSwitchFile: string; killSwitchCancelRunning: boolean };
  log: { level: LogLevel; format: LogFormat; file: string | undefined };
  venue: VenueConfig;
  /** Scheduling of cron slots (default: a 2-hour catch-up window). */
  schedule?: { catchUpMs: number; allowSeconds?: boolean; maxClockSkewMs?: number };
  /** Notification channels (secrets are named by their variables, read when the notifier is built). */
  notify?: NotifyConfig | undefined;
  /** How long cycles and decisions are kept (Journal.keepMs; undefined: for ever). */
  journal?: { keepMs?: number };
}

export type NotifyConfig = NonNullable<BotConfigData["notify"]>;

/** Options of loadConfig and loadStrategyFile(s). */
export interface LoadOptions {
  /**
   * Called with each file's parsed YAML (the bot file, then every strategy file) after `${ENV}` is
   * expanded and before it is validated: `hlbot simulate --sweep` sets its grid values here, so every
   * grid point goes through the same schemas and the same checks as a normal run.
   */
  edit?: (src: YamlSource, role: "bot" | "strategy") => void;
  /** The bot file's `schedule.allowSeconds`: 6-field (seconds) schedules are an error without it. */
  allowSeconds?: boolean;
  /**
   * Leave strategy files that do not load out (see LoadedConfig.leftOut) instead of failing: for the
   * commands that must still act on the rest when one file is half-edited (once's TWAP guards, stop,
   * status, manual commands). The bot file itself must still be valid.
   */
  leaveOutBroken?: boolean;
}

export const DEFAULT_CONFIG_PATH = "config/default.yaml";
/** The variables the wallet reads when the bot file names none (src/venue/signing/signer.ts). */
const DEFAULT_KEY_ENV = "HLBOT_PRIVATE_KEY";
const DEFAULT_PASSWORD_ENV = "HLBOT_KEYSTORE_PASSWORD";

/** The configuration shipped in hlbot's package (config/default.yaml beside src/ or dist/). */
export const PACKAGED_CONFIG_PATH = fileURLToPath(new URL("../../../config/default.yaml", import.meta.url));

/**
 * ./hlbot.yaml when $HLBOT_CONFIG names another file and no --config was given: the environment's file
 * is used, and a user in a bot's folder may not know (a go-live trial: a testnet folder's manual TWAP
 * went to the mainnet file $HLBOT_CONFIG named, and nothing said so).
 */
export function shadowedLocalConfig(
  option: string | undefined,
  env: Env,
  cwd = process.cwd(),
): string | undefined {
  if (option !== undefined) return undefined;
  const named = env[CONFIG_PATH_ENV];
  if (named === undefined || named === "") return undefined;
  const local = resolve(cwd, "hlbot.yaml");
  return existsSync(local) && resolve(cwd, named) !== local ? local : undefined;
}

/**
 * The bot file to use: what `discoverConfigPath` finds, else ./config/default.yaml (a checkout of the
 * repository), else the configuration shipped in the package.
 */
export function resolveConfigPath(option: string | undefined, env: Env, cwd = process.cwd()): string {
  const found = discoverConfigPath(option, env, cwd);
  if (found !== undefined) return found;
  const checkout = resolve(cwd, DEFAULT_CONFIG_PATH);
  return existsSync(checkout) ? checkout : PACKAGED_CONFIG_PATH;
}

/** A path for messages: relative to the working directory when inside it. */
export function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}

/**
 * The kill switch a bot file names, read from its `state:` and `limits.killSwitchFile` lines alone, for
 * `hlbot stop` when the whole file does not load (a variable only the daemon's environment sets, a typo
 * saved while the daemon runs: a go-live trial's emergency stop engaged nothing). `why` when even these
 * cannot be read here.
 */
export async function lenientKillSwitch(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ path: string; state: string } | { why: string }> {
  let doc: unknown;
  try {
    const parsed = parseDocument(await readFile(file, "utf8"));
    // A file with YAML errors is not guessed at: an unclosed quote folds the lines after it into one
    // value, and `state:` read as absent engaged the default folder's switch, exit 0 (a review).
    const [error] = parsed.errors;
    if (error !== undefined) return { why: `${displayPath(file)} is not valid YAML (${error.message})` };
    doc = parsed.toJS();
  } catch (err) {
    return { why: `${displayPath(file)} cannot be read as YAML (${(err as Error).message})` };
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return { why: `${displayPath(file)} is not a mapping of keys` };
  const top = doc as Record<string, unknown>;
  const limits =
    typeof top.limits === "object" && top.limits !== null ? (top.limits as Record<string, unknown>) : {};
  const text = (v: unknown, key: string): string | undefined | { why: string } => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") return { why: `${key} is not a path` };
    let missing: string | undefined;
    const out = v.replace(/\$\$|\$\{([^}]*)\}/g, (match, body: string | undefined) => {
      if (match === "$$") return "$";
      const at = (body ?? "").indexOf(":-");
      const name = at === -1 ? (body ?? "") : (body ?? "").slice(0, at);
      const value = isSecretVariable(name) ? undefined : env[name];
      if (value !== undefined && value.trim() !== "") return value;
      if (at !== -1) return (body ?? "").slice(at + 2);
      missing ??= name;
      return "";
    });
    return missing === undefined ? out : { why: `${key} uses \${${missing}}, which is not set here` };
  };
  const dir = dirname(file);
  const state = text(top.state, "state");
  if (typeof state === "object") return state;
  const stateDir =
    state === undefined || state.trim() === "" ? defaultStateDir(env) : resolvePath(dir, state);
  const ks = text(limits.killSwitchFile, "limits.killSwitchFile");
  if (typeof ks === "object") return ks;
  return {
    path: ks === undefined || ks.trim() === "" ? join(stateDir, "STOP") : resolvePath(dir, ks),
    state: stateDir,
  };
}

/**
 * The text of a configuration file. Only a regular file (or a symlink to one) of at most
 * MAX_CONFIG_BYTES is read: `/dev/zero` would be read forever, and a FIFO would block until someone
 * writes to it. Every failure is a ConfigError naming the file.
 */
async function readConfigText(abs: string): Promise<string> {
  return readRegularTextFile(abs, MAX_CONFIG_BYTES, {
    shown: displayPath(abs),
    notRegular: "is not a regular file (a device, FIFO or socket); expected a YAML file",
    tooLarge: (size, max) => `is ${size} bytes; a configuration file is at most ${max} bytes`,
  });
}

async function readSource(
  abs: string,
  env: Env,
  edit?: (src: YamlSource) => void,
): Promise<{ src: YamlSource; data: unknown }> {
  const file = displayPath(abs);
  const text = await readConfigText(abs);
  // Classic Mac line ends (CR alone): YAML reads the whole file as one comment line or one scalar (a
  // config trial's strategy file was "empty").
  if (text.includes("\r") && !text.includes("\n"))
    throw new ConfigError(
      "its lines end in CR alone (an old Mac format), which YAML does not read as line ends: save it with LF (or CRLF) line ends",
      { file, line: 1 },
    );
  const src = parseYamlSource(file, text);
  keepExactNumbers(src);
  // The variables a bot file's wallet names hold secrets from now on: they may not be interpolated
  // anywhere, and their values are redacted (read before `${...}` is expanded, so as written).
  registerSecretVariables(env, walletVariables(src));
  interpolateEnv(src, env);
  edit?.(src);
  let data: unknown;
  try {
    data = src.doc.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (err) {
    // An alias whose anchor is not set above it (a fat-finger trial's `*amt` was called an alias bomb).
    const unresolved = err instanceof Error ? /^Unresolved alias.*: (.+)$/.exec(err.message) : null;
    if (unresolved?.[1] !== undefined) {
      const name = unresolved[1];
      throw new ConfigError(
        `*${name} names no anchor: &${name} must be set above it in this file (anchors do not reach across files)`,
        { file, line: aliasLine(src, name) ?? 1 },
        { cause: err },
      );
    }
    // The yaml library refuses alias bombs ("billion laughs") with a plain ReferenceError.
    if (!(err instanceof Error) || !/alias/i.test(err.message)) throw err;
    throw new ConfigError(
      "too many YAML aliases (more than 1000 expansions): refused as an alias bomb",
      { file, line: 1 },
      { cause: err },
    );
  }
  if (data === null || data === undefined)
    throw new ConfigError("the file is empty; expected a mapping of keys", { file, line: 1 });
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new ConfigError("expected a mapping of keys at the top level", { file, line: 1 });
  }
  return { src, data };
}

/** The default key and password variables, and those a bot file's `wallet` names literally. */
function walletVariables(src: YamlSource): string[] {
  return [
    DEFAULT_KEY_ENV,
    DEFAULT_PASSWORD_ENV,
    ...[walletLine(src.doc, "privateKeyEnv"), walletLine(src.doc, "passwordEnv")].filter(
      (n): n is string => n !== undefined,
    ),
  ];
}

/**
 * A schema's safeParse, where a check that throws on a value it did not expect (a bug: checks are meant
 * to report issues) still ends as a configuration error naming the file, not a bare exception.
 */
function safeParseIn<S extends z.ZodType>(
  schema: S,
  data: unknown,
  file: string,
): ReturnType<S["safeParse"]> {
  try {
    return schema.safeParse(data) as ReturnType<S["safeParse"]>;
  } catch (err) {
    throw new ConfigError(`cannot check this file: ${(err as Error).message}`, { file }, { cause: err });
  }
}

/** Loads and validates one strategy file. */
export async function loadStrategyFile(path: string, env: Env, options: LoadOptions = {}): Promise<Strategy> {
  const abs = resolve(path);
  const { edit } = options;
  const { src, data } = await readSource(abs, env, edit && ((s) => edit(s, "strategy")));
  const parsed = safeParseIn(strategyFileSchema, data, src.file);
  if (!parsed.success)
    throw new ConfigIssuesError(issuesFromZod(src, parsed.error.issues, strategyFileSchema, data));
  const s = parsed.data as StrategyFileData;
  return {
    name: s.name,
    kind: s.kind,
    description: s.description,
    schedule: s.schedule,
    enabled: s.enabled,
    priority: s.priority,
    capital: s.capital === undefined ? undefined : new Map(Object.entries(s.capital)),
    params: s.params,
    file: abs,
  } as Strategy;
}

/**
 * Loads several strategy files, reporting every problem of every file at once, including strategy
 * names used twice (the journal keys budgets and submissions by name).
 */
export async function loadStrategyFiles(
  paths: readonly string[],
  env: Env,
  options: LoadOptions = {},
): Promise<Strategy[]> {
  const { loaded, issues } = await readStrategyFiles(paths, env, options);
  if (issues.length) throw new ConfigIssuesError(issues);
  return loaded;
}

/**
 * Each strategy file that loads, and the problems of the others. A name used twice leaves out every
 * file of that name (which one is meant cannot be told, and the journal keys budgets and submissions
 * by name).
 */
async function readStrategyFiles(
  paths: readonly string[],
  env: Env,
  options: LoadOptions,
): Promise<{ loaded: Strategy[]; issues: ConfigIssue[] }> {
  const loaded: Strategy[] = [];
  const issues: ConfigIssue[] = [];
  const seen = new Map<string, string>();
  const twice = new Set<string>();
  for (const p of paths) {
    try {
      const s = await loadStrategyFile(p, env, options);
      const first = seen.get(s.name);
      if (first !== undefined) {
        twice.add(s.name);
        issues.push({
          file: displayPath(s.file),
          line: await nameLine(s.file),
          keyPath: "name",
          message: `strategy name "${s.name}" is already used by ${displayPath(first)}`,
        });
        continue;
      }
      seen.set(s.name, s.file);
      if (hasSecondsField(s.schedule) && options.allowSeconds !== true) {
        issues.push({
          file: displayPath(s.file),
          line: await lineInFile(s.file, ["schedule"]),
          keyPath: "schedule",
          message:
            `${JSON.stringify(s.schedule)} has 6 fields: cron reads the first as seconds, so it runs more than once a minute. ` +
            "Write 5 fields (minute hour day-of-month month weekday), or set schedule.allowSeconds: true in the bot file for a schedule by the second",
        });
        continue;
      }
      loaded.push(s);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      issues.push(...issuesOf(err));
    }
  }
  return { loaded: loaded.filter((s) => !twice.has(s.name)), issues };
}

/**
 * Strategies whose `twap.minutes` or `twap.maxMinutes` lies outside the bot file's venue range
 * (venue.twapMinMinutes..twapMaxMinutes): the strategy schema knows only the widest range a bot file may
 * set. Refused rather than cut at run time: a TWAP of another length than written changes what the
 * strategy does (a facts audit: a raised venue.twapMaxMinutes was refused by the strategies' own fixed
 * bound, and a lowered one validated "ok" while each TWAP was cut).
 */
export async function twapMinutesIssues(
  strategies: readonly Strategy[],
  venue: { twapMinMinutes: number; twapMaxMinutes: number },
): Promise<{ issues: ConfigIssue[]; names: Set<string> }> {
  const issues: ConfigIssue[] = [];
  const names = new Set<string>();
  for (const s of strategies) {
    const twap = (s.params as { twap?: { minutes?: unknown; maxMinutes?: unknown } }).twap;
    for (const key of ["minutes", "maxMinutes"] as const) {
      const value = twap?.[key];
      if (typeof value !== "number") continue;
      const why =
        value > venue.twapMaxMinutes
          ? `is above venue.twapMaxMinutes (${venue.twapMaxMinutes}) in the bot file: the venue would refuse such a TWAP (raise venue.twapMaxMinutes only if the venue accepts longer ones)`
          : value < venue.twapMinMinutes
            ? `is below venue.twapMinMinutes (${venue.twapMinMinutes}) in the bot file`
            : undefined;
      if (why === undefined) continue;
      names.add(s.name);
      issues.push({
        file: displayPath(s.file),
        line: await lineInFile(s.file, ["params", "twap", key]),
        keyPath: `params.twap.${key}`,
        message: `${value} ${why}`,
      });
    }
  }
  return { issues, names };
}

/** The line of `keyPath` in the YAML file at `abs` (undefined when it cannot be read or found). */
export async function lineInFile(
  abs: string,
  keyPath: ReadonlyArray<string | number>,
): Promise<number | undefined> {
  try {
    return lineOf(parseYamlSource(displayPath(abs), await readConfigText(abs)), [...keyPath]);
  } catch {
    return undefined;
  }
}

async function nameLine(abs: string): Promise<number | undefined> {
  const src = parseYamlSource(displayPath(abs), await readConfigText(abs));
  return lineOf(src, [], "name");
}

/**
 * The *.yaml and *.yml files of a folder, sorted by name, symlinks to files included: a Kubernetes
 * ConfigMap mounts every key as a symlink (`a.yaml -> ..data/a.yaml`). Hidden entries (the ConfigMap's
 * own `..data` and `..2024_…` folders) are not looked into. A symlink that leads nowhere is an error,
 * not a strategy silently left out.
 */
export async function strategyFilesIn(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const files: string[] = [];
  for (const e of entries) {
    if (e.name.startsWith(".") || !/\.ya?ml$/i.test(e.name)) continue;
    const path = join(folder, e.name);
    if (e.isFile()) files.push(path);
    else if (e.isSymbolicLink()) {
      const target = await stat(path).catch(() => undefined);
      if (target === undefined)
        throw new ConfigError("this strategy file is a symlink to nothing (broken link)", {
          file: displayPath(path),
        });
      if (target.isFile()) files.push(path);
    }
  }
  return files.sort();
}

/** What a file given as a bot file is when it is a simulator scenario or a sweep file, in a sentence. */
function otherFileKind(data: unknown): string | undefined {
  if (data === null || typeof data !== "object" || "strategies" in data || "network" in data)
    return undefined;
  if ("tokens" in data || "pairs" in data)
    return "this is a scenario file of the simulator (it has `tokens:` or `pairs:`), not a bot file: give it to `hlbot simulate --scenario` or `hlbot venue --scenario`";
  if ("grid" in data || "sweep" in data)
    return "this looks like a sweep file, not a bot file: give it to `hlbot simulate --sweep`";
  return undefined;
}

/**
 * Loads the bot file at `path` and every strategy it names. Relative paths resolve against the bot
 * file's folder. The key is not read here: `wallet` only says where it is.
 */
export async function loadConfig(path: string, env: Env, options: LoadOptions = {}): Promise<LoadedConfig> {
  const file = resolve(path);
  const dir = dirname(file);
  const { edit } = options;
  const { src, data } = await readSource(file, env, edit && ((s) => edit(s, "bot")));
  const parsed = safeParseIn(botConfigSchema, data, src.file);
  if (!parsed.success) {
    // A strategy file given where a bot file belongs: one sentence, not every key it lacks.
    if (data !== null && typeof data === "object" && "kind" in data && !("strategies" in data))
      throw new ConfigError(
        "this is a strategy file (it has `kind:`), not a bot file: give the bot file that names it under `strategies:` (hlbot init makes one)",
        { file: src.file },
      );
    // A scenario or a sweep file: the same (a config trial read 20 "unknown key" errors of a scenario).
    const other = otherFileKind(data);
    if (other !== undefined) throw new ConfigError(other, { file: src.file });
    throw new ConfigIssuesError(issuesFromZod(src, parsed.error.issues, botConfigSchema, data));
  }
  const c = parsed.data;
  const at = (keyPath: Array<string | number>) => ({
    file: src.file,
    line: lineOf(src, keyPath),
    keyPath: formatKeyPath(keyPath),
  });

  // Strategy files that cannot be found or read: the load fails, or with leaveOutBroken they are left out.
  const leftOut: ConfigIssue[] = [];
  const missing = (err: ConfigError) => {
    if (options.leaveOutBroken !== true) throw err;
    leftOut.push(...issuesOf(err));
  };
  let strategySource: LoadedConfig["strategySource"];
  let files: string[] = [];
  if (typeof c.strategies === "string") {
    const target = resolvePath(dir, c.strategies);
    const info = await stat(target).catch(() => undefined);
    strategySource = info?.isDirectory() ? { folder: target } : { files: [target] };
    if (info === undefined)
      missing(new ConfigError(`strategy folder or file not found: ${target}`, at(["strategies"])));
    else if (info.isDirectory())
      try {
        files = await strategyFilesIn(target);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        missing(err);
      }
    else files = [target];
  } else {
    const listed = c.strategies.map((p) => resolvePath(dir, p));
    for (const [i, f] of listed.entries()) {
      const info = await stat(f).catch(() => undefined);
      if (info?.isFile()) files.push(f);
      else missing(new ConfigError(`strategy file not found: ${f}`, at(["strategies", i])));
    }
    strategySource = { files: listed };
  }
  const read = await readStrategyFiles(files, env, { ...options, allowSeconds: c.schedule.allowSeconds });
  const outOfRange = await twapMinutesIssues(read.loaded, c.venue);
  const issues = [...read.issues, ...outOfRange.issues];
  if (issues.length > 0 && options.leaveOutBroken !== true) throw new ConfigIssuesError(issues);
  leftOut.push(...issues);
  const strategies = resolveSharedDefaults(read.loaded.filter((s) => !outOfRange.names.has(s.name)));

  // No `state:` in the file: the same folder from any directory (see defaultStateDir).
  const state = c.state === undefined ? defaultStateDir(env) : resolvePath(dir, c.state);
  // Earlier versions kept it in ./state beside the bot file when `state:` was not set: a bot upgraded
  // without `state:` started on an empty journal elsewhere and ignored a kill switch engaged in the old
  // folder (an upgrade trial: it traded). An engaged kill switch there is refused until the file says
  // which folder it means; a journal there only is warned of (configWarnings): it may be another bot
  // file's of the same folder (a review).
  let besideState: string | undefined;
  if (c.state === undefined) {
    const old = join(dir, "state");
    if (resolve(old) !== resolve(state) && existsSync(join(old, "STOP")))
      throw new ConfigError(
        `no \`state:\` is set, and ${old} beside the bot file holds an engaged kill switch (STOP): the state folder of an earlier hlbot version (its default then), or of another bot file here. hlbot now defaults to ${state}, where that kill switch does not count. Set \`state: ./state\` to keep using that folder (its journal, nonces and kill switch), or \`state: ${state}\` to start there`,
        { file: displayPath(path), keyPath: "state" },
      );
    if (resolve(old) !== resolve(state) && existsSync(join(old, "hlbot.db"))) besideState = old;
  }
  // A kill switch in a folder that does not exist could never be engaged: a configuration error. The
  // state folder itself is fine (hlbot creates it before its first cycle).
  if (c.limits.killSwitchFile !== undefined) {
    const ks = resolvePath(dir, c.limits.killSwitchFile);
    const folder = await stat(dirname(ks)).catch(() => undefined);
    if (dirname(ks) !== state && !folder?.isDirectory())
      throw new ConfigError(
        `the kill-switch file's folder ${dirname(ks)} does not exist: the switch could never be engaged there`,
        at(["limits", "killSwitchFile"]),
      );
  }
  const wallet: WalletConfig = {};
  if (c.wallet.privateKeyEnv !== undefined) wallet.privateKeyEnv = c.wallet.privateKeyEnv;
  if (c.wallet.privateKeyFile !== undefined) {
    wallet.privateKeyFile = resolvePath(dir, c.wallet.privateKeyFile);
    // Known before the command sends anything: an argument holding it is refused now.
    registerSecretFile(wallet.privateKeyFile);
  }
  if (c.wallet.keystore !== undefined) wallet.keystore = resolvePath(dir, c.wallet.keystore);
  if (c.wallet.passwordEnv !== undefined) wallet.passwordEnv = c.wallet.passwordEnv;
  if (c.wallet.passwordFile !== undefined) wallet.passwordFile = resolvePath(dir, c.wallet.passwordFile);
  const catchUpMs = parseDuration(c.schedule.catchUp) ?? DEFAULT_CATCH_UP_MS;

  return {
    file,
    dir,
    network: c.network,
    baseUrl: c.baseUrl,
    explorerUrl: c.explorerUrl,
    account: c.account,
    wallet,
    mode: c.mode,
    strategySource,
    strategies,
    leftOut,
    state,
    ...(besideState === undefined ? {} : { besideState }),
    limits: {
      maxOrderUsd: c.limits.maxOrderUsd,
      maxDailyNotionalUsd: c.limits.maxDailyNotionalUsd,
      maxStakeMovePerDay: c.limits.maxStakeMovePerDay,
      validatorAllowlist: c.limits.validatorAllowlist,
      priceSanity: c.limits.priceSanity,
      killSwitchFile:
        c.limits.killSwitchFile === undefined
          ? join(state, "STOP")
          : resolvePath(dir, c.limits.killSwitchFile),
      killSwitchCancelRunning: c.limits.killSwitchCancelRunning,
      keepOnSpot:
        c.limits.keepOnSpot === undefined ? undefined : new Map(Object.entries(c.limits.keepOnSpot)),
    },
    log: {
      level: c.log.level,
      format: c.log.format,
      file: c.log.file === undefined ? undefined : resolvePath(dir, c.log.file),
    },
    venue: {
      timeoutMs: c.venue.timeoutMs,
      expiresAfterMs: c.venue.expiresAfterMs,
      readAttempts: c.venue.readAttempts,
      userSignedGraceMs: c.venue.userSignedGraceMs,
      weightPerMinute: c.venue.weightPerMinute,
      maxResponseBytes: c.venue.maxResponseBytes,
      rules: {
        twapMinMinutes: c.venue.twapMinMinutes,
        twapMaxMinutes: c.venue.twapMaxMinutes,
        twapSliceSeconds: TWAP_SLICE_SECONDS,
        twapMinOrderValue: c.venue.twapMinOrderValue,
        twapMinSliceValue: c.venue.twapMinSliceValue,
        twapBuyReserve: c.venue.twapBuyReserve,
        twapHolds: c.venue.twapHolds,
        predictedAprNet: c.venue.predictedAprNet,
      },
    },
    schedule: {
      catchUpMs,
      allowSeconds: c.schedule.allowSeconds,
      maxClockSkewMs: parseDuration(c.schedule.maxClockSkew) ?? DEFAULT_MAX_CLOCK_SKEW_MS,
    },
    notify: c.notify,
    journal: c.journal.keepDays === undefined ? {} : { keepMs: keepMs(c.journal.keepDays, catchUpMs) },
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * journal.keepDays in ms, never less than a slot's catch-up window and a day: why a slot was missed is
 * read from the decisions of the runs in its window (scheduler.ts missedCauses).
 */
export function keepMs(keepDays: number, catchUpMs: number): number {
  return Math.max(keepDays * DAY_MS, catchUpMs + DAY_MS);
}

/**
 * Whether a file is a strategy file (a top-level `kind` key) or a bot file, for `hlbot config validate`
 * on arbitrary files. Unreadable or unparsable files count as bot files; loading them reports why.
 */
export async function fileKindOf(path: string): Promise<"bot" | "strategy"> {
  try {
    const doc = parseDocument(await readConfigText(resolve(path)));
    return isMap(doc.contents) && doc.contents.has("kind") ? "strategy" : "bot";
  } catch {
    return "bot";
  }
}

/**
 * The settings of the bot file that differ between two loads of it ("limits.maxOrderUsd", "mode", …),
 * strategies left out: what a running daemon (which reloads only its strategy files) does not apply.
 */
export function botFileChanges(before: LoadedConfig, after: LoadedConfig): string[] {
  const flat = (c: LoadedConfig) => {
    const out = new Map<string, string>();
    const walk = (value: unknown, path: string) => {
      if (value instanceof Map) value = Object.fromEntries(value);
      if (value !== null && typeof value === "object" && !Array.isArray(value) && !("toFixed" in value)) {
        for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
        return;
      }
      out.set(path, JSON.stringify(value));
    };
    const { strategies: _s, strategySource: _src, file: _f, dir: _d, leftOut: _l, ...settings } = c;
    walk(settings, "");
    return out;
  };
  const a = flat(before);
  const b = flat(after);
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();
}
