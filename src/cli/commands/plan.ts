// `hlbot plan`: one full cycle in dry-run against the configured network: snapshot, decisions, risk
// guards and the exact bodies that would be POSTed; nothing is sent. `--unsigned` needs no key.
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("plan")
    .description("run one cycle in dry-run: show decisions, guards and the signed bodies; nothing is sent")
    .option("-c, --config <file>", "bot configuration (default $HLBOT_CONFIG or config/default.yaml)")
    .option("--json", "one JSON object per planned action per line on stdout; the summary goes to stderr")
    .option("--unsigned", "work without a key: show unsigned actions (the config must name the `account`)")
    .option("--base-url <url>", "send reads to this base URL instead of the configured one")
    .option("--dry-run", "accepted for scripts that pass it everywhere: plan never sends")
    .action(async (opts: { config?: string; json?: boolean; unsigned?: boolean; baseUrl?: string }) => {
      const { loadBotConfig, botLogger } = await import("../bot.js");
      const config = await loadBotConfig(ctx, opts);
      const logger = await botLogger(ctx, config);
      const { openRuntime } = await import("../../engine/runtime.js");
      const { runCycle } = await import("../../engine/cycle.js");
      const { formatCycle, actionLines } = await import("../report.js");
      const runtime = await openRuntime({
        config,
        env: ctx.env,
        mode: opts.unsigned ? "unsigned" : "dry-run",
        logger,
        ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      });
      try {
        const facts = await runtime.facts();
        const report = await runCycle(runtime.cycleDeps(facts), {
          trigger: "plan",
          strategies: runtime.strategies(),
        });
        const header = `plan for ${runtime.account} on ${config.network} (${opts.unsigned ? "unsigned" : "dry run"}, cycle ${report.cycleId})`;
        if (opts.json) {
          ctx.stdout(actionLines(report));
          ctx.stderr(formatCycle(report, header));
        } else {
          ctx.stdout(formatCycle(report, header));
        }
      } finally {
        await runtime.close();
        await logger.flush();
      }
    });
}
