// The one send path of every exchange action: per-signer queue slot → nonce → action → signature →
// `beforeSend` hook → POST → (resend the identical body while the outcome is unknown) → outcome.
// Nothing money-moving bypasses it.
//
// Outcomes, and why:
// - accepted: the venue answered `ok`. An empty 200 body is no answer: it is treated like any unreadable
//   body (resent identically; unknown if that settles nothing), never as accepted.
// - rejected: the venue refused it (`{status:"err"}`, a twapOrder/twapCancel `{error}` status, HTTP 422,
//   another 4xx), or it provably never reached the venue (only 429s or refused connections). Never
//   retried: the same body would be refused again, and only the caller may decide to try something new.
// - unknown: the venue may have applied it and we cannot tell (timeout, reset, 5xx, a 200 we cannot
//   parse). Before giving up we resend the IDENTICAL serialized body (same nonce, same signature) a few
//   times: that cannot act twice, because the venue refuses a nonce it has already seen. A "duplicate
//   nonce" answer to a resend therefore means an earlier copy landed (`probablyLanded`). We never sign
//   the action again with a new nonce: that could execute it twice. The caller reconciles.
// - dry-run: signed exactly as it would be sent, with no transport to send it.
//
// A 429 is resent too: the venue refuses rate-limited requests before looking at them, so the identical
// body is still unused and resending it (after a longer pause) is safe; if an earlier copy did land in
// between, the nonce check answers "duplicate nonce" and we report it as probably landed.
import {
  ConfigError,
  HlbotError,
  HttpStatusError,
  InternalError,
  NetworkError,
  RateLimitError,
  ServerError,
  UnprocessableError,
  ValidationError,
} from "../../lib/errors.js";
import { stringifyJson } from "../../lib/json.js";
import type { ClockSkewMonitor } from "../clockSkew.js";
import type { NetworkName } from "../networks.js";
import type { Clock, NonceSource, SignerQueue } from "../nonces.js";
import type { Address } from "../signing/hex.js";
import { signAction } from "../signing/index.js";
import type { Signature, Signer } from "../signing/signer.js";
import { assertSignerIsAccount, signingKindOf } from "../signing/userSigned.js";
import { sleep as abortableSleep, abortedError, backoffDelayMs } from "../transport/retry.js";

/** What the client needs from a transport: one POST of a serialized body, never retried by it. */
export interface ExchangeTransport {
  exchange(
    bodyText: string,
    opts?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<{ status: number; body: unknown }>;
  /** The `Date` header of the latest response, for the clock-skew check. */
  lastServerDate?(): Date | undefined;
  /** The latest answer's `Date` header, undefined when it carried none (HttpTransport.latestAnswerDate). */
  latestAnswerDate?(): Date | undefined;
}

/** The JSON body POSTed to /exchange. Unset optional keys are omitted, not null. */
export interface ExchangeRequestBody {
  action: Record<string, unknown>;
  nonce: number;
  signature: Signature;
  vaultAddress?: Address;
  expiresAfter?: number;
}

/** A signed request, exactly as it is (or would be) sent. */
export interface SignedRequest {
  actionType: string;
  /** Signing recipe: `l1` (phantom agent; agents may sign) or `user` (the account's own key only). */
  kind: "l1" | "user";
  network: NetworkName;
  /** Address of the key that signed. */
  signer: Address;
  /** The account acted for (the master address; the vault when `vaultAddress` is set acts for that). */
  account: Address;
  nonce: number;
  expiresAfter?: number;
  vaultAddress?: Address;
  body: ExchangeRequestBody;
  /** `body` serialized (bigint `wei` as exact digits): these bytes, and only these, are ever POSTed. */
  bodyText: string;
}

export type AttemptResult =
  | "accepted"
  | "rejected"
  | "duplicate-nonce"
  | "unprocessable"
  | "http-status"
  | "rate-limited"
  | "server-error"
  | "timeout"
  | "reset"
  | "connection"
  | "aborted"
  | "bad-response";

/** One POST of the body (the first send or a resend). */
export interface SendAttempt {
  attempt: number;
  startedAt: number;
  endedAt: number;
  result: AttemptResult;
  /** HTTP status when there was a response. */
  httpStatus?: number;
  /** The venue's refusal text, the error message, or what was wrong with the body. */
  detail?: string;
}

export type RejectionCode =
  /** `{status:"err"}` or an action-level `{error}` status. */
  | "venue"
  /** HTTP 422: the venue could not deserialize the body. */
  | "unprocessable"
  /** Another non-2xx status that means the request was not processed (404, 405, …). */
  | "http"
  /** Every attempt was refused with 429 (or could not connect): nothing was processed. */
  | "rate-limited"
  | "unreachable"
  /** Never sent: the caller aborted, or the request expired before its first send. */
  | "not-sent";

/**
 * Rejections of a request the venue never processed: every attempt rate limited or unreachable, or a
 * status that says the request was not looked at (a proxy's 403, a 404, a 408). Nothing happened, so
 * the same intent may be sent again. A 422 is not one of them: the venue read these bytes and could not
 * deserialize them, and sending them again cannot help. Per journaled attempt: refusals.ts
 * NEVER_PROCESSED_ATTEMPTS.
 */
export const NEVER_PROCESSED: ReadonlySet<RejectionCode> = new Set<RejectionCode>([
  "rate-limited",
  "unreachable",
  "http",
]);

interface OutcomeBase {
  request: SignedRequest;
  attempts: SendAttempt[];
}
export interface AcceptedOutcome<D> extends OutcomeBase {
  status: "accepted";
  data: D;
  /** The parsed response body (undefined for an empty body). */
  response: unknown;
}
export interface RejectedOutcome extends OutcomeBase {
  status: "rejected";
  code: RejectionCode;
  /** The venue's own words when it gave any. */
  reason: string;
  response?: unknown;
}
export interface UnknownOutcome extends OutcomeBase {
  status: "unknown";
  /** True when the venue said so indirectly: a resend answered "duplicate nonce", or it answered `ok` in a shape we cannot read. */
  probablyLanded: boolean;
  /** The last thing that went wrong (a VenueError, or the venue's text after an ambiguous attempt). */
  cause: unknown;
  reason: string;
}
export interface DryRunOutcome {
  status: "dry-run";
  request: SignedRequest;
}
export type ExchangeOutcome<D> = AcceptedOutcome<D> | RejectedOutcome | UnknownOutcome | DryRunOutcome;

/** What a parsed 200 body means. `malformed` with `venueSaidOk` = the envelope said ok but the rest is unreadable. */
export type Answer<D> =
  | { kind: "accepted"; data: D }
  | { kind: "rejected"; reason: string }
  | { kind: "malformed"; venueSaidOk: boolean; detail: string };

/** One action, ready to go through the send path. */
export interface ActionPlan<D> {
  actionType: string;
  kind: "l1" | "user";
  /** The wire action for a nonce (user-signed actions carry the nonce inside). */
  buildAction(nonce: number): Record<string, unknown>;
  vaultAddress?: Address;
  /** Reads a 2xx body (undefined when empty). */
  parse(body: unknown): Answer<D>;
}

export interface ResendPolicy {
  /** Sends in total, the first included (default 4). */
  maxAttempts: number;
  /** Pause before the first resend, doubled each time (default 500 ms). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Pause after a 429 when the venue gives no Retry-After (default 2 000 ms). */
  rateLimitDelayMs: number;
  /** Without expiresAfter (user-signed actions), no resend starts later than this after the first send (default 60 s). */
  windowMs: number;
  /** No send starts when expiresAfter is closer than this (default 1 000 ms): it would arrive expired. */
  expiryMarginMs: number;
}

export const DEFAULT_RESEND_POLICY: Readonly<ResendPolicy> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  rateLimitDelayMs: 2_000,
  windowMs: 60_000,
  expiryMarginMs: 1_000,
});

export const DEFAULT_EXPIRES_AFTER_MS = 60_000;

export interface SubmitContext {
  signer: Signer;
  account: Address;
  /** Set when the account is a sub-account or vault acted for with `vaultAddress` (./authority.ts). */
  vaultAddress?: Address;
  network: NetworkName;
  nonces: NonceSource;
  queue: SignerQueue;
  clock: Clock;
  /** Absent in dry-run: then nothing can be sent. */
  transport: ExchangeTransport | undefined;
  /** Time to live of L1 actions: expiresAfter = now + this. `null` sends L1 actions without expiry. */
  expiresAfterMs: number | null;
  /**
   * The venue's time as its answers' Date headers tell (VenueClock.now), undefined before any answer.
   * The venue judges expiresAfter by its own clock, so a TTL counted from a local clock minutes slow
   * is already past when it arrives ("Action already expired"): every order and every guard's cancel
   * refused. expiresAfter, and whether a send may still start, are counted on this clock when known.
   */
  venueNow?: () => number | undefined;
  resend: ResendPolicy;
  /** Per-attempt timeout passed to the transport (default: the transport's own). */
  timeoutMs?: number;
  skew?: ClockSkewMonitor;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface SubmitOptions {
  signal?: AbortSignal;
  /**
   * Awaited inside the signer's queue slot after signing and before the first send, e.g. to journal
   * the request as pending. If it throws, nothing is sent and the error propagates.
   */
  beforeSend?: (request: SignedRequest) => void | Promise<void>;
  /** Called after every send attempt (the first and each resend). */
  onAttempt?: (attempt: SendAttempt, request: SignedRequest) => void;
  /**
   * Asked before each resend: a reason (the kill switch engaged since the first send) stops resending.
   * The outcome is then unknown when an earlier copy may have landed, else not sent.
   */
  mayResend?: () => string | undefined;
}

/**
 * Signs `plan` in the signer's queue slot and returns the request without sending it. `reserve`
 * (default true) takes a nonce from the durable counter; false only peeks (dry-run).
 */
export async function signPlan<D>(
  ctx: SubmitContext,
  plan: ActionPlan<D>,
  options: { reserve?: boolean; signal?: AbortSignal } = {},
): Promise<SignedRequest> {
  checkPlan(ctx, plan);
  return ctx.queue.run(ctx.signer.address, () => {
    if (options.signal?.aborted) throw abortedError(options.signal);
    return signInSlot(ctx, plan, options.reserve ?? true);
  });
}

/** The whole send path for one action. In dry-run (no transport) it signs with a peeked nonce and returns. */
export async function submitPlan<D>(
  ctx: SubmitContext,
  plan: ActionPlan<D>,
  options: SubmitOptions = {},
): Promise<ExchangeOutcome<D>> {
  checkPlan(ctx, plan);
  return ctx.queue.run(ctx.signer.address, async () => {
    if (options.signal?.aborted) throw abortedError(options.signal);
    const transport = ctx.transport;
    if (transport === undefined) {
      // Dry-run: peek, so a dry run never moves the durable counter. The nonce printed is one a live
      // send could use right now; it is not reserved.
      return { status: "dry-run", request: await signInSlot(ctx, plan, false) };
    }
    const request = await signInSlot(ctx, plan, true);
    await options.beforeSend?.(request);
    return sendInSlot(ctx, transport, request, plan.parse, options, false);
  });
}

/**
 * Sends an already signed request (for example one journaled as pending by a process that then died)
 * with the same resend rules, in the signer's queue. The body is sent byte for byte as signed.
 * An earlier copy may have been sent and landed, so this send's first answer is read as a resend's: a
 * refusal ("duplicate nonce": the earlier copy landed; any other: nothing certain about it) or a send
 * that expired before it left is `unknown`, never `rejected` (a caller trusting `rejected` would place
 * the order again).
 */
export async function sendSignedRequest<D>(
  ctx: SubmitContext,
  request: SignedRequest,
  parse: (body: unknown) => Answer<D>,
  options: Omit<SubmitOptions, "beforeSend"> = {},
): Promise<ExchangeOutcome<D>> {
  const transport = ctx.transport;
  return ctx.queue.run(request.signer, () => {
    if (transport === undefined) return { status: "dry-run", request } as const;
    return sendInSlot(ctx, transport, request, parse, options, true);
  });
}

/** Why a user-signed action cannot act for a sub-account or vault (checkPlan, and plan --unsigned). */
export function userSignedForVault(actionType: string, vaultAddress: string, signer?: string): string {
  return (
    `${actionType} cannot be done for the sub-account or vault ${vaultAddress}: it is user-signed, ` +
    `so it always acts for the key that signs it${signer === undefined ? "" : ` (${signer})`}, and carries no vaultAddress`
  );
}

/** The checks made before a nonce is taken: recipe, and who may sign it. Throws; never does I/O. */
export function checkPlan(
  ctx: Pick<SubmitContext, "signer" | "account" | "vaultAddress">,
  plan: ActionPlan<unknown>,
): void {
  if (signingKindOf(plan.actionType) !== plan.kind) {
    throw new InternalError(`${plan.actionType} is not signed with the ${plan.kind} recipe`);
  }
  // A user-signed action has no vaultAddress: it always acts for the key that signed it. A sub-account
  // has no key of its own, and a vault's staking is not the leader's to sign with its own key.
  if (plan.kind === "user" && ctx.vaultAddress !== undefined) {
    throw new ConfigError(userSignedForVault(plan.actionType, ctx.vaultAddress, ctx.signer.address), {
      keyPath: "account",
    });
  }
  // Before anything is signed: an agent's signature on a user-signed action recovers to the agent, and
  // the venue would answer "Must deposit before performing actions".
  if (plan.kind === "user") assertSignerIsAccount(ctx.signer.address, ctx.account, plan.actionType);
  if (plan.kind === "user" && plan.vaultAddress !== undefined) {
    throw new ValidationError([
      { path: "vaultAddress", message: `${plan.actionType} is user-signed and cannot act for a vault` },
    ]);
  }
}

async function signInSlot<D>(
  ctx: SubmitContext,
  plan: ActionPlan<D>,
  reserve: boolean,
): Promise<SignedRequest> {
  const signerAddress = ctx.signer.address;
  const nonce = reserve ? ctx.nonces.next(signerAddress) : ctx.nonces.peek(signerAddress);
  const action = plan.buildAction(nonce);
  if (action.type !== plan.actionType) {
    throw new InternalError(`built action type ${String(action.type)} is not ${plan.actionType}`);
  }
  // The TTL starts when the nonce is taken, inside the slot: time spent queued does not eat into it.
  const expiresAfter =
    plan.kind === "l1" && ctx.expiresAfterMs !== null
      ? Math.trunc(expiryNow(ctx)) + ctx.expiresAfterMs
      : undefined;
  // signAction picks the recipe from the action's type and refuses vault/expiry on user-signed ones
  // and an inner nonce that differs from the request's.
  const signature = await signAction(ctx.signer, {
    action,
    nonce,
    network: ctx.network,
    vaultAddress: plan.vaultAddress ?? null,
    expiresAfter: expiresAfter ?? null,
  });
  const body: ExchangeRequestBody = { action, nonce, signature };
  if (plan.vaultAddress !== undefined) body.vaultAddress = plan.vaultAddress;
  if (expiresAfter !== undefined) body.expiresAfter = expiresAfter;
  const request: SignedRequest = {
    actionType: plan.actionType,
    kind: plan.kind,
    network: ctx.network,
    signer: signerAddress,
    account: ctx.account,
    nonce,
    body,
    bodyText: stringifyJson(body),
  };
  if (expiresAfter !== undefined) request.expiresAfter = expiresAfter;
  if (plan.vaultAddress !== undefined) request.vaultAddress = plan.vaultAddress;
  return request;
}

/** Result of one attempt, in terms of what to do next. */
type Step<D> =
  | { next: "accepted"; data: D; response: unknown }
  | { next: "answered-err"; reason: string; duplicate: boolean; response: unknown }
  | { next: "refused"; code: "unprocessable" | "http"; reason: string; cause: unknown }
  | { next: "ok-unreadable"; reason: string; response: unknown }
  /** Worth resending. `mayHaveLanded`: this attempt may have been processed. */
  | {
      next: "retry";
      mayHaveLanded: boolean;
      cause: unknown;
      reason: string;
      waitMs?: number;
      rateLimited?: boolean;
    }
  | { next: "aborted"; cause: unknown; reason: string };

async function sendInSlot<D>(
  ctx: SubmitContext,
  transport: ExchangeTransport,
  request: SignedRequest,
  parse: (body: unknown) => Answer<D>,
  options: Omit<SubmitOptions, "beforeSend">,
  /** An earlier copy of these bytes may have been sent (sendSignedRequest). */
  sentBefore: boolean,
): Promise<ExchangeOutcome<D>> {
  const policy = ctx.resend;
  const sleep = ctx.sleep ?? abortableSleep;
  const attempts: SendAttempt[] = [];
  const { signal } = options;
  // True once any attempt may have been processed by the venue: from then on only `ok` is conclusive.
  let ambiguous = sentBefore;
  let last: Extract<Step<D>, { next: "retry" }> | undefined;
  /** The first attempt that may have been processed: what made the outcome unknown. */
  let madeAmbiguous: Extract<Step<D>, { next: "retry" }> | undefined;
  const firstSendAt = ctx.clock();

  const unknown = (probablyLanded: boolean, cause: unknown, reason: string): UnknownOutcome => ({
    status: "unknown",
    probablyLanded,
    cause,
    reason,
    request,
    attempts,
  });
  const notSent = (reason: string): RejectedOutcome | UnknownOutcome =>
    sentBefore
      ? unknown(false, reason, `${reason}; an earlier copy may have landed`)
      : { status: "rejected", code: "not-sent", reason, request, attempts };

  for (let attempt = 1; attempt <= Math.max(1, policy.maxAttempts); attempt++) {
    if (attempt > 1) {
      // The reads' backoff formula, without jitter: resends are few and their timing is tested.
      const backoff = backoffDelayMs({ ...policy, jitter: 0 }, attempt - 1);
      // The server's Retry-After when it gave one; after a bare 429 at least rateLimitDelayMs.
      const wait = last?.waitMs ?? (last?.rateLimited ? policy.rateLimitDelayMs : 0);
      const delay = Math.max(backoff, wait);
      if (!mayStartSend(request, policy, ctx, delay, firstSendAt)) break;
      try {
        await sleep(delay, signal);
      } catch (err) {
        return unknown(false, err, "aborted by the caller while waiting to resend");
      }
      // A stop since the first send: no new copy goes out (a risk trial: an order placed 5.7 s after
      // `hlbot stop`, by the fourth copy of a request the venue had answered 500 three times).
      const stop = options.mayResend?.();
      if (stop !== undefined) {
        if (ambiguous)
          return unknown(
            false,
            stop,
            `not resent: ${stop}; an earlier copy may have landed (${(madeAmbiguous ?? last)?.reason})`,
          );
        return { status: "rejected", code: "not-sent", reason: `not resent: ${stop}`, request, attempts };
      }
    } else {
      if (signal?.aborted) return notSent("aborted by the caller before the first send");
      if (!mayStartSend(request, policy, ctx, 0, firstSendAt)) {
        return notSent("the request expired before it could be sent");
      }
    }

    const startedAt = ctx.clock();
    let step: Step<D>;
    let httpStatus: number | undefined;
    try {
      const response = await transport.exchange(request.bodyText, { signal, timeoutMs: ctx.timeoutMs });
      httpStatus = response.status;
      step = interpret(parse(response.body), response.body);
    } catch (err) {
      httpStatus = err instanceof HlbotError ? (err as { status?: number }).status : undefined;
      step = classifyError(err);
    }
    // This answer's own Date: an earlier answer's, read now, would look like a skew (a review).
    ctx.skew?.observe(
      transport.latestAnswerDate ? transport.latestAnswerDate() : transport.lastServerDate?.(),
      startedAt,
    );
    const record: SendAttempt = {
      attempt,
      startedAt,
      endedAt: ctx.clock(),
      result: attemptResult(step),
      ...(httpStatus === undefined ? {} : { httpStatus }),
      ...(stepDetail(step) === undefined ? {} : { detail: stepDetail(step) }),
    };
    attempts.push(record);
    options.onAttempt?.(record, request);

    switch (step.next) {
      case "accepted":
        return { status: "accepted", data: step.data, response: step.response, request, attempts };
      case "answered-err":
        if (!ambiguous) {
          return {
            status: "rejected",
            code: "venue",
            reason: step.reason,
            response: step.response,
            request,
            attempts,
          };
        }
        // An earlier copy may have landed. "Duplicate nonce" says it did; any other refusal of this copy
        // says nothing certain about the earlier one (e.g. "nonce too low" once newer nonces pushed it out).
        return unknown(step.duplicate, step.reason, `resend answered: ${step.reason}`);
      case "refused":
        // The same bytes were sent every time, so a 422 now means the first copy was refused as well.
        if (step.code === "unprocessable" || !ambiguous) {
          return { status: "rejected", code: step.code, reason: step.reason, request, attempts };
        }
        return unknown(false, step.cause, step.reason);
      case "ok-unreadable":
        return unknown(true, step.reason, step.reason);
      case "aborted":
        // Aborted mid-flight: the body may or may not have left.
        return unknown(false, step.cause, step.reason);
      case "retry":
        if (step.mayHaveLanded && madeAmbiguous === undefined) madeAmbiguous = step;
        ambiguous ||= step.mayHaveLanded;
        last = step;
        break;
    }
  }
  if (last === undefined) throw new InternalError("send loop ended without an attempt");
  // Named by the attempt that made it unknown: "connect ECONNREFUSED" of a later resend reads as
  // "never sent" when the first copy's connection was reset after it left (and it landed).
  if (ambiguous) {
    const first = madeAmbiguous ?? last;
    return unknown(
      false,
      first.cause,
      first === last || first.reason === last.reason
        ? last.reason
        : `${first.reason} (resending the same request then: ${last.reason})`,
    );
  }
  // Nothing was processed: every attempt was rate limited or could not connect.
  const code: RejectionCode = last.cause instanceof RateLimitError ? "rate-limited" : "unreachable";
  return { status: "rejected", code, reason: last.reason, request, attempts };
}

/** Now on the clock expiresAfter is counted on: the venue's when known, else ours. */
function expiryNow(ctx: Pick<SubmitContext, "clock" | "venueNow">): number {
  return ctx.venueNow?.() ?? ctx.clock();
}

/** Whether a send starting `delayMs` from now may still arrive in time (firstSendAt: local clock). */
function mayStartSend(
  request: SignedRequest,
  policy: ResendPolicy,
  ctx: Pick<SubmitContext, "clock" | "venueNow">,
  delayMs: number,
  firstSendAt: number,
): boolean {
  if (request.expiresAfter !== undefined) {
    return expiryNow(ctx) + delayMs < request.expiresAfter - policy.expiryMarginMs;
  }
  return ctx.clock() + delayMs <= firstSendAt + policy.windowMs;
}

function interpret<D>(answer: Answer<D>, body: unknown): Step<D> {
  switch (answer.kind) {
    case "accepted":
      return { next: "accepted", data: answer.data, response: body };
    case "rejected":
      return {
        next: "answered-err",
        reason: answer.reason,
        duplicate: /duplicate nonce/i.test(answer.reason),
        response: body,
      };
    case "malformed":
      // An `ok` we cannot read was processed; resending would only answer "duplicate nonce". Anything
      // else unreadable (not our envelope at all) may or may not have been applied: resend to find out.
      if (answer.venueSaidOk) return { next: "ok-unreadable", reason: answer.detail, response: body };
      return { next: "retry", mayHaveLanded: true, cause: answer.detail, reason: answer.detail };
  }
}

function classifyError(err: unknown): Step<never> {
  const reason = err instanceof Error ? err.message : String(err);
  if (err instanceof UnprocessableError)
    return { next: "refused", code: "unprocessable", reason, cause: err };
  if (err instanceof RateLimitError) {
    return {
      next: "retry",
      mayHaveLanded: false,
      cause: err,
      reason,
      waitMs: err.retryAfterMs,
      rateLimited: true,
    };
  }
  if (err instanceof ServerError) {
    return { next: "retry", mayHaveLanded: true, cause: err, reason, waitMs: err.retryAfterMs };
  }
  if (err instanceof HttpStatusError) return { next: "refused", code: "http", reason, cause: err };
  if (err instanceof NetworkError) {
    if (err.kind === "aborted") return { next: "aborted", cause: err, reason };
    return { next: "retry", mayHaveLanded: !neverSent(err), cause: err, reason };
  }
  // BadResponseError (a 2xx body that is not JSON), or anything unexpected: we cannot tell.
  return { next: "retry", mayHaveLanded: true, cause: err, reason };
}

/** Connection-level failures that happen before a single byte of the request leaves. */
function neverSent(err: NetworkError): boolean {
  // The transport knows when nothing left (refused, unresolved, a failed TLS handshake).
  if (err.notSent) return true;
  if (err.kind !== "connection") return false;
  let current: unknown = err.cause;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN") return true;
    const inner = (current as { errors?: unknown[] }).errors?.[0];
    current = inner ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

function attemptResult(step: Step<unknown>): AttemptResult {
  switch (step.next) {
    case "accepted":
      return "accepted";
    case "answered-err":
      return step.duplicate ? "duplicate-nonce" : "rejected";
    case "refused":
      return step.code === "unprocessable" ? "unprocessable" : "http-status";
    case "ok-unreadable":
      return "bad-response";
    case "aborted":
      return "aborted";
    case "retry": {
      const c = step.cause;
      if (c instanceof RateLimitError) return "rate-limited";
      if (c instanceof ServerError) return "server-error";
      if (c instanceof NetworkError) return c.kind === "aborted" ? "aborted" : c.kind;
      return "bad-response";
    }
  }
}

function stepDetail(step: Step<unknown>): string | undefined {
  return step.next === "accepted" ? undefined : step.reason;
}
