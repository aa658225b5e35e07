// One manual exchange action from the command line. This file reads the flags, finds the bot config
// (--config, $HLBOT_CONFIG, …; its limits, kill switch and state folder apply), lets the command build
// its call, loads the signer and prints the result; the action itself goes through the engine like a
// strategy's intent (src/engine/manual.ts: kill switch, risk limits, journal, executor, at-most-once
// reconciliation). Dry run unless --live. Order matters and is the contract of exit code 2: every
// argument is checked, then the signer is loaded, and only then is anything signed or sent.
//
// Output. Dry run: stdout is the UNSIGNED request (action, nonce, expiresAfter/vaultAddress, and the
// digest a key would sign) on one line; with --sign, exactly the signed JSON body --live would POST,
// with a warning on stderr that anyone who has it can execute it. Live: stdout is the venue's answer on
// one line (or, with --json, an outcome object that also holds it); a one-line summary goes to stderr.
// Exit 0 accepted or dry run, 1 rejected, unknown or refused (kill switch, limit, unsettled earlier
// submission), 2 bad input or configuration, 130 interrupted (Ctrl-C; said what becomes of a request
// already sent).
import type { Command } from "commander";
import { discoverConfigPath, loadConfig } from "../engine/config/loader.js";
import { executeManualAction, manualVenue } from "../engine/manual.js";
import { ConfigError, describeError, NetworkError, ValidationError, VenueError } from "../lib/errors.js";
import { stringifyJson } from "../lib/json.js";
import { resolveStateDir } from "../lib/stateDb.js";
import type { ExchangeCall, ExchangeOutcome } from "../venue/exchange/client.js";
import type { InfoClient } from "../venue/info/client.js";
import type { NetworkName } from "../venue/networks.js";
import { loadSigner } from "../venue/signing/signer.js";
import type { CliContext } from "./context.js";
import type { ManualCommonOptions } from "./manualOptions.js";
import { readNetworkOptions, readSignerOptions } from "./options.js";
import { SIGNED_OUTPUT_WARNING, unsignedView, withoutSignature } from "./unsigned.js";

export interface PrepareContext {
  network: NetworkName;
  /** An info client on the selected endpoints (reads are allowed in dry-run; only /exchange is not). */
  info(): InfoClient;
  /** A diagnostic line on stderr. */
  note(message: string): void;
}

/** A manual command's options: the common ones, plus the bot config it is limited by and `--sign`. */
export type ManualOptions = ManualCommonOptions;

/**
 * Runs one action: `prepare` checks the command's own arguments (throwing ValidationError) and returns
 * the call; then the signer is loaded and the engine takes the call (executeManualAction).
 */
export async function runManualAction(
  ctx: CliContext,
  raw: ManualOptions,
  prepare: (p: PrepareContext) => ExchangeCall | Promise<ExchangeCall>,
): Promise<void> {
  const sending = { submitting: false };
  try {
    await manualAction(ctx, raw, prepare, sending);
  } catch (err) {
    // With --json, a failure is one JSON line on stdout too, whatever failed (a scripter's unreachable
    // venue printed nothing on stdout for twap, a "rejected" line for twap-cancel and a "refused" one
    // for stake); stderr and the exit code say it as before.
    if (raw.json === true) ctx.stdout(`${stringifyJson(failureLine(raw, err, sending.submitting))}\n`);
    throw err;
  }
}

/**
 * The --json line of a manual action that failed by an error: "not-sent" before its request could
 * leave; "unknown" once it may have (an error while sending: the next live command reconciles it).
 */
function failureLine(raw: ManualOptions, err: unknown, submitting: boolean): Record<string, unknown> {
  const code =
    err instanceof ValidationError || err instanceof ConfigError
      ? "input"
      : err instanceof NetworkError
        ? "unreachable"
        : err instanceof VenueError
          ? "venue"
          : "error";
  return stoppedLine(raw, submitting, code, describeError(err));
}

/** The --json line of a manual action stopped before its outcome was known (an error, a signal). */
function stoppedLine(
  raw: ManualOptions,
  submitting: boolean,
  code: string,
  reason: string,
): Record<string, unknown> {
  return {
    status: submitting ? "unknown" : "not-sent",
    command: raw.command?.name() ?? null,
    sent: submitting ? null : false,
    ...(submitting ? { mayHaveLanded: true } : {}),
    code,
    reason,
  };
}

async function manualAction(
  ctx: CliContext,
  raw: ManualOptions,
  prepare: (p: PrepareContext) => ExchangeCall | Promise<ExchangeCall>,
  /** Set as the request may leave (ManualInput.onSubmit). */
  sending: { submitting: boolean },
): Promise<void> {
  const command = raw.command;
  // A typed --network is checked before anything is read; without one the bot file's network applies.
  if (raw.network !== undefined) readNetworkOptions(raw);
  const who = readSignerOptions(raw);
  // --dry-run wins over --live: it forces dry run on every command.
  const live = raw.live === true && raw.dryRun !== true;
  const json = raw.json === true;
  // Notes go to stderr with --json too (stdout keeps the one JSON line): a scripter's live TWAP with no
  // bot file found said nothing of "limits are not applied" under --json.
  const note = (message: string) => ctx.stderr(`${message}\n`);
  const warn = (message: string) => ctx.stderr(`hlbot: warning: ${message}\n`);
  // The bot configuration whose limits, kill switch and state apply: the user's own bot file as every
  // command finds it (--config, $HLBOT_CONFIG, ./hlbot.yaml, $XDG_CONFIG_HOME/hlbot/config.yaml), never
  // a shipped example, whose limits are not the user's.
  const configPath = discoverConfigPath(raw.config, ctx.env);
  const { noteShadowedConfig } = await import("./bot.js");
  await noteShadowedConfig(ctx, raw.config);
  // Limits, kill switch and state come from the bot file: a strategy file that does not load is left
  // out with a warning (a cancel in an emergency must not wait for a typo elsewhere to be fixed).
  const config =
    configPath === undefined ? undefined : await loadConfig(configPath, ctx.env, { leaveOutBroken: true });
  if (config) {
    const { warnLeftOut } = await import("./bot.js");
    await warnLeftOut(ctx, config);
  }
  const net = readNetworkOptions(raw, config?.network);
  if (config && config.network !== net.network) {
    throw new ValidationError([
      {
        path: "--network",
        message: `${net.network} differs from the network of the bot config ${config.file} (${config.network}); pass --network ${config.network}`,
      },
    ]);
  }

  // The bot file's URLs and venue bounds apply unless a flag overrides them.
  const venue = manualVenue(config, {
    network: net.network,
    baseUrl: net.baseUrl,
    explorerUrl: raw.explorerUrl,
    timeoutMs: net.timeoutMs,
  });
  const stateDir = raw.state === undefined && config ? config.state : resolveStateDir(raw.state, ctx.env);
  // Ctrl-C (or SIGTERM) exits at once (130), saying what becomes of a request already sent: the
  // submission was journaled before it was sent, so it stays pending and is reconciled later.
  const onSignal = (signal: NodeJS.Signals) => {
    // Before its request could leave (reading the venue, say), nothing was sent, live or not (a review:
    // "a request already sent may still land" was said of one never sent).
    const maySend = live && sending.submitting;
    if (json) ctx.stdout(`${stringifyJson(stoppedLine(raw, maySend, "interrupted", signal))}\n`);
    ctx.stderr(
      maySend
        ? `hlbot: ${signal}: stopped. A request already sent may still land on the venue: its journal row in ${stateDir} stays pending, and the next hlbot command on that state folder (a manual --live action, once, run) reconciles it against the venue before sending anything new; \`hlbot history\` lists it\n`
        : `hlbot: ${signal}: stopped; nothing was sent${live ? "" : " (dry run)"}\n`,
    );
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    // Whether the command read the venue to build its call (--coin's spotMeta): a dry run that did is
    // valued too, so an order under the venue's TWAP minimum is refused, not signed as if valid.
    let venueRead = false;
    const info = () => {
      venueRead = true;
      return venue.info();
    };
    const call = await prepare({ network: net.network, info, note });

    // The key the command line names, else the bot file's wallet, else $HLBOT_PRIVATE_KEY.
    const keyFlags = who.keystore !== undefined || who.keyEnv !== undefined;
    const signer = await loadSigner(
      keyFlags || config === undefined
        ? {
            privateKeyEnv: who.keyEnv,
            keystore: who.keystore,
            passwordEnv: who.passwordEnv,
            passwordFile: who.passwordFile,
          }
        : config.wallet,
      ctx.env,
      { warn },
    );
    const result = await executeManualAction({
      venue,
      config,
      call,
      signer,
      account: (who.account ?? config?.account ?? signer.address).toLowerCase(),
      live,
      stateDir,
      stateFromConfig: raw.state === undefined && config !== undefined,
      venueRead,
      onSubmit: () => {
        sending.submitting = true;
      },
      reason: commandLine(command),
      note,
      warn,
    });
    // With --json, a refusal is one JSON line on stdout too (a newcomer's script read nothing at all
    // for a kill switch or a limit, while a venue's rejection came as {"status":"rejected",…}).
    const jsonLine = (status: "refused" | "not-sent", reason: string) => {
      if (json)
        ctx.stdout(
          `${stringifyJson({ status, action: call.type, network: net.network, sent: false, reason })}\n`,
        );
    };
    switch (result.status) {
      case "refused":
        jsonLine("refused", result.reason);
        ctx.stderr(`hlbot: refused, nothing ${live ? "sent" : "signed"}: ${result.reason}\n`);
        ctx.exitCode = 1;
        return;
      case "not-sent":
        jsonLine("not-sent", result.detail);
        ctx.stderr(`hlbot: ${result.detail}\n`);
        ctx.exitCode = 1;
        return;
      case "done":
        report(ctx, result.outcome, {
          json,
          network: net.network,
          note,
          sign: raw.sign === true,
          // Both given: --dry-run won, and "Add --live" would read as if --live had been missed.
          liveOverruled: raw.live === true,
        });
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await venue.close();
  }
}

/** The command as the user typed it (options given on the command line), for the journal's reason. */
function commandLine(command: Command | undefined): string {
  if (!command) return "hlbot (manual action)";
  const words = ["hlbot", command.name(), ...command.args];
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) !== "cli") continue;
    const value = command.getOptionValue(key) as unknown;
    words.push(option.long ?? option.flags);
    if (typeof value === "string") words.push(value);
  }
  return words.join(" ");
}

function report(
  ctx: CliContext,
  outcome: ExchangeOutcome<unknown>,
  opts: {
    json: boolean;
    network: NetworkName;
    note: (m: string) => void;
    sign: boolean;
    liveOverruled: boolean;
  },
): void {
  const { request } = outcome;
  // For a sub-account or vault the key signs with vaultAddress (it may be the master's own key, or an
  // API wallet of the master); otherwise a key that is not the account's is one of its API wallets.
  const who =
    request.signer === request.account || request.vaultAddress !== undefined
      ? `signed by ${request.signer}`
      : `signed by API wallet ${request.signer} for ${request.account}`;
  const vault = request.vaultAddress
    ? ` for sub-account or vault ${request.vaultAddress} (vaultAddress)`
    : "";

  if (outcome.status === "dry-run") {
    if (opts.sign) {
      ctx.stdout(`${request.bodyText}\n`);
      // Said even with --json: this output is a live order.
      ctx.stderr(`hlbot: ${SIGNED_OUTPUT_WARNING}\n`);
    } else {
      const view = unsignedView(request.body as unknown as Record<string, unknown>, opts.network);
      ctx.stdout(`${stringifyJson(view)}\n`);
    }
    opts.note(
      `dry run: ${request.actionType} not sent${opts.sign ? "" : ", printed UNSIGNED (the digest is what would be signed; --sign prints a signed body)"}; ${who}${vault} on ${opts.network}, nonce ${request.nonce}. ${opts.liveOverruled ? "--dry-run wins over --live: drop --dry-run to send it." : "Add --live to send it."}`,
    );
    ctx.exitCode = 0;
    return;
  }

  const response = outcome.status === "unknown" ? undefined : outcome.response;
  if (opts.json) {
    const summary: Record<string, unknown> = {
      status: outcome.status,
      action: request.actionType,
      network: opts.network,
      nonce: request.nonce,
    };
    if (outcome.status === "accepted") summary.data = outcome.data;
    if (outcome.status === "rejected") Object.assign(summary, { code: outcome.code, reason: outcome.reason });
    // probablyLanded true: a resend was answered "duplicate nonce"; false: no evidence either way (a
    // scripter read false as "safe to resend"). Never resend: the next live command reconciles it.
    if (outcome.status === "unknown")
      Object.assign(summary, {
        mayHaveLanded: true,
        probablyLanded: outcome.probablyLanded,
        reason: outcome.reason,
      });
    summary.response = response ?? null;
    summary.attempts = outcome.attempts.length;
    // Sent: without its signature (the journal keeps the signed body).
    summary.request = withoutSignature(request.body as unknown as Record<string, unknown>);
    ctx.stdout(`${stringifyJson(summary)}\n`);
  } else if (response !== undefined) {
    ctx.stdout(`${stringifyJson(response)}\n`);
  }

  // The network said with what was sent (a go-live trial's live line named neither network nor file).
  const sent = `${request.actionType} on ${opts.network}, nonce ${request.nonce}, ${who}${vault}`;
  switch (outcome.status) {
    case "accepted":
      opts.note(`accepted: ${sent}${describeData(outcome.data)}`);
      ctx.exitCode = 0;
      return;
    case "rejected":
      opts.note(`rejected (${outcome.code}): ${outcome.reason}`);
      ctx.exitCode = 1;
      return;
    case "unknown":
      opts.note(
        `unknown outcome after ${outcome.attempts.length} attempt(s): ${outcome.reason}. ` +
          (outcome.probablyLanded
            ? "An earlier copy probably landed. "
            : "It may or may not have been applied. ") +
          "Check the venue's state before trying again.",
      );
      ctx.exitCode = 1;
      return;
  }
}

function describeData(data: unknown): string {
  if (data !== null && typeof data === "object" && "twapId" in data) return `; twapId ${String(data.twapId)}`;
  return "";
}
