// Assembles a running bot from a loaded configuration: transport → info client, signer → exchange
// client (live, dry-run, or none for unsigned plans), the state database → nonces and journal, and the
// account facts. Every command that runs cycles (plan, once, run, simulate) goes through here, so they
// differ only in the options they pass.
import type { Logger } from "pino";
import { ConfigError } from "../lib/errors.js";
import {
  checkStateIdentity,
  claimStateAccount,
  claimStateNetwork,
  openStateDb,
  otherAccountMessage,
  otherNetworkMessage,
  type StateDatabase,
} from "../lib/stateDb.js";
import { VenueClock } from "../venue/clockSkew.js";
import {
  type Authority,
  checkOwnKey,
  describeAuthority,
  resolveAuthority,
  roleData,
} from "../venue/exchange/authority.js";
import { ExchangeClient } from "../venue/exchange/client.js";
import { InfoClient } from "../venue/info/client.js";
import { type NonceSource, NonceStore } from "../venue/nonces.js";
import { loadSigner, type Signer } from "../venue/signing/signer.js";
import type { WeightBudget } from "../venue/transport/budget.js";
import type { HttpTransport, Wire } from "../venue/transport/http.js";
import type { LoadedConfig } from "./config/loader.js";
import { configWarnings } from "./config/warnings.js";
import type { CycleDeps } from "./cycle.js";
import type { ExecutorDeps } from "./executor.js";
import { Journal } from "./journal.js";
import { killSwitchState } from "./killSwitch.js";
import type { BotMetrics } from "./metrics.js";
import { type AccountFacts, readAccountFacts } from "./readSnapshot.js";
import type { Strategy } from "./strategies/registry.js";
import { configTransport } from "./transport.js";
import { LEARN_WINDOW, rulesWithVenueMinimum } from "./twapMinimum.js";

/** Strategy kinds whose actions are user-signed (staking): an API wallet or a sub-account's key cannot send them. */
const USER_SIGNED_KINDS: ReadonlySet<string> = new Set(["validator-staking", "link-staking"]);

export interface RuntimeOptions {
  config: LoadedConfig;
  env: NodeJS.ProcessEnv;
  /** Effective mode: `--dry-run` or `mode: dry-run` give "dry-run"; `plan --unsigned` gives "unsigned". */
  mode: "live" | "dry-run" | "unsigned";
  logger: Logger;
  clock?: () => number;
  metrics?: BotMetrics;
  /** A signer supplied by the caller (simulate's demo key) instead of the configured wallet. */
  signer?: Signer;
  /** Override of the client-side weight budget (simulate disables it: time there is virtual). */
  budget?: WeightBudget | null;
  /** Override of the endpoint base URL (simulate points at its embedded venue). */
  baseUrl?: string;
  /** Requests go through this instead of HTTP (simulate's in-process venue; see HttpTransport). */
  wire?: Wire;
  /**
   * How reads and resends wait between attempts (simulate: its virtual clock moves instead, so a retry
   * meets the venue later, as it would live; default real time).
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Resend policy override for live submissions (tests keep it short). */
  resend?: ConstructorParameters<typeof ExchangeClient>[0]["resend"];
  /** `journal rebuild` itself: a lost journal is what it repairs, so it is not warned of. */
  repairingState?: boolean;
  /** Leave the configuration's warnings to `config validate` (`once --quiet`, every few minutes). */
  quietConfigWarnings?: boolean;
}

export interface Runtime {
  readonly config: LoadedConfig;
  readonly transport: HttpTransport;
  readonly info: InfoClient;
  readonly exchange: ExchangeClient | undefined;
  readonly signer: Signer | undefined;
  readonly account: string;
  /** What the key may do for `account` (undefined without a key). */
  readonly authority: Authority | undefined;
  readonly db: StateDatabase;
  readonly journal: Journal;
  readonly clock: () => number;
  /** The venue's clock from each answer's Date header (the daemon checks the skew every minute). */
  readonly venueClock: VenueClock;
  /** The durable nonce counters of the state folder (`hlbot journal reset-nonces` repairs them). */
  readonly nonces: NonceStore;
  /** Account facts the cycle acts on (multi-sig), read once and kept. */
  facts(signal?: AbortSignal): Promise<AccountFacts>;
  /** Forget the cached facts (the daemon refreshes them now and then). */
  refreshFacts(): void;
  /** One light read (allMids, weight 2): its answer's Date header dates the venue's clock now. */
  refreshVenueClock(): Promise<void>;
  cycleDeps(facts: AccountFacts): CycleDeps;
  /** The enabled strategies of the configuration, in file order. */
  strategies(): Strategy[];
  close(): Promise<void>;
}

export async function openRuntime(o: RuntimeOptions): Promise<Runtime> {
  const { config } = o;
  const clock = o.clock ?? Date.now;
  let signer = o.signer;
  if (!signer && o.mode !== "unsigned")
    signer = await loadSigner(config.wallet, o.env, { warn: (m) => o.logger.warn(m) });
  const account = (config.account ?? signer?.address)?.toLowerCase();
  if (!account) {
    throw new ConfigError("`account` is required when no key is loaded (plan --unsigned)", {
      file: config.file,
      keyPath: "account",
    });
  }

  // What `hlbot config validate` warns of, said again by every command that acts on the file.
  if (!o.quietConfigWarnings) for (const w of configWarnings(config)) o.logger.warn(w);

  // Loaded only when the caller collects metrics (the daemon): prom-client is not needed otherwise.
  const observers = o.metrics ? (await import("./metrics.js")).venueObservers(o.metrics) : undefined;
  // Expiry and the nonce window are the venue's, judged by its clock (the Date of each answer).
  const venueClock = new VenueClock(() => transport.latestAnswerDate(), clock);
  const transport = configTransport(
    config,
    { baseUrl: o.baseUrl },
    {
      wire: o.wire,
      sleep: o.sleep,
      budget: o.budget,
      onBudgetWait: observers?.onWait,
      onResponse: (event) => {
        // An answer arrived, with its Date (not a verdict on an answer already sampled).
        if (event.status !== undefined && event.answerOnly !== true) venueClock.sample(event.ms);
        observers?.onResponse(event);
      },
    },
  );
  const info = new InfoClient(transport, { onUnknown: (message) => o.logger.warn(message) });

  // Staking actions are user-signed: only the account's own key signs them. Said once at start, with a
  // key or without (a multi-account trial's API wallet had every staking run refused, exit 1, with no
  // word before; a docs trial's plan --unsigned listed a sub-account's as allowed).
  const warnStakingRefused = (why: string, remedy: string) => {
    const staking = config.strategies.filter((s) => s.enabled && USER_SIGNED_KINDS.has(s.kind));
    if (staking.length > 0)
      o.logger.warn(
        `${staking.map((s) => s.name).join(", ")}: staking actions (tokenDelegate, cDeposit, cWithdraw, linking) are signed by an account's own key only${why} of their runs is refused before signing. ${remedy}, or disable them here.`,
      );
  };
  // Before anything is signed: may this key act for `account`, and how (a sub-account or vault is
  // acted for with vaultAddress)? A key that cannot is a configuration error (exit 2).
  let authority: Authority | undefined;
  if (signer && o.mode !== "unsigned") {
    try {
      authority = await resolveAuthority(info, signer.address, account);
    } catch (err) {
      await transport.close();
      throw err;
    }
    if (authority.kind !== "own") {
      // Not on every `once --quiet` pass (an operator's cron mailed it for every API-wallet bot).
      if (!o.quietConfigWarnings) o.logger.info({ authority: authority.kind }, describeAuthority(authority));
      // A sub-account or vault has no key of its own: say so, not "run them with its own key" (the
      // operator of several bots read advice it could not follow).
      warnStakingRefused(
        `; with ${describeAuthority(authority)} each`,
        authority.kind === "agent"
          ? `Run them from a bot file whose key is ${account}'s own`
          : `Staking cannot be run for a sub-account or vault (it has no key of its own; stake from the master account's bot instead)`,
      );
    }
  }
  // Without a key (plan --unsigned), what a key would add to L1 requests: a sub-account or vault is
  // always acted for with vaultAddress (whichever key signs), and the time to live.
  let unsignedRequest: ExecutorDeps["unsigned"];
  if (o.mode === "unsigned") {
    let role: Awaited<ReturnType<InfoClient["userRole"]>>;
    try {
      role = await info.userRole({ user: account });
    } catch (err) {
      await transport.close();
      throw err;
    }
    // An API wallet's address holds nothing: planned for, every strategy read an empty account and
    // skipped (exit 0), where a signed plan names the master to set (a docs trial).
    if (role.role === "agent") {
      await transport.close();
      const master = roleData(role).user;
      throw new ConfigError(
        `${account} is an API wallet${master === undefined ? "" : ` of ${master}`}, not an account: set \`account\`${master === undefined ? " to the account it trades for" : `: ${master}`} (or --account)`,
        { keyPath: "account" },
      );
    }
    const vault = role.role === "subAccount" || role.role === "vault";
    if (vault)
      warnStakingRefused(
        `, and ${account} is a ${role.role === "vault" ? "vault" : "sub-account"}: each`,
        "Run them from a bot file whose account has its own key",
      );
    unsignedRequest = {
      ...(vault ? { vaultAddress: account } : {}),
      expiresAfterMs: config.venue.expiresAfterMs,
    };
  }

  let db: StateDatabase;
  try {
    db = await openStateDb({ dir: config.state });
  } catch (err) {
    await transport.close();
    throw err;
  }
  const journal = new Journal(db, clock);
  journal.keepMs = config.journal?.keepMs;
  const identity = checkStateIdentity(db, config.state);
  if (identity.status === "lost") {
    const message = lostStateMessage(identity.detail);
    if (o.mode === "live") {
      db.close();
      await transport.close();
      throw new ConfigError(message, { file: config.file });
    }
    if (!o.repairingState) o.logger.warn(message);
  }
  const otherNetwork = claimStateNetwork(db, config.network);
  if (otherNetwork !== undefined) {
    db.close();
    await transport.close();
    throw new ConfigError(otherNetworkMessage(config.state, otherNetwork, config.network), {
      file: config.file,
    });
  }
  const otherAccount = claimStateAccount(db, account);
  if (otherAccount !== undefined) {
    db.close();
    await transport.close();
    throw new ConfigError(otherAccountMessage(config.state, otherAccount, account), {
      file: config.file,
      keyPath: "state",
    });
  }
  const nonces = new NonceStore(db, { clock, venueNow: () => venueClock.now() });
  // A journal from before the DCA marks: marked from the configuration a live bot starts with (not a
  // preview's `plan -c other.yaml` sharing the folder).
  if (o.mode === "live") journal.markLegacyDcas(config.strategies);

  let exchange: ExchangeClient | undefined;
  if (signer && o.mode !== "unsigned") {
    const common = {
      network: config.network,
      signer,
      account,
      ...(authority && "vaultAddress" in authority ? { vaultAddress: authority.vaultAddress } : {}),
      nonces,
      clock,
      venueNow: () => venueClock.now(),
      expiresAfterMs: config.venue.expiresAfterMs,
      twapMaxMinutes: config.venue.rules.twapMaxMinutes,
      warn: (message: string) => o.logger.warn(message),
      ...(o.resend ? { resend: o.resend } : {}),
      ...(o.sleep ? { sleep: o.sleep } : {}),
    };
    exchange =
      o.mode === "live"
        ? new ExchangeClient({ ...common, mode: "live", transport })
        : new ExchangeClient({ ...common, nonces: dryRunNonces(nonces), mode: "dry-run" });
  }

  const pauseBeforeSendMs = testPauseBeforeSend(o.env);
  let facts: Promise<AccountFacts> | undefined;
  const refreshVenueClock = async () => {
    await info.allMids();
  };
  let learntNote: string | undefined;
  const runtime: Runtime = {
    config,
    transport,
    info,
    exchange,
    signer,
    account,
    authority,
    db,
    journal,
    clock,
    venueClock,
    nonces,
    facts(signal) {
      // Read with the venue's metadata, once: a key acting as its own account must not be an API wallet
      // (checkOwnKey). Not at open, so a daemon starts while the venue is down.
      facts ??= Promise.all([
        readAccountFacts(info, account, signal),
        authority?.kind === "own" ? checkOwnKey(info, authority.signer, signal) : undefined,
      ])
        .then(([f]) => f)
        .catch((err: unknown) => {
          facts = undefined;
          throw err;
        });
      return facts;
    },
    refreshFacts() {
      facts = undefined;
    },
    refreshVenueClock,
    cycleDeps(f) {
      // A TWAP minimum the venue stated when it refused one (journaled with its text) tightens the rules.
      const learnt = rulesWithVenueMinimum(
        config.venue.rules,
        journal.recentRefusedTwaps(LEARN_WINDOW),
        account,
      );
      if (learnt.note !== undefined && learnt.note !== learntNote) o.logger.warn(learnt.note);
      learntNote = learnt.note;
      return {
        info,
        exchange,
        journal,
        account,
        network: config.network,
        rules: learnt.rules,
        limits: config.limits,
        facts: f,
        clock,
        userSignedGraceMs: config.venue.userSignedGraceMs,
        ...(config.schedule?.maxClockSkewMs === undefined
          ? {}
          : { maxClockSkewMs: config.schedule.maxClockSkewMs }),
        venueNow: () => venueClock.now(),
        refreshVenueClock,
        peers: config.strategies.filter((s) => s.enabled),
        configured: config.strategies,
        ...(pauseBeforeSendMs ? { pauseBeforeSendMs } : {}),
        ...(unsignedRequest ? { unsigned: unsignedRequest } : {}),
        logger: o.logger,
        ...(o.metrics ? { metrics: o.metrics } : {}),
      };
    },
    strategies() {
      return config.strategies.filter((s) => s.enabled);
    },
    async close() {
      await transport.close();
      db.close();
    },
  };
  return runtime;
}

/** Why nothing is done live with a journal that is not the state folder's own (checkStateIdentity). */
export function lostStateMessage(detail: string): string {
  return (
    `${detail}. Daily limits and budgets would start again from zero, so hlbot does not act. ` +
    // Said: a docs trial's manual command had a --base-url, and its rebuild read the public testnet.
    "Run `hlbot journal rebuild` to rebuild the last days from the venue and confirm (it reads the venue your " +
    "bot file names, its `network` and `baseUrl`, not a --base-url given to another command)"
  );
}

/**
 * True while anything is at the configured kill-switch path (a file, even unreadable, a dangling symlink,
 * a folder) or the path cannot be examined; throws ConfigError when its folder does not exist.
 */
export function killSwitchActive(config: LoadedConfig): boolean {
  return killSwitchState(config.limits.killSwitchFile).engaged;
}

/**
 * Dry-run nonces: peeked from the durable store (a dry run never moves it) but never the same twice in
 * this process, so a plan never shows two actions with one nonce (the venue would refuse the second).
 */
function dryRunNonces(store: NonceStore): NonceSource {
  const last = new Map<string, number>();
  const peek = (signer: string) => {
    const nonce = Math.max(store.peek(signer), (last.get(signer) ?? 0) + 1);
    last.set(signer, nonce);
    return nonce;
  };
  return { next: peek, peek };
}

/**
 * HLBOT_TEST_PAUSE_BEFORE_SEND (milliseconds), honoured only together with HLBOT_TEST=1: the crash tests
 * use it to widen the window between the journal write and the send. Inert in production.
 */
function testPauseBeforeSend(env: NodeJS.ProcessEnv): number | undefined {
  if (env.HLBOT_TEST !== "1") return undefined;
  const ms = Number(env.HLBOT_TEST_PAUSE_BEFORE_SEND);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}
