// validatorSummaries: every validator with stake, commission and uptime stats.
import { z } from "zod";
import { InternalError } from "../../../lib/errors.js";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { AddressOut, BigIntValue, DecimalString, TimestampMs, UInt } from "../schemas.js";
import { shown, unknownVariant } from "../tolerant.js";

export const ValidatorSummariesRequest = z.strictObject({
  type: z.literal("validatorSummaries"),
});
export type ValidatorSummariesRequest = z.output<typeof ValidatorSummariesRequest>;

/** The periods of a validator's stats that hlbot reads (validator-staking's statsPeriod and minUptime, status). */
export const VALIDATOR_STATS_PERIODS = ["day", "week", "month"] as const;
export type ValidatorStatsPeriod = (typeof VALIDATOR_STATS_PERIODS)[number];

export const ValidatorPeriodStats = z.looseObject({
  uptimeFraction: DecimalString,
  predictedApr: DecimalString,
  nSamples: UInt,
});
export type ValidatorPeriodStats = z.output<typeof ValidatorPeriodStats>;

/**
 * One `[period, stats]` pair. A period hlbot reads is checked strictly; one the venue adds later is kept
 * as sent (its stats unvalidated) and reported once, so a new period never refuses the answer.
 */
const PeriodEntry = z.union([
  z.tuple([z.enum(VALIDATOR_STATS_PERIODS), ValidatorPeriodStats]),
  z.tuple([unknownVariant("[].stats[].0", VALIDATOR_STATS_PERIODS), z.unknown()]),
]);

/** The pairs in any order, each period hlbot reads there exactly once. */
const Stats = z.array(PeriodEntry).superRefine((entries, ctx) => {
  for (const period of VALIDATOR_STATS_PERIODS) {
    const n = entries.filter(([name]) => name === period).length;
    if (n === 0)
      ctx.addIssue({
        code: "custom",
        message: `no "${period}" period: hlbot reads the stats of day, week and month`,
      });
    else if (n > 1)
      ctx.addIssue({
        code: "custom",
        message: `"${period}" is given ${n} times: which one holds is unknown`,
      });
  }
});

export const ValidatorSummary = z.looseObject({
  validator: AddressOut,
  // Only shown: one of another shape is left out (tolerant.ts).
  signer: shown("[].signer", AddressOut),
  name: z.string(),
  description: shown("[].description", z.string()),
  nRecentBlocks: shown("[].nRecentBlocks", UInt),
  /** HYPE × 1e8, always a bigint (it can exceed 2^53). */
  stake: BigIntValue,
  isJailed: z.boolean(),
  /** Unix ms, or null when not jailed. */
  unjailableAfter: TimestampMs.nullable(),
  isActive: z.boolean(),
  /** Fraction: "0.04" is 4 %. */
  commission: DecimalString,
  /**
   * `[period, stats]` pairs, in any order (day, week, month so far): each of day, week and month once and
   * strictly checked (read them with validatorPeriodStats); another period is kept as sent.
   */
  stats: Stats,
});
export type ValidatorSummary = z.output<typeof ValidatorSummary>;

/** The stats of one period hlbot reads, by its name (the schema requires each exactly once). */
export function validatorPeriodStats(
  stats: ValidatorSummary["stats"],
  period: ValidatorStatsPeriod,
): ValidatorPeriodStats {
  const entry = stats.find(([name]) => name === period);
  if (entry === undefined) throw new InternalError(`validatorSummaries stats without "${period}"`);
  // A pair named by a period hlbot reads passed its strict branch.
  return entry[1] as ValidatorPeriodStats;
}

export const ValidatorSummariesResponse = z.array(ValidatorSummary);
export type ValidatorSummariesResponse = z.output<typeof ValidatorSummariesResponse>;

export const validatorSummariesWeight = infoRequestWeight("validatorSummaries");

export const validatorSummariesMethod = defineInfoMethod({
  type: "validatorSummaries",
  request: ValidatorSummariesRequest,
  response: ValidatorSummariesResponse,
  weight: validatorSummariesWeight,
  endpoint: "info",
});
export type ValidatorSummariesParameters = InfoParams<typeof validatorSummariesMethod>;

export function validatorSummaries(
  transport: HttpTransport,
  params: ValidatorSummariesParameters = {},
  signal?: AbortSignal,
): Promise<ValidatorSummariesResponse> {
  return runInfoQuery(transport, validatorSummariesMethod, params, signal);
}
