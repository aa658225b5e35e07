// Child process of the memory benchmark: the daemon under test, alone in its process so that its
// resident memory is its own (the simulator runs in the parent). It opens a live runtime on the bundled
// demo bot (config/demo.yaml) against the parent's simulator, starts the real Daemon with a schedule
// function the benchmark drives, and fires ticks in virtual time: before each tick it asks the parent
// to advance the simulator's clock to the same instant. At each checkpoint it reports RSS after a full
// GC. The signing key arrives in the environment (HLBOT_BENCH_KEY), never on the command line.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/engine/config/loader.js";
import { Daemon, type ScheduleFn, scheduledStrategies } from "../src/engine/daemon.js";
import { openRuntime } from "../src/engine/runtime.js";
import { silentLogger } from "../src/lib/log.js";
import { privateKeySigner } from "../src/venue/signing/index.js";
import { DEMO_CONFIG } from "./lib/paths.js";

export interface DaemonChildConfig {
  url: string;
  stateDir: string;
  checkpoints: number[];
  stepMs: number;
  startTime: number;
}

export type ChildMessage =
  | { type: "advance"; id: number; to: number }
  | {
      type: "checkpoint";
      cycles: number;
      rssMiB: number;
      heapUsedMiB: number;
      heapTotalMiB: number;
      externalMiB: number;
      /** Linux /proc/self/status: anonymous, file-backed and shared-memory resident pages (MiB). */
      rssParts: string;
      wallMs: number;
    }
  | { type: "done"; cycles: number; failed: number; wallMs: number }
  | { type: "error"; message: string };

export type ParentMessage = { type: "config"; config: DaemonChildConfig } | { type: "advanced"; id: number };

function send(message: ChildMessage): void {
  process.send!(message);
}

const pending = new Map<number, () => void>();
let configResolve: (c: DaemonChildConfig) => void;
const configured = new Promise<DaemonChildConfig>((resolve) => {
  configResolve = resolve;
});
process.on("message", (m: ParentMessage) => {
  if (m.type === "config") configResolve(m.config);
  else if (m.type === "advanced") {
    pending.get(m.id)?.();
    pending.delete(m.id);
  }
});

let nextId = 0;
function advanceTo(to: number): Promise<void> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    send({ type: "advance", id, to });
  });
}

function rssAfterGc() {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const m = process.memoryUsage();
  const mib = (n: number) => n / 2 ** 20;
  let rssParts = "";
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    rssParts = ["RssAnon", "RssFile", "RssShmem"]
      .map(
        (k) => `${k} ${((Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1]) || 0) / 1024).toFixed(1)}`,
      )
      .join(", ");
  } catch {
    // not Linux
  }
  return {
    rssParts,
    rssMiB: mib(m.rss),
    heapUsedMiB: mib(m.heapUsed),
    heapTotalMiB: mib(m.heapTotal),
    externalMiB: mib(m.external),
  };
}

async function main(): Promise<void> {
  const c = await configured;
  const key = process.env.HLBOT_BENCH_KEY;
  if (!key) throw new Error("HLBOT_BENCH_KEY is not set");
  const signer = privateKeySigner(key, "bench key");
  mkdirSync(c.stateDir, { recursive: true });
  const loaded = await loadConfig(DEMO_CONFIG, {});
  // The kill-switch file was resolved at load against the demo bot's own state folder, which a clean
  // checkout does not have: there every cycle failed closed ("the kill-switch file's folder does not
  // exist") and the memory was that of a daemon doing nothing. It lives in this run's state folder.
  const config = {
    ...loaded,
    account: undefined,
    state: c.stateDir,
    mode: "live" as const,
    limits: { ...loaded.limits, killSwitchFile: join(c.stateDir, "STOP") },
  };
  let now = c.startTime;
  const runtime = await openRuntime({
    config,
    env: {},
    mode: "live",
    logger: silentLogger(),
    clock: () => now,
    signer,
    budget: null,
    baseUrl: c.url,
  });
  const ticks = new Map<string, (at: Date) => void>();
  const schedule: ScheduleFn = (_expression, onTick, { name }) => {
    ticks.set(name, onTick);
    return { stop: () => ticks.delete(name) };
  };
  const strategies = scheduledStrategies(config.strategies);
  const daemon = new Daemon({ runtime, strategies, logger: silentLogger(), schedule });
  daemon.start();
  const names = strategies.map((s) => s.name);
  const total = Math.max(...c.checkpoints);
  const t0 = performance.now();
  for (let i = 1; i <= total; i++) {
    now += c.stepMs;
    await advanceTo(now);
    ticks.get(names[i % names.length]!)?.(new Date(now));
    await daemon.idle();
    if (c.checkpoints.includes(i)) {
      send({ type: "checkpoint", cycles: i, ...rssAfterGc(), wallMs: performance.now() - t0 });
    }
  }
  await daemon.stop(5_000);
  const counts = runtime.db
    .prepare("SELECT COUNT(*) AS n, SUM(status = 'failed') AS failed FROM cycles")
    .get() as { n: number; failed: number | null };
  await runtime.close();
  send({ type: "done", cycles: counts.n, failed: counts.failed ?? 0, wallMs: performance.now() - t0 });
}

main().then(
  () => process.disconnect(),
  (err: unknown) => {
    send({ type: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.disconnect();
  },
);
