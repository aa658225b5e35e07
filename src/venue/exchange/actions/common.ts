// Pieces shared by the /exchange action modules: what an action module exports (ActionDef), the
// response envelopes every action can get and their readers, the header of user-signed actions, the
// wire schemas of shared fields, and the checks that keep a builder from ever producing a
// non-canonical action (a wrong byte is not refused by the venue: it recovers a stranger).
import { z } from "zod";
import type { Decimal } from "../../../lib/decimal.js";
import { parseDecimal, toWei } from "../../../lib/decimal.js";
import { ValidationError, type ValidationIssue } from "../../../lib/errors.js";
import { stringifyJson } from "../../../lib/json.js";
import { HYPE_WEI_DECIMALS } from "../../constants.js";
import { NETWORKS, type NetworkName } from "../../networks.js";
import { type Address, describe, isAddress } from "../../signing/hex.js";
import { parseSignatureChainId, type UserSignedType } from "../../signing/userSignedType.js";
import type { Answer } from "../submit.js";

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

/** What building a wire action may take besides the caller's input. */
export interface BuildEnv {
  network: NetworkName;
  /** The nonce a user-signed action carries inside it (L1 builders ignore it: theirs is outside). */
  nonce: number;
  /** `signatureChainId` of user-signed actions (default: the network's). */
  signatureChainId?: `0x${string}`;
  /** Upper bound on TWAP minutes enforced before signing (the client's twapMaxMinutes). */
  twapMaxMinutes?: number;
}

interface ActionDefBase<
  T extends string,
  Input,
  Action extends { type: string },
  Data,
  Response extends z.ZodType,
> {
  /** The action's `type` on the wire. */
  type: T;
  /** The canonical wire action for the caller's input; throws ValidationError on bad input. */
  build(input: Input, env: BuildEnv): Action;
  /** The wire action's schema: what a journaled request's action is read back through. */
  wire: z.ZodType<Action>;
  /** The schema of the venue's answer (success or the common error envelope). */
  response: Response;
  /** Reads a 2xx body (undefined when empty) as accepted, rejected or malformed. */
  parse(body: unknown): Answer<Data>;
}

/** An L1 action: signed with the phantom-agent recipe (an API wallet may sign it; it may act for a vault). */
export interface L1ActionDef<
  T extends string,
  Input,
  Action extends { type: string },
  Data,
  Response extends z.ZodType,
> extends ActionDefBase<T, Input, Action, Data, Response> {
  signing: "l1";
}

/** A user-signed action: EIP-712 of its own fields; only the account's own key may sign it. */
export interface UserSignedActionDef<
  T extends string,
  Input,
  Action extends { type: string },
  Data,
  Response extends z.ZodType,
> extends ActionDefBase<T, Input, Action, Data, Response> {
  signing: "user";
  /** Its EIP-712 type in the `HyperliquidSignTransaction` domain. */
  eip712: UserSignedType;
  /** Signed values of fields the wire JSON may omit. */
  signedDefaults?: Readonly<Record<string, unknown>>;
}

/** Everything hlbot knows about one /exchange action: one per module of this folder, gathered in ./index.ts. */
export type ActionDef<
  T extends string = string,
  Input = never,
  Action extends { type: string } = { type: T },
  Data = unknown,
  Response extends z.ZodType = z.ZodType,
> = L1ActionDef<T, Input, Action, Data, Response> | UserSignedActionDef<T, Input, Action, Data, Response>;

/** Declares the definition of an L1 action module, keeping its precise types. */
export function defineL1Action<
  const T extends string,
  Input,
  Action extends { type: T },
  Data,
  Response extends z.ZodType,
>(def: L1ActionDef<T, Input, Action, Data, Response>): L1ActionDef<T, Input, Action, Data, Response> {
  return Object.freeze(def);
}

/** Declares the definition of a user-signed action module, keeping its precise types. */
export function defineUserSignedAction<
  const T extends string,
  Input,
  Action extends { type: T },
  Data,
  Response extends z.ZodType,
>(
  def: UserSignedActionDef<T, Input, Action, Data, Response>,
): UserSignedActionDef<T, Input, Action, Data, Response> {
  return Object.freeze(def);
}

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

/** HYPE as integer wei on the wire: a number, or a bigint beyond 2^53 − 1 (as parseJson reads it back). */
export const WeiWire = z.union([z.number().int().nonnegative(), z.bigint().nonnegative()]);

/** An address as the builders write it (they lower-case it; any case is read back). */
export const AddressWire = z.custom<Address>(isAddress, { message: "expected an address" });

export const NonceWire = z.number().int().nonnegative();

/** The header fields of every user-signed action. */
export const userSignedHeaderWire = {
  signatureChainId: z.custom<`0x${string}`>((v) => typeof v === "string" && /^0x[0-9a-fA-F]{1,16}$/.test(v), {
    message: "expected a hex chain id",
  }),
  hyperliquidChain: z.enum(["Mainnet", "Testnet"]),
};

/** The wire schema of cDeposit or cWithdraw. */
export function stakingTransferWire<T extends "cDeposit" | "cWithdraw">(
  type: T,
): z.ZodType<StakingTransferAction<T>> {
  return z.object({ type: z.literal(type), ...userSignedHeaderWire, wei: WeiWire, nonce: NonceWire });
}

/** What a caller gives for cDeposit or cWithdraw. */
export interface StakingAmountInput {
  /** HYPE, at most 8 decimals. */
  amount: Decimal | string;
}

// ---- answers -------------------------------------------------------------------------------------

/** `{status:"err", response}` in any form: the venue refused before execution. */
export function errEnvelope(body: unknown): Answer<never> | undefined {
  if (body === null || typeof body !== "object" || (body as { status?: unknown }).status !== "err")
    return undefined;
  const response = (body as { response?: unknown }).response;
  return {
    kind: "rejected",
    reason: typeof response === "string" ? response : stringifyJson(response ?? null),
  };
}

function saidOk(body: unknown): boolean {
  return body !== null && typeof body === "object" && (body as { status?: unknown }).status === "ok";
}

/** An answer that is not the shape the action's schema expects. */
export function malformed(
  body: unknown,
  issues: { path: PropertyKey[]; message: string }[] | string,
): Answer<never> {
  const detail =
    typeof issues === "string"
      ? issues
      : issues
          .slice(0, 3)
          .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
          .join("; ");
  return { kind: "malformed", venueSaidOk: saidOk(body), detail: `unexpected response body: ${detail}` };
}

/** The reader of every user-signed action's answer. */
export function parseUserSigned(body: unknown): Answer<null> {
  // The venue answers a user-signed success with {"status":"ok","response":{"type":"default"}}. An empty
  // 200 body is not that answer (a proxy, a cut connection): whether the action landed is unknown.
  if (body === undefined) return malformed(body, "empty body");
  const err = errEnvelope(body);
  if (err) return err;
  const parsed = UserSignedResponse.safeParse(body);
  if (parsed.success) return { kind: "accepted", data: null };
  return malformed(body, parsed.error.issues);
}
