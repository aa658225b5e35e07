// Section 7: a parameter sweep (`hlbot simulate --sweep`) on worker threads against the same points run
// one by one in one thread (`--jobs 1`, the same code in-process): a 3 × 3 × 3 grid of the demo bot's
// parameters, 27 runs of 30 days each on the demo scenario, both timed as a user runs them (the built
// CLI, wall time to exit). Both must print the same ranked runs. Full mode only: skipped under --quick.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, CLI_ENTRY, DEMO_CONFIG, DEMO_SCENARIO, REPO_ROOT } from "./lib/paths.js";
import type { SectionResult } from "./lib/report.js";
import { fmtNumber } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";

const TITLE = "7. Parameter sweep";
const DAYS = 30;
const GRID = {
  "strategies.purr-allocation.params.band": [0.01, 0.015, 0.03],
  "strategies.purr-allocation.params.twap.minutes": [10, 20, 60],
  "strategies.hype-dca.params.amountUsd": [150, 300, 450],
};

function timeSweep(file: string, jobs: number | undefined): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const args = [
      CLI,
      "simulate",
      "--sweep",
      file,
      "--json",
      ...(jobs === undefined ? [] : ["--jobs", String(jobs)]),
    ];
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 900_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve({ ms: nowMs() - t0, stdout });
      else reject(new Error(`hlbot simulate --sweep exited with ${code}: ${stderr.slice(-400)}`));
    });
  });
}

/** The ranked runs without wall-clock figures (the summaries hold none): what must match. */
function ranking(stdout: string): string {
  const json = JSON.parse(stdout) as {
    runs: Array<{ point: number; rank: number | null; figure: string | null }>;
  };
  return JSON.stringify(json.runs.map((r) => [r.point, r.rank, r.figure]));
}

export async function runSweepBench(o: { quick: boolean }): Promise<SectionResult> {
  if (o.quick)
    return {
      title: TITLE,
      figures: [],
      notes: ["skipped under --quick (27 runs of 30 simulated days, twice)"],
    };
  if (!existsSync(CLI_ENTRY) || !existsSync(join(REPO_ROOT, "dist/simulate/sweepWorker.js")))
    return { title: TITLE, figures: [], notes: ["skipped: dist/ is not built (npm run build)"] };
  const dir = mkdtempSync(join(tmpdir(), "hlbot-bench-sweep-"));
  try {
    const file = join(dir, "sweep.yaml");
    const grid = Object.entries(GRID)
      .map(([key, values]) => `  ${key}: [${values.join(", ")}]`)
      .join("\n");
    writeFileSync(
      file,
      `config: ${JSON.stringify(DEMO_CONFIG)}\nscenario: ${JSON.stringify(DEMO_SCENARIO)}\ndays: ${DAYS}\ngrid:\n${grid}\n`,
    );
    const points = Object.values(GRID).reduce((n, v) => n * v.length, 1);
    const cores = availableParallelism();
    const workers = Math.min(cores, points);
    const parallel = await timeSweep(file, undefined);
    const serial = await timeSweep(file, 1);
    const same = ranking(parallel.stdout) === ranking(serial.stdout);
    const speedUp = serial.ms / parallel.ms;
    return {
      title: TITLE,
      figures: [
        {
          id: "7a",
          name: `${points}-point sweep of ${DAYS}-day demo runs (3×3×3), ${workers} worker threads, CLI wall time`,
          value: parallel.ms / 1000,
          unit: "s",
          baseline: {
            name: `the same ${points} runs one by one in one thread (--jobs 1)`,
            value: serial.ms / 1000,
          },
          ratio: speedUp,
          ratioLabel: "speed-up, one thread/workers",
          note: `all ${points} points measured both ways; same ranked runs: ${same ? "yes" : "NO"}`,
        },
      ],
      notes: [
        `${points} runs of ${DAYS} days: ${fmtNumber(parallel.ms / 1000 / points)} s per run on ${workers} worker threads (${cores} cores available), ${fmtNumber(serial.ms / 1000 / points)} s per run in one thread; the ideal speed-up is ${workers}× less the workers' start-up and whatever else runs on the machine (see the load average above)`,
        `the two runs print the same ranked runs: ${same ? "yes" : "NO (a bug: a sweep must not depend on where its points run)"}`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
