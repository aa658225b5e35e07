// `hlbot plan`: one full cycle in dry-run against the configured network: snapshot, decisions, risk
// guards and the requests that would be POSTed; nothing is sent. The requests are printed UNSIGNED
// (action, nonce, the digest a key would sign): a signed body is a live order anyone holding it could
// send (#17.6). `--sign` prints signed bodies, with a warning. `--unsigned` needs no key at all.
import { type Command, Option } from "commander";
import type { CliContext } from "../context.js";
import { CONFIG_OPTION_HELP } from "../options.js";

interface PlanOptions {
  config?: string;
  json?: boolean;
  unsigned?: boolean;
  sign?: boolean;
  baseUrl?: string;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command("plan")
    .description(
      "run one cycle in dry-run: show decisions, guards and the unsigned requests (action, nonce, digest); nothing is sent. Exit 1 when a strategy failed its run (it threw, or was held for the clock)",
    )
    .option("-c, --config <file>", CONFIG_OPTION_HELP)
    .option("--json", "one JSON object per planned action per line on stdout; the summary goes to stderr")
    .option("--unsigned", "work without a key: show unsigned actions (the config must name the `account`)")
    .addOption(
      new Option(
        "--sign",
        "print the SIGNED bodies instead; WARNING: anyone who has that output can execute them on the venue without your key",
      ).conflicts("unsigned"),
    )
    .option("--base-url <url>", "send reads to this base URL instead of the configured one")
    .option("--dry-run", "accepted for scripts that pass it everywhere: plan never sends")
    .action(async (opts: PlanOptions) => {
      const { loadBotConfig, botLogger } = await import("../bot.js");
      const config = await loadBotConfig(ctx, opts);
      // The report below shows each decision once; the log would repeat them all on the terminal.
      const logger = await botLogger(ctx, config, { reportOnStdout: true });
      const { openRuntime } = await import("../../engine/runtime.js");
      const { failedRuns, runCycle } = await import("../../engine/cycle.js");
      const { formatCycle, actionLines } = await import("../report.js");
      const { SIGNED_OUTPUT_WARNING, unsignReportActions } = await import("../unsigned.js");
      const runtime = await openRuntime({
        config,
        env: ctx.env,
        mode: opts.unsigned ? "unsigned" : "dry-run",
        logger,
        ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      });
      try {
        const facts = await runtime.facts();
        const { checkStrategyMarkets } = await import("../../engine/strategies/markets.js");
        await checkStrategyMarkets(runtime.info, runtime.strategies(), {
          warn: (m) => logger.warn(m),
          floorTokens: config.limits.keepOnSpot?.keys(),
          botFile: config.file,
        });
        const report = await runCycle(runtime.cycleDeps(facts), {
          trigger: "plan",
          strategies: runtime.strategies(),
        });
        const sign = opts.sign === true && !opts.unsigned;
        if (sign) ctx.stderr(`hlbot: ${SIGNED_OUTPUT_WARNING}\n`);
        else {
          // Signed in dry run (to check the key may sign them), printed without the signature.
          unsignReportActions(report.actions, config.network);
        }
        const header = `plan for ${runtime.account} on ${config.network} (${opts.unsigned ? "unsigned" : sign ? "dry run, SIGNED" : "dry run, unsigned output"}, cycle ${report.cycleId})`;
        if (opts.json) {
          ctx.stdout(actionLines(report));
          ctx.stderr(formatCycle(report, header));
        } else {
          ctx.stdout(formatCycle(report, header));
        }
        // A strategy that threw while deciding, or was held (the local clock far from the venue's),
        // planned nothing: exit 1, as `once` does, so a script does not read "nothing to do".
        const failed = failedRuns(report);
        if (failed.length > 0) {
          ctx.stderr(
            `hlbot plan: ${failed.length} ${failed.length === 1 ? "strategy" : "strategies"} failed ${failed.length === 1 ? "its run" : "their runs"} and planned nothing: ${failed.map((d) => d.decision.strategy).join(", ")} (reasons above)\n`,
          );
          ctx.exitCode = 1;
        }
      } finally {
        await runtime.close();
        await logger.flush();
      }
    });
}
