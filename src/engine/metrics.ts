// Prometheus metrics of the daemon and the optional HTTP endpoint serving /health, /live, /ready and /metrics.
// Every counter is registered on a private registry so two daemons in one test process do not collide.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ResponseEvent } from "../venue/transport/http.js";

/** The outcomes hlbot_cycles_total counts, each started at 0 per strategy (zeroFor). */
const CYCLE_OUTCOMES = ["ok", "failed", "skipped"] as const;

export class BotMetrics {
  readonly registry = new Registry();
  readonly cycles = new Counter({
    name: "hlbot_cycles_total",
    help: "Strategy cycles by strategy and outcome (ok, failed, skipped)",
    labelNames: ["strategy", "outcome"] as const,
    registers: [this.registry],
  });
  readonly intents = new Counter({
    name: "hlbot_intents_total",
    help: "Decisions by strategy, action kind and guard verdict (allowed, reduced, blocked, skipped)",
    labelNames: ["strategy", "kind", "guard"] as const,
    registers: [this.registry],
  });
  readonly submissions = new Counter({
    name: "hlbot_submissions_total",
    help: "Exchange submissions by action and outcome (accepted, rejected, unknown, dry-run)",
    labelNames: ["action", "outcome"] as const,
    registers: [this.registry],
  });
  readonly venueLatency = new Histogram({
    name: "hlbot_venue_request_duration_seconds",
    help: "Latency of venue requests by endpoint",
    labelNames: ["endpoint"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly venueErrors = new Counter({
    name: "hlbot_venue_errors_total",
    help: "Venue request failures by error code",
    labelNames: ["endpoint", "code"] as const,
    registers: [this.registry],
  });
  readonly rateLimitWait = new Counter({
    name: "hlbot_rate_limit_wait_seconds_total",
    help: "Time spent waiting for the client-side request weight budget",
    registers: [this.registry],
  });
  readonly lastSuccess = new Gauge({
    name: "hlbot_last_success_timestamp_seconds",
    help: "Unix time of the last successful cycle per strategy",
    labelNames: ["strategy"] as const,
    registers: [this.registry],
  });

  /**
   * Starts each strategy's cycle counters at 0: a series that appears at its first increment is not seen
   * to increase by Prometheus's increase() (a scripter's trial: the shipped "3 failed cycles in 30
   * minutes" alert would have fired only at the fourth).
   */
  zeroFor(strategies: readonly string[]): void {
    for (const strategy of strategies)
      for (const outcome of CYCLE_OUTCOMES) this.cycles.inc({ strategy, outcome }, 0);
  }
}

/**
 * Observers for the venue transport and its weight budget that feed the latency, error and rate-limit
 * metrics. A request the caller aborted (shutdown) is not a venue error and is not counted as one.
 */
export function venueObservers(metrics: BotMetrics): {
  onResponse(event: ResponseEvent): void;
  onWait(waitedMs: number): void;
} {
  return {
    onResponse(event) {
      if (event.answerOnly !== true)
        metrics.venueLatency.observe({ endpoint: event.endpoint }, event.ms / 1000);
      const error = event.error as (ResponseEvent["error"] & { kind?: string }) | undefined;
      if (error && error.kind !== "aborted")
        metrics.venueErrors.inc({ endpoint: event.endpoint, code: error.code });
    },
    onWait(waitedMs) {
      metrics.rateLimitWait.inc(waitedMs / 1000);
    },
  };
}

export interface HealthState {
  /** Ready once configuration, state and the first venue contact succeeded, and while not shutting down. */
  ready(): boolean;
  /** Healthy (/health): the scheduler runs and its cycles work (src/engine/daemon.ts); default always. */
  alive?(): { ok: true } | { ok: false; reason: string };
  /**
   * Live (/live): the process answers and its scheduler's ticks come (src/engine/clockWatch.ts), whatever
   * the venue or the strategies do; default always. For a liveness probe: a restart mends nothing else,
   * and a pod restarting in a loop runs neither its strategies nor the TWAP watch's guards.
   */
  live?(): { ok: true } | { ok: false; reason: string };
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Serves /health, /live, /ready and /metrics on `host:port` (127.0.0.1 unless told otherwise). */
export async function startMetricsServer(
  metrics: BotMetrics,
  health: HealthState,
  port: number,
  host = "127.0.0.1",
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET") {
      res.writeHead(405, { allow: "GET" }).end();
      return;
    }
    if (path === "/health" || path === "/live") {
      const alive = (path === "/live" ? health.live?.() : health.alive?.()) ?? { ok: true };
      if (alive.ok) res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      else
        res
          .writeHead(503, { "content-type": "application/json" })
          .end(JSON.stringify({ status: "unhealthy", reason: alive.reason }));
    } else if (path === "/ready") {
      const ok = health.ready();
      res
        .writeHead(ok ? 200 : 503, { "content-type": "application/json" })
        .end(JSON.stringify({ ready: ok }));
    } else if (path === "/metrics") {
      metrics.registry.metrics().then(
        (body) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
