// The executor: the one send path for every money-moving request, used by the cycle (plan, once, run,
// simulate) and by the manual commands (stake, delegate, twap, …, stop --cancel-twaps). For one intent
// that has passed the limits it writes the submission as pending (durably, before the body leaves the
// process), submits it through the exchange client, and records the answer. An answer that was lost is
// left `unknown` in the journal, and reconciliation settles it before that strategy may act again.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Decimal } from "../lib/decimal.js";
import { describeError, HlbotError } from "../lib/errors.js";
import { actionDef } from "../venue/exchange/actions/index.js";
import {
  type ExchangeCall,
  type ExchangeClient,
  type ExchangeOutcome,
  isL1Call,
  type SignedRequest,
} from "../venue/exchange/client.js";
import { NEVER_PROCESSED, userSignedForVault } from "../venue/exchange/submit.js";
import type { NetworkName } from "../venue/networks.js";
import type { ActionOutcome, CycleAction } from "./cycle.js";
import { callFor, specOf } from "./intentKinds.js";
import type { Intent } from "./intents.js";
import { never } from "./intents.js";
import type { Guard, Journal, TwapFill } from "./journal.js";
import { LIMIT_WINDOW_MS, usageOf } from "./risk.js";

export type { ActionOutcome, CycleAction };

/** What the executor needs: a subset of the cycle's dependencies. */
export interface ExecutorDeps {
  /** Live or dry-run client; undefined for an unsigned plan (no key: actions are shown unsigned). */
  exchange: ExchangeClient | undefined;
  journal: Journal;
  network: NetworkName;
  clock: () => number;
  logger: Logger;
  /** The venue's time (VenueClock.now), journaled with each submission when known. */
  venueNow?: () => number | undefined;
  /** Test hook of the crash tests (see CycleDeps.pauseBeforeSendMs). */
  pauseBeforeSendMs?: number;
  /**
   * The daily limits, checked again against the journal as the submission is written (Journal
   * recordPending): another process's rows written since this intent was checked count.
   */
  dayLimits?: { maxNotionalUsd: Decimal; maxStakeMove: Decimal; fills?: ReadonlyMap<number, TwapFill> };
  /**
   * Unsigned plans only: what a key would add to an L1 action's request, so the digest shown is the one
   * it would sign: the sub-account or vault acted for, and the time to live (venue.expiresAfterMs).
   */
  unsigned?: { vaultAddress?: string; expiresAfterMs: number | null };
}

/** Where the intent comes from in the journal, and per-call options. */
export interface ExecuteContext {
  cycleId: string;
  decisionId: number;
  /** L1 actions only: act for this sub-account or vault (a manual `twap --vault`). */
  vaultAddress?: string;
  /** Asked before each resend of the request (SubmitOptions.mayResend): a reason stops resending. */
  mayResend?: () => string | undefined;
  /** Receives the exchange client's own outcome (attempts, the venue's answer) when there is one. */
  onOutcome?: (outcome: ExchangeOutcome<unknown>) => void;
}

/** The exchange call an intent stands for (the engine's table, ./intentKinds.ts). */
export { callFor };

function buildCall<C extends ExchangeCall>(
  call: C,
  network: NetworkName,
  nonce: number,
): Record<string, unknown> {
  return actionDef(call.type).build(call.params, { network, nonce }) as unknown as Record<string, unknown>;
}

let lastUnsignedNonce = 0;
/**
 * The nonce shown with an unsigned action: the clock, but never the same twice in this process, so an
 * unsigned plan never shows two actions with one nonce (a key could not sign both as shown).
 */
function nextUnsignedNonce(clock: () => number): number {
  lastUnsignedNonce = Math.max(Math.trunc(clock()), lastUnsignedNonce + 1);
  return lastUnsignedNonce;
}

/** Journals, signs, (live) sends and resolves one intent. Throws only when the cycle must stop. */
export async function executeIntent(
  deps: ExecutorDeps,
  ctx: ExecuteContext,
  intent: Intent,
  guard: Guard,
  signal: AbortSignal | undefined,
): Promise<CycleAction> {
  const base = { strategy: intent.strategy, action: intent.kind, reason: intent.reason, guard };
  if (!deps.exchange) {
    const nonce = nextUnsignedNonce(deps.clock);
    const call = callFor(intent);
    const l1 = actionDef(call.type).signing === "l1";
    const vaultAddress = ctx.vaultAddress ?? deps.unsigned?.vaultAddress;
    const ttl = deps.unsigned?.expiresAfterMs;
    // Refused as a signed one is (submit.ts, checkPlan): shown "allowed" with the sub-account's amounts,
    // signed by the master's key it would have moved the master's HYPE (a docs trial).
    if (!l1 && vaultAddress !== undefined)
      return {
        ...base,
        request: {},
        outcome: "rejected",
        detail: `not sent: ${userSignedForVault(call.type, vaultAddress)}`,
        notSent: true,
      };
    return {
      ...base,
      request: {
        action: buildCall(call, deps.network, nonce),
        nonce,
        ...(l1 && vaultAddress !== undefined ? { vaultAddress } : {}),
        // On the venue's clock when known, as a signed request's (submit.ts).
        ...(l1 && ttl != null ? { expiresAfter: Math.trunc(deps.venueNow?.() ?? deps.clock()) + ttl } : {}),
      },
      outcome: "unsigned",
    };
  }
  let submissionId: number | undefined;
  const beforeSend = async (request: SignedRequest) => {
    // Written (durably) before the body leaves the process; if this throws, nothing is sent.
    submissionId = deps.journal.recordPending({
      cycleId: ctx.cycleId,
      decisionId: ctx.decisionId,
      strategy: intent.strategy,
      account: request.account,
      signer: request.signer,
      actionType: request.actionType,
      nonce: request.nonce,
      expiresAfter: request.expiresAfter ?? null,
      vault: request.vaultAddress ?? null,
      request: request.bodyText,
      ...usageOf(intent),
      venueAt: deps.venueNow?.(),
      ...(deps.dayLimits === undefined
        ? {}
        : { dayCap: { sinceMs: deps.clock() - LIMIT_WINDOW_MS, ...deps.dayLimits } }),
    });
    if (deps.pauseBeforeSendMs) {
      deps.logger.warn(
        { submission: submissionId, pauseMs: deps.pauseBeforeSendMs },
        "test hook: pausing between the journal write and the send",
      );
      await sleep(deps.pauseBeforeSendMs, undefined, signal ? { signal } : {});
    }
  };
  const call = callFor(intent);
  if (ctx.vaultAddress !== undefined && isL1Call(call)) call.vaultAddress = ctx.vaultAddress;
  let outcome: Awaited<ReturnType<ExchangeClient["submit"]>>;
  try {
    outcome = await deps.exchange.submit(call, {
      beforeSend,
      onAttempt: (attempt) => {
        const detail = attempt.detail ?? (attempt.httpStatus ? `HTTP ${attempt.httpStatus}` : undefined);
        if (submissionId !== undefined) deps.journal.recordAttempt(submissionId, attempt.result, detail);
        // Each resend of the identical signed request is said, not only kept in the journal's attempts
        // table (an operator's trial: a cDeposit sent 4 times in 33 s, the log saying only the final
        // "unknown"). What the first attempt met is said by the first resend's line.
        if (attempt.attempt > 1)
          deps.logger.warn(
            {
              submission: submissionId,
              strategy: intent.strategy,
              attempt: attempt.attempt,
              result: attempt.result,
            },
            `${intent.kind} of ${intent.strategy} resent (attempt ${attempt.attempt}: the identical signed request, same nonce, so it lands at most once): ${attempt.result}${detail === undefined ? "" : ` (${detail})`}`,
          );
      },
      ...(ctx.mayResend ? { mayResend: ctx.mayResend } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    // Refused by the client before anything was journaled, so before anything was signed or sent (an
    // agent key on a staking action, a TWAP beyond the configured maximum): that strategy fails for
    // this cycle with the reason; the other strategies go on. Anything else stops the cycle.
    if (
      submissionId === undefined &&
      err instanceof HlbotError &&
      (err.family === "input" || err.family === "config")
    ) {
      return {
        ...base,
        request: {},
        outcome: "rejected",
        detail: `not sent: ${describeError(err)}`,
        notSent: true,
      };
    }
    throw err;
  }
  ctx.onOutcome?.(outcome);
  const request = outcome.request.body as unknown as Record<string, unknown>;
  switch (outcome.status) {
    case "dry-run":
      return { ...base, request, outcome: "dry-run" };
    case "accepted": {
      const { twapId, expectedEnd } = specOf(intent.kind).accepted(intent, outcome.data, deps.clock);
      if (submissionId !== undefined) {
        deps.journal.resolve(submissionId, {
          status: "accepted",
          result: outcome.response ?? null,
          ...(twapId === undefined ? {} : { twapId }),
          ...(expectedEnd === undefined ? {} : { expectedEnd }),
        });
      }
      return { ...base, request, outcome: "accepted", ...(twapId === undefined ? {} : { twapId }) };
    }
    case "rejected":
      if (submissionId !== undefined) {
        deps.journal.resolve(submissionId, {
          status: "rejected",
          reason: outcome.reason,
          // Without the venue's body, how it was refused (budget.ts tells a refusal of the order from
          // a request the venue never judged by it).
          result: outcome.response ?? { rejection: outcome.code },
        });
      }
      return {
        ...base,
        request,
        outcome: "rejected",
        detail: outcome.reason,
        ...(outcome.code === "not-sent" ? { notSent: true as const } : {}),
        ...(NEVER_PROCESSED.has(outcome.code) ? { unprocessed: true as const } : {}),
      };
    case "unknown":
      if (submissionId !== undefined) {
        deps.journal.resolve(submissionId, {
          status: "unknown",
          reason: `${outcome.probablyLanded ? "probably landed: " : ""}${outcome.reason}`,
        });
      }
      return { ...base, request, outcome: "unknown", detail: outcome.reason };
    default:
      return never(outcome);
  }
}
