// Human-readable rendering of a cycle report (plan, once) and the JSON lines of `plan --json`.
import type { CycleAction, CycleReport } from "../engine/cycle.js";
import { stringifyJson } from "../lib/json.js";

const OUTCOME_MARK: Record<CycleAction["outcome"], string> = {
  accepted: "sent, accepted",
  rejected: "sent, REJECTED",
  unknown: "sent, outcome UNKNOWN (reconciled next cycle)",
  "dry-run": "dry run, not sent",
  unsigned: "unsigned, not sent",
  skipped: "skipped",
};

export function formatCycle(report: CycleReport, header: string): string {
  const lines: string[] = [header];
  for (const r of report.reconciled) {
    lines.push(
      `  reconciled submission #${r.submissionId} (${r.strategy}, ${r.actionType}): ${r.verdict}, ${r.detail}`,
    );
  }
  if (report.decisions.length === 0) lines.push("  no strategy had anything to do");
  for (const { decision, guard, action } of report.decisions) {
    if (decision.kind === "skip") {
      lines.push(`  ${decision.strategy}: ${guard === "blocked" ? "BLOCKED" : "skip"}: ${decision.reason}`);
      continue;
    }
    // plan never sends: a refusal before anything left the process says so, not "sent".
    // Never looked at by the venue (rate limited, unreachable, a proxy's 403): nothing happened and the
    // slot stays due; "REJECTED" read as the venue's final word (a cron user's trial).
    const outcome = action
      ? action.notSent
        ? "not sent, REFUSED"
        : action.unprocessed
          ? "sent, NOT PROCESSED: nothing happened, tried again while its slot is due"
          : OUTCOME_MARK[action.outcome]
      : "not executed";
    lines.push(`  ${decision.strategy}: ${decision.kind} (${guard}; ${outcome}): ${decision.reason}`);
    if (action?.detail) lines.push(`      venue: ${action.detail}`);
    if (action?.twapId !== undefined) lines.push(`      twapId ${action.twapId}`);
    if (action) lines.push(`      ${stringifyJson(action.request)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** One JSON object per planned action, one per line. */
export function actionLines(report: CycleReport): string {
  return report.actions
    .map((a) =>
      stringifyJson({
        cycle: report.cycleId,
        strategy: a.strategy,
        action: a.action,
        reason: a.reason,
        guard: a.guard,
        outcome: a.outcome,
        ...(a.notSent ? { sent: false } : {}),
        ...(a.unprocessed ? { processed: false } : {}),
        ...(a.detail ? { detail: a.detail } : {}),
        ...(a.twapId !== undefined ? { twapId: a.twapId } : {}),
        request: a.request,
      }),
    )
    .map((line) => `${line}\n`)
    .join("");
}
