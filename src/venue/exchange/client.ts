// The exchange client: `submit` takes any action of the registry (./actions/index.ts) as data, builds
// the canonical wire action with the action's own module, and hands it to the single send path in
// ./submit.ts, which takes care of the queue, the nonce, the signature, the resends and the outcome.
// One convenience method per action hlbot sends (twapOrder, twapCancel, tokenDelegate, linkStakingUser,
// cDeposit, cWithdraw; approveAgent for tests and the simulator) wraps `submit`.
//
// Live or dry-run is decided when the client is built: a dry-run client has no transport at all, so it
// cannot send by construction, not by a flag checked somewhere. It signs exactly what a live client
// would send, with a nonce peeked from the durable counter (a dry run never moves it).
import { ValidationError } from "../../lib/errors.js";
import { ClockSkewMonitor, type ClockSkewOptions } from "../clockSkew.js";
import type { NetworkName } from "../networks.js";
import { type Clock, type NonceSource, processSignerQueue, type SignerQueue } from "../nonces.js";
import { type Address, normalizeAddress } from "../signing/hex.js";
import type { Signer } from "../signing/signer.js";
import type { ApproveAgentInput } from "./actions/approveAgent.js";
import type { StakingAmountInput } from "./actions/common.js";
import {
  type ActionDataOf,
  type ActionInput,
  actionDef,
  EXCHANGE_ACTIONS,
  type ExchangeActionType,
  isExchangeActionType,
  type L1ActionType,
} from "./actions/index.js";
import type { LinkStakingUserInput } from "./actions/linkStakingUser.js";
import type { TokenDelegateInput } from "./actions/tokenDelegate.js";
import type { TwapCancelParams } from "./actions/twapCancel.js";
import type { TwapOrderParams } from "./actions/twapOrder.js";
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

export type { ApproveAgentInput } from "./actions/approveAgent.js";
export type { StakingAmountInput } from "./actions/common.js";
export type { LinkStakingUserInput } from "./actions/linkStakingUser.js";
export type { TokenDelegateInput } from "./actions/tokenDelegate.js";
export type { TwapCancelParams } from "./actions/twapCancel.js";
export type { TwapOrderParams } from "./actions/twapOrder.js";
export type {
  ExchangeOutcome,
  ExchangeTransport,
  SendAttempt,
  SignedRequest,
  SubmitOptions,
} from "./submit.js";

export type ActionType = ExchangeActionType;
/** What an accepted action returns, by type. */
export type ActionData = { [T in ActionType]: ActionDataOf<T> };

/** One call of action `T` as data: its type, the caller's input, and (L1 only) who acts. */
export type CallOf<T extends ActionType> = { type: T; params: ActionInput<T> } & (T extends L1ActionType
  ? { vaultAddress?: string }
  : unknown);

/** An action as data: what the engine's executor turns an intent into. */
export type ExchangeCall = { [T in ActionType]: CallOf<T> }[ActionType];

/** A call of an L1 action, which may name the sub-account or vault it acts for. */
export type L1Call = { [T in L1ActionType]: CallOf<T> }[L1ActionType];

/** Whether a call is of an L1 action (then it may carry `vaultAddress`). */
export function isL1Call(call: ExchangeCall): call is L1Call {
  return EXCHANGE_ACTIONS[call.type].signing === "l1";
}

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
  /** The venue's time (VenueClock.now): expiresAfter is counted on it when known (SubmitContext). */
  venueNow?: () => number | undefined;
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
      ...(options.venueNow ? { venueNow: options.venueNow } : {}),
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
    return this.submit(
      { type: EXCHANGE_ACTIONS.twapOrder.type, params, vaultAddress: options.vaultAddress },
      options,
    );
  }

  twapCancel(
    params: TwapCancelParams,
    options: L1CallOptions = {},
  ): Promise<ExchangeOutcome<ActionData["twapCancel"]>> {
    return this.submit(
      { type: EXCHANGE_ACTIONS.twapCancel.type, params, vaultAddress: options.vaultAddress },
      options,
    );
  }

  tokenDelegate(params: TokenDelegateInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: EXCHANGE_ACTIONS.tokenDelegate.type, params }, options);
  }

  linkStakingUser(params: LinkStakingUserInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: EXCHANGE_ACTIONS.linkStakingUser.type, params }, options);
  }

  cDeposit(params: StakingAmountInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: EXCHANGE_ACTIONS.cDeposit.type, params }, options);
  }

  cWithdraw(params: StakingAmountInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: EXCHANGE_ACTIONS.cWithdraw.type, params }, options);
  }

  approveAgent(params: ApproveAgentInput, options: SubmitOptions = {}): Promise<ExchangeOutcome<null>> {
    return this.submit({ type: EXCHANGE_ACTIONS.approveAgent.type, params }, options);
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
    if (!isExchangeActionType(request.actionType)) {
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
    return sendSignedRequest(this.ctx, request, parserFor(request.actionType), options);
  }

  private plan<T extends ActionType>(call: CallOf<T>): ActionPlan<ActionDataOf<T>> {
    const def = actionDef(call.type);
    const env = {
      network: this.network,
      signatureChainId: this.signatureChainId,
      twapMaxMinutes: this.twapMaxMinutes,
    };
    const build = (nonce: number) =>
      def.build(call.params, { ...env, nonce }) as unknown as Record<string, unknown>;
    // Built (and so validated) before a nonce is taken. An L1 action does not depend on the nonce: the
    // one built now is the one signed; a user-signed one carries the nonce and is built again in the slot.
    const built = build(1);
    const plan: ActionPlan<ActionDataOf<T>> = {
      actionType: call.type,
      kind: def.signing,
      buildAction: def.signing === "l1" ? () => built : build,
      parse: def.parse,
    };
    if (def.signing === "l1") {
      const vaultAddress = (call as L1Call).vaultAddress ?? this.vaultAddress;
      if (vaultAddress !== undefined) plan.vaultAddress = normalizeAddress(vaultAddress, "vaultAddress");
    }
    return plan;
  }
}

/** The response reader for an action type. */
export function parserFor<T extends ActionType>(actionType: T): (body: unknown) => Answer<ActionDataOf<T>> {
  return actionDef(actionType).parse;
}
