// Manual actions (`hlbot twap`, `twap-cancel`, `delegate`, `undelegate`, `stake`, `unstake`,
// `link-staking`): one exchange call a person typed, through the engine like a strategy's intent. The
// same exchange client settings (expiresAfter, TWAP maximum) and durable nonce store, checked against
// the venue's clock, so a manual command and the daemon sharing a state folder never collide; the kill
// switch; the risk limits of the bot config (without one no amount limits apply and the kill switch
// checked is <state>/STOP; a live action's daily limits count, as a cycle's do, the larger of the
// journal's usage and the venue's 24-h history, and it is refused while that history cannot be read);
// the journal (a cycle with trigger "manual", a decision whose reason is the command as typed, the
// submission written before it is sent, by the executor); and the same at-most-once reconciliation:
// an earlier manual submission with no known outcome is reconciled against the venue first, and
// nothing new is sent while it cannot be settled.
//
// A manual action is the user's exact words: one beyond a limit is refused, never resized, and there is
// no override flag (raising the limit in the bot file is the explicit, reviewable way). A dry run
// journals nothing, creates no state and counts the journal's usage alone (it reads no venue history
// for the limits); a live action refuses, as the bot does, a state folder whose
// journal was lost while a bot config's daily limits apply.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { Decimal, parseDecimal, truncateDecimals, ZERO } from "../lib/decimal.js";
import { ConfigError, describeError, stateFolderError, ValidationError } from "../lib/errors.js";
import { stringifyJson } from "../lib/json.js";
import { silentLogger } from "../lib/log.js";
import {
  checkStateIdentity,
  claimStateNetwork,
  openStateDb,
  otherNetworkMessage,
  type StateDatabase,
  stateDbPath,
} from "../lib/stateDb.js";
import { VenueClock } from "../venue/clockSkew.js";
import { SPOT_ASSET_OFFSET, TWAP_MAX_MINUTES_DEFAULT } from "../venue/constants.js";
import { actionDef } from "../venue/exchange/actions/index.js";
import { checkOwnKey, resolveAuthority } from "../venue/exchange/authority.js";
import { type ExchangeCall, ExchangeClient, type ExchangeOutcome } from "../venue/exchange/client.js";
import { InfoClient } from "../venue/info/client.js";
import type { NetworkName } from "../venue/networks.js";
import { MemoryNonceSource, type NonceSource, NonceStore } from "../venue/nonces.js";
import type { Signer } from "../venue/signing/signer.js";
import { createTransport, type TransportSettings } from "../venue/transport/factory.js";
import type { HttpTransport } from "../venue/transport/http.js";
import { displayPath, type LoadedConfig } from "./config/loader.js";
import { executeIntent } from "./executor.js";
import { movesHypeWei } from "./intentKinds.js";
import type { Intent, TwapOrderIntent } from "./intents.js";
import { type Guard, Journal, MANUAL_STRATEGY, newCycleId, type TwapFill } from "./journal.js";
import { killSwitchState } from "./killSwitch.js";
import { checkPriceSanity, DEFAULT_PRICE_SANITY, stakeUnitMismatch } from "./priceSanity.js";
import { readSnapshot, spotUniverse } from "./readSnapshot.js";
import { reconcile } from "./reconcile.js";
import { applyLimits, dayUsage, endedTwapFills, LIMIT_WINDOW_MS, usageOf } from "./risk.js";
import { lostStateMessage } from "./runtime.js";
import { DEFAULT_VENUE_RULES, type Snapshot, type SnapshotPart } from "./snapshot.js";
import { type TransportFlags, transportSettings } from "./transport.js";
import { usdPerUnit } from "./usd.js";

export { MANUAL_STRATEGY };

/** TWAP duration cap enforced before signing without a bot config (the venue's maximum is unconfirmed). */
export const TWAP_MAX_MINUTES = TWAP_MAX_MINUTES_DEFAULT;

/**
 * The venue a manual command reads from and (live) sends to: connected only when first used, so a dry
 * run that needs no lookup opens no connection. The Date of each answer sets the venue's clock.
 */
export class ManualVenue {
  readonly network: NetworkName;
  readonly clock: VenueClock;
  private transport: HttpTransport | undefined;
  private client: InfoClient | undefined;

  constructor(private readonly settings: TransportSettings) {
    this.network = settings.network;
    this.clock = new VenueClock(() => this.transport?.latestAnswerDate());
  }

  connection(): HttpTransport {
    this.transport ??= createTransport(this.settings, {
      onResponse: (event) => {
        if (event.status !== undefined && event.answerOnly !== true) this.clock.sample(event.ms);
      },
    });
    return this.transport;
  }

  info(): InfoClient {
    this.client ??= new InfoClient(this.connection());
    return this.client;
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }
}

/**
 * The venue of a manual command: the bot file's network, URLs and venue bounds when there is one, with
 * the flags' overrides; else the flags alone.
 */
export function manualVenue(
  config: LoadedConfig | undefined,
  flags: Omit<TransportFlags, "network"> & { network: NetworkName },
): ManualVenue {
  const { network, ...rest } = flags;
  return new ManualVenue(config ? transportSettings(config, rest) : { network, ...rest });
}

export interface ManualActionInput {
  venue: ManualVenue;
  /** The bot config whose limits, kill switch and venue rules apply; undefined: none applies. */
  config: LoadedConfig | undefined;
  call: ExchangeCall;
  signer: Signer;
  /** The account acted for (lower-case). */
  account: string;
  live: boolean;
  /** The state folder holding the nonce store and the journal. */
  stateDir: string;
  /** Whether `stateDir` is the bot file's `state:` (rather than --state or the environment's). */
  stateFromConfig?: boolean;
  /**
   * Whether the command read the venue to build the call (`--coin`): a dry run without a bot file is then
   * valued too (the venue's TWAP minimum checked); one signed offline (`--asset`, `--sz-decimals`) is not.
   */
  venueRead?: boolean;
  /** Called as the request may leave (before it is journaled and sent): an error after it may have landed. */
  onSubmit?: () => void;
  /** The journal's reason: the command as typed. */
  reason: string;
  /** A diagnostic line for the person (reconciled submissions, the missing bot config). */
  note(message: string): void;
  /** A warning of the exchange client (clock skew, …). */
  warn(message: string): void;
  clock?: () => number;
}

export type ManualResult =
  /** The engine refused it (kill switch, a limit, an unsettled earlier submission); journaled as blocked. */
  | { status: "refused"; reason: string }
  /** The exchange client refused it before signing. */
  | { status: "not-sent"; detail: string }
  /** Signed (dry run) or sent (live): the exchange client's outcome. */
  | { status: "done"; outcome: ExchangeOutcome<unknown> };

/**
 * Runs one manual call: checks it with the exchange client, opens the state folder (live, or a dry run
 * where one exists), values it, reconciles earlier manual submissions (live), applies the kill switch
 * and the limits, and journals and sends it through the executor. Throws ValidationError for a call the
 * client refuses (exit 2), before the state folder is touched.
 */
export async function executeManualAction(i: ManualActionInput): Promise<ManualResult> {
  const { config, live } = i;
  const now = i.clock ?? Date.now;
  // Who is acted for, and how. A multi-account trial: a manual TWAP "for" a sub-account named by
  // `account:` went to the master (no vaultAddress), and a lost answer of a TWAP sent with --vault was
  // looked for on the master, judged absent, and could be sent again.
  // - --vault names the sub-account or vault acted for: it is the account (journal, reconciliation,
  //   limits) and every L1 action carries it, as the user wrote (the venue checks the key may).
  // - Else an L1 action for an account that is not the key's own asks the venue, as a bot's runtime
  //   does (../venue/exchange/authority.ts), whether it is a sub-account or vault (then vaultAddress)
  //   and whether the key may act for it. A user-signed action for another account is refused by the
  //   client before anything is read (only the account's own key signs those).
  // - A live L1 action by a key acting as its own account asks whether the key is an API wallet (then its
  //   own address holds nothing: a TWAP landed on the master, was looked for on the API wallet's
  //   address, judged absent and sent again; a review).
  // - A lookup the venue does not answer (a network error, not a refusal): a dry run, and a live cancel
  //   (an emergency must not wait for /info; without vaultAddress at worst the venue refuses it), go on
  //   without vaultAddress and say so; a live order does not go out.
  const l1 = i.call.type === "twapOrder" || i.call.type === "twapCancel";
  const vaultFlag = l1 ? (i.call as { vaultAddress?: string }).vaultAddress?.toLowerCase() : undefined;
  const account = vaultFlag ?? i.account.toLowerCase();
  const own = account === i.signer.address.toLowerCase();
  const network = i.venue.network;
  let db: StateDatabase | undefined;
  let scratch: StateDatabase | undefined;
  try {
    // The durable store is opened only once the call has passed every check, so a refused command
    // never touches the state folder. Until then the client's nonce source points nowhere.
    let store: NonceSource | undefined;
    const nonces: NonceSource = {
      next: (signerAddress) => store!.next(signerAddress),
      peek: (signerAddress) => store!.peek(signerAddress),
    };
    const common = {
      network,
      signer: i.signer,
      account,
      nonces,
      clock: now,
      venueNow: () => i.venue.clock.now(),
      twapMaxMinutes: config?.venue.rules.twapMaxMinutes ?? TWAP_MAX_MINUTES,
      ...(config ? { expiresAfterMs: config.venue.expiresAfterMs } : {}),
      warn: i.warn,
    };
    const clientFor = (vaultAddress: string | undefined) => {
      const o = { ...common, ...(vaultAddress === undefined ? {} : { vaultAddress }) };
      return live
        ? new ExchangeClient({ ...o, mode: "live", transport: i.venue.connection() })
        : new ExchangeClient({ ...o, mode: "dry-run" });
    };
    // Bad input is refused before anything is read from the venue.
    clientFor(vaultFlag).validate(i.call);
    let defaultVault = vaultFlag;
    const lookup = async <T>(ask: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await ask();
      } catch (err) {
        if (err instanceof ConfigError || (live && i.call.type === "twapOrder")) throw err;
        i.note(
          `could not ask the venue who ${account} is (${describeError(err)}): ${live ? "sent" : "signed"} without vaultAddress, as for the key's own account or its master`,
        );
        return undefined;
      }
    };
    if (vaultFlag === undefined && l1 && !own) {
      const authority = await lookup(() => resolveAuthority(i.venue.info(), i.signer.address, account));
      if (authority !== undefined && "vaultAddress" in authority) defaultVault = authority.vaultAddress;
    } else if (own && live && l1) {
      await lookup(() => checkOwnKey(i.venue.info(), i.signer.address));
    }
    const client = clientFor(defaultVault);

    // Valued (and its --sz-decimals checked against spotMeta) before the state folder is opened: an
    // order the venue's metadata contradicts is bad input, refused with nothing created.
    const given = await manualIntent(i.call, i.reason, {
      valued: live || config !== undefined || i.venueRead === true,
      // Limits apply (live, or a bot file's): no price, no order. A bare dry run only checks the minimum.
      failClosed: live || config !== undefined,
      info: () => i.venue.info(),
      minOrderValue: (config?.venue.rules ?? DEFAULT_VENUE_RULES).twapMinOrderValue,
    });

    const stateDir = i.stateDir;
    if (live || existsSync(stateDbPath(stateDir))) {
      try {
        db = await openStateDb({ dir: stateDir });
      } catch (err) {
        // Nothing is sent yet: a folder this user cannot write is a configuration problem (exit 2).
        throw stateFolderError(err, stateDir, {
          file: i.stateFromConfig ? config?.file : undefined,
          setting: i.stateFromConfig ? undefined : "--state (or $HLBOT_STATE_DIR)",
        });
      }
      if (live && config) {
        // The bot's own rule: with the journal lost, the daily limits would start again from zero.
        const identity = checkStateIdentity(db, stateDir);
        if (identity.status === "lost")
          throw new ConfigError(lostStateMessage(identity.detail), { file: config.file });
      }
      if (live) {
        const other = claimStateNetwork(db, network);
        if (other !== undefined)
          throw new ConfigError(
            otherNetworkMessage(stateDir, other, network, config ? "bot file" : "command"),
            {
              ...(config ? { file: config.file } : {}),
            },
          );
      }
      store = new NonceStore(db, { clock: now, venueNow: () => i.venue.clock.now() });
    } else {
      // A dry run creates no state: with no nonce store yet, the clock alone gives the nonce a live
      // send would use now.
      store = new MemoryNonceSource(now);
    }
    const stored = db ? new Journal(db, now) : undefined;
    // A dry run journals nothing: its cycle goes to a throwaway in-memory journal.
    let journal: Journal;
    if (live && stored) journal = stored;
    else {
      const { default: Database } = await import("better-sqlite3");
      scratch = new Database(":memory:");
      journal = new Journal(scratch, now);
    }

    // At-most-once, as for the bot: an earlier manual submission whose outcome is not known yet is
    // reconciled against the venue first, and while it cannot be settled nothing new is sent.
    if (live && stored) {
      const reconciled = await reconcile(i.venue.info(), stored, {
        account,
        now: now(),
        venueNow: () => i.venue.clock.now(),
        ...(config ? { userSignedGraceMs: config.venue.userSignedGraceMs } : {}),
      });
      for (const r of reconciled)
        i.note(
          `reconciled submission #${r.submissionId} (${r.strategy}, ${r.actionType}): ${r.verdict}, ${r.detail}`,
        );
    }

    // expiresAfter is counted on the venue's clock, known from the Date of an answer: a command that
    // read nothing yet (a cancel with nothing to reconcile) reads the mids once, or a machine clock
    // minutes slow has its emergency cancel refused as already expired. Best effort: unread, the
    // local clock stands in, and the send says what the venue thinks. (Staking actions have no expiry.)
    if (live && actionDef(i.call.type).signing === "l1" && i.venue.clock.now() === undefined) {
      try {
        await i.venue.info().allMids({});
      } catch {
        // The send below meets the same venue and reports it.
      }
    }

    const killSwitchFile = config?.limits.killSwitchFile ?? join(stateDir, "STOP");
    // The state folder is hlbot's own: while it does not exist, nothing can be at a switch inside it.
    const checkKillSwitch = dirname(killSwitchFile) !== stateDir || existsSync(stateDir);
    let fills: ReadonlyMap<number, TwapFill> | undefined;
    const checked = await manualRefusal(given, {
      onFills: (f) => {
        fills = f;
      },
      config,
      killSwitchFile,
      checkKillSwitch,
      journal: stored,
      account,
      now: now(),
      live,
      ...(live
        ? {
            stakeUnit: async () =>
              (await i.venue.info().spotMeta()).tokens.find((t) => t.name === "HYPE")?.weiDecimals,
          }
        : {}),
      // The venue's view (its history of the day, its prices): read where a bot file's limits apply.
      ...(config ? { venueDay: (part: SnapshotPart) => venueDay(i.venue, config, account, part, now) } : {}),
    });
    const refusal = "refusal" in checked ? checked.refusal : undefined;
    const intent = "intent" in checked ? checked.intent : given;
    if (config === undefined)
      i.note(
        `no bot config (--config, $HLBOT_CONFIG, ./hlbot.yaml or ~/.config/hlbot/config.yaml): maxOrderUsd, maxDailyNotionalUsd and maxStakeMovePerDay are not applied; the kill switch checked is ${join(stateDir, "STOP")}`,
      );
    // Acting for another account than the bot file's (--vault, --account): its limits and kill switch are
    // this bot file's, not that account's own bot's (an operator of several bots stopped a sub-account's
    // bot, then placed a TWAP for it with --vault and the master's bot file: accepted, nothing said).
    else if (config.account !== undefined && config.account.toLowerCase() !== account)
      i.note(
        `acting for ${account}, with the limits and the kill switch (${killSwitchFile}) of ${displayPath(config.file)}, whose account is ${config.account.toLowerCase()}: that account's own bot's are not checked (give its bot file with --config to apply them)`,
      );

    const cycleId = newCycleId(now());
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
      return { status: "refused", reason: refusal };
    }
    const decisionId = record("allowed");
    let outcome: ExchangeOutcome<unknown> | undefined;
    const call = i.call;
    // Every L1 action for a sub-account or vault carries it (whether or not --vault named it).
    const vaultAddress = call.type === "twapOrder" || call.type === "twapCancel" ? defaultVault : undefined;
    let action: Awaited<ReturnType<typeof executeIntent>>;
    i.onSubmit?.();
    try {
      action = await executeIntent(
        {
          exchange: client,
          journal,
          network,
          clock: now,
          // Journaled with the submission: its staking move is then on the venue's clock, as a cycle's.
          venueNow: () => i.venue.clock.now(),
          logger: silentLogger(),
          // Checked again when the row is written: a daemon's cycle may have sent since (its rows count).
          ...(config === undefined
            ? {}
            : {
                dayLimits: {
                  maxNotionalUsd: config.limits.maxDailyNotionalUsd,
                  maxStakeMove: config.limits.maxStakeMovePerDay,
                  ...(fills === undefined ? {} : { fills }),
                },
              }),
        },
        {
          cycleId,
          decisionId,
          ...(vaultAddress === undefined ? {} : { vaultAddress }),
          // A stop while it resends: no further copy (a cancel goes on, as before its first send).
          ...(intent.kind === "twapCancel" || !checkKillSwitch
            ? {}
            : {
                mayResend: () =>
                  killSwitchState(killSwitchFile).engaged ? "the kill switch was engaged" : undefined,
              }),
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
    // Refused by the client before signing (validated above, so not expected).
    if (outcome === undefined) return { status: "not-sent", detail: action.detail ?? "not sent" };
    return { status: "done", outcome };
  } finally {
    db?.close();
    scratch?.close();
  }
}

/** What the venue shows of the account's last 24 h, for the daily limits (see venueDay). */
interface VenueDay {
  snapshot: Snapshot;
  /** The venue's clock less ours. */
  localToVenue: number;
}

/**
 * The venue's history of the last 24 h as a cycle reads it (the snapshot's `part`: twapHistory for
 * "twaps", delegatorHistory for "stakingHistory"), so what another instance of the account (its own
 * state folder) or a hand did is counted against a manual action too (risk.ts dayUsage). Throws when
 * the venue cannot be read.
 */
async function venueDay(
  venue: ManualVenue,
  config: LoadedConfig,
  account: string,
  part: SnapshotPart,
  now: () => number,
): Promise<VenueDay> {
  const snapshot = await readSnapshot(venue.info(), {
    account,
    network: venue.network,
    rules: config.venue.rules,
    parts: new Set([part]),
    // Only the history is used here: no strategy decides on this snapshot.
    facts: { multiSig: null },
    now: now(),
  });
  // The history is dated by the venue's clock: the window starts on it.
  const venueNow = venue.clock.now();
  return { snapshot, localToVenue: venueNow === undefined ? 0 : venueNow - now() };
}

/**
 * Why the engine refuses this manual action (`refusal`), or the intent that may go: a TWAP revalued at
 * the price the checks valued it at, as a cycle's is.
 */
async function manualRefusal(
  given: Intent,
  o: {
    config: LoadedConfig | undefined;
    killSwitchFile: string;
    checkKillSwitch: boolean;
    journal: Journal | undefined;
    account: string;
    now: number;
    /** A live send: the price checks' memory of a pair is written (a dry run writes nothing). */
    live: boolean;
    /**
     * Reads the venue's 24-h history from the snapshot's `part`, and for "twaps" its prices; absent: the
     * journal's usage alone and no price checks (no bot file: no limits apply).
     */
    venueDay?: (part: SnapshotPart) => Promise<VenueDay>;
    /** Receives what the venue shows the ended TWAPs filled, as the limits counted them. */
    onFills?: (fills: ReadonlyMap<number, TwapFill>) => void;
    /** HYPE's weiDecimals as the venue states them (a live staking action checks them). */
    stakeUnit?: () => Promise<number | undefined>;
  },
): Promise<{ refusal: string } | { intent: Intent }> {
  const refused = (refusal: string) => ({ refusal });
  // Cancelling a running TWAP only reduces exposure: it stays possible while the switch is engaged.
  if (given.kind !== "twapCancel" && o.checkKillSwitch) {
    const ks = killSwitchState(o.killSwitchFile);
    if (ks.engaged) return refused(`kill switch is on (${ks.detail}); \`hlbot resume\` releases it`);
  }
  const pending = o.journal?.unresolved(o.account).filter((r) => r.strategy === MANUAL_STRATEGY) ?? [];
  if (pending.length > 0) {
    const ids = pending.map((r) => `#${r.id} ${r.actionType}`).join(", ");
    return refused(
      `an earlier manual submission (${ids}) has no known outcome yet and cannot be settled against the venue now; see \`hlbot history\` and try again later`,
    );
  }
  // Every live staking action is signed in HYPE × 10^8: checked against the venue's unit first, with a bot
  // file or without (a review: `hlbot stake`, whose limit reads no venue history, and every staking
  // command without a bot file, were sent unchecked).
  if (o.stakeUnit !== undefined && movesHypeWei(given.kind)) {
    let wei: number | undefined;
    try {
      wei = await o.stakeUnit();
    } catch (err) {
      return refused(
        `the venue's spotMeta cannot be read to check HYPE's unit before a staking action: ${describeError(err)}; try again later`,
      );
    }
    const mismatch = stakeUnitMismatch(wei);
    if (mismatch !== undefined) return refused(mismatch);
  }
  if (!o.config) return { intent: given };
  // The rule of a cycle: the larger of the journal's usage and the venue's, for the limit that governs
  // this action (what the venue shows cannot be counted: refused, failing closed).
  const counts = usageOf(given);
  const part: SnapshotPart | undefined =
    counts.notionalUsd !== undefined
      ? "twaps"
      : counts.stakeMove !== undefined
        ? "stakingHistory"
        : undefined;
  let venue: VenueDay | undefined;
  // A dry run reads it for a TWAP's price checks only (a TWAP is valued from the venue anyway; a dry
  // staking action signs offline); its limits count its own journal's day.
  if (part !== undefined && o.venueDay !== undefined && (o.live || given.kind === "twapOrder")) {
    try {
      venue = await o.venueDay(part);
    } catch (err) {
      const [limit, history] =
        part === "twaps"
          ? ["maxDailyNotionalUsd", "twapHistory"]
          : ["maxStakeMovePerDay", "delegatorHistory"];
      // What was read: the day's history for a live limit, and for a TWAP the prices its checks need (a
      // review: a failed price read was blamed on the history, and so was a dry run's, which counts none).
      const what =
        part === "twaps"
          ? o.live
            ? `the venue's account state (the ${history} of the last 24 h for ${limit}, and the prices the checks before the limits read)`
            : "the venue's prices and account state the checks before the limits read"
          : `the venue's history of the last 24 h for ${limit} (${history})`;
      const without = o.live
        ? "without it the limits cannot count what another instance or a hand did, nor the prices be checked (failing closed)"
        : "without it the dry run cannot check the order as a live one would be";
      return refused(`${what} cannot be read: ${describeError(err)}; ${without}; try again later`);
    }
  }
  const journaled = (since: number, fills?: ReadonlyMap<number, TwapFill>) =>
    o.journal?.usage(o.account, since, fills) ?? { notionalUsd: ZERO, stakeMoved: ZERO };
  // The cycle's price and metadata checks, on the same snapshot, right before the limits: a manual
  // order was valued at the bare mid a cycle refuses (an architecture review: 60 HYPE at a glitching
  // mid 70% under the day's price passed maxOrderUsd at 450 USD; valued as a cycle values it, 1,500).
  let intent = given;
  if (venue !== undefined) {
    const memories = o.journal?.pairMemories();
    const sane = checkPriceSanity({
      intents: [given],
      snapshot: venue.snapshot,
      limits: o.config.limits.priceSanity ?? DEFAULT_PRICE_SANITY,
      memory: (label) => memories?.get(label),
      now: o.now,
    });
    if (o.live) o.journal?.rememberPairs(sane.observed);
    const blocked = sane.blocked[0];
    if (blocked !== undefined) {
      // A strategy's words ("tried again while its slot is due") are not what happens to a manual order.
      const why = blocked.reason
        .slice(given.reason.length)
        .replace(/^; blocked: /, "")
        .replace(/; tried again while its slot is due$/, "")
        .replace("(price sanity; the slot stays due)", "(price sanity)");
      const alarms = sane.alarms.filter((a) => !why.includes(a));
      // Advice on a bound only where a bound refused it (a missing book or changed metadata has none).
      const bound = given.kind === "twapOrder" && /outside the .* bound/.test(why);
      return refused(
        `${why}${alarms.length > 0 ? `; venue metadata changed: ${alarms.join("; ")}` : ""}` +
          (bound
            ? `; a manual order passes the price checks of ${displayPath(o.config.file)} (limits.priceSanity) as a strategy's does: if these prices are right, widen that bound there, or wait`
            : ""),
      );
    }
    intent = sane.allowed[0] ?? given;
  }
  // The venue's day is counted live; a dry run says what its own journal counts (it changes nothing).
  const counted = o.live ? venue : undefined;
  const fills = counted === undefined ? undefined : endedTwapFills(counted.snapshot);
  if (fills !== undefined) o.onFills?.(fills);
  const usage =
    counted === undefined || fills === undefined
      ? journaled(o.now - LIMIT_WINDOW_MS)
      : dayUsage(journaled, counted.snapshot, fills, o.now, counted.localToVenue, (twapId) =>
          o.journal === undefined ? false : o.journal.twapPlacedBy(o.account, twapId) !== undefined,
        );
  const limited = applyLimits([intent], o.config.limits, usage, {
    killSwitchActive: false,
    rules: o.config.venue.rules,
  });
  /** Above what is left of the day's maxDailyNotionalUsd, in a manual order's words. */
  const { maxDailyNotionalUsd } = o.config.limits;
  const aboveDailyNotional = (order: { notionalUsd: Decimal }) => {
    const used = usage.notionalUsd ?? ZERO;
    const left = Decimal.max(maxDailyNotionalUsd.minus(used), ZERO);
    return (
      `above maxDailyNotionalUsd ${maxDailyNotionalUsd.toFixed()} USD for the last 24 h ` +
      `(${used.toFixed(2)} USD used, ${left.toFixed(2)} USD left today); this order is ≈${order.notionalUsd.toFixed(2)} USD; ` +
      "a manual order is never resized: give a smaller --size" +
      // Waiting helps only an order the whole day's limit could take (a review: alone above it, told to wait).
      (order.notionalUsd.lte(maxDailyNotionalUsd)
        ? ", or try again once what it counts leaves the 24-h window"
        : "")
    );
  };
  const blocked = limited.blocked[0];
  if (blocked) {
    // What is left of the day too small for any TWAP: the strategies' words ("reduced to … the slot
    // stays due") are not what happens to a manual order (a newcomer's trial).
    const why = blocked.reason.slice(intent.reason.length).replace(/^; blocked: /, "");
    return refused(
      intent.kind === "twapOrder" && why.includes("maxDailyNotionalUsd") ? aboveDailyNotional(intent) : why,
    );
  }
  // A strategy's TWAP above maxOrderUsd is reduced; a manual order is the user's exact words, so it is
  // refused instead of being sent at another size.
  // The same for a stake move that maxStakeMovePerDay would reduce to what is left of the day.
  const reduced = limited.reduced[0];
  if (reduced) {
    if (intent.kind === "twapOrder") {
      const { maxOrderUsd } = o.config.limits;
      if (intent.notionalUsd.gt(maxOrderUsd))
        return refused(
          `above maxOrderUsd ${maxOrderUsd.toFixed()} USD (≈${intent.notionalUsd.toFixed(2)} USD); a manual order is never resized: give a smaller --size`,
        );
      // Within maxOrderUsd: reduced to what is left of the day's maxDailyNotionalUsd.
      return refused(aboveDailyNotional(intent));
    }
    // The strategy's wording ("reduced from … the rest moves later") is not what happens to a manual
    // action: say what the limit leaves.
    const left = (reduced as { amount?: Decimal }).amount;
    return refused(
      `above maxStakeMovePerDay ${o.config.limits.maxStakeMovePerDay.toFixed()} HYPE for the last 24 h` +
        `${left === undefined ? "" : ` (${left.toFixed()} HYPE left today)`}; a manual action is never resized: give a smaller --amount`,
    );
  }
  return { intent };
}

/** A manual TWAP's intent before it is valued (mid 0, worth 0). */
function unvaluedTwap(
  base: { strategy: string; reason: string },
  p: Extract<ExchangeCall, { type: "twapOrder" }>["params"],
  size: Decimal,
  coin: string,
  label: string,
): TwapOrderIntent {
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
    midPx: ZERO,
    notionalUsd: ZERO,
  };
}

/** The engine's intent for a manual call; its reason is the command as typed. */
async function manualIntent(
  call: ExchangeCall,
  reason: string,
  o: { valued: boolean; failClosed: boolean; info: () => InfoClient; minOrderValue?: Decimal },
): Promise<Intent> {
  const base = { strategy: MANUAL_STRATEGY, reason };
  switch (call.type) {
    case "twapOrder": {
      const p = call.params;
      const size = truncateDecimals(parseDecimal(p.size, "--size"), p.szDecimals);
      let coin = `@${p.asset - SPOT_ASSET_OFFSET}`;
      let label = coin;
      let midPx = ZERO;
      let quoteUsd: Decimal | undefined;
      if (o.valued) {
        // Valued at the venue's mid for the limits and the daily usage; no price, no order (fail closed).
        const [meta, mids] = await Promise.all([o.info().spotMeta(), o.info().allMids()]);
        const pair = meta.universe.find((u) => u.index === p.asset - SPOT_ASSET_OFFSET);
        const names = new Map(meta.tokens.map((t) => [t.index, t.name]));
        if (pair) {
          coin = pair.name;
          label = `${names.get(pair.tokens[0]) ?? pair.name}/${names.get(pair.tokens[1]) ?? "?"}`;
          // --sz-decimals given for offline signing, now that spotMeta is read: it must be the token's.
          const base = meta.tokens.find((t) => t.index === pair.tokens[0]);
          if (base !== undefined && base.szDecimals !== p.szDecimals) {
            throw new ValidationError([
              {
                path: "--sz-decimals",
                message: `${p.szDecimals} differs from spotMeta's szDecimals ${base.szDecimals} for ${base.name} (${pair.name}); drop --sz-decimals (it is read from the venue) or give ${base.szDecimals}`,
              },
            ]);
          }
        }
        const mid = mids[coin];
        if (mid === undefined && !o.failClosed) return unvaluedTwap(base, p, size, coin, label);
        if (mid === undefined) {
          throw new ValidationError([
            {
              path: "--asset",
              message: `the venue gives no mid price for ${coin}: the order cannot be valued against the limits`,
            },
          ]);
        }
        midPx = new Decimal(mid);
        // Under the venue's TWAP minimum (in quote units, as the strategies size it): the venue refuses it,
        // so a dry run that signed it looked valid (a numbers audit: 1.5 HYPE, about 37 USDC).
        const worth = size.times(midPx);
        if (o.minOrderValue !== undefined && worth.lt(o.minOrderValue)) {
          const quoteName = pair === undefined ? "" : ` ${names.get(pair.tokens[1]) ?? ""}`.trimEnd();
          throw new ValidationError([
            {
              path: "--size",
              message: `${size.toFixed()} is worth ${worth.toDecimalPlaces(2, Decimal.ROUND_DOWN).toFixed()}${quoteName} at the mid ${midPx.toFixed()}: the venue refuses a TWAP worth less than ${o.minOrderValue.toFixed()}${quoteName} (venue.twapMinOrderValue)`,
            },
          ]);
        }
        // In USD as a strategy's order is (limits are in USD): a pair quoted in HYPE at HYPE's USDC mid.
        const quote = pair === undefined ? undefined : names.get(pair.tokens[1]);
        quoteUsd = quote === undefined ? undefined : usdPerUnit(spotUniverse(meta, mids), quote);
      }
      return {
        ...unvaluedTwap(base, p, size, coin, label),
        midPx,
        notionalUsd: quoteUsd === undefined ? size.times(midPx) : size.times(midPx).times(quoteUsd),
        ...(quoteUsd === undefined ? {} : { quoteUsd }),
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
