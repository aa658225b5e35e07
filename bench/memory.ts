// Section 6: resident memory of the daemon after 100 and after 10,000 cycles in virtual time. The
// daemon (the real Daemon class over a live runtime on the bundled demo bot) runs in a child process of
// its own; the simulator runs here and its virtual clock follows the child's, five minutes per cycle,
// so 10,000 cycles cover about 35 simulated days of TWAPs, rewards and price moves. RSS is read after
// a full GC at each checkpoint. The child's state database lives on tmpfs (/dev/shm) when there is one:
// fsync latency would only stretch the wall time, not change the memory.
import { type ChildProcess, fork } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import { startSimulator } from "../src/simulator/index.js";
import { privateKeySigner } from "../src/venue/signing/index.js";
import type { ChildMessage, DaemonChildConfig, ParentMessage } from "./daemonChild.js";
import { DEMO_SCENARIO } from "./lib/paths.js";
import type { Figure, SectionResult } from "./lib/report.js";
import { fmtNumber } from "./lib/report.js";

const STEP_MS = 5 * 60_000;

export async function runMemory(o: { quick: boolean }): Promise<SectionResult> {
  const notes: string[] = [];
  const first = o.quick ? 20 : 100;
  const last = o.quick ? 200 : 10_000;
  const key = bytesToHex(secp256k1.utils.randomSecretKey());
  const account = privateKeySigner(key, "bench key").address;
  const sim = await startSimulator({ scenario: DEMO_SCENARIO, rateLimit: false, clock: "virtual" });
  // The demo account's holdings (config/scenarios/demo.yaml), on spot.
  sim.fund(account, "USDC", "25000");
  sim.fund(account, "HYPE", "1800");
  sim.fund(account, "PURR", "5000");
  const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  const stateDir = mkdtempSync(join(base, "hlbot-bench-daemon-"));
  const script = fileURLToPath(new URL("./daemonChild.js", import.meta.url));
  let child: ChildProcess | undefined;
  try {
    child = fork(script, [], {
      execArgv: ["--expose-gc"],
      env: { PATH: process.env.PATH, HLBOT_BENCH_KEY: key },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const c = child;
    const checkpoints: Array<Extract<ChildMessage, { type: "checkpoint" }>> = [];
    const done = await new Promise<Extract<ChildMessage, { type: "done" }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("daemon child took longer than 240 s")), 240_000);
      c.on("message", (m: ChildMessage) => {
        if (m.type === "advance") {
          sim.advanceTo(m.to);
          c.send({ type: "advanced", id: m.id } satisfies ParentMessage);
        } else if (m.type === "checkpoint") {
          checkpoints.push(m);
        } else if (m.type === "done") {
          clearTimeout(timer);
          resolve(m);
        } else if (m.type === "error") {
          clearTimeout(timer);
          reject(new Error(`daemon child failed: ${m.message}`));
        }
      });
      c.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`daemon child exited (code ${code}) before it finished`));
      });
      const config: DaemonChildConfig = {
        url: sim.url,
        stateDir,
        checkpoints: o.quick ? [first, last] : [first, 1_000, 2_500, 5_000, 7_500, last],
        stepMs: STEP_MS,
        startTime: sim.now(),
      };
      c.send({ type: "config", config } satisfies ParentMessage);
    });
    const a = checkpoints.find((p) => p.cycles === first);
    const b = checkpoints.find((p) => p.cycles === last);
    if (!a || !b) throw new Error("the daemon child did not report both checkpoints");
    const growth = (b.rssMiB - a.rssMiB) / a.rssMiB;
    const figures: Figure[] = [
      {
        id: "6a",
        name: `daemon RSS after ${last.toLocaleString("en-US")} cycles (after GC)`,
        value: b.rssMiB,
        unit: "MiB",
        baseline: { name: `after ${first} cycles`, value: a.rssMiB },
        ratio: b.rssMiB / a.rssMiB,
        ratioLabel: `${last}/${first}`,
        // A daemon whose cycles fail does little: its memory says nothing of a working one.
        target: {
          text: "growth < 10%, every cycle ok",
          met: growth < 0.1 && done.failed === 0 && done.cycles > 0,
        },
      },
    ];
    const steady = checkpoints.find((p) => p.cycles === 1_000);
    if (steady) {
      notes.push(
        `after warm-up: RSS ${fmtNumber(steady.rssMiB)} MiB at 1,000 cycles → ${fmtNumber(b.rssMiB)} MiB at ${last.toLocaleString("en-US")} (${fmtNumber(((b.rssMiB - steady.rssMiB) / steady.rssMiB) * 100)}%); heap used ${fmtNumber(steady.heapUsedMiB)} → ${fmtNumber(b.heapUsedMiB)} MiB`,
      );
    }
    const trades = sim.ledger({ user: account, kind: "twapPlaced" }).length;
    const delegations = sim.ledger({ user: account, kind: "delegate" }).length;
    notes.push(
      `growth ${fmtNumber(growth * 100)}% RSS; V8 heap used ${fmtNumber(a.heapUsedMiB)} → ${fmtNumber(b.heapUsedMiB)} MiB; ${done.cycles} cycles journaled (${done.failed} failed) over ${fmtNumber((last * STEP_MS) / 86_400_000)} simulated days in ${fmtNumber(done.wallMs / 1000)} s wall; the venue saw ${trades} TWAPs and ${delegations} delegations from the daemon`,
    );
    notes.push(
      `RSS / V8 heap total / heap used / external (MiB) by cycle: ${checkpoints
        .map(
          (p) =>
            `${p.cycles}: ${fmtNumber(p.rssMiB)} / ${fmtNumber(p.heapTotalMiB)} / ${fmtNumber(p.heapUsedMiB)} / ${fmtNumber(p.externalMiB)}${p.rssParts ? ` (${p.rssParts})` : ""}`,
        )
        .join("; ")}`,
    );
    notes.push(
      `daemon: the Daemon class of \`hlbot run\` with the bundled demo bot (config/demo.yaml, live against the simulator), ticks fired in virtual time, one strategy per tick in turn; state on ${base}`,
    );
    return { title: "6. Daemon memory", figures, notes };
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await sim.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
