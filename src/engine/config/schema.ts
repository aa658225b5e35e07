// The shapes of hlbot's two YAML files, as zod schemas: the bot file (network, wallet, mode, limits…)
// and a strategy file (name, kind, schedule, params, where params are checked by the kind's own schema
// from the strategy registry). Both are strict: an unknown key is an error, not a silently ignored typo.
// `hlbot config schema` turns these same schemas into JSON Schema for editors.
import * as z from "zod";
import { ValidationError } from "../../lib/errors.js";
import {
  NONCE_WINDOW_PAST_MS,
  PREDICTED_APR_NET_DEFAULT,
  TWAP_BUY_RESERVE_DEFAULT,
  TWAP_MAX_MINUTES_CEILING,
  TWAP_MAX_MINUTES_DEFAULT,
  TWAP_MIN_MINUTES,
  TWAP_MIN_ORDER_VALUE_DEFAULT,
} from "../../venue/constants.js";
import { DEFAULT_EXPIRES_AFTER_MS } from "../../venue/exchange/submit.js";
import { baseUrlEndpointMessage, endpointSuffix } from "../../venue/networks.js";
import { DEFAULT_BUDGET_CAPACITY } from "../../venue/transport/budget.js";
import { MANUAL_STRATEGY } from "../journal.js";
import { KILL_SWITCH_STRATEGY } from "../killSwitch.js";
import { NOTIFY_EVENTS, type NotifyEventType } from "../notify/types.js";
import { parseDuration, validateSchedule } from "../schedule.js";
import { STRATEGIES, type StrategyKind } from "../strategies/registry.js";
import { address, decimal, hypeAmount, integer, positiveDecimal } from "./fields.js";

const envName = () =>
  z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: "expected the name of an environment variable, like HLBOT_PRIVATE_KEY",
  });

const path = () => z.string().min(1, { error: "expected a path" });

const httpUrl = () =>
  z.string().refine(
    (value) => {
      try {
        const u = new URL(value);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: "expected an http(s) URL such as http://127.0.0.1:3001" },
  );

export const walletSchema = z
  .strictObject({
    privateKeyEnv: envName()
      .optional()
      .describe("Environment variable holding the hex private key (default HLBOT_PRIVATE_KEY)"),
    privateKeyFile: path()
      .optional()
      .describe(
        "File holding the hex private key, e.g. a Docker or Kubernetes secret mounted as a file (instead of privateKeyEnv)",
      ),
    keystore: path().optional().describe("Encrypted JSON keystore file (instead of privateKeyEnv)"),
    passwordEnv: envName()
      .optional()
      .describe("Environment variable holding the keystore password (default HLBOT_KEYSTORE_PASSWORD)"),
    passwordFile: path()
      .optional()
      .describe("File holding the keystore password (takes precedence over passwordEnv)"),
  })
  .superRefine((w, ctx) => {
    const sources = (["privateKeyEnv", "privateKeyFile", "keystore"] as const).filter(
      (k) => w[k] !== undefined,
    );
    if (sources.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: [sources[0]!],
        message: `use one of privateKeyEnv, privateKeyFile and keystore, not ${sources.join(" and ")}`,
      });
    }
    if (w.keystore === undefined) {
      for (const key of ["passwordEnv", "passwordFile"] as const) {
        if (w[key] !== undefined) {
          ctx.addIssue({ code: "custom", path: [key], message: `${key} only applies with keystore` });
        }
      }
    }
  })
  .describe(
    "Where the signing key comes from: the environment, a key file or an encrypted keystore, never this file",
  );

/** A spot token name as the venue lists them (USDC, HYPE, UBTC, …). */
export const TOKEN_NAME = /^[A-Za-z][A-Za-z0-9]{0,19}$/;

export const priceSanitySchema = z
  .strictObject({
    // Fractions, at most 1 (the price doubling): a percent written as 10 or 50 would switch the guard off.
    maxMarkDeviation: decimal({ min: 0, max: 1 })
      .prefault(0.1)
      .describe(
        "Largest gap between the allMids mid and the mark (and the context's mid), as a fraction of the lower (larger / smaller − 1: 0.1 allows 10% above and 9.09% below)",
      ),
    maxDayMove: decimal({ min: 0, max: 1 })
      .prefault(0.5)
      .describe(
        "Largest gap between the mid and the previous-day price, as a fraction of the lower (larger / smaller − 1: 0.5 allows 50% above and 33.3% below)",
      ),
    maxMovePerCycle: decimal({ min: 0, max: 1 })
      .prefault(0.15)
      .describe(
        "Largest move of the mid since the last cycle that saw it, as a fraction of the lower (larger / smaller − 1: 0.15 allows 15% up and 13.04% down)",
      ),
    maxMovePerHour: decimal({ min: 0, max: 1 })
      .prefault(0.1)
      .describe(
        "For a last mid seen longer ago: the move allowed is the larger of maxMovePerCycle and this fraction times the hours since (0.1: 15% up to 1.5 h, 40% after 4 h), not the two added",
      ),
  })
  .describe(
    "Price sanity: a TWAP is blocked when its prices disagree beyond these bounds; limits value it at the highest",
  );

export const limitsSchema = z
  .strictObject({
    maxOrderUsd: positiveDecimal().describe("Largest TWAP notional in USD; a larger one is reduced to it"),
    maxDailyNotionalUsd: positiveDecimal().describe(
      "Largest TWAP notional in USD over a rolling 24 h (less 5 minutes: a daily slot's run of the day before is outside it): a TWAP counts its full value from when it is sent, and what it filled once the venue shows it ended (a TWAP that filled nothing, on a halted pair, counts 0; fills above the mid can take the figure slightly over); a TWAP beyond what is left is reduced to it (blocked when that is below the venue minimum; its slot stays due)",
    ),
    maxStakeMovePerDay: hypeAmount({ gt: 0 }).describe(
      "Largest HYPE amount delegated, undelegated or withdrawn over a rolling 24 h less 5 minutes (a move between validators counts twice: 1,000 HYPE moved uses 2,000); a larger move is reduced to what is left",
    ),
    validatorAllowlist: z
      .array(address())
      // Empty, it read as "no allowlist" and let delegations go to any validator (a config trial); what
      // an empty one should mean is not clear, so it is refused.
      .min(1, {
        message:
          "an empty allowlist would allow no validator, or (as it was read before) any: list at least one validator, or remove the key to allow any",
      })
      .optional()
      .describe(
        "When set, delegations to any other validator are blocked (undelegations are not); validator-staking chooses only among these; at least one",
      ),
    killSwitchFile: path()
      .optional()
      .describe(
        "While anything exists at this path nothing is submitted; its folder must exist (default: STOP in the state folder)",
      ),
    killSwitchCancelRunning: z
      .boolean()
      .default(false)
      .describe("While the kill switch is engaged, each cycle cancels the account's running TWAPs"),
    priceSanity: priceSanitySchema.prefault({}),
    keepOnSpot: z
      .record(
        z.string().regex(TOKEN_NAME, {
          error: "expected a token name such as USDC or HYPE (letters and digits, up to 20)",
        }),
        decimal({ min: 0 }),
      )
      .optional()
      .describe(
        "Spot balance per token the strategies never take the account below, e.g. {USDC: 500, HYPE: 100}: they see only what is above it (a rebalancer weighs what is above the floors and holds while one of its tokens is below its floor, unless its refillFloors refills it from the others; a staking keepSpot counts on top), and no new TWAP spends or sells it and no staking deposit moves it (what running TWAPs hold counts as spent); a running TWAP of this bot that, finished, would take the token under it (a withdrawal or a manual order spent it meanwhile) is cancelled by the TWAP watch. Manual commands (hlbot twap, hlbot stake) are your own words and are not held to it",
      ),
  })
  .describe("Risk limits, checked before anything is signed; missing usage data blocks (fail closed)");

export const logSchema = z
  .strictObject({
    level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    format: z
      .enum(["json", "pretty", "auto"])
      .default("auto")
      .describe("auto: pretty on a terminal, JSON lines otherwise"),
    file: path().optional().describe("Also append JSON log lines to this file"),
  })
  .describe("Logging");

export const venueSchema = z
  .strictObject({
    timeoutMs: integer({ min: 100, max: 600_000 }).default(10_000).describe("Per-request timeout"),
    expiresAfterMs: z
      .union([integer({ min: 1_000, max: 86_400_000 }), z.null()], {
        error: (issue) =>
          typeof issue.input === "string" || typeof issue.input === "number"
            ? "expected milliseconds as a whole number from 1000 to 86400000 (60000 = 1 min), or null"
            : undefined,
      })
      .default(DEFAULT_EXPIRES_AFTER_MS)
      .describe("Time to live of TWAP orders and cancels (expiresAfter); null sends none"),
    readAttempts: integer({ min: 1, max: 10 }).default(4).describe("Attempts per read, the first included"),
    userSignedGraceMs: integer({ min: 1_000, max: 604_800_000 })
      .default(NONCE_WINDOW_PAST_MS)
      .describe(
        "How long after signing a staking action (no expiry on the venue) whose answer was lost it may still land, by the venue's clock; its strategy waits that long before acting again. Default: the venue's whole nonce window (2 days); shorter risks doing it twice",
      ),
    weightPerMinute: integer({ min: 1, max: DEFAULT_BUDGET_CAPACITY })
      .default(DEFAULT_BUDGET_CAPACITY)
      .describe("IP weight budget per minute shared by all requests (the venue allows 1200)"),
    maxResponseBytes: integer({ min: 65_536, max: 1_073_741_824 })
      .default(67_108_864)
      .describe("Largest response body read (bytes, default 64 MiB); a larger one is refused unread"),
    twapMinMinutes: integer({ min: TWAP_MIN_MINUTES, max: TWAP_MAX_MINUTES_CEILING })
      .default(TWAP_MIN_MINUTES)
      .describe("Shortest TWAP to plan (the venue refuses shorter than 5 minutes)"),
    twapMaxMinutes: integer({ min: TWAP_MIN_MINUTES, max: TWAP_MAX_MINUTES_CEILING })
      .default(TWAP_MAX_MINUTES_DEFAULT)
      .describe("Longest TWAP the venue accepts (unconfirmed: 10,080 per the docs, 1,440 per older SDKs)"),
    twapMinOrderValue: decimal({ min: 0 })
      .prefault(Number(TWAP_MIN_ORDER_VALUE_DEFAULT))
      .describe(
        "Minimum value of a whole TWAP in quote units (100, as the venue's refusals state it); a venue refusal that names a higher minimum is learnt",
      ),
    twapMinSliceValue: decimal({ min: 0 })
      .prefault(0)
      .describe(
        "Minimum value of one 30-s TWAP slice in quote units; 0 turns this older per-slice rule off (it was $10 per minute, i.e. 5)",
      ),
    predictedAprNet: z
      .boolean()
      .default(PREDICTED_APR_NET_DEFAULT)
      .describe(
        "Read validatorSummaries' predictedApr as the delegators' rate after commission (true, as mainnet's figures show) or before it (false: a delegator earns predictedApr × (1 − commission))",
      ),
    twapHolds: z
      .boolean()
      .default(false)
      .describe(
        "Whether the venue puts what a running spot TWAP may still take on hold in the spot balances (unconfirmed: its docs do not say so). false (default): that amount is held on top of the venue's whole hold, which holds resting orders and, on unified and portfolio-margin accounts, perp margin too; true: the venue's hold is taken to cover it, beside what resting orders hold (read from openOrders); perp margin in that hold (unified and portfolio-margin accounts) is then taken as covering the TWAP too, so keep false on such accounts",
      ),
    twapBuyReserve: decimal({ min: 0, max: 1 })
      .prefault(Number(TWAP_BUY_RESERVE_DEFAULT))
      .describe(
        "Share of a spot TWAP buy's notional kept beyond size × mid (slippage; unconfirmed: the 3% suborder slippage limit). Buys are sized so it fits",
      ),
  })
  .superRefine((v, ctx) => {
    if (v.twapMaxMinutes < v.twapMinMinutes) {
      ctx.addIssue({ code: "custom", path: ["twapMaxMinutes"], message: "must not be below twapMinMinutes" });
    }
  })
  .describe("Venue tunables; the TWAP rules are unconfirmed venue facts, hence configurable");

/** A duration as `schedule` settings write it ("30s", "5m", "2h", "1d", "1h30m"; schedule.ts parseDuration). */
const DURATION = (v: string) => parseDuration(v) !== undefined;

export const scheduleSchema = z
  .strictObject({
    catchUp: z
      .string()
      .refine(DURATION, { error: 'expected a duration such as "30m", "2h", "1d" or "1h30m"' })
      .default("2h")
      .describe(
        "How late a strategy's cron slot may still be acted in (downtime, a failed run, `once` called between slots); older slots are reported as missed, not acted in",
      ),
    maxClockSkew: z
      .string()
      .refine(DURATION, { error: 'expected a duration such as "5m", "1h" or "1d"' })
      // The venue's clock is read to its Date header's second: a bound tighter than that holds a clock in sync.
      .refine((v) => (parseDuration(v) ?? 0) >= 10_000, {
        error: 'must be at least "10s": the venue\'s time is known to about a second',
      })
      .default("5m")
      .describe(
        "How far the local clock may be from the venue's (its answers' Date headers), either way, for strategies to decide: schedules follow the local clock, so beyond it a strategy would act in a slot that is not due (hours ahead: the next day's run, and again once corrected). Beyond it every strategy holds, as a failed run, and no slot is settled as missed, until the clock is corrected; cancels still go. A slot acted in early within it stays acted once the clock is corrected (up to half the time to the next slot; further ahead, what was sent counts in the slot it was sent in by the venue's time)",
      ),
    allowSeconds: z
      .boolean()
      .default(false)
      .describe(
        "Allow strategy schedules with a leading seconds field (6 fields: they run more than once a minute; tests and demos). Off, a 6-field schedule is an error: a stray field would make a weekly schedule run every second or hour",
      ),
  })
  .describe("How cron slots are run by `run`, `once` and `simulate` alike");

const notifyEvents = () =>
  z
    .array(z.enum(NOTIFY_EVENTS.filter((e) => e !== "test") as [NotifyEventType, ...NotifyEventType[]]))
    .min(1, { error: "expected at least one event (leave the channel out to send nothing)" })
    .optional()
    .describe(
      `Events this channel gets (default: all): ${NOTIFY_EVENTS.filter((e) => e !== "test").join(", ")}`,
    );

export const notifySchema = z
  .strictObject({
    timeoutMs: integer({ min: 100, max: 120_000 }).default(5000).describe("Per request"),
    retries: integer({ min: 0, max: 10 })
      .default(2)
      .describe("Further attempts after a timeout, a network error, a 5xx or a 429"),
    minIntervalMs: integer({ min: 0, max: 3_600_000 })
      .default(1000)
      .describe("Rate limit: at least this long between two messages to one channel"),
    webhook: z
      .strictObject({
        url: httpUrl().optional().describe("Where to POST each event as JSON"),
        urlEnv: envName()
          .optional()
          .describe("Environment variable holding the URL instead (when it holds a token)"),
        events: notifyEvents(),
      })
      .refine((w) => (w.url === undefined) !== (w.urlEnv === undefined), {
        error: "set exactly one of url and urlEnv",
      })
      .optional()
      .describe(
        "A generic webhook: each event POSTed as JSON {id, type, time, account, network, title, text, data}; id is the same on a retry",
      ),
    telegram: z
      .strictObject({
        botTokenEnv: envName()
          .default("HLBOT_TELEGRAM_BOT_TOKEN")
          .describe("Environment variable holding the bot token (from @BotFather)"),
        chatId: z.union([z.string().min(1), z.number().int()]).describe("The chat, group or channel id"),
        apiUrl: httpUrl().default("https://api.telegram.org").describe("Bot API base URL"),
        events: notifyEvents(),
      })
      .optional()
      .describe("Telegram: messages through the Bot API's sendMessage"),
    discord: z
      .strictObject({
        webhookUrlEnv: envName()
          .default("HLBOT_DISCORD_WEBHOOK_URL")
          .describe("Environment variable holding the channel's webhook URL (it holds a token)"),
        events: notifyEvents(),
      })
      .optional()
      .describe("Discord: messages through a channel's incoming webhook"),
  })
  .describe(
    "Notifications: sent in the background (a dead endpoint never delays a cycle), each attempt journaled",
  );

export const journalSchema = z
  .strictObject({
    keepDays: integer({ min: 7 })
      .optional()
      .describe(
        "Delete cycles and their decisions older than this many days (at most once an hour, as cycles finish), and notification attempts: a per-minute strategy writes about 500 MB of them a year. Submissions, the decisions they came from and netted decisions are kept whatever their age (limits, budgets and reconciliation read them); at least schedule.catchUp plus a day is kept. Default: keep everything",
      ),
  })
  .describe("The state folder's journal (hlbot.db): what `history` and `status` read");

export const botConfigSchema = z
  .strictObject({
    network: z.enum(["mainnet", "testnet"]).describe("Which venue network to act on"),
    baseUrl: httpUrl()
      .superRefine((value, ctx) => {
        const endpoint = endpointSuffix(value);
        if (endpoint !== undefined)
          ctx.addIssue({ code: "custom", message: baseUrlEndpointMessage(endpoint) });
      })
      .optional()
      .describe("Send every request here instead (the simulator, a proxy); signatures stay for `network`"),
    explorerUrl: httpUrl()
      .optional()
      .describe(
        "Full URL explorer queries (txDetails) are posted to; default: the network's explorer, or {baseUrl}/info with baseUrl",
      ),
    account: address()
      .optional()
      .describe("Account acted for (default: the signer's address); differs when an API wallet signs"),
    wallet: walletSchema.prefault({}),
    mode: z
      .enum(["dry-run", "live"])
      .default("dry-run")
      .describe(
        "the bot's mode (plan, once, run): live submits; dry-run signs and shows but never sends. --dry-run on the CLI forces dry-run; manual commands send only with --live, whatever this says",
      ),
    strategies: z
      .union([path(), z.array(path()).min(1, { error: "expected at least one strategy file" })], {
        // "Invalid input" told nothing (a config trial: `strategies:` empty, `[1, 2]`).
        error: "expected a folder of strategy files (./strategies) or a list of strategy file paths",
      })
      .default("./strategies")
      .describe("A folder of *.yaml strategy files, or a list of files (relative to this file)"),
    state: path()
      .optional()
      .describe(
        "Folder of the SQLite state (journal, nonces) and the instance lock; it belongs to the network and the account it was first used for (a bot of another network or account is refused: give each bot its own folder). Default: $HLBOT_STATE_DIR, else systemd's $STATE_DIRECTORY, else $XDG_STATE_HOME/hlbot (~/.local/state/hlbot)",
      ),
    limits: limitsSchema,
    log: logSchema.prefault({}),
    venue: venueSchema.prefault({}),
    schedule: scheduleSchema.prefault({}),
    notify: notifySchema.optional(),
    journal: journalSchema.prefault({}),
  })
  .describe("hlbot bot configuration. Relative paths are resolved against the folder of this file.");

export type BotConfigData = z.output<typeof botConfigSchema>;

export const STRATEGY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Names the journal gives what no strategy decided: manual actions and the kill switch's cancels. */
const RESERVED_STRATEGY_NAMES: ReadonlySet<string> = new Set([MANUAL_STRATEGY, KILL_SWITCH_STRATEGY]);

const cron = () =>
  z
    .string()
    .superRefine((expression, ctx) => {
      try {
        validateSchedule(expression);
      } catch (err) {
        const message =
          err instanceof ValidationError ? (err.issues[0]?.message ?? err.message) : String(err);
        ctx.addIssue({
          code: "custom",
          message: message.includes("has 6 fields")
            ? message
            : `${message} (expected 5 cron fields, e.g. "0 * * * *"; a leading 6th for seconds)`,
        });
      }
    })
    .describe('When the daemon runs the strategy: a cron expression ("0 * * * *" = hourly, UTC)');

function strategyFileOf<K extends StrategyKind>(kind: K) {
  return z
    .strictObject({
      name: z
        .string()
        .regex(STRATEGY_NAME, { error: "expected 1-64 letters, digits, '.', '_' or '-' (a unique name)" })
        // The journal's own names for manual actions and the kill switch (a strategy named so lost its
        // budget's history when renamed: its TWAPs read as a person's).
        .refine((name) => !RESERVED_STRATEGY_NAMES.has(name), {
          error: (issue) =>
            `"${String(issue.input)}" is the journal's name for hlbot's own actions: choose another`,
        })
        .describe("Unique name; the journal keys budgets and submissions by it"),
      kind: z.literal(kind).describe(STRATEGIES[kind].description),
      description: z.string().optional(),
      schedule: cron(),
      enabled: z.boolean().default(true),
      priority: integer({ min: 0, max: 1_000_000 })
        .optional()
        .describe(
          "Allocation order on a shared account: balances go first to the smallest priority, then to strategies without one, in the order they are listed",
        ),
      capital: z
        .record(
          z.string().regex(TOKEN_NAME, {
            error: "expected a token name such as USDC or HYPE (letters and digits, up to 20)",
          }),
          positiveDecimal(),
        )
        .refine((m) => Object.keys(m).length > 0, { error: "list at least one token, e.g. {USDC: 5000}" })
        .optional()
        .describe(
          "Per-strategy capital, token -> amount (e.g. {USDC: 5000}): each cycle the strategy sees each listed token's balance capped at its amount and is allocated no more of it (slippage reserve and fee included); tokens not listed are seen and spent as without capital. Not per-strategy accounting: nothing is tracked across cycles",
        ),
      params: STRATEGIES[kind].paramsSchema as (typeof STRATEGIES)[K]["paramsSchema"],
    })
    .describe(`${kind}: ${STRATEGIES[kind].description}`);
}

const options = (Object.keys(STRATEGIES) as StrategyKind[]).map((k) => strategyFileOf(k));

export const strategyFileSchema = z
  .discriminatedUnion(
    "kind",
    options as [ReturnType<typeof strategyFileOf>, ...ReturnType<typeof strategyFileOf>[]],
  )
  .describe("An hlbot strategy file");

export type StrategyFileData = {
  [K in StrategyKind]: Omit<z.output<ReturnType<typeof strategyFileOf<K>>>, "kind"> & {
    kind: K;
  };
}[StrategyKind];
