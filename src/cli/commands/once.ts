// `hlbot once`: one cycle, submitting when the configuration says `mode: live` (and --dry-run is not
// given). The cron entry point: exit 0 when every intent was accepted or skipped with a reason, 1 when
// any was rejected or left unknown (or the cycle failed), 2 for configuration errors.
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("once")
    .description("run one cycle now and exit (for cron); submits only when the config says mode: live")
    .option("-c, --config <file>", "bot configuration (default $HLBOT_CONFIG or config/default.yaml)")
    .option("--dry-run", "never submit, whatever the config says")
    .option("--json", "print each action as one JSON line on stdout")
    .action(async (opts: { config?: string; dryRun?: boolean; json?: boolean }) => {
      const { loadBotConfig, botLogger } = await import("../bot.js");
      const config = await loadBotConfig(ctx, opts);
      const logger = await botLogger(ctx, config);
      const { mkdirSync } = await import("node:fs");
      const { acquireInstanceLock } = await import("../../engine/lock.js");
      mkdirSync(config.state, { recursive: true, mode: 0o700 });
      const lock = acquireInstanceLock(config.state, `hlbot once --config ${config.file}`);
      const { openRuntime } = await import("../../engine/runtime.js");
      const { runCycle } = await import("../../engine/cycle.js");
      const { formatCycle, actionLines } = await import("../report.js");
      const live = config.mode === "live" && !opts.dryRun;
      try {
        const runtime = await openRuntime({ config, env: ctx.env, mode: live ? "live" : "dry-run", logger });
        try {
          // We hold the instance lock: a run or once cycle still marked running was cut short by a crash.
          const interrupted = runtime.journal.closeInterruptedCycles(["run", "once"]);
          if (interrupted > 0)
            logger.warn(
              { interrupted },
              `${interrupted} cycle(s) of an earlier process were cut short; marked interrupted`,
            );
          const facts = await runtime.facts();
          const report = await runCycle(runtime.cycleDeps(facts), {
            trigger: "once",
            strategies: runtime.strategies(),
          });
          // A dry run prints unsigned requests, never a live order (#17.6; `plan --sign` prints signed ones).
          if (!live) (await import("../unsigned.js")).unsignReportActions(report.actions, config.network);
          const header = `once for ${runtime.account} on ${config.network} (${live ? "live" : "dry run"}, cycle ${report.cycleId})`;
          if (opts.json) ctx.stdout(actionLines(report));
          else ctx.stdout(formatCycle(report, header));
          const bad = report.actions.filter((a) => a.outcome === "rejected" || a.outcome === "unknown");
          ctx.exitCode = bad.length > 0 ? 1 : 0;
        } finally {
          await runtime.close();
        }
      } finally {
        lock.release();
        await logger.flush();
      }
    });
}
