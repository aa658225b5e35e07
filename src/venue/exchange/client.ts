// The exchange client: one method per venue action hlbot sends (twapOrder, twapCancel, tokenDelegate,
// linkStakingUser, cDeposit, cWithdraw; approveAgent for tests and the simulator). Each method builds
// the canonical wire action, and hands it to the single send path in ./submit.ts, which takes care of
// the queue, the nonce, the signature, the resends and the outcome.
//
// Live or dry-run is decided when the client is built: a dry-run client has no transport at all, so it
// cannot send by construction, not by a flag checked somewhere. It signs exactly what a live client
// would send, with a nonce peeked from the durable counter (a dry run never moves it).
import type { Decimal } from "../../lib/decimal.js";
import { ValidationError } from "../../lib/errors.js";
import { stringifyJson } from "../../lib/json.js";
import { ClockSkewMonitor, type ClockSkewOptions } from "../clockSkew.js";
import type { NetworkName } from "../networks.js";
import { type Clock, type NonceSource, processSignerQueue, type SignerQueue } from "../nonces.js";
import { type Address, normalizeAddress } from "../signing/hex.js";
import type { Signer } from "../signing/signer.js";
import { buildApproveAgent } from "./actions/approveAgent.js";
import { buildCDeposit } from "./actions/cDeposit.js";
import { UserSignedResponse } from "./actions/common.js";
import { buildCWithdraw } from "./actions/cWithdraw.js";
import { buildLinkStakingUser } from "./actions/linkStakingUser.js";
import { buildTokenDelegate } from "./actions/tokenDelegate.js";
import { buildTwapCancel, type TwapCancelParams, TwapCancelResponse } from "./actions/twapCancel.js";
import { buildTwapOrder, type TwapOrderParams, TwapOrderResponse } from "./actions/twapOrder.js";
import {
  type ActionPlan,
  type Answer,
  checkPlan,
  DEFAULT_EXPIRES_AFTER_MS,
  DEFAULT_RESEND_POLICY,
  type ExchangeOutcome,
  type ExchangeTransport,
  type ResendPolicy,
  type SignedRequest,
  type SubmitContext,
  type SubmitOptions,
  sendSignedRequest,
  signPlan,
  submitPlan,
} from "./submit.js";

export type {
  ExchangeOutcome,
  ExchangeTransport,
  SendAttempt,
  SignedRequest,
  SubmitOptions,
} from "./submit.js";

/** What an accepted action returns. */
export interface ActionData {
  twapOrder: { twapId: number };
  twapCancel: { status: "success" };
  tokenDelegate: null;
  linkStakingUser: null;
  cDeposit: null;
  cWithdraw: null;
  approveAgent: null;
}
export type ActionType = keyof ActionData;

export interface TokenDelegateInput {
  validator: string;
  /** HYPE, at most 8 decimals. */
  amount: Decimal | string;
  isUndelegate: boolean;
}
export interface StakingAmountInput {
  /** HYPE, at most 8 decimals. */
  amount: Decimal | string;
}
export interface LinkStakingUserInput {
  user: string;
  isFinalize: boolean;
}
export interface ApproveAgentInput {
  agentAddress: string;
  agentName?: string;
}
export type { TwapCancelParams } from "./actions/twapCancel.js";
export type { TwapOrderParams } from "./actions/twapOrder.js";

/** An action as data: what the engine's executor turns an intent into. */
export type ExchangeCall =
  | { type: "twapOrder"; params: TwapOrderParams; vaultAddress?: string }
  | { type: "twapCancel"; params: TwapCancelParams; vaultAddress?: string }
  | { type: "tokenDelegate"; params: TokenDelegateInput }
  | { type: "linkStakingUser"; params: LinkStakingUserInput }
  | { type: "cDeposit"; params: StakingAmountInput }
  | { type: "cWithdraw"; params: StakingAmountInput }
  | { type: "approveAgent"; params: ApproveAgentInput };

export type CallData<C extends ExchangeCall> = ActionData[C["type"]];

/** Options of one L1 call: where a sub-account or vault is the one acting. */
export interface L1CallOptions extends SubmitOptions {
  vaultAddress?: string;
}

interface CommonClientOptions {
  network: NetworkName;
  signer: Signer;
  /** The account acted for (default: the signer's own address). Differs when an API wallet signs. */
  account?: string;
  /**
   * The sub-account or vault acted for (see ./authority.ts): every L1 action carries it as
   * `vaultAddress` (hashed into its signature) unless the call names its own; user-signed actions are
   * refused before signing, since only an account's own key signs those.
   */
  vaultAddress?: string;
  /** The durable per-signer counter (NonceStore) or, in tests, a MemoryNonceSource. */
  nonces: NonceSource;
  /** `signatureChainId` of user-signed actions (default: the network's). */
  signatureChainId?: `0x${string}`;
  /** Time to live of L1 actions, in ms (default 60 000). `null` sends them without expiresAfter. */
  expiresAfterMs?: number | null;
  /** How unknown outcomes are resent (identical body). */
  resend?: Partial<ResendPolicy>;
  /** Per-attempt timeout (default: the transport's). */
  timeoutMs?: number;
  clock?: Clock;
  /** Per-signer queue (default: the one shared by every client of this process). */
  queue?: SignerQueue;
  /** Clock-skew check on the first response (default on, 5 s, warning through `warn`). `false` disables. */
  clockSkew?: ClockSkewMonitor | ClockSkewOptions | false;
  /** Where warnings go (default stderr). */
  warn?: (message: string) => void;
  /** Sleep between resends (default: an abortable setTimeout, so fake timers control it). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Upper bound on TWAP minutes enforced before signing (the venue's maximum is unconfirmed). */
  twapMaxMinutes?: number;
}

export type ExchangeClientOptions = CommonClientOptions &
  ({ mode: "live"; transport: ExchangeTransport } | { mode: "dry-run"; transport?: never });

export class ExchangeClient {
  readonly mode: "live" | "dry-run";
  readonly network: NetworkName;
  readonly signer: Signer;
  readonly account: Address;
  readonly clockSkew: ClockSkewMonitor | undefined;
  private readonly ctx: SubmitContext;
  private readonly signatureChainId: `0x${string}` | undefined;
  private readonly twapMaxMinutes: number | undefined;
  /** The default `vaultAddress` of L1 actions (a sub-account or vault acted for). */
  readonly vaultAddress: Address | undefined;

  constructor(options: ExchangeClientOptions) {
    this.mode = options.mode;
    this.network = options.network;
    this.signer = options.signer;
    this.account = normalizeAddress(options.account ?? options.signer.address, "account");
    this.signatureChainId = options.signatureChainId;
    this.twapMaxMinutes = options.twapMaxMinutes;
    this.vaultAddress =
      options.vaultAddress === undefined ? undefined : normalizeAddress(options.vaultAddress, "vaultAddress");
    const clock = options.clock ?? Date.now;
    if (options.clockSkew instanceof ClockSkewMonitor) this.clockSkew = options.clockSkew;
    else if (options.clockSkew !== false && options.mode === "live") {
      this.clockSkew = new ClockSkewMonitor({ clock, warn: options.warn, ...options.clockSkew });
    }
    const expiresAfterMs =
      options.expiresAfterMs === undefined ? DEFAULT_EXPIRES_AFTER_MS : options.expiresAfterMs;
    if (expiresAfterMs !== null && !(Number.isSafeInteger(expiresAfterMs) && expiresAfterMs > 0)) {
      throw new RangeError(`expiresAfterMs must be a positive integer or null, got ${expiresAfterMs}`);
    }
    this.ctx = {
      signer: options.signer,
      account: this.account,
      ...(this.vaultAddress === undefined ? {} : { vaultAddress: this.vaultAddress }),
      network: options.network,
      nonces: options.nonces,
      queue: options.queue ?? processSignerQueue,
      clock,
      // Only a live client holds a transport; in dry-run there is nothing to send with.
      transport: options.mode === "live" ? options.transport : undefined,
      expiresAfterMs,
      resend: { ...DEFAULT_RESEND_POLICY, ...options.resend },
      timeoutMs: options.timeoutMs,
      skew: this.clockSkew,
      sleep: options.sleep,
    };
  }

  twapOrder(
    params: TwapOrderParams,
    options: L1CallOptions = {},
  ): Promise<ExchangeOutcome<ActionData["twapOrder"]>> {
    return this.submit({ type: "twapOrder", params, vaultAddress: options.vaultAddress }, options);
  }

  twapCancel(
    params: TwapCancelParams,
    options: L1CallOptions = {},
  ): Promise<ExchangeOutcome<ActionData["twapCancel"]>> {
    return this.submit({ type: "twapCancel", params, vaultAddress: options.vaultAddress }, options);
  }

  tokenDelegate(params: TokenDelegateInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: "tokenDelegate", params }, options);
  }

  linkStakingUser(params: LinkStakingUserInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: "linkStakingUser", params }, options);
  }

  cDeposit(params: StakingAmountInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: "cDeposit", params }, options);
  }

  cWithdraw(params: StakingAmountInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: "cWithdraw", params }, options);
  }

  approveAgent(params: ApproveAgentInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: "approveAgent", params }, options);
  }

  /** Builds, signs and (live) sends one action; see ExchangeOutcome for what can come back. */
  async submit<C extends ExchangeCall>(
    call: C,
    options: SubmitOptions = {},
  ): Promise<ExchangeOutcome<CallData<C>>> {
    return submitPlan(this.ctx, this.plan(call), options) as Promise<ExchangeOutcome<CallData<C>>>;
  }

  /**
   * Checks a call exactly as `submit` would before taking a nonce (arguments, and whether this signer
   * may sign it for this account), without signing or any I/O. Throws ValidationError or ConfigError.
   */
  validate(call: ExchangeCall): void {
    checkPlan(this.ctx, this.plan(call));
  }

  /**
   * Signs without sending, reserving a real nonce (in dry-run mode: a peeked one). Send the result
   * with `send`; prefer `submit` with `beforeSend`, which keeps sends in nonce order.
   */
  async sign(call: ExchangeCall, options: { signal?: AbortSignal } = {}): Promise<SignedRequest> {
    return signPlan(this.ctx, this.plan(call), { reserve: this.mode === "live", signal: options.signal });
  }

  /**
   * Sends an already signed request, byte for byte, with the usual resend rules (e.g. a request
   * journaled as pending before a crash, while it has not expired). Never re-signs.
   */
  async send(
    request: SignedRequest,
    options: Omit<SubmitOptions, "beforeSend"> = {},
  ): Promise<ExchangeOutcome<ActionData[ActionType]>> {
    if (!Object.hasOwn(PARSERS, request.actionType)) {
      throw new ValidationError([
        { path: "request.actionType", message: `not an action this client sends: ${request.actionType}` },
      ]);
    }
    if (request.signer !== this.signer.address || request.network !== this.network) {
      throw new ValidationError([
        {
          path: "request",
          message: "was signed by another signer or for another network than this client's",
        },
      ]);
    }
    return sendSignedRequest(this.ctx, request, parserFor(request.actionType as ActionType), options);
  }

  private plan(call: ExchangeCall): ActionPlan<unknown> {
    const network = this.network;
    const signatureChainId = this.signatureChainId;
    switch (call.type) {
      case "twapOrder": {
        const params: TwapOrderParams = { maxMinutes: this.twapMaxMinutes, ...call.params };
        // L1 actions do not depend on the nonce: build (and validate) before taking one.
        const action = buildTwapOrder(params);
        return l1Plan("twapOrder", () => action, call.vaultAddress ?? this.vaultAddress);
      }
      case "twapCancel": {
        const action = buildTwapCancel(call.params);
        return l1Plan("twapCancel", () => action, call.vaultAddress ?? this.vaultAddress);
      }
      case "tokenDelegate": {
        const build = (nonce: number) =>
          buildTokenDelegate({ ...call.params, network, signatureChainId, nonce });
        build(1); // validate the input before a nonce is taken
        return userPlan("tokenDelegate", build);
      }
      case "linkStakingUser": {
        const build = (nonce: number) =>
          buildLinkStakingUser({ ...call.params, network, signatureChainId, nonce });
        build(1);
        return userPlan("linkStakingUser", build);
      }
      case "cDeposit": {
        const build = (nonce: number) => buildCDeposit({ ...call.params, network, signatureChainId, nonce });
        build(1);
        return userPlan("cDeposit", build);
      }
      case "cWithdraw": {
        const build = (nonce: number) => buildCWithdraw({ ...call.params, network, signatureChainId, nonce });
        build(1);
        return userPlan("cWithdraw", build);
      }
      case "approveAgent": {
        const build = (nonce: number) =>
          buildApproveAgent({ ...call.params, network, signatureChainId, nonce });
        build(1);
        return userPlan("approveAgent", build);
      }
    }
  }
}

function l1Plan<T extends "twapOrder" | "twapCancel">(
  actionType: T,
  buildAction: () => object,
  vaultAddress: string | undefined,
): ActionPlan<ActionData[T]> {
  const plan: ActionPlan<ActionData[T]> = {
    actionType,
    kind: "l1",
    buildAction: () => buildAction() as Record<string, unknown>,
    parse: parserFor(actionType),
  };
  if (vaultAddress !== undefined) plan.vaultAddress = normalizeAddress(vaultAddress, "vaultAddress");
  return plan;
}

function userPlan(actionType: ActionType, buildAction: (nonce: number) => object): ActionPlan<null> {
  return {
    actionType,
    kind: "user",
    buildAction: (nonce) => buildAction(nonce) as Record<string, unknown>,
    parse: parseUserSigned,
  };
}

const PARSERS: { [T in ActionType]: (body: unknown) => Answer<ActionData[T]> } = {
  twapOrder: (body) => parseTwapOrder(body),
  twapCancel: (body) => parseTwapCancel(body),
  tokenDelegate: (body) => parseUserSigned(body),
  linkStakingUser: (body) => parseUserSigned(body),
  cDeposit: (body) => parseUserSigned(body),
  cWithdraw: (body) => parseUserSigned(body),
  approveAgent: (body) => parseUserSigned(body),
};

/** The response reader for an action type. */
export function parserFor<T extends ActionType>(actionType: T): (body: unknown) => Answer<ActionData[T]> {
  return PARSERS[actionType];
}

/** `{status:"err", response}` in any form: the venue refused before execution. */
function errEnvelope(body: unknown): Answer<never> | undefined {
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

function malformed(
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

function parseUserSigned(body: unknown): Answer<null> {
  // The venue answers a user-signed success with {"status":"ok","response":{"type":"default"}}. An empty
  // 200 body is not that answer (a proxy, a cut connection): whether the action landed is unknown.
  if (body === undefined) return malformed(body, "empty body");
  const err = errEnvelope(body);
  if (err) return err;
  const parsed = UserSignedResponse.safeParse(body);
  if (parsed.success) return { kind: "accepted", data: null };
  return malformed(body, parsed.error.issues);
}

function parseTwapOrder(body: unknown): Answer<ActionData["twapOrder"]> {
  if (body === undefined) return malformed(body, "empty body");
  const err = errEnvelope(body);
  if (err) return err;
  const parsed = TwapOrderResponse.safeParse(body);
  if (!parsed.success) return malformed(body, parsed.error.issues);
  if (parsed.data.status !== "ok") return { kind: "rejected", reason: parsed.data.response };
  // Validated by the schema as one of the two variants; zod's loose objects just type them widely.
  const status = parsed.data.response.data.status as { running: { twapId: number } } | { error: string };
  if ("running" in status) return { kind: "accepted", data: { twapId: status.running.twapId } };
  return { kind: "rejected", reason: status.error };
}

function parseTwapCancel(body: unknown): Answer<ActionData["twapCancel"]> {
  if (body === undefined) return malformed(body, "empty body");
  const err = errEnvelope(body);
  if (err) return err;
  const parsed = TwapCancelResponse.safeParse(body);
  if (!parsed.success) return malformed(body, parsed.error.issues);
  if (parsed.data.status !== "ok") return { kind: "rejected", reason: parsed.data.response };
  const status = parsed.data.response.data.status;
  if (status === "success") return { kind: "accepted", data: { status: "success" } };
  return { kind: "rejected", reason: status.error };
}
