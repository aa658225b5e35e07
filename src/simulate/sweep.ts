// Running a sweep (`hlbot simulate --sweep`): every point of the plan (sweepFile.ts) is simulated over
// the same scenario and period, once per seed (one price path each; one seed by default), in worker
// threads (sweepWorker.ts, one run at a time each) or, with jobs = 1, one after the other in this
// thread; both run runSweepPoint, the code path of a plain `hlbot simulate --seed S`. A worker that
// crashes fails its run only (a new worker takes the rest); an abort terminates the workers. Then the
// points are ranked by the chosen figure, its mean over the seeds (ties: grid order, so the same sweep
// always gives the same table), and shown as a table or JSON.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { displayPath } from "../engine/config/loader.js";
import { Decimal } from "../lib/decimal.js";
import { groupDigits, replayedText } from "./format.js";
import { pointText, type SweepPlan, type SweepPoint, valueText } from "./sweepFile.js";
import {
  RANK_FIGURE_NAMES,
  RANK_FIGURES,
  type RankFigure,
  type RankFigureSpec,
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
  /**
   * The seeds (price paths) every point runs on, one run each, in this order; overrides shared.seed.
   * Default: one run per point on shared.seed.
   */
  seeds?: readonly number[] | undefined;
  signal?: AbortSignal;
  /** Called as each run ends (in the order they end); total is points × seeds. */
  onRunDone?: (run: SweepRun, done: number, total: number) => void;
  /** The worker module (default ./sweepWorker.js beside this file: the built dist/). */
  workerUrl?: URL;
}

/** One run: a point on one seed. */
export interface SweepRun {
  point: SweepPoint;
  /** The seed it ran on; undefined: the scenario's own. */
  seed?: number | undefined;
  outcome: SweepPointOutcome;
}

export interface SweepResult {
  plan: SweepPlan;
  /** One per point and seed: point by point in grid order, each point's seeds in the order given. */
  runs: SweepRun[];
  jobs: number;
  wallMs: number;
  interrupted: boolean;
}

/** The worker module beside this one. */
export const SWEEP_WORKER_URL = new URL("./sweepWorker.js", import.meta.url);

export async function runSweep(plan: SweepPlan, o: SweepRunOptions): Promise<SweepResult> {
  const t0 = performance.now();
  const seeds: Array<number | undefined> = o.seeds && o.seeds.length > 0 ? [...o.seeds] : [o.shared.seed];
  const tasks = plan.points.flatMap((point) => seeds.map((seed) => ({ point, seed })));
  const jobs = Math.max(1, Math.min(o.jobs, tasks.length));
  const jobOf = (t: (typeof tasks)[number]): SweepPointJob => ({
    ...o.shared,
    seed: t.seed,
    configPath: plan.configPath,
    edits: t.point.edits,
  });
  const runOf = (i: number, outcome: SweepPointOutcome): SweepRun => ({
    point: tasks[i]!.point,
    ...(tasks[i]!.seed === undefined ? {} : { seed: tasks[i]!.seed }),
    outcome,
  });
  const outcomes: Array<SweepPointOutcome | undefined> = tasks.map(() => undefined);
  let done = 0;
  const finish = (i: number, outcome: SweepPointOutcome) => {
    if (outcomes[i] !== undefined) return;
    outcomes[i] = outcome;
    done++;
    o.onRunDone?.(runOf(i, outcome), done, tasks.length);
  };
  if (jobs === 1) {
    for (const [i, t] of tasks.entries()) {
      if (o.signal?.aborted) break;
      finish(i, await runSweepPoint(jobOf(t), o.signal));
    }
  } else {
    await runInWorkers(tasks.map(jobOf), jobs, o.workerUrl ?? SWEEP_WORKER_URL, finish, o.signal);
  }
  const interrupted = Boolean(o.signal?.aborted);
  const runs = tasks.map((_, i) =>
    runOf(i, outcomes[i] ?? { ok: false as const, error: "interrupted", interrupted: true, wallMs: 0 }),
  );
  return { plan, runs, jobs, wallMs: performance.now() - t0, interrupted };
}

/** How long an aborted worker has to stop its run and clean up before it is terminated. */
const ABORT_GRACE_MS = 5_000;

/**
 * A pool of `size` workers taking the jobs in order, one at a time each. Resolves when every job has an
 * outcome or the signal aborted (the workers are then asked to stop, and terminated, and their jobs left
 * without one).
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
    // Asked first, so each run stops between cycles and removes its state folder; terminated if it
    // does not answer within ABORT_GRACE_MS.
    const onAbort = () => {
      for (const w of live) {
        w.postMessage({ abort: true });
        setTimeout(() => void w.terminate(), ABORT_GRACE_MS).unref();
      }
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

/** A point of the sweep with its runs (one per seed) and its place in the ranking. */
export interface RankedPoint {
  point: SweepPoint;
  /** The point's runs, one per seed, in the order the seeds were given. */
  runs: SweepRun[];
  /** "failed": a run failed (even if the others did not); "interrupted": a run was stopped. */
  status: "ok" | "failed" | "interrupted";
  /**
   * 1 = best; tied figures share a rank (1, 2, 2, 4); undefined for a failed or interrupted point, or
   * one without the figure on some seed (a cost per amount traded of a run that traded nothing).
   */
  rank: number | undefined;
  tied: boolean;
  /**
   * The rank figure, a decimal string: its mean over the seeds (one seed: that run's figure, as it is);
   * undefined when the point is not ranked.
   */
  figure: string | undefined;
  /** The worst seed's rank figure (the lowest when higher is better, else the highest); ranked only. */
  worst: string | undefined;
  /**
   * On how many seeds the point's figure was the best of all ranked points' (a tie counts for each
   * tied point); undefined when not ranked.
   */
  bestOn: number | undefined;
  /** Each seed's rank figure, in the runs' order: null for none, undefined for a run that failed. */
  perSeed: Array<string | null | undefined>;
}

/** Decimal places of a mean over several seeds (one seed's figure is kept as it is). */
const MEAN_DECIMALS = 8;

function mean(values: readonly Decimal[]): Decimal {
  if (values.length === 1) return values[0]!;
  return values
    .reduce((a, x) => a.plus(x), new Decimal(0))
    .div(values.length)
    .toDecimalPlaces(MEAN_DECIMALS, Decimal.ROUND_HALF_EVEN);
}

/** The runs grouped by point, in point order; each point's runs in their order (one per seed). */
export function pointRuns(runs: readonly SweepRun[]): SweepRun[][] {
  const byPoint = new Map<number, SweepRun[]>();
  for (const r of runs) {
    const list = byPoint.get(r.point.index);
    if (list) list.push(r);
    else byPoint.set(r.point.index, [r]);
  }
  return [...byPoint.values()].sort((a, b) => a[0]!.point.index - b[0]!.point.index);
}

/** The seeds of a sweep's runs, in order (those of its first point); undefined: the scenario's. */
export function sweepSeeds(runs: readonly SweepRun[]): Array<number | undefined> {
  return (pointRuns(runs)[0] ?? []).map((r) => r.seed);
}

/**
 * Groups the runs by point and ranks the points by the mean of the figure over their seeds, best first
 * (equal figures in grid order); then the points without it on some seed, unranked; then the points
 * with a failed or interrupted run. All in grid order within each group. With one seed per point this
 * is the ranking of the runs themselves.
 *
 * A point that traded nothing on a seed has no cost per amount traded there (RankFigureSpec.of is
 * null). It is left unranked, as with one seed, rather than ranked by the mean over the seeds where it
 * traded: that mean would be over other price paths than the other points' means, so the two would
 * not compare (and the paths it sat out are the ones it found no reason to trade on, which a mean over
 * the rest would drop unseen). Figures in the valuation coin exist for every run, so such a point is
 * still ranked by them.
 */
export function rankRuns(runs: readonly SweepRun[], by: RankFigure): RankedPoint[] {
  const spec = RANK_FIGURES[by];
  const better = (a: Decimal, b: Decimal) => (spec.better === "higher" ? b.comparedTo(a) : a.comparedTo(b));
  const points = pointRuns(runs).map((list): RankedPoint => {
    const status = list.some((r) => !r.outcome.ok && !r.outcome.interrupted)
      ? "failed"
      : list.some((r) => !r.outcome.ok)
        ? "interrupted"
        : "ok";
    return {
      point: list[0]!.point,
      runs: list,
      status,
      rank: undefined,
      tied: false,
      figure: undefined,
      worst: undefined,
      bestOn: undefined,
      perSeed: list.map((r) => (r.outcome.ok ? spec.of(r.outcome.summary) : undefined)),
    };
  });
  const ok = points.flatMap((p) => {
    if (p.status !== "ok" || p.perSeed.some((f) => f === null || f === undefined)) return [];
    const values = p.perSeed.map((f) => new Decimal(f!));
    return [{ p, values, f: mean(values) }];
  });
  ok.sort((a, b) => {
    const c = better(a.f, b.f);
    return c !== 0 ? c : a.p.point.index - b.p.point.index;
  });
  // The best figure on each seed, among the ranked points.
  const bestBySeed = (ok[0]?.values ?? []).map((_, j) =>
    ok.map((x) => x.values[j]!).reduce((a, b) => (better(a, b) <= 0 ? a : b)),
  );
  const ranked: RankedPoint[] = [];
  for (const [i, { p, values, f }] of ok.entries()) {
    const prev = ranked[i - 1];
    const same = prev !== undefined && ok[i - 1]!.f.eq(f);
    if (same) prev.tied = true;
    ranked.push({
      ...p,
      rank: same ? prev.rank : i + 1,
      tied: same,
      figure: f.toFixed(),
      worst: values.reduce((a, b) => (better(a, b) >= 0 ? a : b)).toFixed(),
      bestOn: values.filter((v, j) => v.eq(bestBySeed[j]!)).length,
    });
  }
  const rest = (want: (p: RankedPoint) => boolean) =>
    points.filter((p) => want(p) && !ok.some((x) => x.p === p));
  return [...ranked, ...rest((p) => p.status === "ok"), ...rest((p) => p.status !== "ok")];
}

/**
 * A point's figures for its row of the table: with one seed, the run's (sweepFigures); with several,
 * the mean of each over the seeds (null where a seed has none), the notional traded and the number of
 * TWAPs included. Undefined when a run failed or was interrupted.
 */
export function pointFigures(
  runs: readonly SweepRun[],
): (Record<RankFigure, string | null> & { traded: string; twaps: number }) | undefined {
  const all = runs.flatMap((r) => (r.outcome.ok ? [sweepFigures(r.outcome.summary)] : []));
  if (all.length === 0 || all.length !== runs.length) return undefined;
  if (all.length === 1) return all[0];
  const out = {
    traded: mean(all.map((f) => new Decimal(f.traded))).toFixed(),
    twaps: all.reduce((n, f) => n + f.twaps, 0) / all.length,
  } as Record<RankFigure, string | null> & { traded: string; twaps: number };
  for (const name of RANK_FIGURE_NAMES) {
    const values = all.map((f) => f[name]);
    out[name] = values.every((v) => v !== null) ? mean(values.map((v) => new Decimal(v!))).toFixed() : null;
  }
  return out;
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
  const spec: RankFigureSpec = RANK_FIGURES[by];
  return spec.unranked ?? `traded nothing, so no ${spec.label.replace(/ bps$/, "")} per amount traded`;
}

/** Why a point of several seeds whose runs succeeded has no rank (see rankRuns). */
export function unrankedSeedsText(by: RankFigure): string {
  const spec: RankFigureSpec = RANK_FIGURES[by];
  return spec.unranked !== undefined
    ? `on the seed(s) named, ${spec.unranked}; a mean over its other seeds would not compare with the others' means`
    : `traded nothing on the seed(s) named, so no ${spec.label.replace(/ bps$/, "")} per amount traded there, and a mean over its other seeds would not compare with the others' means`;
}

/** A TWAP count: a whole number, or a mean over seeds to one decimal. */
export function twapsText(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** The rank figure's name in words ("vs hold", "costs"). */
const figureName = (by: RankFigure) => RANK_FIGURES[by].label.replace(/ bps$/, "");

/** "seed 7" or "seeds 7, 11". */
const seedsText = (seeds: ReadonlyArray<number | undefined>) =>
  `seed${seeds.length === 1 ? "" : "s"} ${seeds.map((x) => x ?? "of the scenario").join(", ")}`;

/** The seeds of a point on which it has no rank figure. */
function seedsWithout(p: RankedPoint): Array<number | undefined> {
  return p.runs.filter((_, j) => p.perSeed[j] === null).map((r) => r.seed);
}

function describeRun(result: SweepResult) {
  const first = result.runs.find((r) => r.outcome.ok)?.outcome as
    | Extract<SweepPointOutcome, { ok: true }>
    | undefined;
  return first?.summary;
}

/**
 * The sweep as text: a header, the ranked table, failed runs with their error, the best point. With
 * several seeds every figure is the point's mean over them, and two columns follow the rank figure:
 * its worst seed's value and on how many seeds the point was the best.
 */
/**
 * With candles (--prices) every seed replays the same history: the seeds change only the path within
 * each candle, randomised TWAPs and faults. "worst" and "best on N of N seeds" then measure that noise,
 * not other markets (a sweep trial: a point "best on 5/5 seeds" was first in one half of the candles
 * and last in the other). Said wherever the seeds' figures are.
 */
export function sameCandlesCaveat(replayed: readonly unknown[] | undefined, seeds: number): string {
  return replayed !== undefined && replayed.length > 0 && seeds > 1
    ? `the ${seeds} seeds replay the same candles: worst and "best on" measure only the path within candles, randomised TWAPs and faults, not other markets; check other periods with --from/--to`
    : "";
}

export function formatSweep(result: SweepResult): string {
  const { plan } = result;
  const by = plan.sweep.rank;
  const spec = RANK_FIGURES[by];
  const s = describeRun(result);
  const coin = s?.valuationCoin ?? "USDC";
  const ranked = rankRuns(result.runs, by);
  const seeds = sweepSeeds(result.runs);
  const many = seeds.length > 1;
  const caveat = sameCandlesCaveat(s?.replayed, seeds.length);
  const lines: string[] = [];
  const sizes = plan.keys.map((k) => k.values.length).join(" × ");
  const count = many
    ? `${result.runs.length} run(s), ${plan.points.length} point(s) × ${seeds.length} seeds`
    : `${plan.points.length} run(s)`;
  lines.push(
    `Sweep of ${count} (${plan.keys.map((k) => k.label).join(" × ")}: ${sizes}) of ${plan.sweep.file}, bot file ${displayPath(plan.configPath)},` +
      (s
        ? ` on the ${s.scenario} scenario${replayedText(s)} (${many ? seedsText(seeds) : `seed ${s.seed}`}): ${when(s.period.from)} → ${when(s.period.to)} UTC`
        : ""),
  );
  for (const k of plan.keys) lines.push(`  ${k.label}: ${k.key} = ${k.values.map(valueText).join(", ")}`);
  lines.push(
    many
      ? `Ranked by the mean ${spec.label} over the ${seeds.length} seeds: ${spec.help}; ${spec.better} is better. ` +
          `Amounts in ${coin}; bps are per amount traded ("traded").\n` +
          `Every figure is a point's mean over the seeds; "worst ${spec.label}" is its worst seed's (the ` +
          `${spec.better === "higher" ? "lowest" : "highest"}), "best on" on how many seeds it was the best point` +
          `${caveat === "" ? "" : ` (${caveat})`}:`
      : `Ranked by ${spec.label}: ${spec.help}; ${spec.better} is better. ` +
          `Amounts in ${coin}; bps are per amount traded ("traded"):`,
    "",
  );
  const cols = figureColumns(by);
  const extra = many ? [`worst ${spec.label}`, "best on"] : [];
  const head = [
    "#",
    "point",
    ...plan.keys.map((k) => k.label),
    `${many ? "mean " : ""}${spec.label}`,
    ...extra,
    ...cols.slice(1).map((c) => RANK_FIGURES[c].label),
    "traded",
    "TWAPs",
  ];
  const rows: string[][] = [head];
  const failures: string[] = [];
  const unranked: string[] = [];
  for (const r of ranked) {
    const values = r.point.values.map(valueText);
    if (r.status !== "ok") {
      rows.push([
        "-",
        String(r.point.index),
        ...values,
        r.status,
        ...extra.map(() => ""),
        ...cols.slice(1).map(() => ""),
        "",
        "",
      ]);
      for (const run of r.runs)
        if (!run.outcome.ok && !run.outcome.interrupted)
          failures.push(
            `  point ${r.point.index} failed${many ? ` on seed ${run.seed}` : ""}: ${run.outcome.error}`,
          );
      continue;
    }
    const f = pointFigures(r.runs)!;
    if (r.rank === undefined)
      unranked.push(many ? `${r.point.index} (${seedsText(seedsWithout(r))})` : String(r.point.index));
    rows.push([
      r.rank === undefined ? "-" : `${r.rank}${r.tied ? "=" : ""}`,
      String(r.point.index),
      ...values,
      figureText(by, f[by]),
      ...(many
        ? [figureText(by, r.worst), r.bestOn === undefined ? "-" : `${r.bestOn}/${seeds.length}`]
        : []),
      ...cols.slice(1).map((c) => figureText(c, f[c])),
      money(f.traded),
      twapsText(f.twaps),
    ]);
  }
  // Numbers right-aligned, anything else (text, mappings) left.
  const keyAlign = plan.keys.map((k) => (k.values.every((v) => typeof v === "number") ? "r" : "l")).join("");
  const align = `rr${keyAlign}${"r".repeat(cols.length + extra.length + 2)}`;
  lines.push(...table(rows, align));
  if (unranked.length > 0)
    lines.push(
      "",
      `  not ranked (${many ? unrankedSeedsText(by) : unrankedText(by)}): point${unranked.length === 1 ? "" : "s"} ${unranked.join(", ")}`,
    );
  if (failures.length > 0) lines.push("", ...failures);
  const warned = plan.points.filter((p) => p.warnings !== undefined);
  if ((plan.warnings?.length ?? 0) > 0 || warned.length > 0) {
    lines.push("", "Warnings (as `hlbot config validate` gives them):");
    for (const w of plan.warnings ?? []) lines.push(`  every point: ${w}`);
    for (const p of warned)
      for (const w of p.warnings!) lines.push(`  point ${p.index} (${pointText(plan, p)}): ${w}`);
  }
  const best = ranked[0];
  if (best?.figure !== undefined) {
    // What the best point's figure rests on, when it is not what the grid was for (a sweep trial: a point
    // that never traded, or whose every TWAP a limit blocked, was "Best" on staking alone).
    const f = pointFigures(best.runs);
    const idle = f !== undefined && f.twaps === 0 && new Decimal(f.traded).isZero();
    const caveats = [
      idle ? "it traded nothing: its figure is what it held and staked" : "",
      best.point.warnings ? "its configuration is warned of above" : "",
    ].filter(Boolean);
    lines.push(
      "",
      (result.interrupted ? "Interrupted; of the runs that finished: " : "") +
        (many
          ? `Best: point ${best.point.index} (${pointText(plan, best.point)}): mean ${figureName(by)} ${figureWithUnit(by, best.figure, coin)} over ${seeds.length} seeds` +
            ` (worst ${figureWithUnit(by, best.worst!, coin)}; the best point on ${best.bestOn} of ${seeds.length} seeds${caveat === "" ? "" : `, but ${caveat}`})` +
            (best.tied ? " (tied: the first in grid order is shown first)" : "")
          : `Best: point ${best.point.index} (${pointText(plan, best.point)}): ${figureName(by)} ${figureWithUnit(by, best.figure, coin)}` +
            (best.tied ? " (tied: the first in grid order is shown first)" : "")) +
        (caveats.length > 0 ? `; but ${caveats.join(", and ")}` : ""),
    );
  } else if (unranked.length > 0)
    lines.push(
      "",
      (RANK_FIGURES[by] as RankFigureSpec).unranked !== undefined
        ? `No best: no ${many ? "point" : "run"} has a ${figureName(by)} to rank by (${many ? unrankedSeedsText(by) : unrankedText(by)})`
        : many
          ? `No best: every point traded nothing on some seed, so has no ${figureName(by)} per amount traded there`
          : `No best: every run ${unrankedText(by)}`,
    );
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

const statusOf = (o: SweepPointOutcome) => (o.ok ? "ok" : o.interrupted ? "interrupted" : "failed");

/**
 * The sweep as one JSON-ready object: the plan, then every point ranked. With one seed each point has
 * its run's whole summary; with several, its mean figures (`figure`, `worst`, `bestOn`, `figures`) and
 * per seed the run's figures and whole summary (`seeds`).
 */
export function sweepJson(result: SweepResult) {
  const { plan } = result;
  const by = plan.sweep.rank;
  const s = describeRun(result);
  const seeds = sweepSeeds(result.runs);
  const many = seeds.length > 1;
  return {
    sweep: {
      file: plan.sweep.file,
      config: plan.configPath,
      scenario: s?.scenario ?? null,
      ...(many ? { seeds } : { seed: s?.seed ?? null }),
      period: s ? { from: s.period.from, to: s.period.to, days: s.period.days } : null,
      valuationCoin: s?.valuationCoin ?? null,
      rank: {
        by,
        better: RANK_FIGURES[by].better,
        unit: RANK_FIGURES[by].unit,
        ...(many ? { of: "mean over the seeds" } : {}),
      },
      grid: plan.keys.map((k) => ({ key: k.key, label: k.label, values: k.values })),
      ...(plan.warnings ? { warnings: plan.warnings } : {}),
      points: plan.points.length,
      ...(many ? { runs: result.runs.length } : {}),
      interrupted: result.interrupted,
    },
    runs: rankRuns(result.runs, by).map((r) => {
      const head = {
        rank: r.rank ?? null,
        tied: r.tied,
        point: r.point.index,
        values: Object.fromEntries(plan.keys.map((k, i) => [k.key, r.point.values[i]])),
        status: r.status,
        figure: r.figure ?? null,
        ...(r.point.warnings ? { warnings: r.point.warnings } : {}),
      };
      if (!many) {
        const o = r.runs[0]!.outcome;
        return {
          ...head,
          ...(o.ok ? { figures: sweepFigures(o.summary), summary: o.summary } : { error: o.error }),
        };
      }
      return {
        ...head,
        worst: r.worst ?? null,
        bestOn: r.bestOn ?? null,
        figures: pointFigures(r.runs) ?? null,
        seeds: r.runs.map((run, j) => ({
          seed: run.seed ?? null,
          status: statusOf(run.outcome),
          figure: r.perSeed[j] ?? null,
          ...(run.outcome.ok
            ? { figures: sweepFigures(run.outcome.summary), summary: run.outcome.summary }
            : { error: run.outcome.error }),
        })),
      };
    }),
  };
}

export { RANK_FIGURE_NAMES, RANK_FIGURES };
