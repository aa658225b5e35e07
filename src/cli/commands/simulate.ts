// `hlbot simulate`: days of strategy behaviour in seconds. Runs the configured strategies on their
// schedules against the embedded venue simulator in virtual time (no key, no network: a demo key is
// derived from the seed), then prints a summary (text, or JSON with --json) and optionally writes a
// self-contained HTML report. `npm start` runs it on the bundled demo configuration and scenario.
// With --fork the scenario is read from a real account (the only case where it talks to a venue).
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { LoadedConfig } from "../../engine/config/loader.js";
import { noSuchDayNote, parseUtcDateTime } from "../../lib/dateTime.js";
import { ValidationError, type ValidationIssue } from "../../lib/errors.js";
import { maskKeyShaped } from "../../lib/secrets.js";
import { ADDRESS_PATTERN } from "../../venue/constants.js";
import type { NetworkName } from "../../venue/networks.js";
import type { CliContext } from "../context.js";
import { parseInteger } from "../options.js";
import { stderrBar } from "../progress.js";

/** The bundled demo bot (config/demo.yaml of the package, from src/ and from dist/ alike). */
export const DEMO_CONFIG_PATH = fileURLToPath(new URL("../../../config/demo.yaml", import.meta.url));

/**
 * The bot file a simulation runs: `option` (--config), else the one every command finds ($HLBOT_CONFIG,
 * ./hlbot.yaml, ~/.config/hlbot/config.yaml), else `fallback` (default: the bundled demo). Never the
 * shipped config/default.yaml the other commands fall back to: a simulation of it would look like one
 * of the user's own strategies.
 */
export async function simulatedConfigPath(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  fallback = DEMO_CONFIG_PATH,
): Promise<string> {
  const { discoverConfigPath } = await import("../../engine/config/loader.js");
  return discoverConfigPath(option, env) ?? fallback;
}

export interface SimulateOptions {
  config?: string;
  scenario?: string;
  days?: string;
  from?: string;
  to?: string;
  seed?: string;
  seeds?: string;
  report?: string;
  json?: boolean;
  http?: boolean;
  fork?: boolean;
  prices?: string[];
  account?: string;
  network?: string;
  baseUrl?: string;
  sweep?: string;
  jobs?: string;
}

/** Checks every flag before anything starts (ValidationError → exit 2). */
export function readSimulateOptions(o: SimulateOptions): {
  days: number | undefined;
  from: number | undefined;
  to: number | undefined;
  seed: number | undefined;
} {
  const issues: ValidationIssue[] = [];
  const time = (text: string | undefined, flag: string) => {
    if (text === undefined) return undefined;
    // A bare date or a time without a zone is read as UTC, like the venue's clock.
    const trimmed = text.trim();
    const t = parseUtcDateTime(trimmed);
    if (Number.isNaN(t))
      issues.push({
        path: flag,
        message: `expected an ISO date or date-time such as 2025-01-01T00:00Z, got ${JSON.stringify(text)}${noSuchDayNote(trimmed)}`,
      });
    return Number.isNaN(t) ? undefined : t;
  };
  let days: number | undefined;
  if (o.days !== undefined) {
    days = /^\d+(\.\d+)?$/.test(o.days.trim()) ? Number(o.days) : Number.NaN;
    if (!(days > 0 && days <= 3660)) {
      issues.push({
        path: "--days",
        message: `expected a number of days above 0 and at most 3660, got ${JSON.stringify(o.days)}`,
      });
      days = undefined;
    }
  }
  const from = time(o.from, "--from");
  const to = time(o.to, "--to");
  if (o.days !== undefined && o.to !== undefined)
    issues.push({ path: "--to", message: "give either --to or --days, not both" });
  if (from !== undefined && to !== undefined && to <= from)
    issues.push({ path: "--to", message: `--to (${o.to}) must be after --from (${o.from})` });
  let seed: number | undefined;
  if (o.seed !== undefined) {
    try {
      seed = parseInteger(o.seed, "--seed");
      if (seed > 2 ** 32 - 1)
        issues.push({ path: "--seed", message: `expected at most ${2 ** 32 - 1}, got ${o.seed}` });
    } catch (err) {
      issues.push(...((err as ValidationError).issues ?? []));
    }
  }
  if (o.fork) {
    if (o.scenario !== undefined)
      issues.push({
        path: "--scenario",
        message: "a fork is its own scenario: give --fork or --scenario, not both",
      });
    if (o.from !== undefined || o.to !== undefined)
      issues.push({
        path: o.from !== undefined ? "--from" : "--to",
        message: "a fork starts now: give its length with --days",
      });
    if (o.network !== undefined && o.network !== "mainnet" && o.network !== "testnet")
      issues.push({
        path: "--network",
        message: `expected mainnet or testnet, got ${JSON.stringify(o.network)}`,
      });
    if (o.account !== undefined && !ADDRESS_PATTERN.test(o.account))
      issues.push({
        path: "--account",
        message: `expected a 0x address (0x + 40 hex digits), got ${JSON.stringify(o.account)}`,
      });
  } else
    for (const [flag, value] of [
      ["--account", o.account],
      ["--network", o.network],
      ["--base-url", o.baseUrl],
    ] as const)
      if (value !== undefined) issues.push({ path: flag, message: "only with --fork" });
  if (o.report !== undefined && o.report.trim() === "")
    issues.push({ path: "--report", message: "expected a file name such as report.html" });
  else if (o.report !== undefined && !existsSync(dirname(resolve(o.report))))
    issues.push({ path: "--report", message: `the folder of ${o.report} does not exist` });
  else if (o.report !== undefined && existsSync(o.report) && !isHtmlReport(o.report))
    // Only a report is replaced: a typo or tab completion onto a key file or a keystore overwrote it (a
    // security audit).
    issues.push({
      path: "--report",
      message: `${maskKeyShaped(o.report)} exists and is not an HTML report; it is not overwritten: name another file, or remove it first`,
    });
  if (issues.length > 0) throw new ValidationError(issues);
  return { days, from, to, seed };
}

/** Whether `file` is an HTML document (a report written before, which may be replaced), or empty. */
function isHtmlReport(file: string): boolean {
  try {
    const fd = openSync(file, "r");
    try {
      const head = Buffer.alloc(64);
      const n = readSync(fd, head, 0, head.length, 0);
      const text = head.subarray(0, n).toString("utf8").trimStart().toLowerCase();
      return n === 0 || text.startsWith("<!doctype html") || text.startsWith("<html");
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command("simulate")
    .description(
      "run the strategies over days of virtual time against the embedded simulator (no key, no network)",
    )
    .option(
      "-c, --config <file>",
      "bot configuration (default: $HLBOT_CONFIG, ./hlbot.yaml or ~/.config/hlbot/config.yaml as for every command, else the bundled demo config/demo.yaml)",
    )
    .option("--scenario <file>", "venue scenario YAML (default: the bundled config/scenarios/demo.yaml)")
    .option("--days <n>", "simulated days from the start (default 3)")
    .option("--from <iso>", "start, e.g. 2025-01-01T00:00Z (default: the scenario's start time)")
    .option("--to <iso>", "end (instead of --days)")
    .option(
      "--seed <n>",
      "seed of prices, randomised TWAPs, faults and the demo key (default: the scenario's); with --sweep: every point runs on this one seed",
    )
    .option(
      "--seeds <list>",
      "with --sweep: run every point once per seed, e.g. 42,7,11 (several price paths), and rank the points by the mean over the seeds",
    )
    .option("--report <file.html>", "also write a self-contained HTML report with charts")
    .option("--json", "print the summary as JSON")
    .option(
      "--prices <files...>",
      "replay real price history: candle files of hlbot data fetch, one per pair (starts at their first candle)",
    )
    .option("--fork", "start from a real account as it is now (read once from the venue; needs --account)")
    .option("--account <address>", "with --fork: the account to copy (default: the bot file's account)")
    .option("--network <name>", "with --fork: mainnet or testnet (default: the bot file's network)")
    .option("--base-url <url>", "with --fork: read from this base URL instead of the network's")
    .option(
      "--http",
      "serve the embedded venue on 127.0.0.1 and reach it over HTTP (slower, same result; default: in-process)",
    )
    .option(
      "--sweep <file>",
      "run a grid of parameter values (a sweep YAML file, see README) and rank the runs",
    )
    .option(
      "--jobs <n>",
      "with --sweep: worker threads (default: one per core; at most 4 per core, and one per run)",
    )
    .addHelpText(
      "after",
      "\nThe simulated account uses a key derived from the seed and starts with the holdings of the scenario's\n" +
        'account labelled "demo" (without one: 10,000 USDC and 100 HYPE). The same scenario, seed and period\n' +
        "always give the same summary.\n\nExamples:\n  hlbot simulate\n  hlbot simulate --days 30 --report demo.html\n" +
        "  hlbot simulate --config config/default.yaml --from 2025-01-01 --to 2025-01-08 --json\n" +
        "  hlbot simulate --sweep sweep.yaml --days 30 --report sweep.html\n" +
        "  hlbot simulate --sweep sweep.yaml --seeds 42,7,11",
    )
    .action(async (opts: SimulateOptions) => {
      const period = readSimulateOptions(opts);
      if (opts.sweep !== undefined || opts.jobs !== undefined || opts.seeds !== undefined) {
        const { runSweepCommand } = await import("../sweep.js");
        return runSweepCommand(opts, period, ctx);
      }
      const { loadConfig } = await import("../../engine/config/loader.js");
      const config = await loadConfig(await simulatedConfigPath(opts.config, ctx.env), ctx.env);
      if (!config.strategies.some((s) => s.enabled))
        ctx.stderr(
          "hlbot simulate: warning: no enabled strategy (no strategy file found, or none with `enabled: true`): the run shows the venue and buy and hold only\n",
        );
      const { createLogger } = await import("../../lib/log.js");
      // Per-action log lines would drown the summary; the summary has them all. --verbose shows them.
      // pino-pretty needs a real stream: pretty output goes to the terminal itself.
      const tty = Boolean(process.stderr.isTTY);
      const format = config.log.format;
      const pretty = format === "pretty" || (format === "auto" && tty);
      // Lines are dated in simulated time, as the summary is (a scenario author's trial read a warning
      // of a simulated January dated today).
      let virtualNow: (() => number) | undefined;
      const logger = await createLogger({
        clock: () => virtualNow?.() ?? Date.now(),
        level: ctx.verbose ? "debug" : "warn",
        format,
        stream: pretty
          ? process.stderr
          : ({
              write: (s: string) => {
                ctx.stderr(s);
                return true;
              },
            } as unknown as NodeJS.WritableStream),
        isTTY: tty,
      });
      const { runSimulation } = await import("../../simulate/runner.js");
      const fork = opts.fork ? await readFork(opts, config, ctx) : undefined;
      const { buildSummary } = await import("../../simulate/summary.js");

      const progress = process.stderr.isTTY ? await progressBar() : undefined;
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once("SIGINT", onSignal);
      let result: Awaited<ReturnType<typeof runSimulation>>;
      try {
        result = await runSimulation({
          config,
          ...(opts.scenario === undefined ? {} : { scenarioFile: opts.scenario }),
          ...(fork
            ? {
                scenario: fork.scenario,
                scenarioFile: fork.label,
                forkOf: fork.account,
                priorTwaps: fork.endedTwaps,
              }
            : {}),
          ...(opts.prices ? { prices: opts.prices } : {}),
          ...(period.seed === undefined ? {} : { seed: period.seed }),
          ...(period.from === undefined ? {} : { from: period.from }),
          ...(period.to === undefined ? {} : { to: period.to }),
          ...(period.days === undefined ? {} : { days: period.days }),
          logger,
          onSimulator: (sim) => {
            virtualNow = () => sim.now();
          },
          ...(opts.http ? { transport: "http" as const } : {}),
          signal: controller.signal,
          ...(progress ? { onProgress: progress.update } : {}),
        });
      } finally {
        progress?.stop();
        process.off("SIGINT", onSignal);
      }
      const { replayNotes } = await import("../../simulate/format.js");
      for (const line of replayNotes(result.record, result.record.replayed)) ctx.stderr(`${line}\n`);
      const { displayPath } = await import("../../engine/config/loader.js");
      // A fork's notes (what it could not carry) travel with a saved --json result, not only on stderr.
      const { configWarnings } = await import("../../engine/config/warnings.js");
      const summary = {
        ...buildSummary(result.record),
        configFile: displayPath(config.file),
        warnings: configWarnings(config),
        ...(fork ? { notes: fork.notes } : {}),
      };
      if (opts.report !== undefined) {
        const { renderReport } = await import("../../simulate/report.js");
        const { writeFileSync } = await import("node:fs");
        writeFileSync(opts.report, renderReport({ summary, record: result.record }));
      }
      if (opts.json) ctx.stdout(`${JSON.stringify(summary, null, 2)}\n`);
      else {
        const { formatSummary } = await import("../../simulate/format.js");
        ctx.stdout(formatSummary(summary));
      }
      const days = (result.record.to - result.record.from) / 86_400_000;
      const seconds = result.wallMs / 1000;
      ctx.stderr(
        `hlbot simulate: ${days.toFixed(2)} simulated day(s) in ${seconds.toFixed(2)} s` +
          ` (${(days / Math.max(seconds, 0.001)).toFixed(1)} days/s)` +
          (opts.report !== undefined ? `; report written to ${maskKeyShaped(opts.report)}` : "") +
          "\n",
      );
      if (result.record.interrupted) ctx.exitCode = 130;
      await logger.flush();
    });
}

/** A progress bar on stderr (only used when stderr is a terminal). */
async function progressBar(): Promise<{
  update: (p: { doneMs: number; totalMs: number; cycles: number }) => void;
  stop: () => void;
}> {
  const bar = await stderrBar("simulating |{bar}| {percentage}% | day {day}/{days} | {cycles} cycles");
  let started = false;
  return {
    update({ doneMs, totalMs, cycles }) {
      const payload = {
        day: (doneMs / 86_400_000).toFixed(1),
        days: (totalMs / 86_400_000).toFixed(1),
        cycles,
      };
      if (!started) {
        bar.start(totalMs, doneMs, payload);
        started = true;
      } else bar.update(doneMs, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** Reads the account to fork (exit 2 without one); says on stderr what the fork approximates. */
async function readFork(opts: SimulateOptions, config: LoadedConfig, ctx: CliContext) {
  const account = opts.account ?? config.account;
  if (account === undefined)
    throw new ValidationError([
      {
        path: "--account",
        message: "--fork needs the account to copy: --account 0x… (or account: in the bot file)",
      },
    ]);
  const network = (opts.network ?? config.network) as NetworkName;
  const { configTransport } = await import("../../engine/transport.js");
  const { InfoClient } = await import("../../venue/info/client.js");
  const { forkAccount } = await import("../../simulate/fork.js");
  // Another --network than the bot file's leaves its baseUrl behind (it belongs to the file's network).
  const transport = configTransport(config, {
    ...(opts.network === undefined ? {} : { network }),
    baseUrl: opts.baseUrl,
  });
  try {
    const info = new InfoClient(transport, { onUnknown: (m) => ctx.stderr(`hlbot: warning: ${m}\n`) });
    const fork = await forkAccount(info, account, {
      network,
      now: Date.now,
      predictedAprNet: config.venue.rules.predictedAprNet ?? true,
    });
    const h = fork.holdings;
    const spot = Object.entries(h.spot)
      .map(([coin, amount]) => `${amount} ${coin}`)
      .join(", ");
    ctx.stderr(
      `hlbot: forked ${fork.account} on ${network} at ${new Date(fork.at).toISOString()}: spot ${spot || "nothing"}; staking ${h.delegated} HYPE delegated, ${h.undelegated} idle, ${h.pendingWithdrawal} pending withdrawal\n`,
    );
    for (const note of fork.notes) ctx.stderr(`hlbot: fork: ${note}\n`);
    return { ...fork, label: `fork of ${fork.account} on ${network}` };
  } finally {
    await transport.close();
  }
}
