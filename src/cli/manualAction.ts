// One manual exchange action from the command line, through the engine like a strategy's intent: the
// same exchange client and durable nonce store (so a manual command and the daemon sharing a state
// folder never collide), the kill switch, the risk limits of the bot config (--config or
// $HLBOT_CONFIG; without one no amount limits apply, the kill switch checked is <state>/STOP), the
// journal (a cycle with trigger "manual", a decision whose reason is the command as typed, the
// submission written before it is sent) and the same at-most-once reconciliation: an earlier manual
// submission with no known outcome is reconciled against the venue first, and nothing new is sent
// while it cannot be settled. Dry run unless --live. Order matters and is the contract of exit code 2:
// every argument is checked, then the signer is loaded, and only then is anything signed or sent.
//
// Output. Dry run: stdout is the UNSIGNED request (action, nonce, expiresAfter/vaultAddress, and the
// digest a key would sign) on one line; with --sign, exactly the signed JSON body --live would POST,
// with a warning on stderr that anyone who has it can execute it. Live: stdout is the venue's answer on
// one line (or, with --json, an outcome object that also holds it); a one-line summary goes to stderr.
// Exit 0 accepted or dry run, 1 rejected, unknown or refused (kill switch, limit, unsettled earlier
// submission), 2 bad input or configuration.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { discoverConfigPath, type LoadedConfig, loadConfig } from "../engine/config/loader.js";
import { executeIntent } from "../engine/executor.js";
import type { Intent } from "../engine/intents.js";
import { type Guard, Journal, newCycleId } from "../engine/journal.js";
import { killSwitchState } from "../engine/killSwitch.js";
import { reconcile } from "../engine/reconcile.js";
import { applyLimits } from "../engine/risk.js";
import { transportSettings } from "../engine/transport.js";
import { Decimal, parseDecimal, truncateDecimals, ZERO } from "../lib/decimal.js";
import { describeError, ValidationError } from "../lib/errors.js";
import { stringifyJson } from "../lib/json.js";
import { silentLogger } from "../lib/log.js";
import { openStateDb, resolveStateDir, type StateDatabase, stateDbPath } from "../lib/stateDb.js";
import { SPOT_ASSET_OFFSET } from "../venue/constants.js";
import { type ExchangeCall, ExchangeClient, type ExchangeOutcome } from "../venue/exchange/client.js";
import { InfoClient } from "../venue/info/client.js";
import type { NetworkName } from "../venue/networks.js";
import { MemoryNonceSource, type NonceSource, NonceStore } from "../venue/nonces.js";
import { loadSigner } from "../venue/signing/signer.js";
import { createTransport } from "../venue/transport/factory.js";
import type { HttpTransport } from "../venue/transport/http.js";
import type { CliContext } from "./context.js";
import type { ManualCommonOptions } from "./manualOptions.js";
import { readNetworkOptions, readSignerOptions } from "./options.js";
import { SIGNED_OUTPUT_WARNING, unsignedView } from "./unsigned.js";

/** TWAP duration cap enforced before signing (the venue's maximum is unconfirmed: 7 days per its docs). */
export const TWAP_MAX_MINUTES = 10_080;

export interface PrepareContext {
  network: NetworkName;
  /** An info client on the selected endpoints (reads are allowed in dry-run; only /exchange is not). */
  info(): InfoClient;
  /** A diagnostic line on stderr. */
  note(message: string): void;
}

/** A manual command's options: the common ones, plus the bot config it is limited by and `--sign`. */
export type ManualOptions = ManualCommonOptions;

/** Name under which manual actions are journaled (their decisions, submissions and usage). */
export const MANUAL_STRATEGY = "manual";

/**
 * Runs one action: `prepare` checks the command's own arguments (throwing ValidationError) and returns
 * the call; then the signer is loaded, the client built, and the action goes through the engine like a
 * strategy's intent: kill switch, risk limits, journal, executor, reconciliation.
 */
export async function runManualAction(
  ctx: CliContext,
  raw: ManualOptions,
  prepare: (p: PrepareContext) => ExchangeCall | Promise<ExchangeCall>,
): Promise<void> {
  const command = raw.command;
  const net = readNetworkOptions(raw);
  const who = readSignerOptions(raw);
  // --dry-run wins over --live: it forces dry run on every command.
  const live = raw.live === true && raw.dryRun !== true;
  const json = raw.json === true;
  const note = (message: string) => {
    if (!json) ctx.stderr(`${message}\n`);
  };
  // The bot configuration whose limits, kill switch and state apply: the user's own bot file as every
  // command finds it (--config, $HLBOT_CONFIG, ./hlbot.yaml, $XDG_CONFIG_HOME/hlbot/config.yaml), never
  // a shipped example, whose limits are not the user's.
  const configPath = discoverConfigPath(raw.config, ctx.env);
  const config = configPath === undefined ? undefined : await loadConfig(configPath, ctx.env);
  if (config && config.network !== net.network) {
    throw new ValidationError([
      {
        path: "--network",
        message: `${net.network} differs from the network of the bot config ${config.file} (${config.network}); pass --network ${config.network}`,
      },
    ]);
  }

  let transport: HttpTransport | undefined;
  // The bot file's URLs and venue bounds apply unless a flag overrides them.
  const flags = { baseUrl: net.baseUrl, explorerUrl: raw.explorerUrl, timeoutMs: net.timeoutMs };
  const settings = config ? transportSettings(config, flags) : { network: net.network, ...flags };
  const getTransport = () => {
    transport ??= createTransport(settings);
    return transport;
  };
  const info = () => new InfoClient(getTransport());
  let db: StateDatabase | undefined;
  let scratch: StateDatabase | undefined;
  try {
    const call = await prepare({ network: net.network, info, note });

    const signer = await loadSigner(
      {
        privateKeyEnv: who.keyEnv,
        keystore: who.keystore,
        passwordEnv: who.passwordEnv,
        passwordFile: who.passwordFile,
      },
      ctx.env,
      { warn: (m) => ctx.stderr(`hlbot: warning: ${m}\n`) },
    );
    const account = (who.account ?? config?.account ?? signer.address).toLowerCase();

    // The durable store is opened only once the call has passed every check, so a refused command
    // never touches the state folder. Until then the client's nonce source points nowhere.
    let store: NonceSource | undefined;
    const nonces: NonceSource = {
      next: (signerAddress) => store!.next(signerAddress),
      peek: (signerAddress) => store!.peek(signerAddress),
    };
    const common = {
      network: net.network,
      signer,
      account,
      nonces,
      twapMaxMinutes: config?.venue.rules.twapMaxMinutes ?? TWAP_MAX_MINUTES,
      warn: (message: string) => ctx.stderr(`hlbot: warning: ${message}\n`),
    };
    const client = live
      ? new ExchangeClient({ ...common, mode: "live", transport: getTransport() })
      : new ExchangeClient({ ...common, mode: "dry-run" });
    client.validate(call);

    const stateDir = raw.state === undefined && config ? config.state : resolveStateDir(raw.state, ctx.env);
    if (live || existsSync(stateDbPath(stateDir))) {
      db = await openStateDb({ dir: stateDir });
      store = new NonceStore(db);
    } else {
      // A dry run creates no state: with no nonce store yet, the clock alone gives the nonce a live
      // send would use now.
      store = new MemoryNonceSource();
    }
    const stored = db ? new Journal(db) : undefined;
    // A dry run journals nothing: its cycle goes to a throwaway in-memory journal.
    let journal: Journal;
    if (live && stored) journal = stored;
    else {
      const { default: Database } = await import("better-sqlite3");
      scratch = new Database(":memory:");
      journal = new Journal(scratch);
    }

    const intent = await intentFor(call, commandLine(command), {
      valued: live || config !== undefined,
      info,
    });

    // At-most-once, as for the bot: an earlier manual submission whose outcome is not known yet is
    // reconciled against the venue first, and while it cannot be settled nothing new is sent.
    if (live && stored) {
      const reconciled = await reconcile(info(), stored, {
        account,
        now: Date.now(),
        ...(config ? { userSignedGraceMs: config.venue.userSignedGraceMs } : {}),
      });
      for (const r of reconciled)
        note(
          `reconciled submission #${r.submissionId} (${r.strategy}, ${r.actionType}): ${r.verdict}, ${r.detail}`,
        );
    }

    const killSwitchFile = config?.limits.killSwitchFile ?? join(stateDir, "STOP");
    const refusal = refusalOf(intent, {
      config,
      killSwitchFile,
      // The state folder is hlbot's own: while it does not exist, nothing can be at a switch inside it.
      checkKillSwitch: dirname(killSwitchFile) !== stateDir || existsSync(stateDir),
      journal: stored,
      account,
    });
    if (config === undefined)
      note(
        `no bot config (--config, $HLBOT_CONFIG, ./hlbot.yaml or ~/.config/hlbot/config.yaml): maxOrderUsd, maxDailyNotionalUsd and maxStakeMovePerDay are not applied; the kill switch checked is ${join(stateDir, "STOP")}`,
      );

    const cycleId = newCycleId(Date.now());
    journal.startCycle({
      id: cycleId,
      trigger: "manual",
      mode: live ? "live" : "dry-run",
      account,
      strategies: [MANUAL_STRATEGY],
    });
    const record = (guard: Guard, reason?: string) =>
      journal.recordDecision(cycleId, {
        strategy: MANUAL_STRATEGY,
        kind: intent.kind,
        reason: intent.reason,
        guard,
        ...(reason ? { guardReason: reason } : {}),
        intent: JSON.parse(stringifyJson(intent)),
      });
    if (refusal !== undefined) {
      record("blocked", refusal);
      journal.finishCycle(cycleId, "ok");
      ctx.stderr(`hlbot: refused, nothing ${live ? "sent" : "signed"}: ${refusal}\n`);
      ctx.exitCode = 1;
      return;
    }
    const decisionId = record("allowed");
    let outcome: ExchangeOutcome<unknown> | undefined;
    const vaultAddress =
      (call.type === "twapOrder" || call.type === "twapCancel") && call.vaultAddress !== undefined
        ? call.vaultAddress
        : undefined;
    let action: Awaited<ReturnType<typeof executeIntent>>;
    try {
      action = await executeIntent(
        { exchange: client, journal, network: net.network, clock: Date.now, logger: silentLogger() },
        {
          cycleId,
          decisionId,
          ...(vaultAddress === undefined ? {} : { vaultAddress }),
          onOutcome: (o) => {
            outcome = o;
          },
        },
        intent,
        "allowed",
        undefined,
      );
    } catch (err) {
      journal.finishCycle(cycleId, "failed", describeError(err));
      throw err;
    }
    journal.finishCycle(cycleId, "ok");
    if (outcome === undefined) {
      // Refused by the client before signing (validated above, so not expected).
      ctx.stderr(`hlbot: ${action.detail ?? "not sent"}\n`);
      ctx.exitCode = 1;
      return;
    }
    report(ctx, outcome, { json, network: net.network, note, sign: raw.sign === true });
  } finally {
    await transport?.close();
    db?.close();
    scratch?.close();
  }
}

/** Why the engine refuses this manual action, or undefined when it may go. */
function refusalOf(
  intent: Intent,
  o: {
    config: LoadedConfig | undefined;
    killSwitchFile: string;
    checkKillSwitch: boolean;
    journal: Journal | undefined;
    account: string;
  },
): string | undefined {
  // Cancelling a running TWAP only reduces exposure: it stays possible while the switch is engaged.
  if (intent.kind !== "twapCancel" && o.checkKillSwitch) {
    const ks = killSwitchState(o.killSwitchFile);
    if (ks.engaged) return `kill switch is on (${ks.detail}); \`hlbot resume\` releases it`;
  }
  const pending = o.journal?.unresolved(o.account).filter((r) => r.strategy === MANUAL_STRATEGY) ?? [];
  if (pending.length > 0) {
    const ids = pending.map((r) => `#${r.id} ${r.actionType}`).join(", ");
    return `an earlier manual submission (${ids}) has no known outcome yet and cannot be settled against the venue now; see \`hlbot history\` and try again later`;
  }
  if (!o.config) return undefined;
  const usage = o.journal?.usage(o.account, Date.now() - 24 * 60 * 60_000) ?? {
    notionalUsd: ZERO,
    stakeMoved: ZERO,
  };
  const limited = applyLimits([intent], o.config.limits, usage, {
    killSwitchActive: false,
    rules: o.config.venue.rules,
  });
  const blocked = limited.blocked[0];
  if (blocked) return blocked.reason.slice(intent.reason.length).replace(/^; blocked: /, "");
  // A strategy's TWAP above maxOrderUsd is reduced; a manual order is the user's exact words, so it is
  // refused instead of being sent at another size.
  // The same for a stake move that maxStakeMovePerDay would reduce to what is left of the day.
  const reduced = limited.reduced[0];
  if (reduced) {
    if (intent.kind === "twapOrder")
      return `above maxOrderUsd ${o.config.limits.maxOrderUsd.toFixed()} USD (≈${intent.notionalUsd.toFixed(2)} USD); a manual order is never resized: give a smaller --size`;
    const why = reduced.reason.slice(intent.reason.length).replace(/^; /, "");
    return `${why}; a manual action is never resized: give a smaller --amount`;
  }
  return undefined;
}

/** The engine's intent for a manual call; its reason is the command as typed. */
async function intentFor(
  call: ExchangeCall,
  reason: string,
  o: { valued: boolean; info: () => InfoClient },
): Promise<Intent> {
  const base = { strategy: MANUAL_STRATEGY, reason };
  switch (call.type) {
    case "twapOrder": {
      const p = call.params;
      const size = truncateDecimals(parseDecimal(p.size, "--size"), p.szDecimals);
      let coin = `@${p.asset - SPOT_ASSET_OFFSET}`;
      let label = coin;
      let midPx = ZERO;
      if (o.valued) {
        // Valued at the venue's mid for the limits and the daily usage; no price, no order (fail closed).
        const [meta, mids] = await Promise.all([o.info().spotMeta(), o.info().allMids()]);
        const pair = meta.universe.find((u) => u.index === p.asset - SPOT_ASSET_OFFSET);
        const names = new Map(meta.tokens.map((t) => [t.index, t.name]));
        if (pair) {
          coin = pair.name;
          label = `${names.get(pair.tokens[0]) ?? pair.name}/${names.get(pair.tokens[1]) ?? "?"}`;
        }
        const mid = mids[coin];
        if (mid === undefined) {
          throw new ValidationError([
            {
              path: "--asset",
              message: `the venue gives no mid price for ${coin}: the order cannot be valued against the limits`,
            },
          ]);
        }
        midPx = new Decimal(mid);
      }
      return {
        ...base,
        kind: "twapOrder",
        coin,
        label,
        assetId: p.asset,
        side: p.isBuy ? "buy" : "sell",
        size,
        szDecimals: p.szDecimals,
        minutes: p.minutes,
        randomize: p.randomize === true,
        reduceOnly: p.reduceOnly === true,
        midPx,
        notionalUsd: size.times(midPx),
      };
    }
    case "twapCancel":
      return { ...base, kind: "twapCancel", assetId: call.params.asset, twapId: call.params.twapId };
    case "tokenDelegate":
      return {
        ...base,
        kind: "tokenDelegate",
        validator: call.params.validator,
        amount: parseDecimal(call.params.amount, "--amount"),
        isUndelegate: call.params.isUndelegate,
      };
    case "cDeposit":
    case "cWithdraw":
      return { ...base, kind: call.type, amount: parseDecimal(call.params.amount, "--amount") };
    case "linkStakingUser":
      return { ...base, kind: "linkStakingUser", user: call.params.user, isFinalize: call.params.isFinalize };
    case "approveAgent":
      throw new ValidationError([
        { path: "action", message: "approveAgent is not a manual action of hlbot" },
      ]);
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
  opts: { json: boolean; network: NetworkName; note: (m: string) => void; sign: boolean },
): void {
  const { request } = outcome;
  const who =
    request.signer === request.account
      ? `signed by ${request.signer}`
      : `signed by API wallet ${request.signer} for ${request.account}`;
  const vault = request.vaultAddress ? ` (vault ${request.vaultAddress})` : "";

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
      `dry run: ${request.actionType} not sent${opts.sign ? "" : ", printed UNSIGNED (the digest is what would be signed; --sign prints a signed body)"}; ${who}${vault} on ${opts.network}, nonce ${request.nonce}. Add --live to send it.`,
    );
    ctx.exitCode = 0;
    return;
  }

  const response = outcome.status === "unknown" ? undefined : outcome.response;
  if (opts.json) {
    const summary: Record<string, unknown> = {
      status: outcome.status,
      action: request.actionType,
      nonce: request.nonce,
    };
    if (outcome.status === "accepted") summary.data = outcome.data;
    if (outcome.status === "rejected") Object.assign(summary, { code: outcome.code, reason: outcome.reason });
    if (outcome.status === "unknown")
      Object.assign(summary, { probablyLanded: outcome.probablyLanded, reason: outcome.reason });
    summary.response = response ?? null;
    summary.attempts = outcome.attempts.length;
    summary.request = request.body;
    ctx.stdout(`${stringifyJson(summary)}\n`);
  } else if (response !== undefined) {
    ctx.stdout(`${stringifyJson(response)}\n`);
  }

  const sent = `${request.actionType} nonce ${request.nonce}, ${who}${vault}`;
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
