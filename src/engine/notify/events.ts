// What hlbot tells its owner: one event per thing worth a message, built from what the engine already
// knows (a cycle's report, the daemon's state, the venue's TWAP records). Plain data, so the same event
// is a webhook's JSON body and the text of a chat message. Never holds a key: the journal and the
// redactor see every field.

import { createHash } from "node:crypto";
import { type Decimal, fromWei } from "../../lib/decimal.js";
import { stringifyJson } from "../../lib/json.js";
import { duration, oneLine, shortAddress } from "../../lib/text.js";
import { HYPE_WEI_DECIMALS, USER_FILLS_MAX } from "../../venue/constants.js";
import type { CycleReport } from "../cycle.js";
import { killSwitchNotice } from "../killSwitch.js";
import type { NotifyEvent, NotifyEventType } from "./types.js";

export type { NotifyEvent };

export interface EventContext {
  account: string;
  network: string;
  now: number;
}

function event(
  c: EventContext,
  type: NotifyEventType,
  title: string,
  text: string,
  data: Record<string, unknown>,
): NotifyEvent {
  const time = new Date(c.now).toISOString();
  const id = createHash("sha256")
    .update(stringifyJson([type, time, c.account, c.network, title, text, data]) ?? "")
    .digest("hex")
    .slice(0, 20);
  return { id, type, time, account: c.account, network: c.network, title, text, data };
}

/**
 * What became of submissions whose outcome was unknown (or that a crash left pending), settled by a
 * cycle's or the TWAP watch's reconciliation: an operator told "outcome UNKNOWN" learns whether the money
 * moved.
 */
export function reconciledEvents(
  c: EventContext,
  reconciled: readonly CycleReport["reconciled"][number][],
  cycleId?: string,
): NotifyEvent[] {
  const out: NotifyEvent[] = [];
  for (const r of reconciled) {
    if (r.verdict !== "landed" && r.verdict !== "absent") continue;
    out.push(
      event(
        c,
        "submission.reconciled",
        `${r.strategy}: ${r.actionType} #${r.submissionId} ${r.verdict === "landed" ? "LANDED: it took effect" : "did not land: nothing happened"}`,
        r.detail,
        {
          ...(cycleId === undefined ? {} : { cycleId }),
          submissionId: r.submissionId,
          strategy: r.strategy,
          action: r.actionType,
          verdict: r.verdict,
        },
      ),
    );
  }
  return out;
}

/**
 * A trouble repeating cycle after cycle (a pass that fails under cron, a strategy's sends never
 * processed) is told at the first and every this many-th: cron may call every minute.
 */
export const RETELL_EVERY = 10;

/** Whether the `n`-th time in a row (from 1) a trouble is seen is one to tell (RETELL_EVERY). */
export function toldAgain(n: number): boolean {
  return n <= 1 || n % RETELL_EVERY === 0;
}

/** One event per submission of the cycle that got an answer (or lost it); dry runs tell nobody. */
export function submissionEvents(
  c: EventContext,
  report: CycleReport,
  /**
   * Per strategy, its cycles in a row whose sends were never processed (this one included; Journal
   * unprocessedInARow): such a send is told at the first and every RETELL_EVERY-th (toldAgain).
   */
  unprocessedStreak?: (strategy: string) => number,
): NotifyEvent[] {
  const out = reconciledEvents(c, report.reconciled, report.cycleId);
  for (const a of report.actions) {
    if (a.outcome !== "accepted" && a.outcome !== "rejected" && a.outcome !== "unknown") continue;
    const streak = a.unprocessed && a.action !== "twapCancel" ? (unprocessedStreak?.(a.strategy) ?? 1) : 1;
    if (!toldAgain(streak)) continue;
    // The pair's name as the decision gave it ("HYPE/USDC"): the request names only the asset id.
    const decided = report.decisions?.find((d) => d.action === a)?.decision as
      | { label?: unknown }
      | undefined;
    const sent = sentText(a.request, typeof decided?.label === "string" ? decided.label : undefined);
    const what = `${a.strategy}: ${a.action}${sent ? ` ${sent}` : ""}${a.twapId === undefined ? "" : ` (TWAP ${a.twapId})`}`;
    const title =
      a.outcome === "accepted"
        ? `${what} accepted`
        : a.outcome === "rejected"
          ? // Refused by hlbot itself before anything was sent (a clock far ahead, a key that cannot sign it).
            a.notSent
            ? `${what} REJECTED by hlbot, not sent`
            : a.unprocessed
              ? // Never looked at (rate limited, unreachable): nothing happened, and a strategy's slot stays
                // due (a review: "REJECTED by the venue" read as final, and a retry followed).
                `${what} NOT PROCESSED (the venue was rate limiting, unreachable, or a proxy refused it): nothing happened; ${a.action === "twapCancel" ? "sent again while the TWAP runs" : "tried again while its slot is due"}${streak > 1 ? ` (${streak} cycles in a row; told every ${RETELL_EVERY}th)` : ""}`
              : `${what} REJECTED by the venue`
          : a.action === "twapCancel"
            ? `${what}: outcome UNKNOWN (being reconciled; sent again while the TWAP runs once this one can no longer land)`
            : a.action === "twapOrder"
              ? `${what}: outcome UNKNOWN (being reconciled; not resent blindly)`
              : // A staking action has no expiry: its strategy waits while a held copy may land (a cron user
                // was not told, and read 2 days of missed slots).
                `${what}: outcome UNKNOWN (being reconciled; not resent blindly; its strategy waits until it is settled, up to venue.userSignedGraceMs after it was signed: 2 days by default)`;
    // One line each: a reason carries venue text (a validator's name), which must not forge lines.
    const text = [oneLine(a.reason), a.detail ? `${a.notSent ? "hlbot" : "venue"}: ${oneLine(a.detail)}` : ""]
      .filter(Boolean)
      .join("\n");
    out.push(
      event(c, `submission.${a.outcome}`, title, text, {
        cycleId: report.cycleId,
        strategy: a.strategy,
        action: a.action,
        outcome: a.outcome,
        ...(a.twapId === undefined ? {} : { twapId: a.twapId }),
        ...(sent ? { sent } : {}),
        ...sentFields(a.request, typeof decided?.label === "string" ? decided.label : undefined),
        ...(a.detail ? { detail: a.detail } : {}),
      }),
    );
  }
  return out;
}

/**
 * What the request carries, as fields for a receiver's code (a scripter's webhook had the amount and the
 * validator only inside `sent`, the validator shortened): amounts as decimal strings.
 */
function sentFields(request: Record<string, unknown>, pair?: string): Record<string, unknown> {
  const action = request.action as Record<string, unknown> | undefined;
  const hype = (wei: unknown) =>
    typeof wei === "number" || typeof wei === "bigint"
      ? { amount: fromWei(BigInt(wei), HYPE_WEI_DECIMALS).toFixed(), token: "HYPE" }
      : {};
  switch (action?.type) {
    case "tokenDelegate":
      return {
        ...hype(action.wei),
        ...(typeof action.validator === "string" ? { validator: action.validator } : {}),
        isUndelegate: action.isUndelegate === true,
      };
    case "cDeposit":
    case "cWithdraw":
      return hype(action.wei);
    case "twapOrder": {
      const t = action.twap as { a?: unknown; b?: unknown; s?: unknown; m?: unknown } | undefined;
      if (t === undefined) return {};
      return {
        side: t.b === true ? "buy" : "sell",
        size: String(t.s),
        minutes: t.m,
        asset: t.a,
        ...(pair === undefined ? {} : { pair }),
      };
    }
    case "twapCancel":
      return { asset: action.a, cancels: action.t };
    default:
      return {};
  }
}

/**
 * What the request itself carries, in words ("300 HYPE to 0xb8f4…5bc5", "sell 25.48 HYPE (HYPE/USDC,
 * asset 10107) over 60 min"), from sentFields: the reason may lead with the amount a strategy wanted
 * before the limits reduced it.
 */
function sentText(request: Record<string, unknown>, pair?: string): string | undefined {
  const f = sentFields(request, pair);
  const amount = f.amount === undefined ? undefined : `${String(f.amount)} ${String(f.token)}`;
  switch ((request.action as { type?: unknown } | undefined)?.type) {
    case "tokenDelegate": {
      const v = typeof f.validator === "string" ? shortAddress(f.validator) : "?";
      return amount && `${amount} ${f.isUndelegate === true ? "from" : "to"} ${v}`;
    }
    case "cDeposit":
    case "cWithdraw":
      return amount;
    case "twapOrder":
      if (f.side === undefined) return undefined;
      return `${String(f.side)} ${String(f.size)} ${pair === undefined ? `of asset ${String(f.asset)}` : `${pair.split("/")[0]} (${pair}, asset ${String(f.asset)})`} over ${String(f.minutes)} min`;
    default:
      return undefined;
  }
}

export interface EndedTwap {
  /** The strategy that placed it, when known ("manual" for `hlbot twap`). */
  strategy?: string;
  twapId: number;
  coin: string;
  side: "buy" | "sell";
  size: Decimal;
  executedSize: Decimal;
  executedNotional: Decimal;
  /** The venue's status: finished, terminated (cancelled), error… */
  status: string;
}

export function twapEndedEvent(c: EventContext, t: EndedTwap): NotifyEvent {
  const finished = t.status === "finished";
  const average = t.executedSize.gt(0) ? t.executedNotional.div(t.executedSize) : undefined;
  const filled = `${t.side === "buy" ? "bought" : "sold"} ${t.executedSize.toFixed()} of ${t.size.toFixed()} on ${t.coin}`;
  const price =
    average === undefined ? "nothing filled" : `average price ${average.toSignificantDigits(6).toFixed()}`;
  return event(
    c,
    finished ? "twap.finished" : "twap.cancelled",
    // The venue says "terminated" for a cancelled TWAP: said as the owner knows it (a cron user's trial).
    `${t.strategy === undefined ? "" : `${t.strategy}: `}TWAP ${t.twapId} ${finished ? "finished" : t.status === "terminated" ? "cancelled" : `ended: ${t.status}`}: ${filled}`,
    `${price}; notional ${t.executedNotional.toFixed(2)}`,
    {
      ...(t.strategy === undefined ? {} : { strategy: t.strategy }),
      twapId: t.twapId,
      // The pair's name (HYPE/USDC) as `pair`, as in status and once (a scripter's parser read `coin` as
      // the venue's @107 there); `coin` kept for older receivers.
      pair: t.coin,
      coin: t.coin,
      side: t.side,
      status: t.status,
      size: t.size.toFixed(),
      executedSize: t.executedSize.toFixed(),
      executedNotional: t.executedNotional.toFixed(),
      ...(average === undefined ? {} : { averagePrice: average.toSignificantDigits(10).toFixed() }),
    },
  );
}

export function cycleFailedEvent(
  c: EventContext,
  strategies: readonly string[],
  error: string,
  failures: number,
): NotifyEvent {
  return event(
    c,
    "cycle.failed",
    `cycle of ${strategies.join(", ")} failed${failures > 1 ? ` (${failures} in a row)` : ""}`,
    `${error}\nThese strategies did nothing in this run; their slot stays due and is tried again (the daemon backs off; under cron, at the next \`hlbot once\` within schedule.catchUp).`,
    { strategies, error, failures },
  );
}

/** The TWAP watch of the running TWAPs' limits, as a cycle's failure and recovery name it. */
export const TWAP_WATCH = "the TWAP watch";

/**
 * The TWAP watch could not read the venue `inARow` minutes running while guarded TWAPs run: their limits
 * (limitPx, twap.maxDeviation, priceLimits, keepOnSpot) go unchecked and the TWAPs keep filling (a limit
 * tester's trial: through an info outage a guarded sale sold 187 HYPE under its floor; the daemon only
 * logged it).
 */
export function watchFailedEvent(c: EventContext, error: string, inARow: number): NotifyEvent {
  return event(
    c,
    "cycle.failed",
    `${TWAP_WATCH} failed ${inARow} times in a row: running TWAPs' price limits are not checked`,
    `${error}\nWhile the watch cannot read the venue, running TWAPs keep filling without their limits (limitPx, twap.maxDeviation, priceLimits, limits.keepOnSpot) checked; it tries again every minute. \`hlbot stop --cancel-twaps\` cancels them.`,
    { strategies: [TWAP_WATCH], error, failures: inARow },
  );
}

/**
 * The TWAP watch failed (told) and now has nothing to check: no guarded TWAP of this bot runs any more
 * (they ended meanwhile, unwatched). Closes the failure for a receiver that pairs them (a review).
 */
export function watchIdleEvent(c: EventContext, failures: number): NotifyEvent {
  return event(
    c,
    "cycle.recovered",
    `${TWAP_WATCH} has nothing left to check after ${failures} failed minutes: no guarded TWAP runs now`,
    "The TWAPs it could not watch ended meanwhile, their limits unchecked: `hlbot status` and `hlbot history` show what they filled.",
    { strategies: [TWAP_WATCH], failures },
  );
}

export function cycleRecoveredEvent(
  c: EventContext,
  strategies: readonly string[],
  failures: number,
): NotifyEvent {
  return event(
    c,
    "cycle.recovered",
    `cycles work again (${strategies.join(", ")}) after ${failures} failed`,
    "",
    {
      strategies,
      failures,
    },
  );
}

/**
 * Strategies whose slots went by with no run at all (lostSlots): nothing was bought, sold or staked for
 * them. Under cron it is told at every pass that finds one (each slot is reported once).
 */
export function scheduleMissedEvent(
  c: EventContext,
  missed: ReadonlyArray<{ strategy: string; count: number; latest: number | undefined }>,
  catchUpMs: number,
  /** Per strategy, what it is known to have waited for (a submission whose outcome is still unknown). */
  waitingOn?: ReadonlyMap<string, string>,
): NotifyEvent {
  const names = missed.map((m) => m.strategy);
  const lines = missed.map((m) => {
    const cause = waitingOn?.get(m.strategy);
    return `${m.strategy}: ${m.count} slot${m.count === 1 ? "" : "s"}${m.latest === undefined ? "" : ` (latest ${new Date(m.latest).toISOString()})`}${cause === undefined ? "" : `: ${cause}`}`;
  });
  return event(
    c,
    "schedule.missed",
    `${names.join(", ")} missed ${missed.length === 1 && missed[0]?.count === 1 ? "a slot" : "slots"}: nothing was done for ${names.length === 1 ? "it" : "them"}`,
    `${lines.join("\n")}\nThese slots went by without a run. Either hlbot did not look within schedule.catchUp ` +
      `(${duration(catchUpMs)}) after them (the daemon was down, or \`hlbot once\` was not called in that window: call it ` +
      "more often, or raise schedule.catchUp), or their runs failed (the venue unreachable) or waited (the kill switch, " +
      "a daily limit, a TWAP running on its pair) until they were too old or a later slot replaced them: `hlbot history` shows which.",
    {
      strategies: names,
      missed: missed.map((m) => ({
        strategy: m.strategy,
        count: m.count,
        ...(m.latest === undefined ? {} : { latest: new Date(m.latest).toISOString() }),
      })),
      catchUpMs,
    },
  );
}

/**
 * The local wall clock stepped (an operator's NTP fix, a VM resumed, a hand-set date): schedules follow
 * it, so a step back holds every scheduled run until the clock is where it was (told only in the log
 * and /health before: the operator on the worst day). `resumeAt` is set for a step back.
 */
export function clockSteppedEvent(
  c: EventContext,
  stepMs: number,
  resumeAt: number | undefined,
): NotifyEvent {
  const back = stepMs < 0;
  const by = duration(Math.abs(stepMs));
  return event(
    c,
    "clock.stepped",
    back
      ? `the local clock stepped back ${by}: no scheduled run until ${resumeAt === undefined ? "it is where it was" : new Date(resumeAt).toISOString()}`
      : `the local clock stepped forward ${by}: slots skipped over count as missed`,
    back
      ? "Schedules follow the local clock, and cron ticks come again only once it reaches the time it had before the step " +
          "(/health answers 503 until then). If the new time is right, restart hlbot to schedule from it at once; " +
          "if not, synchronise the clock (NTP)."
      : "The slots the clock jumped over are caught up within schedule.catchUp, the latest one per strategy; older ones " +
          "are told as schedule.missed. If the new time is wrong, synchronise the clock (NTP).",
    {
      stepMs,
      direction: back ? "back" : "forward",
      ...(resumeAt === undefined ? {} : { resumeAt: new Date(resumeAt).toISOString() }),
    },
  );
}

export function killSwitchEvent(c: EventContext, engaged: boolean, file: string): NotifyEvent {
  // Since when and why (what `hlbot stop --reason` wrote), and that running TWAPs go on: an operator's
  // trial was told only that the file existed, while a TWAP kept buying.
  const why = killSwitchNotice(file) ?? `${file} exists`;
  return engaged
    ? event(
        c,
        "killswitch.engaged",
        "kill switch ENGAGED: no new action is sent",
        `${why} (${file}). Running TWAPs keep filling unless cancelled (\`hlbot stop --cancel-twaps\`).`,
        { file },
      )
    : event(c, "killswitch.released", "kill switch released: strategies act again", `${file} is gone`, {
        file,
      });
}

export function daemonEvent(
  c: EventContext,
  kind: "start" | "stop",
  detail: { mode: string; strategies?: readonly string[]; exitCode?: number; why?: string; held?: string },
): NotifyEvent {
  // Started with a strategy file that does not load, no strategy runs: said in the title, with why (an
  // operator's trial was told "strategies: " and nothing more while the bot traded nothing).
  return kind === "start"
    ? event(
        c,
        "daemon.start",
        `daemon started (${detail.mode}) for ${c.account} on ${c.network}${detail.held === undefined ? "" : ": NO STRATEGY RUNS"}`,
        detail.held !== undefined
          ? `${detail.held}; fix the file, then SIGHUP (the TWAP guards still run)`
          : detail.strategies
            ? `strategies: ${detail.strategies.join(", ")}`
            : "",
        { ...detail },
      )
    : event(c, "daemon.stop", `daemon stopped (exit ${detail.exitCode ?? 0})`, detail.why ?? "", {
        ...detail,
      });
}

export interface DailySummary {
  valueUsd: Decimal | undefined;
  /** Since the previous summary; undefined for the first one. */
  changeUsd: Decimal | undefined;
  /** Staking rewards credited in the last 24 h (HYPE); undefined when unreadable. */
  rewardsHype: Decimal | undefined;
  /** Fees paid by TWAP slices in the last 24 h, by fee token; undefined when unreadable. */
  fees: ReadonlyMap<string, Decimal> | undefined;
  /**
   * The venue answered its latest USER_FILLS_MAX slice fills only, all within the window: earlier fills
   * of the window are not counted, so the fees are a lower bound (one 24-hour TWAP alone has 2,880).
   */
  feesAtLeast?: boolean;
  twapsRunning: number;
  /**
   * Each strategy's runs since the previous summary (the daemon's start for the first): how many acted,
   * and for one that never did, its latest reason (a budget used up, a balance too small, a band).
   */
  strategies?: ReadonlyArray<{ name: string; runs: number; acted: number; latest?: string }>;
}

/**
 * A reason cut for a one-line mention: its first `max` characters, on one line (it carries venue text,
 * a validator's name, which must not forge a line of the summary: a review).
 */
function shortReason(reason: string, max: number): string {
  const line = oneLine(reason);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function dailySummaryEvent(c: EventContext, s: DailySummary): NotifyEvent {
  const usd = (d: Decimal) => `${d.toFixed(2)} USD`;
  const idle = (s.strategies ?? []).filter((t) => t.acted === 0 && t.latest !== undefined).length;
  const reasonRoom = Math.min(160, Math.max(30, Math.floor(900 / Math.max(1, idle))));
  const lines = [
    `value: ${s.valueUsd === undefined ? "unknown (no price)" : usd(s.valueUsd)}` +
      (s.changeUsd === undefined ? "" : ` (${s.changeUsd.gte(0) ? "+" : ""}${usd(s.changeUsd)} in 24 h)`),
    `staking rewards: ${s.rewardsHype === undefined ? "unreadable" : `${s.rewardsHype.toFixed()} HYPE`}`,
    `trading fees: ${
      s.fees === undefined
        ? "unreadable"
        : s.fees.size === 0
          ? "none"
          : `${s.feesAtLeast ? "at least " : ""}${[...s.fees].map(([token, fee]) => `${fee.toFixed()} ${token}`).join(", ")}${
              s.feesAtLeast ? ` (the venue answers an account's latest ${USER_FILLS_MAX} fills)` : ""
            }`
    }`,
    `running TWAPs: ${s.twapsRunning}`,
    // Those that never acted first, their reasons shortened to share about 900 characters: a channel
    // that cuts long messages (Discord's 2,000 characters) cuts the end, and they are the lines the
    // summary is for (a review: 9 such strategies, the last one cut off).
    ...[...(s.strategies ?? [])]
      .sort((a, b) => Number(a.acted > 0) - Number(b.acted > 0))
      .map(
        (t) =>
          `${t.name}: ${t.acted} of ${t.runs} run${t.runs === 1 ? "" : "s"} acted` +
          (t.acted === 0 && t.latest !== undefined ? ` (latest: ${shortReason(t.latest, reasonRoom)})` : ""),
      ),
  ];
  return event(c, "daily.summary", "daily summary", lines.join("\n"), {
    ...(s.valueUsd === undefined ? {} : { valueUsd: s.valueUsd.toFixed(2) }),
    ...(s.changeUsd === undefined ? {} : { changeUsd: s.changeUsd.toFixed(2) }),
    ...(s.rewardsHype === undefined ? {} : { rewardsHype: s.rewardsHype.toFixed() }),
    ...(s.fees === undefined
      ? {}
      : { fees: Object.fromEntries([...s.fees].map(([k, v]) => [k, v.toFixed()])) }),
    ...(s.feesAtLeast ? { feesAtLeast: true } : {}),
    twapsRunning: s.twapsRunning,
    ...(s.strategies === undefined ? {} : { strategies: s.strategies }),
  });
}

export function testEvent(c: EventContext): NotifyEvent {
  return event(
    c,
    "test",
    "test message from `hlbot notify test`",
    "If you read this, notifications reach you.",
    {},
  );
}

/** A SIGHUP reload that did not apply: the strategies as they were keep running. */
export function strategiesRefusedEvent(
  c: EventContext,
  problems: readonly string[],
  kept: number,
): NotifyEvent {
  return event(
    c,
    "strategies.refused",
    `strategy reload refused: keeping the ${kept} current ${kept === 1 ? "strategy" : "strategies"}`,
    `${problems.join("\n")}\nFix the file(s), then SIGHUP again.`,
    { problems: [...problems], kept },
  );
}

/** A daemon that ran no strategy (a file that did not load) runs them again after a reload. */
export function strategiesResumedEvent(
  c: EventContext,
  strategies: readonly string[],
  was: string,
): NotifyEvent {
  return event(
    c,
    "strategies.resumed",
    `strategy files load again: ${strategies.length} ${strategies.length === 1 ? "strategy runs" : "strategies run"}`,
    `strategies: ${strategies.join(", ")} (was: ${was})`,
    { strategies: [...strategies], was },
  );
}
