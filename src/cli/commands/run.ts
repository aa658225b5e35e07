// `hlbot run`: the long-running daemon. Takes the state folder's instance lock, opens the runtime,
// schedules every enabled strategy (src/engine/daemon.ts) and serves optional /health, /live, /ready and
// /metrics. SIGINT/SIGTERM stop it gracefully (exit 0; 1 if the grace period ran out and work in
// flight was aborted); a second signal exits at once (128 + signal number). SIGHUP reloads the
// strategy files. Only a broken configuration (exit 2) or state database (exit 1) stops it otherwise.
import { statSync } from "node:fs";
import type { Command } from "commander";
import type { Logger } from "pino";
import type { LoadedConfig } from "../../engine/config/loader.js";
import type { StopCause } from "../../engine/shutdown.js";
import {
  ConfigError,
  damagedDatabaseAdvice,
  describeError,
  HlbotError,
  ValidationError,
  VenueError,
  walk,
} from "../../lib/errors.js";
import type { CliContext } from "../context.js";
import { CONFIG_OPTION_HELP, parseInteger } from "../options.js";

interface RunOptions {
  config?: string;
  dryRun?: boolean;
  metricsPort?: string;
  metricsHost: string;
  graceMs?: string;
  unhealthyAfter?: string;
}

interface Flags {
  metricsPort: number | undefined;
  metricsHost: string;
  graceMs: number | undefined;
  unhealthyAfter: number | undefined;
}

const MAX_GRACE_MS = 24 * 60 * 60_000;

/** Checks the flags before anything is read or opened (exit 2). */
function parseFlags(o: RunOptions): Flags {
  const metricsPort = o.metricsPort === undefined ? undefined : parseInteger(o.metricsPort, "--metrics-port");
  if (metricsPort !== undefined && metricsPort > 65_535)
    throw new ValidationError([
      { path: "--metrics-port", message: `expected 0 to 65535, got ${metricsPort}` },
    ]);
  const graceMs = o.graceMs === undefined ? undefined : parseInteger(o.graceMs, "--grace-ms");
  if (graceMs !== undefined && graceMs > MAX_GRACE_MS)
    throw new ValidationError([
      { path: "--grace-ms", message: `at most ${MAX_GRACE_MS} (one day), got ${graceMs}` },
    ]);
  const metricsHost = o.metricsHost.trim();
  if (metricsHost === "")
    throw new ValidationError([{ path: "--metrics-host", message: "expected an address to listen on" }]);
  const unhealthyAfter =
    o.unhealthyAfter === undefined ? undefined : parseInteger(o.unhealthyAfter, "--unhealthy-after");
  return { metricsPort, metricsHost, graceMs, unhealthyAfter };
}

/** How often `run` checks that its instance lock file is still the one it locked. */
const LOCK_CHECK_MS = 5_000;

export function register(program: Command, ctx: CliContext): void {
  program
    .command("run")
    .description("run the bot: every enabled strategy on its cron schedule (UTC) until SIGINT/SIGTERM")
    .option("-c, --config <file>", CONFIG_OPTION_HELP)
    .option("--dry-run", "never submit, whatever the config says")
    .option(
      "--metrics-port <n>",
      "serve /health, /live, /ready and /metrics on this port (default: off; 0: a free port; /live is the one for a liveness probe)",
    )
    .option("--metrics-host <addr>", "address the metrics endpoint listens on", "127.0.0.1")
    .option(
      "--unhealthy-after <n>",
      "/health answers 503 after this many failed cycles in a row (default 3; 0: never for failures)",
    )
    .option(
      "--grace-ms <n>",
      "on SIGINT/SIGTERM, how long a running cycle may take to finish (default 30000)",
    )
    .addHelpText(
      "after",
      "\nStrategies due at the same instant run in one cycle; a failed slot is retried after 1, 2, 4 … minutes\n" +
        "(never past the next slot, within `schedule.catchUp`); slots missed while stopped are caught up at start.\n" +
        "Running TWAPs with a limitPx, twap.maxDeviation or priceLimits (sellFloor, buyCeiling) are checked every\n" +
        "minute and cancelled when crossed, and so is one that would take a token under limits.keepOnSpot; a watch\n" +
        "that cannot read the venue 3 minutes in a row is notified (cycle.failed).\n" +
        "\nSignals: SIGINT/SIGTERM stop gracefully (a second one exits at once); SIGHUP reloads the strategy files;\n" +
        "SIGUSR2 reopens log.file (after logrotate moved it).\n" +
        "Example:\n  hlbot run --config config/default.yaml --metrics-port 9464",
    )
    .action(async (opts: RunOptions) => {
      // The daemon's process runs in UTC (see cronSchedule in daemon.ts), from its first log line on (a
      // review: pretty logs changed offset partway through the start).
      process.env.TZ = "UTC";
      const flags = parseFlags(opts);
      const { loadBotConfig, botLogger } = await import("../bot.js");
      // A strategy file that does not load (a typo saved before a restart) holds every strategy (they
      // share the account: one missing changes what the others do) but not the daemon: the TWAP watch
      // runs, /health says why (503), and a SIGHUP after the fix starts the strategies. The bot file
      // must load.
      const config = await loadBotConfig(ctx, opts, { leaveOutBroken: true });
      const logger = await botLogger(ctx, config);
      try {
        await runDaemon(ctx, config, logger, flags, config.mode === "live" && !opts.dryRun);
      } catch (err) {
        // In the log too (log.file), not only on stderr: a scripter's pipeline tailing the log file read
        // a daemon that went quiet when its metrics port or state folder was taken.
        const { describeError } = await import("../../lib/errors.js");
        logger.fatal({ err: describeError(err) }, `hlbot run: cannot go on: ${describeError(err)}`);
        throw err;
      } finally {
        await logger.flush();
      }
    });
}

async function runDaemon(
  ctx: CliContext,
  config: LoadedConfig,
  logger: Logger & { reopen(): void },
  flags: Flags,
  live: boolean,
): Promise<void> {
  const { Shutdown } = await import("../../engine/shutdown.js");
  const { openInstance } = await import("../../engine/instance.js");
  const { BotMetrics, startMetricsServer } = await import("../../engine/metrics.js");
  const { registerAccountInfo, registerProcessMetrics } = await import("../../engine/accountMetrics.js");
  const { packageVersion } = await import("../../lib/version.js");
  const { Daemon, DEFAULT_GRACE_MS, loadStrategySet, scheduledStrategies } = await import(
    "../../engine/daemon.js"
  );
  const { botFileChanges, displayPath, loadConfig, strategyFilesIn } = await import(
    "../../engine/config/loader.js"
  );
  const { ConfigFilesWatch, CONFIG_FILES_CHECK_MS } = await import("../../engine/configFilesWatch.js");
  const graceMs = flags.graceMs ?? DEFAULT_GRACE_MS;
  // The bot file's `strategies:` (a list or a folder) as last applied: a SIGHUP reads the edited one,
  // so a strategy taken off the list stops (a config trial: it kept trading, and nothing said so).
  let strategySource = config.strategySource;
  // Edits on disk that do not run yet: said once per edit, with how to apply them. The files as they were
  // read, before the venue is asked anything.
  const filesWatch = new ConfigFilesWatch({
    botFile: config.file,
    strategyFiles: () =>
      "folder" in strategySource
        ? strategyFilesIn(strategySource.folder)
        : Promise.resolve(strategySource.files),
    logger,
    pid: process.pid,
  });
  const startPrints = await filesWatch.fingerprints();

  const { ConfigIssuesError, formatIssue } = await import("../../engine/config/issues.js");
  const leftOut = config.leftOut ?? [];
  for (const issue of leftOut)
    logger.error(
      { problem: formatIssue(issue) },
      `strategy file does not load: ${formatIssue(issue)}; no strategy runs until it does (fix it, then SIGHUP); the TWAP guards still run`,
    );
  const held =
    leftOut.length > 0
      ? `${leftOut.length} strategy file problem(s), no strategy runs: ${formatIssue(leftOut[0]!)}`
      : undefined;
  const strategies = held === undefined ? scheduledStrategies(config.strategies) : [];
  if (strategies.length === 0 && held === undefined) {
    const where = "folder" in config.strategySource ? ` in ${config.strategySource.folder}` : "";
    throw new ConfigError(
      `no enabled strategy to schedule${where} (add a strategy file with \`enabled: true\`; in the Docker image, mount your strategies folder at /etc/hlbot/strategies)`,
      {
        file: displayPath(config.file),
        keyPath: "strategies",
      },
    );
  }
  const shutdown = new Shutdown({ logger, graceMs });
  try {
    const metrics = new BotMetrics();
    registerProcessMetrics(metrics, packageVersion());
    const instance = await openInstance({
      config,
      env: ctx.env,
      mode: live ? "live" : "dry-run",
      logger,
      metrics,
      command: `hlbot run --config ${config.file}`,
    });
    const { runtime, lock } = instance;
    registerAccountInfo(metrics, {
      account: runtime.account,
      network: config.network,
      mode: live ? "live" : "dry-run",
    });
    shutdown.add("the state database, venue connections and instance lock", () => instance.close());
    // A strategy naming a market the venue does not list is left out, each problem logged as an error;
    // the others run (and their TWAP guards with them). Nothing left to run stops the start (exit 2); a
    // venue not reachable yet does not (the daemon waits for it).
    const { checkStrategyMarkets, unknownMarkets } = await import("../../engine/strategies/markets.js");
    let acting = strategies;
    try {
      const unknown = await unknownMarkets(runtime.info, strategies, {
        warn: (m) => logger.warn(m),
        floorTokens: config.limits.keepOnSpot?.keys(),
        botFile: config.file,
      });
      for (const issue of unknown.issues)
        logger.error({ problem: formatIssue(issue) }, `strategy left out: ${formatIssue(issue)}`);
      acting = strategies.filter((s) => !unknown.strategies.has(s.name));
      if (acting.length === 0 && unknown.issues.length > 0) throw new ConfigIssuesError(unknown.issues);
    } catch (err) {
      if (!(err instanceof VenueError)) throw err;
      logger.warn(
        { err: describeError(err) },
        `the strategies' markets were not checked (${describeError(err)}); a market the venue does not list will be skipped at each run`,
      );
    }
    // Notification channels read their secrets now, before the environment is dropped; a configured
    // channel whose token is missing stops the start (exit 2) rather than staying silent for weeks.
    const { createNotifier } = await import("../../engine/notify/notifier.js");
    const notifier = createNotifier(config.notify, ctx.env, logger, runtime.journal);
    let notices: import("../../engine/notify/daemonNotices.js").DaemonNotices | undefined;
    if (notifier) {
      const { DaemonNotices, followTwapsOf } = await import("../../engine/notify/daemonNotices.js");
      notices = new DaemonNotices({
        notifier,
        info: runtime.info,
        account: runtime.account,
        network: config.network,
        killSwitchFile: config.limits.killSwitchFile,
        clock: runtime.clock,
        logger,
        placedBefore: followTwapsOf(runtime.journal, runtime.account, runtime.clock()),
        journal: runtime.journal,
      });
      // Runs before the journal closes (cleanups run last added first): what is queued gets 3 s.
      shutdown.add("notifications", async () => {
        await notices?.settled();
        await notifier.flush(3_000);
        notifier.close();
      });
      logger.info(
        { channels: notifier.channelNames },
        `notifications to ${notifier.channelNames.join(", ")}`,
      );
    }
    // The signer holds the key now: the daemon does not keep it in its environment for its whole life.
    (await import("../../lib/secrets.js")).dropSecretVariables(ctx.env);
    const daemon = new Daemon({
      runtime,
      strategies: acting,
      disabled: config.strategies.filter((s) => !s.enabled),
      logger,
      metrics,
      ...(flags.unhealthyAfter !== undefined ? { unhealthyAfterFailures: flags.unhealthyAfter } : {}),
      ...(notices ? { notices } : {}),
      ...(held === undefined ? {} : { held }),
    });

    if (flags.metricsPort !== undefined) {
      const server = await startMetricsServer(metrics, daemon, flags.metricsPort, flags.metricsHost).catch(
        (err: unknown) => {
          // The flag that is wrong: a host that is not this machine's is --metrics-host's (a
          // documentation trial read "--metrics-port: cannot listen on 1.2.3.4.5:0").
          const code = (err as NodeJS.ErrnoException | undefined)?.code;
          const hostProblem = code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN";
          throw new ValidationError(
            [
              {
                path: hostProblem ? "--metrics-host" : "--metrics-port",
                message: `cannot listen on ${flags.metricsHost}:${flags.metricsPort}: ${describeError(err)}`,
              },
            ],
            { cause: err },
          );
        },
      );
      shutdown.add("the metrics endpoint", () => server.close());
      const host = flags.metricsHost.includes(":") ? `[${flags.metricsHost}]` : flags.metricsHost;
      logger.info(
        { metrics: `http://${host}:${server.port}` },
        `serving /health, /live, /ready and /metrics on http://${host}:${server.port}`,
      );
    }

    // Signals and process-level failures (src/engine/shutdown.ts): the first SIGINT/SIGTERM stops the
    // daemon with the grace period, a second one exits at once. SIGHUP and SIGUSR2 are this command's.
    shutdown.onStop((grace) => daemon.stop(grace));
    await filesWatch.baseline(startPrints);
    const filesTimer = setInterval(
      () => void filesWatch.check().catch(() => undefined),
      CONFIG_FILES_CHECK_MS,
    );
    filesTimer.unref();
    shutdown.add("the watch of the configuration files", () => clearInterval(filesTimer));
    shutdown.listen({
      SIGHUP: () => {
        logger.info("SIGHUP: reloading the strategy files");
        let source = strategySource;
        let readPrints: Map<string, string> | undefined;
        // A reloaded set naming a market the venue does not list is refused (the current one stays).
        void daemon
          .reloadFrom(async () => {
            readPrints = await filesWatch.fingerprints();
            // Only the strategy files are reloaded: say so when the bot file itself was edited (a limit
            // tightened in a hurry would otherwise seem to be in force while the old one is).
            // The bot file alone: a broken strategy file is the reload's own refusal below, and read here
            // it was called "the bot file no longer loads … a restart would fail", which it would not
            // (a start holds the strategies it cannot load: an operator's trial).
            await loadConfig(config.file, ctx.env, { leaveOutBroken: true }).then(
              (edited) => {
                const changed = botFileChanges(config, edited);
                if (changed.length > 0) {
                  // Said plainly for what an owner edits in a hurry (a trial set mode: dry-run and read
                  // one line that never said the daemon was still sending).
                  const modeEdited = changed.some((c) => c === "mode" || c === "dryRun");
                  const limitsEdited = changed.some((c) => c.startsWith("limits."));
                  logger.warn(
                    { changed },
                    `the bot file changed (${changed.join(", ")}), but SIGHUP reloads only the strategy files and its strategies: list: the running daemon keeps the other settings it started with until it is restarted` +
                      (live && modeEdited
                        ? "; this daemon is still LIVE and keeps sending: restart it for the new mode, or `hlbot stop` to stop it sending now"
                        : "") +
                      (limitsEdited ? "; the limits it started with stay in force until then" : ""),
                  );
                }
                if (JSON.stringify(edited.strategySource) !== JSON.stringify(strategySource)) {
                  source = edited.strategySource;
                  logger.info(
                    { strategies: sourceText(source) },
                    `the bot file's strategies: changed (${sourceText(strategySource)} → ${sourceText(source)}): reloading from it`,
                  );
                }
              },
              (err: unknown) =>
                logger.warn(`the bot file no longer loads (${describeError(err)}): a restart would fail`),
            );
            const set = await loadStrategySet({ ...config, strategySource: source }, ctx.env);
            await checkStrategyMarkets(runtime.info, scheduledStrategies(set), {
              warn: (m) => logger.warn(m),
            }).catch((err: unknown) => {
              if (!(err instanceof VenueError)) throw err;
              logger.warn(`the reloaded strategies' markets were not checked (${describeError(err)})`);
            });
            return set;
          })
          .then(async (applied) => {
            // A refused reload keeps what runs, and so the baseline (an SRE's trial: the file put back
            // after a refused SIGHUP was said to have changed). An applied one read the files (and said
            // what of the bot file it did not apply); a list or folder it moved to is read as it is now.
            if (!applied) return;
            const moved = source !== strategySource;
            strategySource = source;
            await filesWatch.baseline(moved ? undefined : readPrints);
          });
      },
      SIGUSR2: () => {
        logger.reopen();
        logger.info("SIGUSR2: log file reopened");
      },
    });

    logger.info(
      {
        account: runtime.account,
        network: config.network,
        mode: live ? "live" : "dry-run",
        pid: process.pid,
      },
      `hlbot run: ${live ? "LIVE" : "dry run"} for ${runtime.account} on ${config.network}, state ${config.state}`,
    );
    // `rm state/lock.db` would let a second instance lock a new file: stop rather than run beside it. A
    // journal removed or replaced under the running bot: what it writes now is lost with the unlinked file
    // (a recovery trial traded 48 s into a deleted journal, /health "ok"): stop, and the next start asks
    // for `hlbot journal rebuild`.
    const journalFile = runtime.db.name;
    const journalId = fileIdentity(journalFile);
    const lockWatch = setInterval(() => {
      const journalGone = journalId !== undefined && fileIdentity(journalFile) !== journalId;
      if (lock.stillHeld() && !journalGone) return;
      clearInterval(lockWatch);
      if (journalGone) {
        logger.error(
          `the journal ${journalFile} was removed or replaced under the running bot; what it records now would be lost: stopping (run \`hlbot journal rebuild\` before starting again)`,
        );
        shutdown.stop({ kind: "request", reason: "journal lost" }, { failed: true });
        return;
      }
      logger.error(
        `the instance lock ${config.state}/lock.db was removed or replaced; another hlbot could take this state folder: stopping`,
      );
      shutdown.stop({ kind: "request", reason: "instance lock lost" }, { failed: true });
    }, LOCK_CHECK_MS);
    lockWatch.unref();
    shutdown.add("the lock watch", () => clearInterval(lockWatch));
    daemon.start();
    notices?.start(
      live ? "live" : "dry-run",
      strategies.map((s) => s.name),
      held,
    );
    const result = await daemon.done;

    // Why it stopped, in words: on stderr, and in the daemon.stop notification (which said only the exit code).
    let why: string;
    if (result.reason === "fatal") {
      const configProblem = walk(result.error, (e) => e instanceof HlbotError && e.family === "config");
      if (configProblem !== undefined) {
        why = describeError(configProblem);
        ctx.exitCode = 2;
      } else {
        const damaged = damagedDatabaseAdvice(result.error, `${config.state}/hlbot.db`);
        why = `the state database in ${config.state} failed: ${describeError(result.error)}${damaged === undefined ? "" : `; ${damaged}`}`;
        ctx.exitCode = 1;
      }
      ctx.stderr(`hlbot: stopped: ${why}\n`);
    } else if (!result.clean) {
      why = `stopped after the ${graceMs} ms grace period; the cycle in flight was aborted (see \`hlbot history\`)`;
      ctx.stderr(`hlbot: ${why}\n`);
      ctx.exitCode = 1;
    } else {
      ctx.exitCode = shutdown.crashed ? 1 : 0;
      why = stopCauseText(shutdown.signal.reason as StopCause | undefined);
    }
    // TWAPs this bot placed that the venue still runs: they keep filling, unwatched until hlbot runs
    // again (a seller's trial stopped the service as its exit while a guarded sale ran 4 hours on).
    if (live) {
      const left = stillRunningText(runtime.journal, runtime.account, runtime.clock());
      if (left !== undefined) {
        logger.warn(left);
        // Plain only where the log does not show it (a scripter's JSON log had it twice, once not JSON).
        if (!logger.isLevelEnabled("warn")) ctx.stderr(`hlbot: ${left}\n`);
      }
    }
    logger.info({ exitCode: ctx.exitCode }, "hlbot run: stopped");
    notices?.stop(ctx.exitCode ?? 0, why);
  } finally {
    await shutdown.close();
  }
}

/** A file's device and inode ("dev:ino"), undefined when it does not exist: another file at the path differs. */
function fileIdentity(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** A stop's cause in words, for the daemon.stop notification. */
function stopCauseText(cause: StopCause | undefined): string {
  if (cause === undefined) return "";
  if (cause.kind === "signal") return `${cause.signal} received`;
  if (cause.kind === "request") return cause.reason;
  return `an unexpected error: ${describeError(cause.error)}`;
}

/**
 * Said when the daemon stops: the TWAPs this bot placed that should still be running (journal, no
 * network) and were not cancelled, with their guards unwatched until hlbot runs again.
 */
function stillRunningText(
  journal: import("../../engine/journal.js").Journal,
  account: string,
  now: number,
): string | undefined {
  let rows: ReturnType<typeof journal.runningTwaps>;
  let unsure: ReturnType<typeof journal.unresolved>;
  try {
    rows = journal.twapsNotCancelled(account, now);
    // And TWAP orders whose answer never came (the grace period cut the send short): they may run too
    // (an operator's trial was told of one TWAP while the venue ran two).
    unsure = journal.unresolved(account).filter((r) => r.actionType === "twapOrder");
  } catch {
    return undefined; // a journal that cannot be read here was said above
  }
  if (rows.length === 0 && unsure.length === 0) return undefined;
  const list = [
    ...rows.map(
      (r) => `#${r.twapId} (${r.strategy}, until ${new Date(r.expectedEnd).toISOString().slice(11, 16)} UTC)`,
    ),
    ...unsure.map(
      (r) =>
        `an order whose answer was lost (submission #${r.id}, ${r.strategy}, sent ${new Date(r.createdAt).toISOString().slice(11, 16)} UTC; the next start reconciles it)`,
    ),
  ].join(", ");
  const n = rows.length + unsure.length;
  return (
    `${n} TWAP${n === 1 ? "" : "s"} this bot placed may still be running on the venue: ${list}. ` +
    "They keep filling, and their guards (twap.maxDeviation, limit prices, limits.keepOnSpot) are watched only while hlbot runs; " +
    "`hlbot stop --cancel-twaps` cancels them, `hlbot status` shows them."
  );
}

/** A bot file's `strategies:` in a log line: the folder, or the files of the list. */
function sourceText(source: { folder: string } | { files: string[] }): string {
  return "folder" in source ? `folder ${source.folder}` : source.files.join(", ");
}
