// One manual exchange action from the command line, with the bot's own safety: the same exchange
// client, the same durable nonce store (so a manual command and the daemon sharing a state folder
// never collide), dry-run unless --live. Order matters and is the contract of exit code 2: every
// argument is checked, then the signer is loaded, and only then is anything signed or sent.
//
// Output. Dry run: stdout is exactly the JSON body --live would POST to /exchange, on one line.
// Live: stdout is the venue's answer on one line (or, with --json, an outcome object that also holds
// it); a one-line summary goes to stderr. Exit 0 accepted or dry run, 1 rejected or unknown.
import { existsSync } from "node:fs";
import { stringifyJson } from "../lib/json.js";
import { openStateDb, resolveStateDir, type StateDatabase, stateDbPath } from "../lib/stateDb.js";
import { type ExchangeCall, ExchangeClient, type ExchangeOutcome } from "../venue/exchange/client.js";
import { InfoClient } from "../venue/info/client.js";
import type { NetworkName } from "../venue/networks.js";
import { MemoryNonceSource, type NonceSource, NonceStore } from "../venue/nonces.js";
import { loadSigner } from "../venue/signing/signer.js";
import { HttpTransport } from "../venue/transport/http.js";
import type { CliContext } from "./context.js";
import { type RawCommonOptions, readNetworkOptions, readSignerOptions } from "./options.js";

/** TWAP duration cap enforced before signing (the venue's maximum is unconfirmed: 7 days per its docs). */
export const TWAP_MAX_MINUTES = 10_080;

export interface PrepareContext {
  network: NetworkName;
  /** An info client on the selected endpoints (reads are allowed in dry-run; only /exchange is not). */
  info(): InfoClient;
  /** A diagnostic line on stderr. */
  note(message: string): void;
}

/**
 * Runs one action: `prepare` checks the command's own arguments (throwing ValidationError) and returns
 * the call; then the signer is loaded, the client built and the call submitted.
 */
export async function runManualAction(
  ctx: CliContext,
  raw: RawCommonOptions,
  prepare: (p: PrepareContext) => ExchangeCall | Promise<ExchangeCall>,
): Promise<void> {
  const net = readNetworkOptions(raw);
  const who = readSignerOptions(raw);
  // --dry-run wins over --live: it forces dry run on every command.
  const live = raw.live === true && raw.dryRun !== true;
  const json = raw.json === true;
  const note = (message: string) => {
    if (!json) ctx.stderr(`${message}\n`);
  };

  let transport: HttpTransport | undefined;
  const getTransport = () => {
    transport ??= new HttpTransport({ endpoints: net.endpoints, timeoutMs: net.timeoutMs });
    return transport;
  };
  let db: StateDatabase | undefined;
  try {
    const call = await prepare({ network: net.network, info: () => new InfoClient(getTransport()), note });

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
      account: who.account,
      nonces,
      twapMaxMinutes: TWAP_MAX_MINUTES,
      warn: (message: string) => ctx.stderr(`hlbot: warning: ${message}\n`),
    };
    const client = live
      ? new ExchangeClient({ ...common, mode: "live", transport: getTransport() })
      : new ExchangeClient({ ...common, mode: "dry-run" });
    client.validate(call);

    const stateDir = resolveStateDir(raw.state, ctx.env);
    if (live || existsSync(stateDbPath(stateDir))) {
      db = await openStateDb({ dir: stateDir });
      store = new NonceStore(db);
    } else {
      // A dry run creates no state: with no nonce store yet, the clock alone gives the nonce a live
      // send would use now.
      store = new MemoryNonceSource();
    }

    const outcome = await client.submit(call);
    report(ctx, outcome, { json, network: net.network, note });
  } finally {
    await transport?.close();
    db?.close();
  }
}

function report(
  ctx: CliContext,
  outcome: ExchangeOutcome<unknown>,
  opts: { json: boolean; network: NetworkName; note: (m: string) => void },
): void {
  const { request } = outcome;
  const who =
    request.signer === request.account
      ? `signed by ${request.signer}`
      : `signed by API wallet ${request.signer} for ${request.account}`;
  const vault = request.vaultAddress ? ` (vault ${request.vaultAddress})` : "";

  if (outcome.status === "dry-run") {
    ctx.stdout(`${request.bodyText}\n`);
    opts.note(
      `dry run: ${request.actionType} not sent; ${who}${vault} on ${opts.network}, nonce ${request.nonce}. Add --live to send it.`,
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
