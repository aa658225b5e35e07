// The executor: the one send path for every money-moving request, used by the cycle (plan, once, run,
// simulate) and by the manual commands (stake, delegate, twap, …, stop --cancel-twaps). For one intent
// that has passed the limits it writes the submission as pending (durably, before the body leaves the
// process), submits it through the exchange client, and records the answer. An answer that was lost is
// left `unknown` in the journal, and reconciliation settles it before that strategy may act again.
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { describeError, HlbotError } from "../lib/errors.js";
import { buildCDeposit } from "../venue/exchange/actions/cDeposit.js";
import { buildCWithdraw } from "../venue/exchange/actions/cWithdraw.js";
import { buildLinkStakingUser } from "../venue/exchange/actions/linkStakingUser.js";
import { buildTokenDelegate } from "../venue/exchange/actions/tokenDelegate.js";
import { buildTwapCancel } from "../venue/exchange/actions/twapCancel.js";
import { buildTwapOrder } from "../venue/exchange/actions/twapOrder.js";
import type {
  ExchangeCall,
  ExchangeClient,
  ExchangeOutcome,
  SignedRequest,
} from "../venue/exchange/client.js";
import type { NetworkName } from "../venue/networks.js";
import type { ActionOutcome, CycleAction } from "./cycle.js";
import type { Intent } from "./intents.js";
import { never } from "./intents.js";
import type { Guard, Journal } from "./journal.js";
import { stakeMoveOf } from "./risk.js";

export type { ActionOutcome, CycleAction };

/** What the executor needs: a subset of the cycle's dependencies. */
export interface ExecutorDeps {
  /** Live or dry-run client; undefined for an unsigned plan (no key: actions are shown unsigned). */
  exchange: ExchangeClient | undefined;
  journal: Journal;
  network: NetworkName;
  clock: () => number;
  logger: Logger;
  /** Test hook of the crash tests (see CycleDeps.pauseBeforeSendMs). */
  pauseBeforeSendMs?: number;
}

/** Where the intent comes from in the journal, and per-call options. */
export interface ExecuteContext {
  cycleId: string;
  decisionId: number;
  /** L1 actions only: act for this sub-account or vault (a manual `twap --vault`). */
  vaultAddress?: string;
  /** Receives the exchange client's own outcome (attempts, the venue's answer) when there is one. */
  onOutcome?: (outcome: ExchangeOutcome<unknown>) => void;
}

/** The exchange call an intent stands for. */
export function callFor(intent: Intent): ExchangeCall {
  switch (intent.kind) {
    case "twapOrder":
      return {
        type: "twapOrder",
        params: {
          asset: intent.assetId,
          isBuy: intent.side === "buy",
          size: intent.size,
          szDecimals: intent.szDecimals,
          reduceOnly: intent.reduceOnly,
          minutes: intent.minutes,
          randomize: intent.randomize,
        },
      };
    case "twapCancel":
      return { type: "twapCancel", params: { asset: intent.assetId, twapId: intent.twapId } };
    case "tokenDelegate":
      return {
        type: "tokenDelegate",
        params: { validator: intent.validator, amount: intent.amount, isUndelegate: intent.isUndelegate },
      };
    case "cDeposit":
      return { type: "cDeposit", params: { amount: intent.amount } };
    case "cWithdraw":
      return { type: "cWithdraw", params: { amount: intent.amount } };
    case "linkStakingUser":
      return { type: "linkStakingUser", params: { user: intent.user, isFinalize: intent.isFinalize } };
    default:
      return never(intent);
  }
}

/** Builds the unsigned action an intent stands for (`plan --unsigned`: no key needed). */
export function unsignedAction(intent: Intent, network: NetworkName, nonce: number): Record<string, unknown> {
  const call = callFor(intent);
  switch (call.type) {
    case "twapOrder":
      return buildTwapOrder(call.params) as unknown as Record<string, unknown>;
    case "twapCancel":
      return buildTwapCancel(call.params) as unknown as Record<string, unknown>;
    case "tokenDelegate":
      return buildTokenDelegate({ ...call.params, network, nonce }) as unknown as Record<string, unknown>;
    case "cDeposit":
      return buildCDeposit({ ...call.params, network, nonce }) as unknown as Record<string, unknown>;
    case "cWithdraw":
      return buildCWithdraw({ ...call.params, network, nonce }) as unknown as Record<string, unknown>;
    case "linkStakingUser":
      return buildLinkStakingUser({ ...call.params, network, nonce }) as unknown as Record<string, unknown>;
    default:
      throw new Error(`no unsigned builder for ${call.type}`);
  }
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
    return {
      ...base,
      request: { action: unsignedAction(intent, deps.network, nonce), nonce },
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
      ...(intent.kind === "twapOrder" ? { notionalUsd: intent.notionalUsd, asset: intent.assetId } : {}),
      ...(stakeMoveOf(intent) ? { stakeMove: stakeMoveOf(intent) } : {}),
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
  if (ctx.vaultAddress !== undefined && (call.type === "twapOrder" || call.type === "twapCancel"))
    call.vaultAddress = ctx.vaultAddress;
  let outcome: Awaited<ReturnType<ExchangeClient["submit"]>>;
  try {
    outcome = await deps.exchange.submit(call, {
      beforeSend,
      onAttempt: (attempt) => {
        if (submissionId !== undefined) {
          deps.journal.recordAttempt(
            submissionId,
            attempt.result,
            attempt.detail ?? (attempt.httpStatus ? `HTTP ${attempt.httpStatus}` : undefined),
          );
        }
      },
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
      return { ...base, request: {}, outcome: "rejected", detail: `not sent: ${describeError(err)}` };
    }
    throw err;
  }
  ctx.onOutcome?.(outcome);
  const request = outcome.request.body as unknown as Record<string, unknown>;
  switch (outcome.status) {
    case "dry-run":
      return { ...base, request, outcome: "dry-run" };
    case "accepted": {
      const twapId =
        intent.kind === "twapOrder" ? (outcome.data as { twapId?: number } | null)?.twapId : undefined;
      if (submissionId !== undefined) {
        deps.journal.resolve(submissionId, {
          status: "accepted",
          result: outcome.response ?? null,
          ...(twapId === undefined ? {} : { twapId }),
          ...(intent.kind === "twapOrder" ? { expectedEnd: deps.clock() + intent.minutes * 60_000 } : {}),
        });
      }
      return { ...base, request, outcome: "accepted", ...(twapId === undefined ? {} : { twapId }) };
    }
    case "rejected":
      if (submissionId !== undefined) {
        deps.journal.resolve(submissionId, {
          status: "rejected",
          reason: outcome.reason,
          result: outcome.response ?? null,
        });
      }
      return { ...base, request, outcome: "rejected", detail: outcome.reason };
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
