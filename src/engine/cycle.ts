// One cycle of the bot: reconcile what is in flight, read the account, let strategies decide, apply the
// risk limits, then sign and (live) submit, journaling each step. It is the single path every run mode
// takes (plan, once, the daemon, simulate), so dry-run and live differ only in the exchange client.
// Sends are sequential; after any action of a strategy is not accepted, the rest of that strategy's
// actions in this cycle are skipped (a delegation must not go out when the deposit funding it failed).
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { ConfigError, describeError, HlbotError } from "../lib/errors.js";
import { stringifyJson } from "../lib/json.js";
import { buildCDeposit } from "../venue/exchange/actions/cDeposit.js";
import { buildCWithdraw } from "../venue/exchange/actions/cWithdraw.js";
import { buildLinkStakingUser } from "../venue/exchange/actions/linkStakingUser.js";
import { buildTokenDelegate } from "../venue/exchange/actions/tokenDelegate.js";
import { buildTwapCancel } from "../venue/exchange/actions/twapCancel.js";
import { buildTwapOrder } from "../venue/exchange/actions/twapOrder.js";
import type { ExchangeCall, ExchangeClient, SignedRequest } from "../venue/exchange/client.js";
import type { InfoClient } from "../venue/info/client.js";
import type { NetworkName } from "../venue/networks.js";
import type { Decision, Intent, Skip } from "./intents.js";
import { isIntent, never } from "./intents.js";
import type { Guard, Journal } from "./journal.js";
import { newCycleId } from "./journal.js";
import type { BotMetrics } from "./metrics.js";
import { checkPriceSanity, DEFAULT_PRICE_SANITY } from "./priceSanity.js";
import {
  type AccountFacts,
  PARTS_BY_KIND,
  readSnapshot,
  type SnapshotPart,
  summarizeSnapshot,
} from "./readSnapshot.js";
import { type ReconcileResult, reconcile } from "./reconcile.js";
import { applyLimits, type RiskLimits, stakeMoveOf } from "./risk.js";
import type { Snapshot, VenueRules } from "./snapshot.js";
import { runStrategy, type StrategyRun } from "./strategies/registry.js";

export interface CycleStrategy {
  name: string;
  kind: StrategyRun["kind"];
  params: StrategyRun["params"];
}

export interface CycleDeps {
  info: InfoClient;
  /** Live or dry-run client; undefined for an unsigned plan (no key: actions are shown unsigned). */
  exchange: ExchangeClient | undefined;
  journal: Journal;
  account: string;
  network: NetworkName;
  rules: VenueRules;
  limits: RiskLimits;
  facts: AccountFacts;
  clock: () => number;
  logger: Logger;
  metrics?: BotMetrics;
  userSignedGraceMs?: number;
  /** The venue's time (VenueClock.now), for judging expiry by the venue's clock rather than ours. */
  venueNow?: () => number | undefined;
  /**
   * Test hook for the crash tests, never set in production: wait this long between journaling a
   * submission as pending and sending it, to widen that window. openRuntime sets it only when
   * HLBOT_TEST=1 and HLBOT_TEST_PAUSE_BEFORE_SEND=<ms> are both in the environment.
   */
  pauseBeforeSendMs?: number;
}

export type ActionOutcome = "accepted" | "rejected" | "unknown" | "dry-run" | "unsigned" | "skipped";

export interface CycleAction {
  strategy: string;
  /** The venue action type (twapOrder, tokenDelegate, …). */
  action: Intent["kind"];
  reason: string;
  guard: Guard;
  /** The exact body that is (or would be) POSTed to /exchange; unsigned plans have no signature. */
  request: Record<string, unknown>;
  outcome: ActionOutcome;
  /** The venue's reason for a rejection, or what was lost for an unknown outcome. */
  detail?: string;
  /** For accepted TWAPs. */
  twapId?: number;
}

export interface CycleReport {
  cycleId: string;
  trigger: string;
  startedAt: number;
  reconciled: ReconcileResult[];
  snapshot: Snapshot;
  /** Every decision, with its guard verdict; intents that were acted on also appear in `actions`. */
  decisions: Array<{ decision: Decision; guard: Guard; guardReason?: string; action?: CycleAction }>;
  actions: CycleAction[];
}

export interface CycleOptions {
  trigger: "plan" | "once" | "run" | "simulate";
  strategies: readonly CycleStrategy[];
  cycleId?: string;
  /** Aborts the whole cycle, sends included (the daemon's grace period is over). */
  signal?: AbortSignal;
  /** Aborts only the reads (reconciliation, snapshot): nothing has been sent yet at that point. */
  readSignal?: AbortSignal;
  /** Set while this cycle's kill switch is checked; default: the limits' killSwitchFile exists. */
  killSwitchActive?: boolean;
}

/** Runs one cycle. Journals everything; a failure is journaled and rethrown with nothing further sent. */
export async function runCycle(deps: CycleDeps, o: CycleOptions): Promise<CycleReport> {
  const startedAt = deps.clock();
  const cycleId = o.cycleId ?? newCycleId(startedAt);
  const log = deps.logger.child({ cycle: cycleId });
  const mode = deps.exchange?.mode ?? "unsigned";
  deps.journal.startCycle({
    id: cycleId,
    trigger: o.trigger,
    mode,
    account: deps.account,
    strategies: o.strategies.map((s) => s.name),
  });
  const reads = anySignal(o.signal, o.readSignal);
  try {
    if (deps.facts.multiSig) {
      throw new ConfigError(
        `account ${deps.account} is a multi-sig account (threshold ${deps.facts.multiSig.threshold} of ${deps.facts.multiSig.authorizedUsers.length}); hlbot does not act for multi-sig accounts`,
      );
    }
    const reconciled = await reconcile(deps.info, deps.journal, {
      account: deps.account,
      now: startedAt,
      userSignedGraceMs: deps.userSignedGraceMs,
      ...(deps.venueNow ? { venueNow: deps.venueNow } : {}),
      signal: reads,
    });
    for (const r of reconciled)
      log.info({ submission: r.submissionId, verdict: r.verdict }, `reconcile ${r.actionType}: ${r.detail}`);

    const parts = new Set<SnapshotPart>();
    for (const s of o.strategies) for (const p of PARTS_BY_KIND[s.kind] ?? []) parts.add(p);
    const snapshot = await readSnapshot(deps.info, {
      account: deps.account,
      network: deps.network,
      rules: deps.rules,
      parts,
      facts: deps.facts,
      now: startedAt,
      signal: reads,
    });
    deps.journal.recordSnapshot(cycleId, summarizeSnapshot(snapshot));

    const report: CycleReport = {
      cycleId,
      trigger: o.trigger,
      startedAt,
      reconciled,
      snapshot,
      decisions: [],
      actions: [],
    };
    const blocked = deps.journal.blockedStrategies(deps.account);
    const skips: Skip[] = [];
    const intents: Intent[] = [];
    for (const strategy of o.strategies) {
      if (blocked.has(strategy.name)) {
        skips.push({
          kind: "skip",
          strategy: strategy.name,
          reason:
            "waiting: an earlier submission of this strategy is not reconciled yet (see `hlbot history`)",
        });
        continue;
      }
      let decisions: Decision[];
      try {
        decisions = runStrategy(strategy as StrategyRun, snapshot, startedAt, {
          spentUsd: deps.journal.spentUsd(strategy.name),
        });
      } catch (err) {
        log.error({ strategy: strategy.name, err: describeError(err) }, "strategy failed");
        skips.push({
          kind: "skip",
          strategy: strategy.name,
          reason: `strategy failed: ${describeError(err)}`,
        });
        continue;
      }
      for (const d of decisions) (isIntent(d) ? intents : skips).push(d as never);
    }

    // Decisions nothing is done about are written in one commit each batch (a large account has
    // dozens; a commit per row costs an fsync each).
    deps.journal.batch(() => {
      for (const skip of skips) record(deps, report, cycleId, skip, "skipped");
    });
    const usage = deps.journal.usage(deps.account, startedAt - 24 * 60 * 60_000);
    const killSwitchActive =
      o.killSwitchActive ?? (deps.limits.killSwitchFile ? existsSync(deps.limits.killSwitchFile) : false);
    // Prices and metadata cross-checked once, right before the limits that are valued with them.
    const sane = checkPriceSanity({
      intents,
      snapshot,
      limits: deps.limits.priceSanity ?? DEFAULT_PRICE_SANITY,
      memory: (label) => deps.journal.pairMemory(label),
      now: startedAt,
    });
    for (const alarm of sane.alarms) log.error({ alarm }, `venue metadata changed: ${alarm}`);
    deps.journal.rememberPairs(sane.observed);
    deps.journal.batch(() => {
      for (const b of sane.blocked) record(deps, report, cycleId, b, "blocked");
    });
    const limited = applyLimits(sane.allowed, deps.limits, usage, { killSwitchActive, rules: deps.rules });
    deps.journal.batch(() => {
      for (const b of limited.blocked) record(deps, report, cycleId, b, "blocked");
    });

    const failedStrategies = new Set<string>();
    for (const intent of limited.allowed) {
      const guard: Guard = limited.reduced.includes(intent) ? "reduced" : "allowed";
      if (failedStrategies.has(intent.strategy)) {
        record(
          deps,
          report,
          cycleId,
          {
            kind: "skip",
            strategy: intent.strategy,
            considered: intent.kind,
            reason: `${intent.reason}; not sent: an earlier action of this strategy in this cycle was not accepted`,
          },
          "skipped",
        );
        continue;
      }
      const decisionId = record(deps, report, cycleId, intent, guard);
      const action = await execute(deps, cycleId, decisionId, intent, guard, o.signal);
      report.actions.push(action);
      const entry = report.decisions[report.decisions.length - 1];
      if (entry) entry.action = action;
      deps.metrics?.submissions.inc({ action: intent.kind, outcome: action.outcome });
      log.info(
        { strategy: intent.strategy, action: intent.kind, outcome: action.outcome, detail: action.detail },
        `${intent.kind} ${action.outcome}: ${intent.reason}`,
      );
      if (action.outcome === "rejected" || action.outcome === "unknown")
        failedStrategies.add(intent.strategy);
    }
    deps.journal.finishCycle(cycleId, "ok");
    return report;
  } catch (err) {
    deps.journal.finishCycle(cycleId, "failed", describeError(err));
    throw err;
  }
}

function record(
  deps: CycleDeps,
  report: CycleReport,
  cycleId: string,
  decision: Decision,
  guard: Guard,
): number {
  const guardReason = guard === "blocked" || guard === "reduced" ? decision.reason : undefined;
  report.decisions.push({ decision, guard, ...(guardReason ? { guardReason } : {}) });
  deps.metrics?.intents.inc({
    strategy: decision.strategy,
    kind: decision.kind === "skip" ? (decision.considered ?? "none") : decision.kind,
    guard,
  });
  return deps.journal.recordDecision(cycleId, {
    strategy: decision.strategy,
    kind: decision.kind,
    reason: decision.reason,
    guard,
    guardReason,
    intent: jsonSafe(decision),
  });
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

async function execute(
  deps: CycleDeps,
  cycleId: string,
  decisionId: number,
  intent: Intent,
  guard: Guard,
  signal: AbortSignal | undefined,
): Promise<CycleAction> {
  const base = { strategy: intent.strategy, action: intent.kind, reason: intent.reason, guard };
  if (!deps.exchange) {
    const nonce = deps.clock();
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
      cycleId,
      decisionId,
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
  let outcome: Awaited<ReturnType<ExchangeClient["submit"]>>;
  try {
    outcome = await deps.exchange.submit(callFor(intent), {
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

/** Decisions hold Decimals; store them as plain JSON (decimals as strings). */
function jsonSafe(value: unknown): unknown {
  return JSON.parse(stringifyJson(value));
}

/** A signal aborted when any of the given ones is (undefined when none is given). */
function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}
