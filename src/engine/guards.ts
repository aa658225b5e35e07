// Guards that hold for the whole TWAP: a light watch of the account's running TWAPs, independent of the
// strategies' own schedules. A TWAP placed by a strategy with a price limit (`limitPx` of
// twap-accumulate: a ceiling for buys, a floor for sells; `priceLimits` of twap-rebalance, per token)
// or a `twap.maxDeviation` (from the mid at
// decision time, against the order's side) is checked at each watch: the daemon every minute, simulate
// every virtual minute, `once` at each call. Which running TWAP belongs to which strategy comes from the
// journal only (accepted twapOrder submissions with a venue twapId), never from guessing on the pair.
// When a limit is crossed, a `twapCancel` goes out through the normal cycle and executor (trigger
// "watch", journaled under the strategy's name with the reason). Nothing is read from the venue while no
// guarded TWAP runs; otherwise one allMids read, and a full cycle only when a limit is crossed.
import type { Logger } from "pino";
import { Decimal } from "../lib/decimal.js";
import { describeError } from "../lib/errors.js";
import type { CycleDeps, CycleReport } from "./cycle.js";
import { runCycle } from "./cycle.js";
import type { Decision, TwapCancelIntent } from "./intents.js";
import type { Journal } from "./journal.js";
import type { Snapshot } from "./snapshot.js";
import { fmt } from "./strategies/common.js";
import type { Strategy } from "./strategies/registry.js";
import { rebalanceLimitPx, type TwapRebalanceParams } from "./strategies/twapRebalance.js";

/** How often the daemon and simulate run the watch. */
export const WATCH_INTERVAL_MS = 60_000;

export interface WatchTarget {
  strategy: string;
  twapId: number;
  assetId: number;
  /** Venue pair name ("@107"), the key of allMids. */
  coin: string;
  side: "buy" | "sell";
  /** Buy ceiling / sell floor. */
  limitPx: Decimal | undefined;
  /** Where limitPx comes from, for the reason (default "limitPx"). */
  limitName?: string;
  maxDeviation: Decimal | undefined;
  /** Mid at decision time. */
  decisionMid: Decimal | undefined;
}

interface GuardParams {
  side?: unknown;
  limitPx?: unknown;
  twap?: { maxDeviation?: unknown };
}

/** The running TWAPs of configured strategies that carry a guard (from the journal, no network). */
export function watchTargets(
  journal: Journal,
  account: string,
  now: number,
  strategies: readonly Strategy[],
): WatchTarget[] {
  const byName = new Map(strategies.map((s) => [s.name, s]));
  const out: WatchTarget[] = [];
  for (const row of journal.runningTwaps(account, now)) {
    const def = byName.get(row.strategy);
    if (!def || row.intent === null) continue;
    let intent: {
      side?: unknown;
      coin?: unknown;
      assetId?: unknown;
      midPx?: unknown;
      decisionMidPx?: unknown;
      label?: unknown;
    };
    try {
      intent = JSON.parse(row.intent) as typeof intent;
    } catch {
      continue;
    }
    const side = intent.side === "buy" || intent.side === "sell" ? intent.side : undefined;
    const assetId = typeof intent.assetId === "number" ? intent.assetId : row.asset;
    if (side === undefined || typeof intent.coin !== "string" || assetId === null) continue;
    const params = def.params as GuardParams;
    // limitPx applies to the side the strategy trades (twap-accumulate's `side`); a rebalancer's
    // priceLimits to the token the TWAP trades (its pair's base), on the TWAP's side.
    const token = typeof intent.label === "string" ? (intent.label.split("/")[0] ?? "") : "";
    const rebalancer = def.kind === "twap-rebalance";
    const limitPx =
      def.kind === "twap-accumulate" && params.side === side
        ? decimalOf(params.limitPx)
        : rebalancer
          ? rebalanceLimitPx(def.params as TwapRebalanceParams, token, side)
          : undefined;
    const maxDeviation = decimalOf(params.twap?.maxDeviation);
    if (limitPx === undefined && maxDeviation === undefined) continue;
    if (journal.twapCancelled(account, row.twapId)) continue;
    out.push({
      strategy: row.strategy,
      twapId: row.twapId,
      assetId,
      coin: intent.coin,
      side,
      limitPx,
      ...(rebalancer
        ? { limitName: `priceLimits.${token}.${side === "sell" ? "sellFloor" : "buyCeiling"}` }
        : {}),
      maxDeviation,
      // The mid the strategy decided at (price sanity may have raised midPx, for limits only).
      decisionMid: decimalOf(intent.decisionMidPx ?? intent.midPx),
    });
  }
  return out;
}

/** Why the mid crosses a target's guard, or undefined while it holds. */
export function crossed(t: WatchTarget, mid: Decimal): string | undefined {
  if (t.limitPx !== undefined) {
    const name = t.limitName ?? "limitPx";
    if (t.side === "sell" && mid.lt(t.limitPx))
      return `mid ${fmt(mid)} fell below the sell floor ${name} ${fmt(t.limitPx)}`;
    if (t.side === "buy" && mid.gt(t.limitPx))
      return `mid ${fmt(mid)} rose above the buy ceiling ${name} ${fmt(t.limitPx)}`;
  }
  const base = t.decisionMid;
  if (t.maxDeviation !== undefined && base?.gt(0)) {
    const move = mid.minus(base).div(base);
    const against = t.side === "sell" ? move.neg() : move;
    if (against.gt(t.maxDeviation))
      return (
        `mid ${fmt(mid)} moved ${fmt(against.times(100), 2)}% against the ${t.side} from ${fmt(base)} ` +
        `at decision time (maxDeviation ${fmt(t.maxDeviation.times(100), 2)}%)`
      );
  }
  return undefined;
}

export interface WatchResult {
  /** Guarded TWAPs checked. */
  checked: number;
  /** The cancel cycle, when a guard was crossed. */
  report: CycleReport | undefined;
}

/**
 * One watch: checks the guarded running TWAPs against the current mids and cancels those crossed, in
 * one cycle (trigger "watch"). Reads nothing when no guarded TWAP runs.
 */
export async function watchRunningTwaps(
  deps: CycleDeps,
  strategies: readonly Strategy[],
  o: { signal?: AbortSignal; killSwitchActive?: boolean; logger?: Logger } = {},
): Promise<WatchResult> {
  const now = deps.clock();
  const targets = watchTargets(deps.journal, deps.account, now, strategies);
  if (targets.length === 0) return { checked: 0, report: undefined };
  const mids = (await deps.info.allMids({}, o.signal)) as Record<string, string>;
  const hit = targets.filter((t) => {
    const raw = mids[t.coin];
    return raw !== undefined && crossed(t, new Decimal(raw)) !== undefined;
  });
  if (hit.length === 0) return { checked: targets.length, report: undefined };
  const byStrategy = new Map<string, WatchTarget[]>();
  for (const t of hit) byStrategy.set(t.strategy, [...(byStrategy.get(t.strategy) ?? []), t]);
  const run: Strategy[] = [];
  const decide = new Map<string, (snapshot: Snapshot) => Decision[]>();
  for (const [name, list] of byStrategy) {
    const def = strategies.find((s) => s.name === name);
    if (!def) continue;
    run.push(def);
    decide.set(name, (snapshot) => cancels(name, list, snapshot));
  }
  const log = o.logger ?? deps.logger;
  try {
    const report = await runCycle(deps, {
      trigger: "watch",
      strategies: run,
      decide,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.killSwitchActive === undefined ? {} : { killSwitchActive: o.killSwitchActive }),
    });
    return { checked: targets.length, report };
  } catch (err) {
    log.error({ err: describeError(err) }, `TWAP watch: the cancel cycle failed: ${describeError(err)}`);
    throw err;
  }
}

/** The cancels a strategy's crossed TWAPs call for, re-checked on the cycle's own snapshot. */
function cancels(strategy: string, targets: readonly WatchTarget[], snapshot: Snapshot): Decision[] {
  const out: Decision[] = [];
  for (const t of targets) {
    const running = snapshot.twaps.find((r) => r.twapId === t.twapId);
    if (!running) {
      out.push({
        kind: "skip",
        strategy,
        considered: "twapCancel",
        reason: `TWAP #${t.twapId} is no longer running`,
      });
      continue;
    }
    const pair = [...snapshot.pairs.values()].find((p) => p.assetId === t.assetId);
    const mid = pair?.mid;
    const why = mid === undefined ? undefined : crossed(t, mid);
    if (why === undefined) {
      out.push({
        kind: "skip",
        strategy,
        considered: "twapCancel",
        reason: `TWAP #${t.twapId}: the mid is back within the limits`,
      });
      continue;
    }
    const cancel: TwapCancelIntent = {
      kind: "twapCancel",
      strategy,
      assetId: t.assetId,
      twapId: t.twapId,
      reason: `cancel TWAP #${t.twapId} (${t.side} ${fmt(running.size)} on ${running.coin}): ${why}`,
    };
    out.push(cancel);
  }
  return out;
}

function decimalOf(value: unknown): Decimal | undefined {
  if (value instanceof Decimal) return value;
  if (typeof value === "string" || typeof value === "number") {
    try {
      return new Decimal(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
