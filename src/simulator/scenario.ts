// The scenario a simulated venue starts from: tokens, spot pairs, price paths, validators, accounts with
// their balances, delegations, running TWAPs, agents and query variants, and every tunable rule of the venue (the
// venue facts hlbot could not confirm are settings here). Written in YAML, validated with zod;
// every error names the key path and line. Cross-references (a pair's tokens, a delegation's validator)
// are checked too.
import { dirname, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { noSuchDayNote, parseUtcDateTime } from "../lib/dateTime.js";
import { Decimal, isDecimalString, parseDecimal } from "../lib/decimal.js";
import { didYouMean } from "../lib/didYouMean.js";
import { ConfigError, type ValidationError } from "../lib/errors.js";
import { MAX_SCENARIO_BYTES, readRegularTextFile } from "../lib/readText.js";
import { formatKeyPath, keepExactNumbers, lineOf, parseYamlSource } from "../lib/yamlSource.js";
import {
  ADDRESS_PATTERN,
  HYPE_WEI_DECIMALS,
  TWAP_MAX_MINUTES_DEFAULT,
  TWAP_MIN_MINUTES,
} from "../venue/constants.js";
import { type CandleFile, readCandleFile } from "./candles.js";
import { DAY, durationMs, MINUTE, parseDuration, SECOND } from "./clock.js";
import { MESSAGE_KEYS } from "./errors.js";

// ---------------------------------------------------------------------------------------------------
// Field schemas

const ADDRESS = ADDRESS_PATTERN;

const address = z
  .string({ error: 'expected a quoted 0x address ("0x" + 40 hex digits)' })
  .regex(ADDRESS, { error: 'expected a 0x address ("0x" + 40 hex digits)' })
  .transform((a) => a.toLowerCase());

/** A decimal written as a string or a plain YAML number. */
const decimal = z.union([z.string(), z.number(), z.bigint()]).transform((v, ctx): Decimal => {
  const text = typeof v === "bigint" ? v.toString() : v;
  if (typeof text === "string" && !isDecimalString(text.trim())) {
    ctx.addIssue({
      code: "custom",
      message: `expected a decimal number like "12.5", got ${JSON.stringify(v)}`,
    });
    return z.NEVER;
  }
  try {
    return parseDecimal(text);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
    return z.NEVER;
  }
});

const nonNegativeDecimal = decimal.refine((d) => !d.isNegative(), { error: "must not be negative" });
const fraction = decimal.refine((d) => !d.isNegative() && d.lte(1), {
  error: "expected a fraction in [0, 1]",
});

/** A validator's APR, a fraction: `apr: 25` read as 2,500% (a scenario author's trial); above 1 is refused. */
const aprFraction = nonNegativeDecimal.refine(
  (d) => d.lte(1),
  "a fraction: 0.025 is 2.5%; above 1 (100%) is refused",
);

const duration = z.union([z.string(), z.number()]).transform((v, ctx): number => {
  try {
    return parseDuration(v);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as ValidationError).issues?.[0]?.message ?? String(err) });
    return z.NEVER;
  }
});

/**
 * Set while a scenario file is read (parseScenarioText): a length written in it needs its unit. A bare
 * number was milliseconds, so a price point `at: 6` (meant as 6 h) took effect 6 ms into the run and a
 * validator's `unjailableIn: 6` was 6 ms (a documentation trial; events refused it already). Scenarios
 * built in code (a fork, tests) give milliseconds; `settings:` keeps accepting them (the venue's own
 * figures, documented in ms).
 */
let unitsRequired = false;

/** A length in a scenario's body: "6h", "30m"; a bare number only from code (unitsRequired). */
const bodyDuration = z
  .union([z.string(), z.number()])
  .superRefine((v, ctx) => {
    if (unitsRequired) unitRequired(v, "duration's", "", ctx);
  })
  .pipe(duration);

/** Unix ms, or an ISO date-time string (UTC unless it names a zone). */
const timestamp = z.union([z.number().int().nonnegative(), z.string()]).transform((v, ctx): number => {
  if (typeof v === "number") return v;
  const t = parseUtcDateTime(v);
  if (Number.isNaN(t)) {
    ctx.addIssue({
      code: "custom",
      message: `expected unix ms or an ISO date-time, got ${JSON.stringify(v)}${noSuchDayNote(v)}`,
    });
    return z.NEVER;
  }
  return t;
});

const rate = z.number().min(0).max(1);

const hex34 = z.string().regex(/^0x[0-9a-fA-F]{32}$/, { error: 'expected "0x" + 32 hex digits' });

// ---------------------------------------------------------------------------------------------------
// Sections

const tokenDetailsSchema = z.strictObject({
  maxSupply: nonNegativeDecimal.optional(),
  totalSupply: nonNegativeDecimal.optional(),
  circulatingSupply: nonNegativeDecimal.optional(),
  deployer: address.nullable().optional(),
  deployGas: nonNegativeDecimal.nullable().optional(),
  /** ISO-like "2024-06-05T10:50:59.434" (no zone), as the venue prints it. */
  deployTime: z.string().nullable().optional(),
  seededUsdc: nonNegativeDecimal.optional(),
  futureEmissions: nonNegativeDecimal.optional(),
  genesis: z
    .strictObject({
      userBalances: z.array(z.tuple([address, nonNegativeDecimal])).default([]),
      existingTokenBalances: z
        .array(z.tuple([z.number().int().nonnegative(), nonNegativeDecimal]))
        .default([]),
      /** Omit to leave the key out of the answer (the venue sometimes does). */
      blacklistUsers: z.array(address).optional(),
    })
    .nullable()
    .optional(),
  nonCirculatingUserBalances: z.array(z.tuple([address, nonNegativeDecimal])).default([]),
});

const tokenSchema = z.strictObject({
  name: z.string().min(1),
  index: z.number().int().nonnegative(),
  szDecimals: z.number().int().min(0).max(8),
  weiDecimals: z.number().int().min(0).max(18),
  tokenId: hex34.optional(),
  fullName: z.string().nullable().default(null),
  isCanonical: z.boolean().default(false),
  evmContract: z
    .strictObject({ address: address, evm_extra_wei_decimals: z.number().int() })
    .nullable()
    .default(null),
  deployerTradingFeeShare: nonNegativeDecimal.optional(),
  details: tokenDetailsSchema.optional(),
});

/**
 * Defaults of the liquidity classes (assumptions, not measured venue figures): spread, quote depth within
 * depthRange of the mid, recovery half-life, and the quote traded a day the venue reports as the pair's
 * dayNtlVlm when the scenario gives none (about 25 times the depth: a book is turned over many times a
 * day; under the 24-hour volumes `simulate --fork` classes pairs by, 10,000,000 and 250,000).
 */
export const LIQUIDITY_CLASSES = {
  deep: { spreadBps: 2, depth: 2_000_000, depthRange: 0.02, recovery: 60_000, dayVolume: 50_000_000 },
  medium: { spreadBps: 10, depth: 200_000, depthRange: 0.02, recovery: 120_000, dayVolume: 5_000_000 },
  thin: { spreadBps: 30, depth: 20_000, depthRange: 0.02, recovery: 300_000, dayVolume: 200_000 },
} as const;

/**
 * The quote a pair trades a day besides the account's own fills (its dayNtlVlm's baseline): the
 * scenario's dayNtlVlm, else its book class's (a pair with a book trades: 0 would read as a market
 * nobody trades), else none.
 */
export function baselineDayVolume(pair: {
  dayNtlVlm?: Decimal | undefined;
  book?: { class: keyof typeof LIQUIDITY_CLASSES } | undefined;
}): Decimal {
  return pair.dayNtlVlm ?? new Decimal(pair.book ? LIQUIDITY_CLASSES[pair.book.class].dayVolume : 0);
}

/**
 * The order book a pair's TWAP slices fill against (see twap.ts). `class` picks defaults (assumptions,
 * see LIQUIDITY_CLASSES); the other keys override them. Without a book a pair fills at the
 * mid (an ideal, cost-free market: kept for fixtures that assert exact prices).
 */
const bookSchema = z.strictObject({
  class: z.enum(["deep", "medium", "thin"]).default("medium"),
  /** Full bid-ask spread in basis points (a slice pays half of it). */
  spreadBps: z.number().min(0).max(10_000).optional(),
  /** Quote liquidity resting on each side within `depthRange` of the mid. */
  depth: nonNegativeDecimal.refine((d) => d.gt(0), "must be > 0").optional(),
  /** The price distance `depth` is measured within, as a fraction (0.02 = 2 % of the mid). */
  depthRange: z.number().positive().max(1).optional(),
  /** Half-life of the book's recovery after a fill (liquidity taken comes back over time). */
  recovery: bodyDuration.optional(),
});

const pairSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  base: z.string(),
  quote: z.string(),
  /** Canonical pairs are named "BASE/QUOTE"; the others "@index". */
  isCanonical: z.boolean().default(false),
  name: z.string().optional(),
  /** Suborders of TWAPs on a halted pair do not fill (no liquidity). */
  halted: z.boolean().default(false),
  prevDayPx: nonNegativeDecimal.optional(),
  dayNtlVlm: nonNegativeDecimal.optional(),
  dayBaseVlm: nonNegativeDecimal.optional(),
  book: bookSchema.optional(),
});

const pricePointSchema = z.strictObject({
  at: bodyDuration,
  px: decimal.refine((d) => d.gt(0), "must be > 0"),
});

/** Folder candle files of the scenario being parsed are relative to (parsing is synchronous). */
let candleBase: string | undefined;

/** A candle file (hlbot data fetch), read when the scenario is: errors carry both files' lines. */
const candleSource = z.string().transform((path, ctx): CandleFile => {
  const file = resolvePath(candleBase ?? process.cwd(), path);
  try {
    return readCandleFile(file);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
    return z.NEVER;
  }
});

const pricePathSchema = z.union([
  z.strictObject({
    start: decimal.refine((d) => d.gt(0), "must be > 0"),
    /** Annualised expected return (0.1 = +10 %/year expected; the log price drifts by drift − volatility²/2). */
    drift: z.number().default(0),
    /** Annualised volatility of the log price (0.8 = 80 %/year). */
    volatility: z.number().min(0).default(0),
  }),
  z.strictObject({
    /** Offsets from the start of the run; linear interpolation between points, flat after the last. */
    points: z.array(pricePointSchema).min(1),
    interpolate: z.enum(["linear", "step"]).default("linear"),
  }),
  z.strictObject({
    /** A candle file of `hlbot data fetch` (relative to the scenario file): real history, replayed. */
    candles: candleSource,
  }),
]);

const periodStatsSchema = z.strictObject({
  uptimeFraction: fraction.optional(),
  predictedApr: nonNegativeDecimal.optional(),
  nSamples: z.number().int().nonnegative().optional(),
});

const validatorSchema = z.strictObject({
  address: address,
  signer: address.optional(),
  name: z.string(),
  description: z.string().default(""),
  /** Stake from delegators outside the scenario, in HYPE (quote very large values). */
  stake: nonNegativeDecimal.default(parseDecimal("0")),
  commission: fraction.default(parseDecimal("0")),
  isJailed: z.boolean().default(false),
  unjailableAfter: timestamp.nullable().default(null),
  /** Alternative to unjailableAfter: relative to the start of the run. */
  unjailableIn: bodyDuration.optional(),
  isActive: z.boolean().default(true),
  nRecentBlocks: z.number().int().nonnegative().default(0),
  /** Shortcuts for all three periods; `stats` overrides per period. */
  apr: aprFraction.default(parseDecimal("0.02")),
  uptime: fraction.default(parseDecimal("1")),
  stats: z
    .strictObject({
      day: periodStatsSchema.optional(),
      week: periodStatsSchema.optional(),
      month: periodStatsSchema.optional(),
    })
    .default({}),
});

const referralSchema = z.strictObject({
  referredBy: z.strictObject({ referrer: address, code: z.string() }).nullable().default(null),
  stage: z.enum(["ready", "needToCreateCode", "needToTrade"]).default("needToCreateCode"),
  code: z.string().default(""),
  required: z.string().default("10000.0"),
  referrals: z
    .array(
      z.strictObject({
        user: address,
        cumVlm: nonNegativeDecimal.default(parseDecimal("0")),
        cumRewardedFeesSinceReferred: nonNegativeDecimal.default(parseDecimal("0")),
        cumFeesRewardedToReferrer: nonNegativeDecimal.default(parseDecimal("0")),
        timeJoined: timestamp.default(0),
      }),
    )
    .default([]),
  cumVlm: nonNegativeDecimal.default(parseDecimal("0")),
  unclaimedRewards: nonNegativeDecimal.default(parseDecimal("0")),
  claimedRewards: nonNegativeDecimal.default(parseDecimal("0")),
  builderRewards: nonNegativeDecimal.default(parseDecimal("0")),
});

const subAccountSchema = z.strictObject({
  address: address,
  name: z.string(),
  abstraction: z.enum(["unifiedAccount", "portfolioMargin", "disabled"]).optional(),
});

const accountSchema = z.strictObject({
  address: address,
  label: z.string().optional(),
  /** `vault` makes userRole answer {"role":"vault"}. */
  role: z.enum(["user", "vault"]).default("user"),
  referral: referralSchema.optional(),
  /** Bare answer of isVip (null is allowed by the client but not observed). */
  isVip: z.boolean().nullable().default(false),
  multiSig: z
    .strictObject({ authorizedUsers: z.array(address).min(1).max(10), threshold: z.number().int().min(1) })
    .optional(),
  subAccounts: z.array(subAccountSchema).default([]),
  /** Outcome-market balances ("+N" active, "oN" settled): listed without a token index. */
  outcomeBalances: z
    .array(
      z.strictObject({
        coin: z.string().regex(/^[+o]\d+$/, { error: 'expected "+N" or "oN"' }),
        total: decimal,
        entryNtl: decimal.default(parseDecimal("0")),
      }),
    )
    .default([]),
  evmEscrows: z.array(z.strictObject({ coin: z.string(), total: nonNegativeDecimal })).default([]),
  /** A staking link already in place: this account is the trading user. */
  stakingLink: z
    .strictObject({ stakingUser: address, status: z.enum(["requested", "linked"]).default("linked") })
    .optional(),
});

const delegationSchema = z.strictObject({
  user: address,
  validator: address,
  amount: nonNegativeDecimal,
  /** Remaining lock at the start of the run; 0 = already unlocked. */
  lockedFor: bodyDuration.default(0),
});

/** One event of delegatorHistory before the run: a (un)delegation, a deposit, or a withdrawal's phase. */
const stakingEventSchema = z.strictObject({
  time: timestamp,
  /** The venue's hash of the action; default a stand-in. */
  hash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'expected "0x" + 64 hex digits' })
    .transform((h) => h.toLowerCase())
    .optional(),
  delta: z.union([
    z.strictObject({
      delegate: z.strictObject({ validator: address, amount: nonNegativeDecimal, isUndelegate: z.boolean() }),
    }),
    z.strictObject({ cDeposit: z.strictObject({ amount: nonNegativeDecimal }) }),
    z.strictObject({
      withdrawal: z.strictObject({ amount: nonNegativeDecimal, phase: z.enum(["initiated", "finalized"]) }),
    }),
  ]),
});

const stakingSchema = z.strictObject({
  undelegated: nonNegativeDecimal.default(parseDecimal("0")),
  pendingWithdrawals: z
    .array(z.strictObject({ amount: nonNegativeDecimal, finalizesIn: bodyDuration }))
    .default([]),
  /** Staking events before the run (delegatorHistory), any order: what a strategy reads of the past. */
  history: z.array(stakingEventSchema).default([]),
});

/**
 * A TWAP already running when the run starts (a fork of an account carries its TWAPs): the simulator
 * continues it from where it is, on the same schedule, as if it had been placed `startedAgo` before the
 * start. Sizes are the whole order's; `executedSz`/`executedNtl` what it had filled by the start.
 */
const runningTwapSchema = z.strictObject({
  user: address,
  /** The pair's venue name ("@107") or "BASE/QUOTE". */
  pair: z.string(),
  side: z.enum(["buy", "sell"]),
  size: decimal.refine((d) => d.gt(0), "must be > 0"),
  minutes: z.number().int().min(1),
  startedAgo: bodyDuration.default(0),
  executedSz: nonNegativeDecimal.default(parseDecimal("0")),
  executedNtl: nonNegativeDecimal.default(parseDecimal("0")),
  randomize: z.boolean().default(false),
  /** The venue's TWAP id; default the next free one. */
  id: z.number().int().nonnegative().optional(),
});

const agentSchema = z.strictObject({
  /** The master account (or sub-account) the agent trades for. */
  user: address,
  address: address,
  name: z.string().default(""),
  validFor: bodyDuration.optional(),
});

const faultKnobsSchema = z.strictObject({
  /** Fraction of requests answered 500 before they take effect. */
  serverErrorRate: rate.default(0),
  /** Fraction of requests answered 429 (`null`) before they take effect. */
  rateLimitRate: rate.default(0),
  /** Added latency in ms: a fixed value or a [min, max] range. */
  latencyMs: z.union([z.number().min(0), z.tuple([z.number().min(0), z.number().min(0)])]).default(0),
  /** Fraction of requests whose connection is dropped after they took effect. */
  dropRate: rate.default(0),
  /** Fraction of requests answered with a non-JSON body after they took effect. */
  nonJsonRate: rate.default(0),
  /** Fraction of requests answered with JSON that violates the response schema, after they took effect. */
  badSchemaRate: rate.default(0),
});

/** Whether a fault knob does something: a rate or a latency above 0. */
export function faultKnobSet(v: number | readonly number[] | undefined): boolean {
  return Array.isArray(v) ? v.some((x) => x > 0) : v !== undefined && (v as number) > 0;
}

const faultsSchema = z.strictObject({
  all: faultKnobsSchema.partial().optional(),
  info: faultKnobsSchema.partial().optional(),
  exchange: faultKnobsSchema.partial().optional(),
  explorer: faultKnobsSchema.partial().optional(),
});

/**
 * A fee rate, a fraction of the notional: the venue's base tier is 0.0007 (7 bps) for spot takers. Above
 * 10% it is a percentage written as a number (a config trial's `spotCross: 7` charged 700% and left a
 * balance negative); a maker rate may be a rebate (negative), as small.
 */
const feeRate = (min: number) =>
  decimal.refine((d) => d.gte(min) && d.lte(0.1), {
    error: `a fee rate is a fraction of the notional (0.0007 is 7 bps), from ${min} to 0.1`,
  });

const feesSchema = z.strictObject({
  cross: feeRate(0).default(parseDecimal("0.00045")),
  add: feeRate(-0.1).default(parseDecimal("0.00015")),
  spotCross: feeRate(0).default(parseDecimal("0.0007")),
  spotAdd: feeRate(-0.1).default(parseDecimal("0.0004")),
  referralDiscount: fraction.default(parseDecimal("0.04")),
  /** Apply the HYPE staking fee discount tiers to the taker rate. */
  stakingDiscount: z.boolean().default(true),
});

export const settingsSchema = z.strictObject({
  /** Start of the virtual clock (unix ms or ISO). Real-time runs start at the wall clock. */
  startTime: timestamp.optional(),
  /** Nonces stored per address before the volume bonus (the venue's docs: 20). */
  nonceSetSize: z.number().int().min(1).default(20),
  /** Most nonces stored per address (100). */
  nonceSetMax: z.number().int().min(1).default(100),
  /** Cumulative USDC volume that stores one more nonce (1,000,000); 0 turns the bonus off. */
  nonceVolumePerExtra: z.number().nonnegative().default(1_000_000),
  /** How far a nonce may lie before / after the clock. */
  nonceWindowPast: duration.default(DAY),
  nonceWindowFuture: duration.default(DAY),
  twapMinMinutes: z.number().int().min(TWAP_MIN_MINUTES).default(TWAP_MIN_MINUTES),
  twapMaxMinutes: z.number().int().min(TWAP_MIN_MINUTES).default(TWAP_MAX_MINUTES_DEFAULT),
  /** Minimum value of each 30-s suborder, in quote units (an older rule). 0 (default) disables the check. */
  twapMinSliceValue: nonNegativeDecimal.default(parseDecimal("0")),
  /** Minimum value of a whole TWAP in quote units (100, as the venue's refusals state it). 0 disables it. */
  twapMinOrderValue: nonNegativeDecimal.default(parseDecimal("100")),
  /** Minimum value per minute of duration ("Min is $1200, which is $10 per minute"); 0 (default) disables it. */
  twapMinValuePerMinute: nonNegativeDecimal.default(parseDecimal("0")),
  twapSliceInterval: duration.default(30 * SECOND),
  /** Interval range of randomised TWAPs (t: true). */
  twapRandomInterval: z.tuple([duration, duration]).default([10 * SECOND, 50 * SECOND]),
  /** Range of the size factor applied to the on-schedule size of a randomised slice. */
  twapRandomSize: z.tuple([z.number().positive(), z.number().positive()]).default([0.5, 1.5]),
  twapMaxSlippage: fraction.default(parseDecimal("0.03")),
  twapCatchUpFactor: z.number().min(1).default(3),
  /**
   * Whether running TWAPs put their remaining size on hold in spotClearinghouseState (a sell its base, a
   * buy its quote): the venue's docs do not say it does (unconfirmed), so both can be simulated. Default
   * false, as the bot's own default belief (venue.twapHolds); hlbot keeps what its running TWAPs may still
   * take out of its own sizing either way (readSnapshot).
   */
  twapHolds: z.boolean().default(false),
  /** Quote reserved for running buy TWAPs: remaining size × mid × (1 + margin). Default: the slippage. */
  twapBuyHoldMargin: fraction.optional(),
  twapIdStart: z.number().int().nonnegative().default(1_000),
  fees: feesSchema.default(feesSchema.parse({})),
  delegationLock: duration.default(DAY),
  withdrawalDelay: duration.default(7 * DAY),
  maxPendingWithdrawals: z.number().int().min(1).default(5),
  rewards: z.boolean().default(true),
  agentValidity: duration.default(90 * DAY),
  agentMaxValidity: duration.default(180 * DAY),
  maxNamedAgents: z.number().int().min(0).default(3),
  maxNamedAgentsPerSubAccount: z.number().int().min(0).default(2),
  priceStep: duration.default(SECOND),
  rateLimit: z
    .union([z.literal(false), z.strictObject({ capacity: z.number().int().min(1), window: duration })])
    .default({ capacity: 1200, window: MINUTE }),
  firstBlock: z.number().int().nonnegative().default(500_000_000),
  blockTime: duration.default(100),
  faults: faultsSchema.default({}),
  messages: z
    .record(z.string(), z.string())
    .superRefine((m, ctx) => {
      for (const key of Object.keys(m))
        if (!(MESSAGE_KEYS as string[]).includes(key))
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `unknown message key (known: ${MESSAGE_KEYS.join(", ")})`,
          });
    })
    .default({}),
});

// ---------------------------------------------------------------------------------------------------
// Timed events: things that happen to the venue or the account during a run (see events.ts).

/**
 * How long an event lasts, with its unit: a bare number was milliseconds, so `for: 2` made an outage of
 * 2 ms that did nothing (a review of the same trap in `at:`).
 */
const eventDuration = z
  .union([z.string(), z.number()])
  .superRefine((v, ctx) => {
    unitRequired(v, "duration's", "", ctx);
  })
  .pipe(duration);

/**
 * A bare number (or a string of one) as an event's time or length is refused: it was milliseconds,
 * so `at: 2` (meant as day 2) fired at the start and `for: 2` was a 2-ms outage (a scenario author's
 * trial, a review). Each names its unit.
 */
function unitRequired(v: string | number, what: string, orElse: string, ctx: z.RefinementCtx): boolean {
  if (typeof v !== "number" && !/^\s*\d+(\.\d+)?\s*$/.test(v)) return false;
  // Zero is zero in every unit (a review: `at: 0` was refused as ambiguous).
  if (Number(v) === 0) return false;
  ctx.addIssue({
    code: "custom",
    message: `give the ${what} unit: "${v}d", "${v}h", "${v}m", "${v}s" or "${v}ms" (a bare number is ambiguous)${orElse}`,
  });
  return true;
}

/** When an event happens: an offset from the start of the run ("2d", "36h") or an ISO date-time. */
const eventTime = z
  .union([z.string(), z.number()], {
    error: (iss) =>
      iss.input === undefined
        ? 'required: when the event happens, an offset from the start like "2d" or "36h", or an ISO date-time'
        : undefined,
  })
  .transform((v, ctx): EventTime => {
    if (unitRequired(v, "offset's", ", or an ISO date-time", ctx)) return z.NEVER;
    // What unitRequired lets through as a bare number is 0: the start.
    if (typeof v === "number" || /^\s*0+(\.0+)?\s*$/.test(v)) return { offset: 0 };
    const offset = durationMs(v);
    if (offset !== undefined) return { offset };
    const t = parseUtcDateTime(v);
    if (Number.isNaN(t)) {
      ctx.addIssue({
        code: "custom",
        message: `expected an offset from the start like "2d", "36h" or "1d8h", or an ISO date-time, got ${JSON.stringify(v)}${noSuchDayNote(v)}`,
      });
      return z.NEVER;
    }
    return { time: t };
  });
export type EventTime = { offset: number } | { time: number };

const validatorEventSchema = z.strictObject({
  at: eventTime,
  type: z.literal("validator"),
  validator: address,
  /** Jails (true) or unjails (false) the validator. */
  jailed: z.boolean().optional(),
  /** With jailed: true, when it may be unjailed, from the event (sets unjailableAfter). */
  unjailableIn: eventDuration.optional(),
  active: z.boolean().optional(),
  commission: fraction.optional(),
  /** Predicted APR of all three periods (before commission), a fraction. */
  apr: aprFraction.optional(),
  uptime: fraction.optional(),
});

const pairEventSchema = z.strictObject({
  at: eventTime,
  type: z.literal("pair"),
  pair: z.string(),
  /** Halts (no TWAP slice fills) or resumes the pair. */
  halted: z.boolean(),
});

const priceEventSchema = z
  .strictObject({
    at: eventTime,
    type: z.literal("price"),
    pair: z.string(),
    /** New mid price. */
    px: decimal.refine((d) => d.gt(0), "must be > 0").optional(),
    /** Relative move of the mid: -0.3 = a 30 % drop. */
    change: z.number().gt(-1).optional(),
  })
  .refine((e) => (e.px === undefined) !== (e.change === undefined), {
    error: "give exactly one of px or change",
  });

const flowEventSchema = z.strictObject({
  at: eventTime,
  /** Money in or out of the account from outside the venue (a bridge deposit, a withdrawal). */
  type: z.enum(["deposit", "withdrawal"]),
  account: address,
  coin: z.string(),
  amount: nonNegativeDecimal.refine((d) => d.gt(0), "must be > 0"),
});

const outageEventSchema = z.strictObject({
  at: eventTime,
  /** Faults for a period: by default every request to the endpoint is answered 500. */
  type: z.literal("outage"),
  for: eventDuration.refine((d) => d > 0, "must be > 0"),
  endpoint: z.enum(["all", "info", "exchange", "explorer"]).default("all"),
  // `faults: {}` (or only zero rates) was listed as an outage and did nothing (a scenario author's trial).
  faults: faultKnobsSchema
    .partial()
    .refine(
      (f) => Object.values(f).some(faultKnobSet),
      "sets no fault, so nothing would happen: give a rate (serverErrorRate: 1, …) or a latency, or leave faults out for every request answered 500",
    )
    .default({ serverErrorRate: 1 }),
});

const eventSchema = z.discriminatedUnion("type", [
  validatorEventSchema,
  pairEventSchema,
  priceEventSchema,
  flowEventSchema,
  outageEventSchema,
]);

const scenarioObject = z.strictObject({
  name: z.string().default("scenario"),
  description: z.string().optional(),
  seed: z.number().int().nonnegative().default(1),
  settings: settingsSchema.default(settingsSchema.parse({})),
  tokens: z.array(tokenSchema).min(1),
  pairs: z.array(pairSchema).default([]),
  /** Price path per pair, keyed by the pair's venue name ("@107") or "BASE/QUOTE". */
  prices: z.record(z.string(), pricePathSchema).default({}),
  validators: z.array(validatorSchema).default([]),
  accounts: z.array(accountSchema).default([]),
  /** Spot balances: address → coin → amount. */
  balances: z.record(z.string(), z.record(z.string(), nonNegativeDecimal)).default({}),
  /** Staking balances outside delegations: address → { undelegated, pendingWithdrawals, history }. */
  staking: z.record(z.string(), stakingSchema).default({}),
  delegations: z.array(delegationSchema).default([]),
  agents: z.array(agentSchema).default([]),
  /** TWAPs running at the start of the run. */
  twaps: z.array(runningTwapSchema).default([]),
  /** Timed events, applied in time order (same time: in file order). */
  events: z.array(eventSchema).default([]),
});

export const scenarioSchema = scenarioObject.superRefine(checkReferences);

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScenarioSettings = Scenario["settings"];
export type ScenarioToken = Scenario["tokens"][number];
export type ScenarioPair = Scenario["pairs"][number];
export type BookConfig = z.output<typeof bookSchema>;
export type ScenarioValidator = Scenario["validators"][number];
export type ScenarioAccount = Scenario["accounts"][number];
export type PricePathConfig = Scenario["prices"][string];
export type ScenarioEvent = Scenario["events"][number];
export type ScenarioTwap = Scenario["twaps"][number];
export type ScenarioStakingEvent = Scenario["staking"][string]["history"][number];
export type FaultKnobsInput = z.input<typeof faultKnobsSchema>;
export type FaultKnobs = z.output<typeof faultKnobsSchema>;
export type FaultsInput = z.input<typeof faultsSchema>;
export { faultKnobsSchema, faultsSchema };

/** Venue name of a pair: "BASE/QUOTE" when canonical, "@index" otherwise. */
export function pairName(pair: ScenarioPair): string {
  return pair.name ?? (pair.isCanonical ? `${pair.base}/${pair.quote}` : `@${pair.index}`);
}

/**
 * A price below the smallest step the venue allows for its pair (8 − szDecimals decimals for spot: the
 * venue's tick and lot size docs) cannot be a pair's price there; the simulator would have rounded it up
 * to one step silently (a tokens trial: 0.00001234 for a token of 5 size decimals became 0.001, 81 times
 * the price written).
 */
function checkPriceTicks(sc: z.output<typeof scenarioObject>, ctx: z.RefinementCtx): void {
  const szDecimals = new Map(sc.tokens.map((t) => [t.name, t.szDecimals]));
  for (const [key, path] of Object.entries(sc.prices)) {
    const pair = sc.pairs.find((p) => pairName(p) === key || `${p.base}/${p.quote}` === key);
    const sz = pair === undefined ? undefined : szDecimals.get(pair.base);
    if (sz === undefined) continue;
    const decimals = Math.max(0, 8 - sz);
    const tick = new Decimal(10).pow(-decimals);
    const says = (px: string) =>
      `${px} is below the smallest price step of ${key} (${tick.toFixed()}: 8 − ${pair!.base}'s szDecimals ${sz} decimals, as on the venue); give a price of at least ${tick.toFixed()}, or fewer szDecimals`;
    if ("start" in path && path.start.lt(tick))
      ctx.addIssue({ code: "custom", path: ["prices", key, "start"], message: says(path.start.toFixed()) });
    if ("points" in path)
      path.points.forEach((point, j) => {
        if (point.px.lt(tick))
          ctx.addIssue({
            code: "custom",
            path: ["prices", key, "points", j, "px"],
            message: says(point.px.toFixed()),
          });
      });
    if ("candles" in path) {
      const low = path.candles.candles.find((c) => c.l < tick.toNumber());
      if (low !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["prices", key, "candles"],
          message: `${path.candles.file}: a low of ${low.l} at ${new Date(low.t).toISOString()}: ${says(String(low.l))}`,
        });
    }
  }
}

function checkReferences(sc: z.output<typeof scenarioObject>, ctx: z.RefinementCtx): void {
  const tokensByName = new Map<string, number>();
  const tokenIndexes = new Set<number>();
  sc.tokens.forEach((t, i) => {
    if (tokensByName.has(t.name))
      ctx.addIssue({
        code: "custom",
        path: ["tokens", i, "name"],
        message: `duplicate token name ${t.name}`,
      });
    if (tokenIndexes.has(t.index))
      ctx.addIssue({
        code: "custom",
        path: ["tokens", i, "index"],
        message: `duplicate token index ${t.index}`,
      });
    tokensByName.set(t.name, t.index);
    tokenIndexes.add(t.index);
  });
  const pairNames = new Set<string>();
  const aliases = new Set<string>();
  const pairIndexes = new Set<number>();
  sc.pairs.forEach((p, i) => {
    for (const side of ["base", "quote"] as const)
      if (!tokensByName.has(p[side]))
        ctx.addIssue({ code: "custom", path: ["pairs", i, side], message: `unknown token ${p[side]}` });
    if (p.base === p.quote)
      ctx.addIssue({ code: "custom", path: ["pairs", i, "quote"], message: "base and quote must differ" });
    if (pairIndexes.has(p.index))
      ctx.addIssue({
        code: "custom",
        path: ["pairs", i, "index"],
        message: `duplicate pair index ${p.index}`,
      });
    pairIndexes.add(p.index);
    pairNames.add(pairName(p));
    aliases.add(`${p.base}/${p.quote}`);
  });
  for (const key of Object.keys(sc.prices))
    if (!pairNames.has(key) && !aliases.has(key))
      ctx.addIssue({ code: "custom", path: ["prices", key], message: `no pair named ${key}` });
  checkPriceTicks(sc, ctx);
  const validators = new Set<string>();
  sc.validators.forEach((v, i) => {
    if (validators.has(v.address))
      ctx.addIssue({ code: "custom", path: ["validators", i, "address"], message: "duplicate validator" });
    validators.add(v.address);
  });
  for (const [user, coins] of Object.entries(sc.balances)) {
    if (!ADDRESS.test(user))
      ctx.addIssue({ code: "custom", path: ["balances", user], message: "expected a 0x address as key" });
    for (const coin of Object.keys(coins))
      if (!tokensByName.has(coin))
        ctx.addIssue({ code: "custom", path: ["balances", user, coin], message: `unknown token ${coin}` });
  }
  for (const user of Object.keys(sc.staking))
    if (!ADDRESS.test(user))
      ctx.addIssue({ code: "custom", path: ["staking", user], message: "expected a 0x address as key" });
  sc.delegations.forEach((d, i) => {
    if (!validators.has(d.validator))
      ctx.addIssue({ code: "custom", path: ["delegations", i, "validator"], message: "unknown validator" });
  });
  const twapIds = new Set<number>();
  sc.twaps.forEach((t, i) => {
    const at = (key: string) => ["twaps", i, key];
    if (!pairNames.has(t.pair) && !aliases.has(t.pair))
      ctx.addIssue({ code: "custom", path: at("pair"), message: `no pair named ${t.pair}` });
    if (t.executedSz.gte(t.size))
      ctx.addIssue({
        code: "custom",
        path: at("executedSz"),
        message: "must be below size (it would have finished)",
      });
    if (t.startedAgo >= t.minutes * MINUTE)
      ctx.addIssue({
        code: "custom",
        path: at("startedAgo"),
        message: "must be below minutes (it would have ended)",
      });
    if (t.id !== undefined) {
      if (twapIds.has(t.id))
        ctx.addIssue({ code: "custom", path: at("id"), message: `duplicate TWAP id ${t.id}` });
      twapIds.add(t.id);
    }
  });
  if (sc.delegations.length > 0 || Object.keys(sc.staking).length > 0) {
    if (!tokensByName.has("HYPE"))
      ctx.addIssue({ code: "custom", path: ["tokens"], message: "staking needs a token named HYPE" });
  }
  // Staking amounts are HYPE × 10^8 on the venue, as hlbot signs them: another wei unit for HYPE made
  // every deposit fail for a balance "too small", unexplained (an audit).
  sc.tokens.forEach((t, i) => {
    if (t.name === "HYPE" && t.weiDecimals !== HYPE_WEI_DECIMALS)
      ctx.addIssue({
        code: "custom",
        path: ["tokens", i, "weiDecimals"],
        message: `HYPE has ${HYPE_WEI_DECIMALS} wei decimals on the venue (its staking amounts are HYPE × 10^${HYPE_WEI_DECIMALS}, as hlbot signs them)`,
      });
  });
  sc.events.forEach((e, i) => {
    const at = (key: string) => ["events", i, key];
    if ((e.type === "pair" || e.type === "price") && !pairNames.has(e.pair) && !aliases.has(e.pair))
      ctx.addIssue({ code: "custom", path: at("pair"), message: `no pair named ${e.pair}` });
    if (e.type === "validator") {
      if (!validators.has(e.validator))
        ctx.addIssue({ code: "custom", path: at("validator"), message: "unknown validator" });
      if (e.unjailableIn !== undefined && e.jailed !== true)
        ctx.addIssue({ code: "custom", path: at("unjailableIn"), message: "only with jailed: true" });
      const changes = ["jailed", "active", "commission", "apr", "uptime"] as const;
      if (!changes.some((k) => e[k] !== undefined))
        ctx.addIssue({
          code: "custom",
          path: at("type"),
          message: `a validator event changes something: ${changes.join(", ")}`,
        });
    }
    if ((e.type === "deposit" || e.type === "withdrawal") && !tokensByName.has(e.coin))
      ctx.addIssue({ code: "custom", path: at("coin"), message: `unknown token ${e.coin}` });
  });
  const st = sc.settings;
  if (st.twapMinMinutes > st.twapMaxMinutes)
    ctx.addIssue({ code: "custom", path: ["settings", "twapMaxMinutes"], message: "below twapMinMinutes" });
  if (st.twapRandomInterval[0] > st.twapRandomInterval[1] || st.twapRandomInterval[0] <= 0)
    ctx.addIssue({
      code: "custom",
      path: ["settings", "twapRandomInterval"],
      message: "expected 0 < min ≤ max",
    });
  if (st.twapRandomSize[0] > st.twapRandomSize[1])
    ctx.addIssue({ code: "custom", path: ["settings", "twapRandomSize"], message: "expected min ≤ max" });
  if (st.priceStep <= 0)
    ctx.addIssue({ code: "custom", path: ["settings", "priceStep"], message: "must be > 0" });
  if (st.twapSliceInterval <= 0)
    ctx.addIssue({ code: "custom", path: ["settings", "twapSliceInterval"], message: "must be > 0" });
}

// ---------------------------------------------------------------------------------------------------
// Loading

/** Parses and validates scenario YAML. `file` is only used in error messages. */
export function parseScenarioYaml(text: string, file?: string): Scenario {
  candleBase = file === undefined ? undefined : dirname(resolvePath(file));
  try {
    return parseScenarioText(text, file);
  } finally {
    candleBase = undefined;
  }
}

function parseScenarioText(text: string, file = "scenario"): Scenario {
  // The same reader as the bot's configuration: syntax errors with their line, no inline private
  // keys, numbers a JS number would round kept as exact decimal text, unquoted 0x… kept as text.
  const src = parseYamlSource(file, text);
  keepExactNumbers(src);
  const data: unknown = src.doc.toJS({ maxAliasCount: 1000 }) ?? {};
  unitsRequired = true;
  let result: ReturnType<typeof scenarioSchema.safeParse>;
  try {
    result = scenarioSchema.safeParse(data);
  } finally {
    unitsRequired = false;
  }
  if (result.success) {
    // Where each event's time is written: a run's period is only known later (--from, --prices).
    eventSources.set(result.data, {
      file,
      lines: result.data.events.map((_, i) => lineOf(src, ["events", i, "at"]) ?? lineOf(src, ["events", i])),
    });
    return remember(result.data);
  }
  // Another of hlbot's files given as a scenario: said in a sentence, not as the schema's complaints
  // about its keys (a documentation trial: "tokens: Invalid input …; network: unknown key").
  const other = notAScenario(data);
  if (other !== undefined) throw new ConfigError(other, { file });
  const issues = result.error.issues
    .flatMap((i) => ownBranchIssues(i, data))
    .map((i) => {
      const path = i.path.map((p) => (typeof p === "symbol" ? String(p) : p));
      // An unknown key: its own line, and where a known key of that name belongs (an operator's
      // top-level `faults:` was refused at line 10, the file's first key; it goes under settings:).
      const unknown = i.code === "unrecognized_keys" ? (i as { keys?: string[] }).keys?.[0] : undefined;
      if (unknown !== undefined) {
        const home = path.length === 0 ? nestedHome(unknown) : undefined;
        return {
          keyPath: formatKeyPath([...path, unknown]),
          message: `unknown key "${unknown}"${home === undefined ? "" : ` (it belongs under ${home}:)`}`,
          line: lineOf(src, [...path, unknown]) ?? lineOf(src, path),
        };
      }
      return { keyPath: formatKeyPath(path), message: i.message, line: lineOf(src, path) };
    });
  const first = issues[0]!;
  const rest = issues
    .slice(1)
    .map((i) => `; ${i.keyPath || "(root)"}${i.line ? ` (line ${i.line})` : ""}: ${i.message}`);
  throw new ConfigError(`${first.message}${rest.join("")}`, {
    file,
    ...(first.line === undefined ? {} : { line: first.line }),
    keyPath: first.keyPath || "(root)",
  });
}

type ZodIssueLike = { code: string; message: string; path: PropertyKey[] };

/** The value at a schema issue's path in the parsed document (undefined where there is none). */
function valueAtPath(data: unknown, path: readonly PropertyKey[]): unknown {
  let at = data;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/**
 * A union's issue as the one shape that matched and only failed its own checks (a candle file that
 * cannot be read: a scenario trial got "Invalid input" and lost the file's reason), or the issue itself.
 */
function ownBranchIssues(issue: ZodIssueLike, data?: unknown): ZodIssueLike[] {
  if (issue.code !== "invalid_union") return [issue];
  const options = (issue as { options?: unknown[] }).options;
  if ((issue as { note?: string }).note === "No matching discriminator" && options !== undefined) {
    // An event's misspelt `type` (a newcomer got zod's "Invalid discriminator value").
    const value = valueAtPath(data, issue.path);
    const names = options.map(String);
    const guess = typeof value === "string" ? didYouMean(value, names) : undefined;
    const message =
      value === undefined
        ? `is required; one of: ${names.join(", ")}`
        : `unknown value ${JSON.stringify(value)}${guess === undefined ? "" : ` (did you mean "${guess}"?)`}; one of: ${names.join(", ")}`;
    return [{ ...issue, message }];
  }
  const branches = (issue as { errors?: ZodIssueLike[][] }).errors ?? [];
  const own = branches.filter((b) => b.length > 0 && b.every((i) => i.code === "custom"));
  return own.length === 1 ? own[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] })) : [issue];
}

/** The file and line of each event of a scenario read from YAML, for errors found once a run's period is known. */
const eventSources = new WeakMap<Scenario, { file: string; lines: Array<number | undefined> }>();

/**
 * Refuses events dated before the start of a run (an ISO time earlier than `start`, e.g. with a later
 * --from): the scenario format places events "during a run", so one before it has no meaning, and
 * applying it at the first tick would pass silently for something else. Names the file, line and key.
 * Offsets ("2d") count from the start and are never before it.
 */
export function checkEventsNotBefore(
  scenario: Scenario,
  start: number,
  source = "scenario",
  /** How the run could start earlier, for the advice (`hlbot venue` has no --from: a review). */
  earlier = "or start the run earlier (--from)",
): void {
  const where = eventSources.get(scenario);
  const before = scenario.events.flatMap((e, i) =>
    "time" in e.at && e.at.time < start
      ? [
          {
            type: e.type,
            time: e.at.time,
            keyPath: formatKeyPath(["events", i, "at"]),
            line: where?.lines[i],
          },
        ]
      : [],
  );
  const [first, ...more] = before;
  if (!first) return;
  const others = more
    .map(
      (b) =>
        `; ${b.keyPath}${b.line === undefined ? "" : ` (line ${b.line})`}: ${new Date(b.time).toISOString()}`,
    )
    .join("");
  throw new ConfigError(
    `the ${first.type} event at ${new Date(first.time).toISOString()} is before the start of the run, ${new Date(start).toISOString()}: give it a later time, ${earlier === "" ? 'or an offset from the start like "2d"' : `an offset from the start like "2d", ${earlier}`}${others}`,
    {
      file: where?.file ?? source,
      ...(first.line === undefined ? {} : { line: first.line }),
      keyPath: first.keyPath,
    },
  );
}

/** Scenarios that went through the schema, so that passing one back in does not parse it twice. */
const parsed = new WeakSet<object>();
function remember(s: Scenario): Scenario {
  parsed.add(s);
  return s;
}

/** What a file given as a scenario is when it is a bot, strategy or sweep file, in a sentence. */
function notAScenario(data: unknown): string | undefined {
  if (data === null || typeof data !== "object" || "tokens" in data || "pairs" in data) return undefined;
  if ("kind" in data && "schedule" in data)
    return "this is a strategy file, not a scenario of the simulator (it has `kind:` and `schedule:`): a bot file lists it under `strategies:`; a scenario has `tokens:` and `pairs:` (see config/scenarios/demo.yaml)";
  if ("strategies" in data || "network" in data)
    return "this is a bot file, not a scenario of the simulator (it has `strategies:` or `network:`): give it with --config; a scenario has `tokens:` and `pairs:` (see config/scenarios/demo.yaml)";
  if ("grid" in data || "sweep" in data)
    return "this looks like a sweep file, not a scenario of the simulator: give it to `hlbot simulate --sweep`";
  return undefined;
}

/** Reads and validates a scenario file. */
export function loadScenarioFile(file: string): Scenario {
  return parseScenarioYaml(readRegularTextFile(file, MAX_SCENARIO_BYTES, { prefix: "scenario: " }), file);
}

/** Validates a scenario given as an object (programmatic use). */
export function parseScenarioObject(input: unknown, source = "scenario"): Scenario {
  if (typeof input === "object" && input !== null && parsed.has(input)) return input as Scenario;
  const result = scenarioSchema.safeParse(input);
  if (result.success) return remember(result.data);
  const i = result.error.issues[0]!;
  const keyPath = formatKeyPath(i.path.map((p) => (typeof p === "symbol" ? String(p) : p))) || "(root)";
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : "";
  throw new ConfigError(`${i.message}${more}`, { file: source, keyPath });
}

/** The bundled demo scenario, resolved relative to the package (works from src/ and dist/). */
export const DEMO_SCENARIO_PATH = fileURLToPath(new URL("../../config/scenarios/demo.yaml", import.meta.url));

/** A scenario given as a file path, a parsed object, or nothing (the bundled demo). */
export function resolveScenario(scenario: string | ScenarioInput | Scenario | undefined): Scenario {
  if (scenario === undefined) return loadScenarioFile(DEMO_SCENARIO_PATH);
  if (typeof scenario === "string") return loadScenarioFile(scenario);
  return parseScenarioObject(scenario);
}

/** Milliseconds helper re-exported for scenario authors in code. */
export { DAY, MINUTE, SECOND };

/** The top-level section of a scenario that has a key named `key` (settings' faults, twapIdStart …). */
function nestedHome(key: string): string | undefined {
  return key in settingsSchema.shape ? "settings" : undefined;
}
