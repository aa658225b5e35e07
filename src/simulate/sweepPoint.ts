// One point of a parameter sweep (`hlbot simulate --sweep`), plain data in and plain data out, so that
// it runs the same in a worker thread (sweepWorker.ts) or in-process. The bot file is loaded by the
// normal loader with the point's values set in the parsed YAML before validation (loadConfig's edit
// hook), then simulated by runSimulation and summarised by buildSummary: the same code path as
// `hlbot simulate --config` on a file holding those values, so a point's summary is that run's summary.
// Also here: the figures a sweep ranks its runs by, all read from the summary.
import { loadConfig } from "../engine/config/loader.js";
import { describeError } from "../lib/errors.js";
import type { YamlSource } from "../lib/yamlSource.js";
import { HOUR } from "../simulator/index.js";
import { runSimulation, type Sample } from "./runner.js";
import { buildSummary, type SimulationSummary } from "./summary.js";

/** One value of a point, set at a key path of the bot file or of one strategy's file. */
export interface SweepEdit {
  /** The strategy (by name) whose file holds the key; undefined: the bot file. */
  strategy?: string | undefined;
  path: Array<string | number>;
  value: unknown;
}

/** Everything a run of one point needs, as structured-clonable data. */
export interface SweepPointJob {
  /** Absolute path of the bot file. */
  configPath: string;
  /** The environment the bot file's `${VAR}` references are expanded from. */
  env: Record<string, string | undefined>;
  edits: SweepEdit[];
  scenarioFile?: string | undefined;
  prices?: string[] | undefined;
  seed?: number | undefined;
  from?: number | undefined;
  to?: number | undefined;
  days?: number | undefined;
  transport?: "in-process" | "http" | undefined;
  /** Also return the account samples (thinned to at most this many), for the HTML report. */
  samples?: number | undefined;
}

export type SweepPointOutcome =
  | {
      ok: true;
      summary: SimulationSummary;
      samples: Sample[] | undefined;
      wallMs: number;
    }
  | { ok: false; error: string; wallMs: number; interrupted?: boolean };

/** The loader hook setting a point's values: each edit in the bot file or its strategy's file. */
export function sweepEditHook(edits: readonly SweepEdit[]) {
  return (src: YamlSource, role: "bot" | "strategy"): void => {
    const name = role === "strategy" ? src.doc.get("name") : undefined;
    for (const e of edits) {
      if (role === "bot" ? e.strategy !== undefined : e.strategy === undefined || e.strategy !== name)
        continue;
      src.doc.setIn(e.path, src.doc.createNode(e.value));
    }
  };
}

/** Runs one point. Never throws: a failure (or an interrupted run) is an outcome with its error. */
export async function runSweepPoint(job: SweepPointJob, signal?: AbortSignal): Promise<SweepPointOutcome> {
  const t0 = performance.now();
  try {
    const config = await loadConfig(job.configPath, job.env, { edit: sweepEditHook(job.edits) });
    const result = await runSimulation({
      config,
      ...(job.scenarioFile === undefined ? {} : { scenarioFile: job.scenarioFile }),
      ...(job.prices ? { prices: job.prices } : {}),
      ...(job.seed === undefined ? {} : { seed: job.seed }),
      ...(job.from === undefined ? {} : { from: job.from }),
      ...(job.to === undefined ? {} : { to: job.to }),
      ...(job.days === undefined ? {} : { days: job.days }),
      ...(job.transport === "http" ? { transport: "http" as const } : {}),
      ...(signal ? { signal } : {}),
    });
    if (result.record.interrupted)
      return { ok: false, error: "interrupted", interrupted: true, wallMs: performance.now() - t0 };
    return {
      ok: true,
      summary: buildSummary(result.record),
      samples: job.samples === undefined ? undefined : gridSamples(result.record.samples, job.samples),
      wallMs: performance.now() - t0,
    };
  } catch (err) {
    return { ok: false, error: describeError(err), wallMs: performance.now() - t0 };
  }
}

/**
 * At most about `max` samples for a chart: the last one at each time of an even grid of whole hours
 * from the start (the regular samples every run takes at the same times, so the runs of a sweep line
 * up), and the very last. The extra samples of cycles that acted between grid times fall out.
 */
export function gridSamples(samples: Sample[], max: number, every = HOUR): Sample[] {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (!first || !last) return samples;
  const step = every * Math.max(1, Math.ceil((last.t - first.t) / every / Math.max(1, max - 1)));
  const byTime = new Map<number, Sample>();
  for (const x of samples) if ((x.t - first.t) % step === 0) byTime.set(x.t, x);
  byTime.set(last.t, last);
  return [...byTime.values()];
}

// ---- the figures a sweep is ranked by ----

export interface RankFigureSpec {
  /** Column heading and wording. */
  label: string;
  better: "higher" | "lower";
  /**
   * "coin": an amount in the valuation coin; "bps": basis points of the notional traded, so a run that
   * trades less does not look cheaper for it.
   */
  unit: "coin" | "bps";
  /** What it is, for `--help` and the README. */
  help: string;
  /** The figure as a decimal string; null when the run has none (a cost per amount traded of a run that
   * traded nothing): such a run is not ranked by it. */
  of: (s: SimulationSummary) => string | null;
  /** Why a run has no figure, when not for trading nothing (see `of`). */
  unranked?: string;
}

export const RANK_FIGURES = {
  vsBenchmark: {
    label: "vs hold",
    better: "higher",
    unit: "coin",
    help: "the bot's change minus buy and hold's (the starting holdings untouched at the same prices), each without its deposits and withdrawals: the summary's bot − buy and hold",
    of: (s) => s.benchmark.botMinusBenchmark,
  },
  endValue: {
    label: "end value",
    better: "higher",
    unit: "coin",
    help: "the portfolio's value at the end (a run whose scenario withdrawal was paid only in part is not ranked by it)",
    // A withdrawal paid in part leaves the rest in the account, which then ranks higher for not paying
    // what the user took out (a sweep trial: first by 25,800 USDC); vs hold counts it.
    of: (s) => (s.portfolio.flows.some((f) => f.requested !== undefined) ? null : s.portfolio.end.value),
    unranked:
      "a scenario withdrawal was paid only in part, so its end value keeps what was to be taken out; vs hold counts it",
  },
  costs: {
    label: "costs bps",
    better: "lower",
    unit: "bps",
    help: "trading costs per amount traded: fees (in bps of the notional paid) plus spread and impact (in bps of the slices' mids)",
    of: (s) => s.execution.costsBps,
  },
  fees: {
    label: "fees bps",
    better: "lower",
    unit: "bps",
    help: "fees paid, in bps of the notional traded",
    of: (s) => s.execution.feesBps,
  },
  slippage: {
    label: "slippage bps",
    better: "lower",
    unit: "bps",
    help: "slippage against the mid each TWAP was decided at, in bps of the notional at those mids",
    of: (s) => s.execution.slippageBps,
  },
  rewards: {
    label: "rewards",
    better: "higher",
    unit: "coin",
    help: "staking rewards, valued at the end price",
    of: (s) => s.staking.rewards.value,
  },
} as const satisfies Record<string, RankFigureSpec>;

export type RankFigure = keyof typeof RANK_FIGURES;
export const RANK_FIGURE_NAMES = Object.keys(RANK_FIGURES) as RankFigure[];

/** Every rank figure of a summary (null: none, see RankFigureSpec.of), the notional traded in the
 * valuation coin and the number of TWAPs. */
export function sweepFigures(
  s: SimulationSummary,
): Record<RankFigure, string | null> & { traded: string; twaps: number } {
  // The bot's TWAPs: a carried one (a fork's) is not its trade (a review: a Best that traded nothing was
  // not said to when the scenario carried one).
  const out = {
    traded: s.execution.notional,
    twaps: s.twaps.filter((t) => t.carried !== true).length,
  } as Record<RankFigure, string | null> & {
    traded: string;
    twaps: number;
  };
  for (const name of RANK_FIGURE_NAMES) out[name] = RANK_FIGURES[name].of(s);
  return out;
}
