// `hlbot history`: recent cycles, the decisions they made grouped by strategy (skipped and blocked ones
// with their reasons, not only the actions), and recent submissions, from the journal (no key, no
// network).
import type { Command } from "commander";
import { maskKeyShaped } from "../../lib/secrets.js";
import type { CliContext } from "../context.js";
import { parseInteger } from "../options.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("history")
    .description(
      "show recent cycles, their decisions by strategy (with skip and block reasons) and submissions",
    )
    .option("-c, --config <file>", "bot configuration (its `state` folder holds the journal)")
    .option("--limit <n>", "how many cycles and submissions", "20")
    .option("--strategy <name>", "only this strategy's decisions")
    .option("--json", "print JSON on stdout")
    .action(async (opts: { config?: string; limit: string; strategy?: string; json?: boolean }) => {
      const limit = parseInteger(opts.limit, "--limit", 1);
      const { loadBotConfig } = await import("../bot.js");
      const config = await loadBotConfig(ctx, opts);
      const { openJournal } = await import("../../engine/journal.js");
      const { stringifyJson } = await import("../../lib/json.js");
      const { journal, close } = await openJournal(config.state);
      try {
        const cycles = journal.recentCycles(limit);
        const submissions = journal.recentSubmissions(limit);
        // Decisions of the cycles shown, oldest first within each strategy.
        const byStrategy = new Map<
          string,
          Array<{
            at: number;
            cycle: string;
            trigger: string;
            kind: string;
            guard: string;
            reason: string;
            failed: boolean;
          }>
        >();
        for (const c of [...cycles].reverse()) {
          for (const d of journal.decisionsOfCycle(c.id)) {
            if (opts.strategy !== undefined && d.strategy !== opts.strategy) continue;
            const list = byStrategy.get(d.strategy) ?? [];
            list.push({
              at: c.startedAt,
              cycle: c.id,
              trigger: c.trigger,
              kind: d.kind,
              guard: d.guard,
              reason: d.guardReason ?? d.reason,
              failed: d.failed,
            });
            byStrategy.set(d.strategy, list);
          }
        }
        const decisions = Object.fromEntries(
          [...byStrategy.entries()].sort(([a], [b]) => a.localeCompare(b)),
        );
        if (opts.strategy !== undefined && !byStrategy.has(opts.strategy)) {
          const known = config.strategies.map((x) => x.name);
          // What was typed is echoed masked: a pasted key is never repeated (src/lib/secrets.ts).
          ctx.stderr(
            `hlbot: warning: no decision of strategy ${maskKeyShaped(JSON.stringify(opts.strategy))} in the last ${cycles.length} cycle(s)` +
              (known.includes(opts.strategy)
                ? "\n"
                : `; the bot file has no strategy of that name (${known.join(", ") || "none"})\n`),
          );
        }
        if (opts.json) {
          // A cycle's strategies are kept as JSON text in the journal: shown as the list they are.
          const shown = cycles.map((c) => ({ ...c, strategies: JSON.parse(c.strategies) as string[] }));
          // Each request as sent, without its signature: a pending or unknown one is a live order, and
          // this output is what operators paste into tickets (the journal keeps the signed body).
          const { withoutSignature } = await import("../unsigned.js");
          const { parseJson } = await import("../../lib/json.js");
          // Request and answer as the objects they are (a scripter needed `fromjson` on each), as once
          // and the manual actions print them.
          const asJson = (text: string | null): unknown => {
            if (text === null) return null;
            try {
              return parseJson(text);
            } catch {
              return text;
            }
          };
          const sent = submissions.map((x) => {
            let request: unknown;
            try {
              request = parseJson(x.request);
            } catch {
              return { ...x, request: "(not shown: not JSON)", result: asJson(x.result) };
            }
            return {
              ...x,
              request:
                request !== null && typeof request === "object"
                  ? withoutSignature(request as Record<string, unknown>)
                  : request,
              result: asJson(x.result),
            };
          });
          ctx.stdout(`${stringifyJson({ cycles: shown, decisions, submissions: sent })}\n`);
          return;
        }
        // A folder whose rows are of more than one account (a sub-account's manual actions beside its
        // master's, or a folder two bots shared before it was refused) names each row's: an operator of
        // several bots read a sub-account's TWAP as the master's.
        const accounts = new Set([...cycles.map((c) => c.account), ...submissions.map((s) => s.account)]);
        const whose = (account: string) => (accounts.size > 1 ? `  for ${account}` : "");
        ctx.stdout(`Recent cycles (${config.state}):\n`);
        if (cycles.length === 0) ctx.stdout("  none yet\n");
        for (const c of cycles) {
          const own = journal.decisionsOfCycle(c.id);
          // Live: what was sent and how the venue answered (a rejected action did not act); otherwise
          // what would have been sent.
          let outcome: string;
          if (c.mode === "live") {
            const sent = journal.submissionsOfCycle(c.id);
            const byStatus = new Map<string, number>();
            for (const x of sent) byStatus.set(x.status, (byStatus.get(x.status) ?? 0) + 1);
            const counts = [...byStatus].map(([status, n]) => `${n} ${status}`).join(", ");
            outcome = `${sent.length} sent${counts ? ` (${counts})` : ""}`;
          } else {
            const planned = own.filter((d) => d.guard === "allowed" || d.guard === "reduced").length;
            outcome = `${planned} planned, none sent`;
          }
          // A cycle that ran but whose decisions the limits or the kill switch stopped says so: "ok,
          // 0 sent" read as a quiet cycle.
          const blocked = own.filter((d) => d.guard === "blocked").length;
          // A strategy that threw or was held (the clock) failed its run in a cycle that ran: "ok" alone
          // read as a quiet cycle (a cron user's trial).
          const failedRuns = own.filter((d) => d.failed).length;
          const notes = [
            ...(blocked > 0 ? [`${blocked} blocked`] : []),
            ...(failedRuns > 0 ? [`${failedRuns} failed`] : []),
          ];
          // The row a `once` pass writes when the venue answers again and nothing was due.
          if (c.trigger === "once" && c.status === "ok" && own.length === 0) {
            ctx.stdout(
              `  ${new Date(c.startedAt).toISOString()}  ${c.id}  ${c.trigger}/${c.mode}${whose(c.account)}  ok  the venue answered again; nothing was due\n`,
            );
            continue;
          }
          ctx.stdout(
            `  ${new Date(c.startedAt).toISOString()}  ${c.id}  ${c.trigger}/${c.mode}${whose(c.account)}  ${c.status}` +
              `  ${own.length} decisions${notes.length > 0 ? ` (${notes.join(", ")})` : ""}, ${outcome}${c.error ? `  error: ${c.error}` : ""}\n`,
          );
        }
        ctx.stdout("Decisions by strategy:\n");
        if (byStrategy.size === 0) ctx.stdout("  none yet\n");
        for (const [strategy, list] of Object.entries(decisions)) {
          ctx.stdout(`  ${strategy}:\n`);
          for (const d of list) {
            const what =
              d.guard === "blocked"
                ? `BLOCKED ${d.kind}`
                : d.failed
                  ? "FAILED"
                  : d.guard === "skipped"
                    ? "skip"
                    : `${d.kind} (${d.guard})`;
            ctx.stdout(`    ${new Date(d.at).toISOString()}  ${d.trigger}  ${what}: ${d.reason}\n`);
          }
        }
        ctx.stdout("Recent submissions:\n");
        if (submissions.length === 0) ctx.stdout("  none yet\n");
        for (const s of submissions) {
          ctx.stdout(
            `  #${s.id}  ${new Date(s.createdAt).toISOString()}  ${s.strategy}${whose(s.account)}  ${s.actionType}  nonce ${s.nonce}  ${s.status}` +
              `${s.twapId !== null ? `  twapId ${s.twapId}` : ""}${s.reason ? `  (${s.reason})` : ""}\n`,
          );
        }
      } finally {
        close();
      }
    });
}
