// Running a sweep (`hlbot simulate --sweep`): every point of the plan (sweepFile.ts) is simulated over
// the same scenario, seed and period, in worker threads (sweepWorker.ts, one point at a time each) or,
// with jobs = 1, one after the other in this thread; both run runSweepPoint, the code path of a plain
// `hlbot simulate`. A worker that crashes fails its point only (a new worker takes the rest); an abort
// terminates the workers. Then the runs are ranked by the chosen figure (ties: grid order, so the
// same sweep always gives the same table) and shown as a table or JSON.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { Decimal } from "../lib/decimal.js";
import { groupDigits, replayedText } from "./format.js";
import { pointText, type SweepPlan, type SweepPoint, valueText } from "./sweepFile.js";
import {
  RANK_FIGURE_NAMES,
  RANK_FIGURES,
  type RankFigure,
  runSweepPoint,
  type SweepPointJob,
  type SweepPointOutcome,
  sweepFigures,
} from "./sweepPoint.js";

/** The run settings every point shares (all but the point's values). */
export type SweepShared = Omit<SweepPointJob, "edits" | "configPath">;

export interface SweepRunOptions {
  /** Worker threads; 1 runs every point in this thread, one after the other. */
  jobs: number;
  shared: SweepShared;
  signal?: AbortSignal;
  /** Called as each point ends (in the order they end). */
  onPointDone?: (run: SweepRun, done: number, total: number) => void;
  /** The worker module (default ./sweepWorker.js beside this file: the built dist/). */
  workerUrl?: URL;
}

export interface SweepRun {
  point: SweepPoint;
  outcome: SweepPointOutcome;
}

export interface SweepResult {
  plan: SweepPlan;
  /** One per point, in point order. */
  runs: SweepRun[];
  jobs: number;
  wallMs: number;
  interrupted: boolean;
}

/** The worker module beside this one. */
export const SWEEP_WORKER_URL = new URL("./sweepWorker.js", import.meta.url);

export async function runSweep(plan: SweepPlan, o: SweepRunOptions): Promise<SweepResult> {
  const t0 = performance.now();
  const jobs = Math.max(1, Math.min(o.jobs, plan.points.length));
  const jobOf = (p: SweepPoint): SweepPointJob => ({
    ...o.shared,
    configPath: plan.configPath,
    edits: p.edits,
  });
  const outcomes: Array<SweepPointOutcome | undefined> = plan.points.map(() => undefined);
  let done = 0;
  const finish = (i: number, outcome: SweepPointOutcome) => {
    if (outcomes[i] !== undefined) return;
    outcomes[i] = outcome;
    done++;
    o.onPointDone?.({ point: plan.points[i]!, outcome }, done, plan.points.length);
  };
  if (jobs === 1) {
    for (const [i, p] of plan.points.entries()) {
      if (o.signal?.aborted) break;
      finish(i, await runSweepPoint(jobOf(p), o.signal));
    }
  } else {
    await runInWorkers(plan.points.map(jobOf), jobs, o.workerUrl ?? SWEEP_WORKER_URL, finish, o.signal);
  }
  const interrupted = Boolean(o.signal?.aborted);
  const runs = plan.points.map((point, i) => ({
    point,
    outcome: outcomes[i] ?? { ok: false as const, error: "interrupted", interrupted: true, wallMs: 0 },
  }));
  return { plan, runs, jobs, wallMs: performance.now() - t0, interrupted };
}

/**
 * A pool of `size` workers taking the jobs in order, one at a time each. Resolves when every job has an
 * outcome or the signal aborted (the workers are then terminated and their jobs left without one).
 */
function runInWorkers(
  jobs: SweepPointJob[],
  size: number,
  url: URL,
  finish: (i: number, outcome: SweepPointOutcome) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (url.protocol === "file:" && !existsSync(fileURLToPath(url)))
    throw new Error(
      `the sweep worker ${fileURLToPath(url)} is not there: worker threads run the built JavaScript (npm run build), or run with jobs: 1`,
    );
  return new Promise((resolveAll) => {
    let next = 0;
    const live = new Set<Worker>();
    const started = new Map<number, number>();
    const settle = () => {
      if (live.size === 0) {
        signal?.removeEventListener("abort", onAbort);
        resolveAll();
      }
    };
    const onAbort = () => {
      for (const w of live) void w.terminate();
    };
    const spawn = () => {
      const worker = new Worker(url);
      live.add(worker);
      let current: number | undefined;
      let crash: string | undefined;
      const give = () => {
        if (signal?.aborted || next >= jobs.length) {
          current = undefined;
          void worker.terminate();
          return;
        }
        current = next++;
        started.set(current, performance.now());
        worker.postMessage({ id: current, job: jobs[current] });
      };
      worker.on("message", (m: { id: number; outcome: SweepPointOutcome }) => {
        if (m.id === current) finish(m.id, m.outcome);
        give();
      });
      worker.on("error", (err) => {
        crash = err instanceof Error ? err.message : String(err);
      });
      worker.on("exit", (code) => {
        live.delete(worker);
        if (current !== undefined && !signal?.aborted) {
          const wallMs = performance.now() - (started.get(current) ?? performance.now());
          finish(current, {
            ok: false,
            error: `the worker running it crashed: ${crash ?? `it exited with code ${code}`}`,
            wallMs,
          });
          // The others go on; a new worker takes this one's place.
          if (next < jobs.length) spawn();
        }
        settle();
      });
      give();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    for (let i = 0; i < size && i < jobs.length; i++) spawn();
  });
}

// ---- ranking ----

export interface RankedRun extends SweepRun {
  /**
   * 1 = best; tied figures share a rank (1, 2, 2, 4); undefined for a failed or interrupted run, or one
   * without the figure (a cost per amount traded of a run that traded nothing).
   */
  rank: number | undefined;
  tied: boolean;
  /** The rank figure, a decimal string; undefined when the run failed or has none. */
  figure: string | undefined;
}

/**
 * Runs with the figure, best first (equal figures in grid order); then the runs without it (nothing
 * traded to rate a cost by), unranked; then the failed ones. All in grid order within each group.
 */
export function rankRuns(runs: readonly SweepRun[], by: RankFigure): RankedRun[] {
  const spec = RANK_FIGURES[by];
  const ok = runs.flatMap((r) => {
    const f = r.outcome.ok ? spec.of(r.outcome.summary) : null;
    return f === null ? [] : [{ r, f: new Decimal(f) }];
  });
  ok.sort((a, b) => {
    const c = spec.better === "higher" ? b.f.comparedTo(a.f) : a.f.comparedTo(b.f);
    return c !== 0 ? c : a.r.point.index - b.r.point.index;
  });
  const ranked: RankedRun[] = [];
  for (const [i, { r, f }] of ok.entries()) {
    const prev = ranked[i - 1];
    const same = prev !== undefined && ok[i - 1]!.f.eq(f);
    const rank = same ? prev.rank : i + 1;
    if (same) prev.tied = true;
    ranked.push({ ...r, rank, tied: same, figure: f.toFixed() });
  }
  const unranked = (want: (r: SweepRun) => boolean) =>
    runs
      .filter((r) => want(r) && !ok.some((x) => x.r === r))
      .sort((a, b) => a.point.index - b.point.index)
      .map((r) => ({ ...r, rank: undefined, tied: false, figure: undefined }));
  return [...ranked, ...unranked((r) => r.outcome.ok), ...unranked((r) => !r.outcome.ok)];
}

// ---- output ----

const when = (iso: string) => iso.replace("T", " ").replace(/:\d\d\.\d{3}Z$/, "");
const money = (v: string) => groupDigits(new Decimal(v).toFixed(2));
const signed = (v: string) => (v.startsWith("-") ? money(v) : `+${money(v)}`);

/** A rank figure for people: 2 decimals, grouped; vs buy and hold signed; "-" for none. */
export function figureText(by: RankFigure, value: string | null | undefined): string {
  if (value === null || value === undefined) return "-";
  return by === "vsBenchmark" ? signed(value) : money(value);
}

/** A rank figure with its unit: "+12.30 USDC", "4.50 bps". */
export function figureWithUnit(by: RankFigure, value: string, coin: string): string {
  return `${figureText(by, value)} ${RANK_FIGURES[by].unit === "bps" ? "bps" : coin}`;
}

/** The figure columns of the table: the rank figure first, then the others. */
export function figureColumns(by: RankFigure): RankFigure[] {
  const shown: RankFigure[] = ["vsBenchmark", "endValue", "costs", "slippage", "rewards"];
  return [by, ...shown.filter((f) => f !== by)];
}

/** Why a run that succeeded has no rank: it has no figure to rank by. */
export function unrankedText(by: RankFigure): string {
  return `traded nothing, so no ${RANK_FIGURES[by].label.replace(/ bps$/, "")} per amount traded`;
}

function describeRun(result: SweepResult) {
  const first = result.runs.find((r) => r.outcome.ok)?.outcome as
    | Extract<SweepPointOutcome, { ok: true }>
    | undefined;
  return first?.summary;
}

/** The sweep as text: a header, the ranked table, failed runs with their error, the best point. */
export function formatSweep(result: SweepResult): string {
  const { plan } = result;
  const by = plan.sweep.rank;
  const spec = RANK_FIGURES[by];
  const s = describeRun(result);
  const coin = s?.valuationCoin ?? "USDC";
  const ranked = rankRuns(result.runs, by);
  const lines: string[] = [];
  const sizes = plan.keys.map((k) => k.values.length).join(" × ");
  lines.push(
    `Sweep of ${plan.points.length} run(s) (${plan.keys.map((k) => k.label).join(" × ")}: ${sizes}) of ${plan.sweep.file}` +
      (s
        ? ` on the ${s.scenario} scenario${replayedText(s)} (seed ${s.seed}): ${when(s.period.from)} → ${when(s.period.to)} UTC`
        : ""),
  );
  for (const k of plan.keys) lines.push(`  ${k.label}: ${k.key} = ${k.values.map(valueText).join(", ")}`);
  lines.push(
    `Ranked by ${spec.label}: ${spec.help}; ${spec.better} is better. ` +
      `Amounts in ${coin}; bps are of the notional traded ("traded"):`,
    "",
  );
  const cols = figureColumns(by);
  const head = [
    "#",
    "point",
    ...plan.keys.map((k) => k.label),
    ...cols.map((c) => RANK_FIGURES[c].label),
    "traded",
    "TWAPs",
  ];
  const rows: string[][] = [head];
  const failures: string[] = [];
  const unranked: number[] = [];
  for (const r of ranked) {
    const values = r.point.values.map(valueText);
    if (!r.outcome.ok) {
      const why = r.outcome.interrupted ? "interrupted" : "failed";
      rows.push(["-", String(r.point.index), ...values, why, ...cols.slice(1).map(() => ""), "", ""]);
      if (!r.outcome.interrupted) failures.push(`  point ${r.point.index} failed: ${r.outcome.error}`);
      continue;
    }
    const f = sweepFigures(r.outcome.summary);
    if (r.rank === undefined) unranked.push(r.point.index);
    rows.push([
      r.rank === undefined ? "-" : `${r.rank}${r.tied ? "=" : ""}`,
      String(r.point.index),
      ...values,
      ...cols.map((c) => figureText(c, f[c])),
      money(f.traded),
      String(f.twaps),
    ]);
  }
  // Numbers right-aligned, anything else (text, mappings) left.
  const keyAlign = plan.keys.map((k) => (k.values.every((v) => typeof v === "number") ? "r" : "l")).join("");
  const align = `rr${keyAlign}${"r".repeat(cols.length + 2)}`;
  lines.push(...table(rows, align));
  if (unranked.length > 0)
    lines.push(
      "",
      `  not ranked (${unrankedText(by)}): point${unranked.length === 1 ? "" : "s"} ${unranked.join(", ")}`,
    );
  if (failures.length > 0) lines.push("", ...failures);
  const best = ranked[0];
  if (best?.figure !== undefined) {
    lines.push(
      "",
      `Best: point ${best.point.index} (${pointText(plan, best.point)}): ${spec.label.replace(/ bps$/, "")} ${figureWithUnit(by, best.figure, coin)}` +
        (best.tied ? " (tied: the first in grid order is shown first)" : ""),
    );
  } else if (unranked.length > 0) lines.push("", `No best: every run ${unrankedText(by)}`);
  const failed = result.runs.filter((r) => !r.outcome.ok && !r.outcome.interrupted).length;
  const stopped = result.runs.filter((r) => !r.outcome.ok && r.outcome.interrupted).length;
  if (failed > 0 || stopped > 0)
    lines.push(
      `${failed > 0 ? `${failed} run(s) failed` : ""}${failed > 0 && stopped > 0 ? "; " : ""}${stopped > 0 ? `${stopped} run(s) interrupted` : ""}`,
    );
  return `${lines.join("\n")}\n`;
}

function table(rows: string[][], align: string): string[] {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  return rows.map(
    (r) =>
      `  ${r
        .map((c, i) => ((align[i] ?? "r") === "l" ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join("  ")
        .trimEnd()}`,
  );
}

/** The sweep as one JSON-ready object: the plan, then every run ranked, each with its whole summary. */
export function sweepJson(result: SweepResult) {
  const { plan } = result;
  const by = plan.sweep.rank;
  const s = describeRun(result);
  return {
    sweep: {
      file: plan.sweep.file,
      config: plan.configPath,
      scenario: s?.scenario ?? null,
      seed: s?.seed ?? null,
      period: s ? { from: s.period.from, to: s.period.to, days: s.period.days } : null,
      valuationCoin: s?.valuationCoin ?? null,
      rank: { by, better: RANK_FIGURES[by].better, unit: RANK_FIGURES[by].unit },
      grid: plan.keys.map((k) => ({ key: k.key, label: k.label, values: k.values })),
      points: plan.points.length,
      interrupted: result.interrupted,
    },
    runs: rankRuns(result.runs, by).map((r) => ({
      rank: r.rank ?? null,
      tied: r.tied,
      point: r.point.index,
      values: Object.fromEntries(plan.keys.map((k, i) => [k.key, r.point.values[i]])),
      status: r.outcome.ok ? "ok" : r.outcome.interrupted ? "interrupted" : "failed",
      figure: r.figure ?? null,
      ...(r.outcome.ok
        ? { figures: sweepFigures(r.outcome.summary), summary: r.outcome.summary }
        : { error: r.outcome.error }),
    })),
  };
}

export { RANK_FIGURE_NAMES, RANK_FIGURES };
