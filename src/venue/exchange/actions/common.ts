// Pieces shared by the wire builders of /exchange actions: the response envelopes every action can
// get, the header of user-signed actions, and the checks that keep a builder from ever
// producing a non-canonical action (a wrong byte is not refused by the venue: it recovers a stranger).
import { z } from "zod";
import type { Decimal } from "../../../lib/decimal.js";
import { parseDecimal, toWei } from "../../../lib/decimal.js";
import { ValidationError, type ValidationIssue } from "../../../lib/errors.js";
import { HYPE_WEI_DECIMALS } from "../../constants.js";
import { NETWORKS, type NetworkName } from "../../networks.js";
import { describe } from "../../signing/hex.js";
import { parseSignatureChainId } from "../../signing/userSigned.js";

/** HYPE amounts are sent as integer wei: amount × 10^8. */
export { HYPE_WEI_DECIMALS };

/** `{"status":"err","response":"<message>"}`: refused before execution (signature, nonce, user-signed failure). */
export const ErrResponse = z.looseObject({ status: z.literal("err"), response: z.string() });
export type ErrResponse = z.infer<typeof ErrResponse>;

/** `{"status":"ok","response":{"type":"default"}}`: success of every user-signed action. */
export const DefaultOkResponse = z.looseObject({
  status: z.literal("ok"),
  response: z.looseObject({ type: z.literal("default") }),
});
export type DefaultOkResponse = z.infer<typeof DefaultOkResponse>;

/** An action's success schema or the common error envelope. */
export function ExchangeResponse<T extends z.ZodType>(ok: T) {
  return z.union([ok, ErrResponse]);
}
export type ExchangeResponse<T> = T | ErrResponse;

/** Every user-signed success is `DefaultOkResponse`. */
export const UserSignedResponse = ExchangeResponse(DefaultOkResponse);
export type UserSignedResponse = z.infer<typeof UserSignedResponse>;

export type SigningKind = "l1" | "user";

/** Collects every problem with a builder's input so one error lists them all. */
export class IssueList {
  readonly issues: ValidationIssue[] = [];
  add(path: string, message: string): void {
    this.issues.push({ path, message });
  }
  /** Runs `fn`; a ValidationError it throws is recorded instead of propagated. */
  check<T>(fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      this.issues.push(...err.issues);
      return undefined;
    }
  }
  throwIfAny(): void {
    if (this.issues.length > 0) throw new ValidationError(this.issues);
  }
}

/** An integer in [min, 2^53 − 1]. */
export function checkInt(issues: IssueList, value: unknown, field: string, min: number): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    issues.add(field, `expected an integer >= ${min}, got ${describe(value)}`);
  }
}

export function checkBool(issues: IssueList, value: unknown, field: string): void {
  if (typeof value !== "boolean") issues.add(field, `expected true or false, got ${describe(value)}`);
}

export interface UserSignedHeader {
  signatureChainId: `0x${string}`;
  hyperliquidChain: "Mainnet" | "Testnet";
}

/** `signatureChainId` (default: the network's) and `hyperliquidChain` of a user-signed action. */
export function userSignedHeader(
  issues: IssueList,
  network: NetworkName,
  signatureChainId: string | undefined,
): UserSignedHeader {
  const profile = Object.hasOwn(NETWORKS, network) ? NETWORKS[network] : undefined;
  if (!profile) issues.add("network", `expected "mainnet" or "testnet", got ${describe(network)}`);
  const chainId = signatureChainId ?? profile?.signatureChainId ?? "0x1";
  issues.check(() => parseSignatureChainId(chainId));
  return {
    signatureChainId: chainId.toLowerCase() as `0x${string}`,
    hyperliquidChain: profile?.hyperliquidChain ?? "Testnet",
  };
}

/**
 * HYPE amount → wei as a JSON integer: a number while it is exact as one, a bigint beyond 2^53 − 1
 * (serialise with stringifyJson). Exact or a ValidationError; at least 1 wei.
 */
export function weiOf(issues: IssueList, amount: Decimal | string, field = "amount"): number | bigint {
  const wei = issues.check(() => toWei(parseDecimal(amount, field), HYPE_WEI_DECIMALS, field));
  if (wei === undefined) return 0;
  if (wei < 1n) {
    issues.add(field, "must be at least 0.00000001 (1 wei)");
    return 0;
  }
  return wei <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(wei) : wei;
}

/** The shape shared by cDeposit and cWithdraw: a HYPE amount moved between spot and staking. */
export interface StakingTransferAction<T extends "cDeposit" | "cWithdraw"> extends UserSignedHeader {
  type: T;
  /** HYPE × 10^8; a bigint only beyond 2^53 − 1. */
  wei: number | bigint;
  nonce: number;
}

export interface StakingTransferParams {
  network: NetworkName;
  /** HYPE amount, e.g. "12.5"; at most 8 decimals. */
  amount: Decimal | string;
  nonce: number;
  signatureChainId?: `0x${string}`;
}

/** Builds cDeposit or cWithdraw (identical fields, in the venue's key order). */
export function buildStakingTransfer<T extends "cDeposit" | "cWithdraw">(
  type: T,
  p: StakingTransferParams,
): StakingTransferAction<T> {
  const issues = new IssueList();
  const header = userSignedHeader(issues, p.network, p.signatureChainId);
  const wei = weiOf(issues, p.amount);
  checkInt(issues, p.nonce, "nonce", 1);
  issues.throwIfAny();
  return {
    type,
    signatureChainId: header.signatureChainId,
    hyperliquidChain: header.hyperliquidChain,
    wei,
    nonce: p.nonce,
  };
}
