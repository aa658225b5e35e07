// The result model of the suite and its printed table: every figure sits beside its baseline with
// the ratio between them and, where the issue sets one, the target and whether this run met it.

export interface Figure {
  /** Row label, e.g. "1a". */
  id: string;
  /** What is measured, in words. */
  name: string;
  value: number | undefined;
  unit: string;
  /** The baseline measured in the same run (same process or same machine). */
  baseline?: { name: string; value: number | undefined; unit?: string };
  /** value / baseline.value unless a section says otherwise (see ratioLabel). */
  ratio?: number | undefined;
  /** How the ratio reads, e.g. "hlbot/peer throughput". */
  ratioLabel?: string;
  target?: { text: string; met: boolean | undefined };
  note?: string;
}

export interface SectionResult {
  title: string;
  figures: Figure[];
  /** Free-text lines printed under the section's rows (what was measured, what was skipped). */
  notes: string[];
}

export function fmtNumber(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return "n/a";
  const abs = Math.abs(value);
  if (abs >= 100_000) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return "0";
  return value.toPrecision(2);
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

function verdict(f: Figure, enforced: boolean): string {
  if (!f.target) return "";
  const status = f.target.met === undefined ? "not measured" : f.target.met ? "met" : "NOT met";
  return enforced ? `${f.target.text}: ${status}` : `${f.target.text} (not enforced)`;
}

/** A Markdown table of every figure (readable as plain text too). */
export function formatTable(sections: readonly SectionResult[], targetsEnforced: boolean): string {
  const head = "| # | Figure | hlbot | Baseline | Ratio | Target |";
  const rule = "|---|---|--:|---|--:|---|";
  const lines = [head, rule];
  for (const s of sections) {
    lines.push(`| | **${cell(s.title)}** | | | | |`);
    for (const f of s.figures) {
      const value = `${fmtNumber(f.value)} ${f.unit}`;
      const base = f.baseline
        ? `${f.baseline.name}: ${fmtNumber(f.baseline.value)} ${f.baseline.unit ?? f.unit}`
        : "";
      const ratio =
        f.ratio === undefined ? "" : `${fmtNumber(f.ratio)}×${f.ratioLabel ? ` (${f.ratioLabel})` : ""}`;
      lines.push(
        `| ${f.id} | ${cell(f.name)} | ${cell(value)} | ${cell(base)} | ${cell(ratio)} | ${cell(verdict(f, targetsEnforced))} |`,
      );
    }
  }
  return lines.join("\n");
}

export function formatNotes(sections: readonly SectionResult[]): string {
  const out: string[] = [];
  for (const s of sections) {
    if (s.notes.length === 0) continue;
    out.push(`${s.title}:`);
    for (const n of s.notes) out.push(`  - ${n}`);
  }
  return out.join("\n");
}

/** Figures whose target this run measured and missed. */
export function missedTargets(sections: readonly SectionResult[]): Figure[] {
  return sections.flatMap((s) => s.figures.filter((f) => f.target?.met === false));
}
