// Shared start-up of the commands that run the bot (plan, once, run, status, history): load and
// validate the configuration, then make the logger it asks for. Kept light; heavy modules load lazily.
import { Writable } from "node:stream";
import type { Logger } from "pino";
import type { LoadedConfig } from "../engine/config/loader.js";
import type { CliContext } from "./context.js";

export interface BotOptions {
  config?: string;
}

export async function loadBotConfig(
  ctx: CliContext,
  opts: BotOptions,
  /** Leave strategy files that do not load out (LoadedConfig.leftOut) instead of failing. */
  load: { leaveOutBroken?: boolean } = {},
): Promise<LoadedConfig> {
  const { loadConfig, resolveConfigPath } = await import("../engine/config/loader.js");
  await noteShadowedConfig(ctx, opts.config);
  return loadConfig(resolveConfigPath(opts.config, ctx.env), ctx.env, load);
}

/**
 * The network, baseUrl and explorerUrl of the user's bot file (found as every command finds it, never a shipped
 * example), for read-only commands given neither --network nor --base-url; said on stderr. Undefined
 * when none is found (a go-live trial: `info` and `tx` in a mainnet bot's folder asked testnet, and an
 * empty answer read as "nothing running"); a ConfigError when one is found and does not load.
 */
export async function botFileVenue(
  ctx: CliContext,
  flags: { network?: string | undefined; baseUrl?: string | undefined },
): Promise<
  | {
      network: import("../venue/networks.js").NetworkName;
      baseUrl: string | undefined;
      explorerUrl: string | undefined;
    }
  | undefined
> {
  if (flags.network !== undefined || flags.baseUrl !== undefined) return undefined;
  const { discoverConfigPath, loadConfig, displayPath } = await import("../engine/config/loader.js");
  const file = discoverConfigPath(undefined, ctx.env);
  if (file === undefined) return undefined;
  try {
    const c = await loadConfig(file, ctx.env, { leaveOutBroken: true });
    ctx.stderr(
      `hlbot: ${c.network}${c.baseUrl === undefined ? "" : ` at ${c.baseUrl}`}, as ${displayPath(file)} says (--network or --base-url to choose)\n`,
    );
    return { network: c.network, baseUrl: c.baseUrl, explorerUrl: c.explorerUrl };
  } catch (err) {
    // A key pasted into this command's arguments, found as the wallet loaded: refused, never sent to
    // the default network instead (a security audit).
    if ((err as { code?: unknown }).code === "SECRET_ARGUMENT") throw err;
    // A bot file that does not load names no network this command may trust: refused, never the default
    // network instead (a newcomer's mainnet file with an unset ${VAR} queried testnet without a word, and
    // an empty answer read as an empty account).
    const { ConfigError } = await import("../lib/errors.js");
    throw new ConfigError(
      `${err instanceof Error ? err.message : String(err)} (this command reads its network from ${displayPath(file)}, which does not load: fix it, or give --network or --base-url)`,
      {},
      { cause: err },
    );
  }
}

/** Says when $HLBOT_CONFIG is used while ./hlbot.yaml, another file, is in the working folder. */
export async function noteShadowedConfig(ctx: CliContext, option: string | undefined): Promise<void> {
  const { shadowedLocalConfig, displayPath, CONFIG_PATH_ENV } = await import("../engine/config/loader.js");
  const local = shadowedLocalConfig(option, ctx.env);
  if (local !== undefined)
    ctx.stderr(
      `hlbot: note: using $${CONFIG_PATH_ENV} (${ctx.env[CONFIG_PATH_ENV]}), not ${displayPath(local)} in this folder; give --config to choose\n`,
    );
}

/** Strategy files left out by a command that needs only the bot file (leaveOutBroken), said on stderr. */
export async function warnLeftOut(ctx: CliContext, config: LoadedConfig): Promise<void> {
  const { formatIssue } = await import("../engine/config/issues.js");
  for (const issue of config.leftOut ?? [])
    ctx.stderr(
      `hlbot: warning: ${formatIssue(issue)} (this strategy file does not load and was left out; \`hlbot config validate\` says why)\n`,
    );
}

/** A logger writing to stderr (stdout carries command results), at the configured level or debug with --verbose. */
export async function botLogger(
  ctx: CliContext,
  config: LoadedConfig | undefined,
  /** For commands whose stdout report already shows every decision (plan): only warnings and errors. */
  options: { reportOnStdout?: boolean } = {},
): Promise<Logger & { flush(): Promise<void>; reopen(): void }> {
  const { createLogger } = await import("../lib/log.js");
  const configured = config?.log.level ?? "info";
  const quiet =
    options.reportOnStdout === true &&
    (configured === "info" || configured === "debug" || configured === "trace");
  return createLogger({
    level: ctx.verbose ? "debug" : quiet ? "warn" : configured,
    format: config?.log.format ?? "auto",
    ...(config?.log.file ? { file: config.log.file } : {}),
    // A real stream: pino-pretty (used on a terminal) pipes into it.
    stream: new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        ctx.stderr(String(chunk));
        callback();
      },
    }),
    isTTY: ctx.stderrIsTTY ?? false,
    colorize: ctx.colorStderr ?? false,
  });
}

/**
 * The address of the bot file's key, read as every command reads it (loadSigner: the environment, a
 * key file), when that is cheap and works; a keystore (a password to ask for) is not opened for it.
 */
export async function keyAddress(
  config: LoadedConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  if (config.wallet.keystore !== undefined) return undefined;
  try {
    const { loadSigner } = await import("../venue/signing/signer.js");
    return (
      await loadSigner(config.wallet, env as NodeJS.ProcessEnv, { warn: () => undefined })
    ).address.toLowerCase();
  } catch (err) {
    // The key just read is in an argument of the command: refused, not swallowed (a review: `status
    // --user` went on with the key in --base-url and exited 0).
    const { SecretArgumentError } = await import("../lib/secrets.js");
    if (err instanceof SecretArgumentError) throw err;
    return undefined;
  }
}
