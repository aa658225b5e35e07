import { afterEach, describe, expect, it } from "vitest";
import { BotMetrics, type MetricsServer, startMetricsServer } from "../../src/engine/metrics.js";

describe("metrics endpoint", () => {
  let server: MetricsServer | undefined;
  afterEach(async () => server?.close());

  it("serves health, readiness and Prometheus metrics on 127.0.0.1", async () => {
    const metrics = new BotMetrics();
    let ready = false;
    server = await startMetricsServer(metrics, { ready: () => ready }, 0);
    const base = `http://127.0.0.1:${server.port}`;

    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/ready`)).status).toBe(503);
    ready = true;
    expect((await fetch(`${base}/ready`)).status).toBe(200);

    metrics.cycles.inc({ strategy: "rebalance", outcome: "ok" });
    metrics.submissions.inc({ action: "twapOrder", outcome: "accepted" }, 2);
    metrics.lastSuccess.set({ strategy: "rebalance" }, 1_700_000_000);
    const body = await (await fetch(`${base}/metrics`)).text();
    expect(body).toContain('hlbot_cycles_total{strategy="rebalance",outcome="ok"} 1');
    expect(body).toContain('hlbot_submissions_total{action="twapOrder",outcome="accepted"} 2');
    expect(body).toContain('hlbot_last_success_timestamp_seconds{strategy="rebalance"} 1700000000');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});
