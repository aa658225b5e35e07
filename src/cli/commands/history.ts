// `hlbot history`: recent cycles and submissions from the journal (no key, no network).
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { parseInteger } from "../options.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("history")
    .description("show recent cycles and submissions from the journal")
    .option("-c, --config <file>", "bot configuration (its `state` folder holds the journal)")
    .option("--limit <n>", "how many cycles and submissions", "20")
    .option("--json", "print JSON on stdout")
    .action(async (opts: { config?: string; limit: string; json?: boolean }) => {
      const limit = parseInteger(opts.limit, "--limit", 1);
      const { loadBotConfig } = await import("../bot.js");
      const config = await loadBotConfig(ctx, opts);
      const { openStateDb } = await import("../../lib/stateDb.js");
      const { Journal } = await import("../../engine/journal.js");
      const { stringifyJson } = await import("../../lib/json.js");
      const db = await openStateDb({ dir: config.state });
      try {
        const journal = new Journal(db);
        const cycles = journal.recentCycles(limit);
        const submissions = journal.recentSubmissions(limit);
        if (opts.json) {
          ctx.stdout(`${stringifyJson({ cycles, submissions })}\n`);
          return;
        }
        ctx.stdout(`Recent cycles (${config.state}):\n`);
        if (cycles.length === 0) ctx.stdout("  none yet\n");
        for (const c of cycles) {
          const decisions = journal.decisionsOfCycle(c.id);
          const acted = decisions.filter((d) => d.guard === "allowed" || d.guard === "reduced").length;
          ctx.stdout(
            `  ${new Date(c.startedAt).toISOString()}  ${c.id}  ${c.trigger}/${c.mode}  ${c.status}` +
              `  ${decisions.length} decisions, ${acted} acted${c.error ? `  error: ${c.error}` : ""}\n`,
          );
        }
        ctx.stdout("Recent submissions:\n");
        if (submissions.length === 0) ctx.stdout("  none yet\n");
        for (const s of submissions) {
          ctx.stdout(
            `  #${s.id}  ${new Date(s.createdAt).toISOString()}  ${s.strategy}  ${s.actionType}  nonce ${s.nonce}  ${s.status}` +
              `${s.twapId !== null ? `  twapId ${s.twapId}` : ""}${s.reason ? `  (${s.reason})` : ""}\n`,
          );
        }
      } finally {
        db.close();
      }
    });
}
