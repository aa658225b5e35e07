// The shapes of hlbot's two YAML files, as zod schemas: the bot file (network, wallet, mode, limits…)
// and a strategy file (name, kind, schedule, params, where params are checked by the kind's own schema
// from the strategy registry). Both are strict: an unknown key is an error, not a silently ignored typo.
// `hlbot config schema` turns these same schemas into JSON Schema for editors.
import * as z from "zod";
import { ValidationError } from "../../lib/errors.js";
import { validateCron } from "../schedule.js";
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
    keystore: path().optional().describe("Encrypted JSON keystore file (instead of privateKeyEnv)"),
    passwordEnv: envName()
      .optional()
      .describe("Environment variable holding the keystore password (default HLBOT_KEYSTORE_PASSWORD)"),
    passwordFile: path()
      .optional()
      .describe("File holding the keystore password (takes precedence over passwordEnv)"),
  })
  .superRefine((w, ctx) => {
    if (w.keystore !== undefined && w.privateKeyEnv !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["privateKeyEnv"],
        message: "use either privateKeyEnv or keystore, not both",
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
  .describe("Where the signing key comes from: the environment or an encrypted keystore, never this file");

export const limitsSchema = z
  .strictObject({
    maxOrderUsd: positiveDecimal().describe("Largest TWAP notional in USD; a larger one is reduced to it"),
    maxDailyNotionalUsd: positiveDecimal().describe("Largest TWAP notional submitted over a rolling 24 h"),
    maxStakeMovePerDay: hypeAmount({ gt: 0 }).describe(
      "Largest HYPE amount delegated, undelegated or withdrawn over a rolling 24 h",
    ),
    validatorAllowlist: z
      .array(address())
      .optional()
      .describe("When set, delegations to any other validator are blocked (undelegations are not)"),
    killSwitchFile: path()
      .optional()
      .describe("While this file exists nothing is submitted (default: STOP in the state folder)"),
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
      .union([integer({ min: 1_000, max: 86_400_000 }), z.null()])
      .default(60_000)
      .describe("Time to live of TWAP orders and cancels (expiresAfter); null sends none"),
    readAttempts: integer({ min: 1, max: 10 }).default(4).describe("Attempts per read, the first included"),
    userSignedGraceMs: integer({ min: 1_000, max: 86_400_000 })
      .default(300_000)
      .describe(
        "How long after signing a staking action (no expiry on the venue) whose answer was lost it may still land; its strategy waits that long before acting again",
      ),
    weightPerMinute: integer({ min: 1, max: 1_200 })
      .default(1_200)
      .describe("IP weight budget per minute shared by all requests (the venue allows 1200)"),
    maxResponseBytes: integer({ min: 65_536, max: 1_073_741_824 })
      .default(67_108_864)
      .describe("Largest response body read (bytes, default 64 MiB); a larger one is refused unread"),
    twapMinMinutes: integer({ min: 1, max: 10_080 }).default(5).describe("Shortest TWAP the venue accepts"),
    twapMaxMinutes: integer({ min: 1, max: 43_200 })
      .default(10_080)
      .describe("Longest TWAP the venue accepts (unconfirmed: 10,080 per the docs, 1,440 per older SDKs)"),
    twapMinSliceValue: decimal({ min: 0 })
      .prefault(10)
      .describe("Minimum value of one 30-s TWAP slice in quote units (unconfirmed; 10)"),
  })
  .superRefine((v, ctx) => {
    if (v.twapMaxMinutes < v.twapMinMinutes) {
      ctx.addIssue({ code: "custom", path: ["twapMaxMinutes"], message: "must not be below twapMinMinutes" });
    }
  })
  .describe("Venue tunables; the TWAP rules are unconfirmed venue facts, hence configurable");

export const botConfigSchema = z
  .strictObject({
    network: z.enum(["mainnet", "testnet"]).describe("Which venue network to act on"),
    baseUrl: httpUrl()
      .optional()
      .describe("Send every request here instead (the simulator, a proxy); signatures stay for `network`"),
    account: address()
      .optional()
      .describe("Account acted for (default: the signer's address); differs when an API wallet signs"),
    wallet: walletSchema.prefault({}),
    mode: z
      .enum(["dry-run", "live"])
      .default("dry-run")
      .describe("live submits; dry-run signs and shows but never sends. --dry-run on the CLI forces dry-run"),
    strategies: z
      .union([path(), z.array(path()).min(1, { error: "expected at least one strategy file" })])
      .default("./strategies")
      .describe("A folder of *.yaml strategy files, or a list of files (relative to this file)"),
    state: path()
      .default("./state")
      .describe("Folder of the SQLite state (journal, nonces) and the instance lock"),
    limits: limitsSchema,
    log: logSchema.prefault({}),
    venue: venueSchema.prefault({}),
  })
  .describe("hlbot bot configuration. Relative paths are resolved against the folder of this file.");

export type BotConfigData = z.output<typeof botConfigSchema>;

export const STRATEGY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const cron = () =>
  z
    .string()
    .superRefine((expression, ctx) => {
      try {
        validateCron(expression);
      } catch (err) {
        const message =
          err instanceof ValidationError ? (err.issues[0]?.message ?? err.message) : String(err);
        ctx.addIssue({
          code: "custom",
          message: `${message} (expected 5 or 6 cron fields, e.g. "0 * * * *")`,
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
        .describe("Unique name; the journal keys budgets and submissions by it"),
      kind: z.literal(kind).describe(STRATEGIES[kind].description),
      description: z.string().optional(),
      schedule: cron(),
      enabled: z.boolean().default(true),
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
