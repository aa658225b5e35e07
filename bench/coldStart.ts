// Section 4: cold start of the built CLI (bin/hlbot.js → dist/), as a user meets it: wall time from
// spawning `node` to the first byte on stdout and to exit, for `hlbot --version` and for `hlbot plan
// --unsigned` on the demo scenario (served by a simulator child on 127.0.0.1), against `node -e 0`, the
// floor of any Node program on this machine. Runs are interleaved; medians are reported.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { startSimChild } from "./lib/child.js";
import { CLI, CLI_ENTRY, DEMO_ACCOUNT, DEMO_SCENARIO, EXAMPLE_STRATEGIES } from "./lib/paths.js";
import type { Figure, SectionResult } from "./lib/report.js";
import { fmtNumber } from "./lib/report.js";
import { median, nowMs } from "./lib/stats.js";

interface SpawnTiming {
  firstOutputMs: number | undefined;
  exitMs: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function timeSpawn(args: string[], env: NodeJS.ProcessEnv): Promise<SpawnTiming> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env });
    let first: number | undefined;
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      first ??= nowMs() - t0;
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ firstOutputMs: first, exitMs: nowMs() - t0, code, stdout, stderr });
    });
  });
}

export async function runColdStart(o: { quick: boolean }): Promise<SectionResult> {
  const notes: string[] = [];
  if (!existsSync(CLI_ENTRY)) {
    notes.push("skipped: dist/ is not built (npm run bench builds it; the quick run uses what is there)");
    return { title: "4. Cold start", figures: [], notes };
  }
  // The children get a plain environment: no inherited NODE_OPTIONS, no colours.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" };
  const dir = mkdtempSync(join(tmpdir(), "hlbot-bench-cold-"));
  const sim = await startSimChild(DEMO_SCENARIO);
  try {
    const configFile = join(dir, "bot.yaml");
    writeFileSync(
      configFile,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        account: DEMO_ACCOUNT,
        mode: "dry-run",
        strategies: EXAMPLE_STRATEGIES,
        state: join(dir, "state"),
        limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 10000 },
        log: { level: "warn" },
      }),
    );
    const runs = {
      floor: ["-e", "0"],
      version: [CLI, "--version"],
      plan: [CLI, "plan", "--unsigned", "--config", configFile],
    } as const;
    const samples: Record<keyof typeof runs, SpawnTiming[]> = { floor: [], version: [], plan: [] };
    const warm = o.quick ? 0 : 2;
    const n = o.quick ? 1 : 12;
    for (let i = 0; i < warm + n; i++) {
      for (const name of Object.keys(runs) as Array<keyof typeof runs>) {
        const t = await timeSpawn([...runs[name]], env);
        if (t.code !== 0) {
          throw new Error(`${runs[name].join(" ")} exited with ${t.code}: ${t.stderr.slice(0, 400)}`);
        }
        if (i >= warm) samples[name].push(t);
      }
    }
    const planOut = samples.plan[0]?.stdout ?? "";
    if (!/plan for 0x/i.test(planOut)) throw new Error(`unexpected plan output: ${planOut.slice(0, 200)}`);
    const floor = median(samples.floor.map((t) => t.exitMs));
    const version = median(samples.version.map((t) => t.firstOutputMs ?? t.exitMs));
    const versionExit = median(samples.version.map((t) => t.exitMs));
    const plan = median(samples.plan.map((t) => t.firstOutputMs ?? t.exitMs));
    const planExit = median(samples.plan.map((t) => t.exitMs));
    const figures: Figure[] = [
      {
        id: "4a",
        name: "hlbot --version, to first output",
        value: version,
        unit: "ms",
        baseline: { name: "node -e 0, to exit", value: floor },
        ratio: version / floor,
        ratioLabel: "hlbot/node",
      },
      {
        id: "4b",
        name: "hlbot plan --unsigned (demo), to first output",
        value: plan,
        unit: "ms",
        baseline: { name: "node -e 0, to exit", value: floor },
        ratio: plan / floor,
        ratioLabel: "hlbot/node",
      },
    ];
    notes.push(
      `to exit: node -e 0 ${fmtNumber(floor)} ms, --version ${fmtNumber(versionExit)} ms, plan --unsigned ${fmtNumber(planExit)} ms (medians of ${n} interleaved runs after ${warm} warm-up each)`,
    );
    notes.push(
      "plan --unsigned reads the demo account from a simulator child on 127.0.0.1 and runs the bundled example strategies (strategies/); its output is printed once the cycle is done",
    );
    return { title: "4. Cold start", figures, notes };
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
