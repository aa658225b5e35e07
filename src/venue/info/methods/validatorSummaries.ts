// validatorSummaries: every validator with stake, commission and uptime stats.
import { z } from "zod";
import type { HttpTransport } from "../../transport/http.js";
import { infoRequestWeight } from "../../transport/weights.js";
import { defineInfoMethod, type InfoParams, runInfoQuery } from "../query.js";
import { AddressOut, BigIntValue, DecimalString, TimestampMs, UInt } from "../schemas.js";

export const ValidatorSummariesRequest = z.strictObject({
  type: z.literal("validatorSummaries"),
});
export type ValidatorSummariesRequest = z.output<typeof ValidatorSummariesRequest>;

const PeriodStats = z.looseObject({
  uptimeFraction: DecimalString,
  predictedApr: DecimalString,
  nSamples: UInt,
});

export const ValidatorSummary = z.looseObject({
  validator: AddressOut,
  signer: AddressOut,
  name: z.string(),
  description: z.string(),
  nRecentBlocks: UInt,
  /** HYPE × 1e8, always a bigint (it can exceed 2^53). */
  stake: BigIntValue,
  isJailed: z.boolean(),
  /** Unix ms, or null when not jailed. */
  unjailableAfter: TimestampMs.nullable(),
  isActive: z.boolean(),
  /** Fraction: "0.04" is 4 %. */
  commission: DecimalString,
  /** Exactly three `[period, stats]` tuples, in the order day, week, month. */
  stats: z.tuple([
    z.tuple([z.literal("day"), PeriodStats]),
    z.tuple([z.literal("week"), PeriodStats]),
    z.tuple([z.literal("month"), PeriodStats]),
  ]),
});
export type ValidatorSummary = z.output<typeof ValidatorSummary>;

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
