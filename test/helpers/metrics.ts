// Helpers of the metrics tests: scrape the daemon's HTTP endpoint on 127.0.0.1, read one sample of the
// Prometheus text format, and let a daemon under sinon fake timers finish its run.
import { request } from "node:http";
import pino from "pino";
import sinon from "sinon";
import { Daemon, type DaemonOptions, type ScheduleFn, scheduledStrategies } from "../../src/engine/daemon.js";
import { type BotMetrics, type MetricsServer, startMetricsServer } from "../../src/engine/metrics.js";
import { openRuntime, type Runtime } from "../../src/engine/runtime.js";
import type { TestBot } from "./bot.js";

/** Captured before any test installs fake timers. */
export const realSetTimeout = globalThis.setTimeout;

export function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** The value of one sample line of the Prometheus text format, e.g. `name{a="b"}`. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Lets the daemon's run finish, moving fake time on whenever it waits (weight budget, retry delays). */
export async function settle(d: Daemon, c: sinon.SinonFakeTimers): Promise<void> {
  let idle = false;
  void d.idle().then(() => {
    idle = true;
  });
  while (!idle) {
    await new Promise((r) => realSetTimeout(r, 10));
    if (!idle) await c.tickAsync(1_000);
  }
}

/**
 * A live daemon with metrics over a test bot's configuration (a runtime of its own on the bot's
 * simulator), under sinon fake timers, and its /metrics server on 127.0.0.1. Cron ticks are fired by
 * the test (`ticks.get(name)!(new Date())`): these tests are about what the metrics say, not when.
 */
export async function startMetricsDaemon(
  bot: TestBot,
  metrics: BotMetrics,
  options: Partial<DaemonOptions> = {},
): Promise<{
  runtime: Runtime;
  clock: sinon.SinonFakeTimers;
  ticks: Map<string, (at: Date) => void>;
  daemon: Daemon;
  server: MetricsServer;
}> {
  const sim = bot.sim;
  const runtime = await openRuntime({
    config: bot.runtime.config,
    env: { TEST_BOT_KEY: bot.key },
    mode: "live",
    logger: pino({ level: "silent" }),
    clock: () => sim.now(),
    metrics,
  });
  const clock = sinon.useFakeTimers({
    now: sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const ticks = new Map<string, (at: Date) => void>();
  const manual: ScheduleFn = (_expression, onTick, { name }) => {
    ticks.set(name, onTick);
    return { stop: () => ticks.delete(name) };
  };
  const daemon = new Daemon({
    runtime,
    strategies: scheduledStrategies(runtime.config.strategies),
    logger: pino({ level: "silent" }),
    metrics,
    schedule: manual,
    // Ticks come only when a test sends them: the watch for cron ticks that never come (the daemon's
    // checkTicks) would take the silence for a lost timer and plan by itself.
    clockWatch: { onCheck: () => undefined },
    ...options,
  });
  const server = await startMetricsServer(metrics, daemon, 0);
  return { runtime, clock, ticks, daemon, server };
}
