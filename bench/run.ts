// Entry point of the benchmark suite (`npm run bench`, `npm run bench:quick`). Runs every section in
// one process, prints each figure beside its baseline with their ratio, and says for every target
// whether this run met it. `--quick` uses tiny sample counts and enforces nothing (CI smoke run);
// `--enforce` makes a full run exit 1 when a target is missed. `--only 1,3` runs some sections;
// `--json FILE` also writes the raw results.

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { formatNotes, formatTable, missedTargets, type SectionResult } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";

interface Args {
  quick: boolean;
  enforce: boolean;
  only: Set<string> | undefined;
  json: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { quick: false, enforce: false, only: undefined, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") args.quick = true;
    else if (a === "--enforce") args.enforce = true;
    else if (a === "--only") args.only = new Set((argv[++i] ?? "").split(",").map((s) => s.trim()));
    else if (a === "--json") args.json = argv[++i];
    else throw new Error(`unknown argument ${a} (known: --quick, --enforce, --only 1,2,…, --json FILE)`);
  }
  return args;
}

export function machine() {
  const list = cpus();
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // not a git checkout
  }
  return {
    cpu: list[0]?.model.trim() ?? "unknown",
    nproc: list.length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    // Other work on the machine skews every figure; the load before the run is printed with them.
    loadAverage: loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
    commit,
  };
}

type Section = (o: { quick: boolean }) => Promise<SectionResult>;

const SECTIONS: ReadonlyArray<[string, () => Promise<Section>]> = [
  ["1", async () => (await import("./signing.js")).runSigning],
  ["2", async () => (await import("./info.js")).runInfo],
  ["3", async () => (await import("./cycle.js")).runCycleBench],
  ["4", async () => (await import("./coldStart.js")).runColdStart],
  ["5", async () => (await import("./simulate.js")).runSimulate],
  ["6", async () => (await import("./memory.js")).runMemory],
  ["7", async () => (await import("./sweep.js")).runSweepBench],
];

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const m = machine();
  const started = nowMs();
  process.stdout.write(
    `hlbot benchmarks (${args.quick ? "quick: tiny samples, targets not enforced" : "full run"})\n` +
      `machine: ${m.cpu}, ${m.nproc} CPUs, ${m.memoryGiB} GiB, Node ${m.node}, ${m.platform}; load average ${m.loadAverage}; commit ${m.commit}\n\n`,
  );
  const results: SectionResult[] = [];
  let broken = false;
  for (const [id, load] of SECTIONS) {
    if (args.only && !args.only.has(id)) continue;
    const t0 = nowMs();
    try {
      const run = await load();
      const result = await run({ quick: args.quick });
      results.push(result);
      process.stdout.write(`${result.title}: done in ${((nowMs() - t0) / 1000).toFixed(1)} s\n`);
    } catch (err) {
      broken = true;
      process.stdout.write(
        `section ${id} FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
  }
  const total = (nowMs() - started) / 1000;
  process.stdout.write(`\n${formatTable(results, !args.quick)}\n\n${formatNotes(results)}\n`);
  process.stdout.write(`\ntotal wall time ${total.toFixed(1)} s\n`);
  if (args.json) {
    writeFileSync(
      args.json,
      `${JSON.stringify({ machine: m, quick: args.quick, totalSeconds: total, results }, null, 2)}\n`,
    );
  }
  if (broken) return 1;
  const missed = missedTargets(results);
  if (!args.quick && missed.length > 0) {
    process.stdout.write(`targets missed: ${missed.map((f) => f.id).join(", ")}\n`);
    if (args.enforce) return 1;
  }
  return 0;
}

process.exitCode = await main();
