// `hlbot simulate --sweep FILE [--seeds 42,7,11] [--jobs N]`: the terminal side of a parameter sweep.
// Reads the sweep file, merges it with the command line (flags win), checks the scenario, the period,
// the seeds and every grid point's configuration before anything runs (exit 2), runs every point once
// per seed on `--jobs` worker threads with a progress bar on a terminal (else one line per finished run
// on stderr), and prints the ranked table (or JSON with --json) and the HTML report with --report.
// Ctrl-C terminates the workers and prints what finished (exit 130); a failed run is shown with its
// error and makes the exit code 1.
import { availableParallelism } from "node:os";
import { type ConfigIssue, ConfigIssuesError } from "../engine/config/issues.js";
import { ValidationError, type ValidationIssue } from "../lib/errors.js";
import { maskKeyShaped } from "../lib/secrets.js";
import type { SweepRun } from "../simulate/sweep.js";
import type { SweepFile } from "../simulate/sweepFile.js";
import { readSimulateOptions, type SimulateOptions, simulatedConfigPath } from "./commands/simulate.js";
import type { CliContext } from "./context.js";
import { parseInteger } from "./options.js";
import { stderrBar } from "./progress.js";

type Period = ReturnType<typeof readSimulateOptions>;

/** Most samples per run kept for the HTML report's chart. */
const REPORT_SAMPLES = 400;

/** The sweep file's days/from/to, read as the flags are read; problems at the file's lines (its seed:
 * is checked when the file is read). */
async function filePeriod(sweep: SweepFile): Promise<Period> {
  const { sweepIssue } = await import("../simulate/sweepFile.js");
  try {
    return readSimulateOptions({
      ...(sweep.days === undefined ? {} : { days: String(sweep.days) }),
      ...(sweep.from === undefined ? {} : { from: sweep.from }),
      ...(sweep.to === undefined ? {} : { to: sweep.to }),
    });
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const issues: ConfigIssue[] = err.issues.map((i) => {
      const key = i.path.replace(/^--/, "");
      return sweepIssue(sweep, [key], i.message.replace(/--(days|from|to)\b/g, "$1:"));
    });
    throw new ConfigIssuesError(issues);
  }
}

export async function runSweepCommand(opts: SimulateOptions, cli: Period, ctx: CliContext): Promise<void> {
  const issues: ValidationIssue[] = [];
  if (opts.sweep === undefined)
    for (const [flag, given] of [
      ["--jobs", opts.jobs],
      ["--seeds", opts.seeds],
    ] as const)
      if (given !== undefined) issues.push({ path: flag, message: "only with --sweep" });
  if (opts.seeds !== undefined && opts.seed !== undefined)
    issues.push({ path: "--seeds", message: "give either --seed (one) or --seeds (several), not both" });
  if (opts.fork) issues.push({ path: "--fork", message: "a sweep runs a scenario: give --sweep or --fork" });
  let jobs = availableParallelism();
  if (opts.jobs !== undefined) {
    try {
      jobs = parseInteger(opts.jobs, "--jobs", 1);
      // Each worker holds a simulator and a journal in memory; beyond the cores they only share them (a
      // sweep trial: --jobs 1000 would start a thousand threads).
      const most = 4 * availableParallelism();
      if (jobs > most)
        issues.push({
          path: "--jobs",
          message: `at most ${most} (4 per core on this machine): more threads than cores only share them, and each holds a simulator in memory`,
        });
    } catch (err) {
      issues.push(...((err as ValidationError).issues ?? []));
    }
  }
  const { readSweepFile, planSweep, pointText, parseSeeds } = await import("../simulate/sweepFile.js");
  let cliSeeds: number[] | undefined;
  if (opts.seeds !== undefined && opts.sweep !== undefined) {
    try {
      cliSeeds = parseSeeds(opts.seeds);
    } catch (err) {
      issues.push(...((err as ValidationError).issues ?? []));
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);

  const sweep = await readSweepFile(opts.sweep!);
  const inFile = await filePeriod(sweep);
  // Flags win: --days or --to replaces the file's length (days: or to:), --from its start.
  const length = cli.days !== undefined || cli.to !== undefined ? cli : inFile;
  const period = {
    from: cli.from ?? inFile.from,
    to: length.to,
    days: length.days,
  };
  // --seed or --seeds, else the file's seed: (one or a list), else the scenario's. One seed runs as
  // before (undefined: the scenario's); several run every point once on each.
  const seeds = cli.seed !== undefined ? [cli.seed] : (cliSeeds ?? sweep.seeds);
  const many = seeds !== undefined && seeds.length > 1;
  if (period.from !== undefined && period.to !== undefined && period.to <= period.from)
    throw new ValidationError([
      {
        path: cli.to !== undefined ? "--to" : "--from",
        message: `the end ${new Date(period.to).toISOString()} is not after the start ${new Date(period.from).toISOString()}`,
      },
    ]);
  // --config, else the sweep file's, else the bot file every command finds, else the demo.
  const configPath =
    opts.config === undefined && sweep.config !== undefined
      ? sweep.config
      : await simulatedConfigPath(opts.config, ctx.env);
  const scenarioFile = opts.scenario ?? sweep.scenario;
  // The scenario, the candle files and the period (events before its start included) are checked once
  // here, not by every run.
  const { DEMO_SCENARIO_PATH, loadScenarioFile } = await import("../simulator/index.js");
  const { runPeriod } = await import("../simulate/runner.js");
  const scenarioPath = scenarioFile ?? DEMO_SCENARIO_PATH;
  const checked = runPeriod({ ...period, prices: opts.prices }, loadScenarioFile(scenarioPath), scenarioPath);
  const env = { ...ctx.env };
  const plan = await planSweep(sweep, configPath, env);
  // What every run replays, said once, as plain `simulate` says it: the candles, gaps, flat time, and
  // the bot file's strategies that decide inside the candles.
  const { replayNotes } = await import("../simulate/format.js");
  for (const line of replayNotes({ ...checked, strategies: plan.schedules }, checked.replayed))
    ctx.stderr(`${line}\n`);

  const { runSweep, formatSweep, sweepJson, figureWithUnit, unrankedText, RANK_FIGURES } = await import(
    "../simulate/sweep.js"
  );
  const total = plan.points.length * (seeds?.length ?? 1);
  const used = Math.min(jobs, total);
  const figure = RANK_FIGURES[sweep.rank];
  const progress = process.stderr.isTTY ? await progressBar(total) : undefined;
  let failed = 0;
  let interrupted = 0;
  const onRunDone = (run: SweepRun, done: number) => {
    if (!run.outcome.ok && !run.outcome.interrupted) failed++;
    // Runs an interrupt cut short are not done (the bar read 25/27 beside "23 of 27 runs").
    if (!run.outcome.ok && run.outcome.interrupted) interrupted++;
    if (progress) return progress.update(done - interrupted, failed);
    if (!run.outcome.ok && run.outcome.interrupted) return;
    const value = run.outcome.ok ? figure.of(run.outcome.summary) : null;
    const what = !run.outcome.ok
      ? `failed: ${run.outcome.error}`
      : value === null
        ? unrankedText(sweep.rank)
        : `${figure.label.replace(/ bps$/, "")} ${figureWithUnit(sweep.rank, value, run.outcome.summary.valuationCoin)}`;
    ctx.stderr(
      `hlbot simulate --sweep: ${done}/${total} point ${run.point.index} (${pointText(plan, run.point)})${many ? ` seed ${run.seed}` : ""}: ${what} (${(run.outcome.wallMs / 1000).toFixed(2)} s)\n`,
    );
  };
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  let result: Awaited<ReturnType<typeof runSweep>>;
  try {
    result = await runSweep(plan, {
      jobs: used,
      shared: {
        env,
        scenarioFile,
        prices: opts.prices,
        seed: seeds?.length === 1 ? seeds[0] : undefined,
        from: period.from,
        to: period.to,
        days: period.days,
        ...(opts.http ? { transport: "http" as const } : {}),
        ...(opts.report !== undefined ? { samples: REPORT_SAMPLES } : {}),
      },
      ...(many ? { seeds } : {}),
      signal: controller.signal,
      onRunDone,
    });
  } finally {
    progress?.stop();
    process.off("SIGINT", onSignal);
  }
  if (opts.report !== undefined) {
    const { renderSweepReport } = await import("../simulate/report.js");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(opts.report, renderSweepReport(result));
  }
  if (opts.json) writeSweepJson(sweepJson(result), ctx.stdout);
  else ctx.stdout(formatSweep(result));
  const runs = result.runs.filter((r) => r.outcome.ok || !r.outcome.interrupted).length;
  ctx.stderr(
    `hlbot simulate --sweep: ${runs} of ${total} run(s) in ${(result.wallMs / 1000).toFixed(2)} s on ${result.jobs === 1 ? "this thread" : `${result.jobs} worker threads`}` +
      (failed > 0 ? `; ${failed} failed` : "") +
      (result.interrupted ? "; interrupted" : "") +
      (opts.report !== undefined ? `; report written to ${maskKeyShaped(opts.report)}` : "") +
      "\n",
  );
  if (result.interrupted) ctx.exitCode = 130;
  else if (failed > 0) ctx.exitCode = 1;
}

/** A progress bar over the runs on stderr (only used when stderr is a terminal). */
async function progressBar(total: number) {
  const bar = await stderrBar(
    "sweep |{bar}| {value}/{total} runs | {failed} failed | {eta_formatted} left",
    5,
  );
  bar.start(total, 0, { failed: 0 });
  return {
    update: (done: number, failed: number) => bar.update(done, { failed }),
    stop: () => bar.stop(),
  };
}

/**
 * `JSON.stringify(json, null, 2)`, written a run at a time: a sweep of 360 runs made one string beyond
 * V8's limit ("Invalid string length") after 23 minutes of runs, and printed nothing (a sweep trial).
 */
export function writeSweepJson(
  json: { sweep: unknown; runs: readonly unknown[] },
  write: (text: string) => void,
): void {
  const nested = (value: unknown, pad: string) => JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);
  write(`{\n  "sweep": ${nested(json.sweep, "  ")},\n  "runs": [`);
  json.runs.forEach((run, i) => {
    write(`${i === 0 ? "" : ","}\n    ${nested(run, "    ")}`);
  });
  write(json.runs.length === 0 ? "]\n}\n" : "\n  ]\n}\n");
}
