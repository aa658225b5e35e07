// The transport's and the budget's observer hooks (used by the daemon's metrics): what they report,
// and that a throwing observer changes nothing.
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { BotMetrics, venueObservers } from "../../../src/engine/metrics.js";
import { ServerError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { WeightBudget } from "../../../src/venue/transport/budget.js";
import { HttpTransport, type ResponseEvent } from "../../../src/venue/transport/http.js";
import { startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";

let server: TestHttpServer | undefined;
let transport: HttpTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await server?.close();
  transport = undefined;
  server = undefined;
});

describe("HttpTransport onResponse", () => {
  it("reports every exchange with its endpoint, status and time, retries and failures included", async () => {
    server = await startHttpServer([
      { status: 500, text: "down" },
      { json: { ok: 1 } },
      { json: { status: "ok" } },
    ]);
    const events: ResponseEvent[] = [];
    transport = new HttpTransport({
      endpoints: resolveEndpoints("testnet", server.url),
      budget: null,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      onResponse: (e) => events.push(e),
    });
    expect(await transport.read({ type: "x" }, { weight: 1 })).toEqual({ ok: 1 });
    await transport.exchange('{"action":{}}');
    expect(events.map((e) => [e.endpoint, e.status, e.error?.code])).toEqual([
      ["info", 500, "SERVER_ERROR"],
      ["info", 200, undefined],
      ["exchange", 200, undefined],
    ]);
    expect(events[0]?.error).toBeInstanceOf(ServerError);
    for (const e of events) expect(e.ms).toBeGreaterThanOrEqual(0);
  });

  it("reports a 200 answer that is not JSON or not the documented shape, feeding the venue-errors metric", async () => {
    // Garbage at status 200 (a proxy's error page) was not counted: the alert on venue errors stayed silent.
    server = await startHttpServer([
      { status: 200, text: "<html>bad gateway</html>" },
      { status: 200, text: "<html>bad gateway</html>" },
      { json: { not: "mids" } },
      { json: { not: "mids" } },
    ]);
    const events: ResponseEvent[] = [];
    transport = new HttpTransport({
      endpoints: resolveEndpoints("testnet", server.url),
      budget: null,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      onResponse: (e) => events.push(e),
    });
    const info = new InfoClient(transport);
    await expect(info.allMids()).rejects.toMatchObject({ code: "BAD_RESPONSE" });
    await expect(info.allMids()).rejects.toMatchObject({ code: "BAD_RESPONSE" });
    const bad = events.filter((e) => e.answerOnly);
    expect(bad.map((e) => [e.endpoint, e.status, e.error?.code])).toEqual([
      ["info", 200, "BAD_RESPONSE"],
      ["info", 200, "BAD_RESPONSE"],
      ["info", 200, "BAD_RESPONSE"],
      ["info", 200, "BAD_RESPONSE"],
    ]);
    const metrics = new BotMetrics();
    const observe = venueObservers(metrics).onResponse;
    for (const e of events) observe(e);
    const text = await metrics.registry.metrics();
    expect(text).toContain('hlbot_venue_errors_total{endpoint="info",code="BAD_RESPONSE"} 4');
    // Four exchanges, each observed once for its latency (the verdicts on their answers add none).
    expect(text).toMatch(/hlbot_venue_request_duration_seconds_count\{endpoint="info"\} 4\n/);
  });

  it("reports a connection failure without a status, and an observer that throws changes nothing", async () => {
    server = await startHttpServer([{ fault: "reset" }, { json: [1, 2] }]);
    const events: ResponseEvent[] = [];
    const dead = new HttpTransport({
      endpoints: resolveEndpoints("testnet", server.url),
      budget: null,
      retry: { attempts: 1 },
      onResponse: (e) => events.push(e),
    });
    await expect(dead.read({ type: "x" }, { weight: 1 })).rejects.toMatchObject({ code: "NETWORK" });
    await dead.close();
    expect(events).toHaveLength(1);
    expect(events[0]?.status).toBeUndefined();
    expect(events[0]?.error?.code).toBe("NETWORK");

    transport = new HttpTransport({
      endpoints: resolveEndpoints("testnet", server.url),
      budget: null,
      onResponse: () => {
        throw new Error("observer bug");
      },
    });
    expect(await transport.read({ type: "x" }, { weight: 1 })).toEqual([1, 2]);
  });
});

describe("WeightBudget onWait", () => {
  let clock: sinon.SinonFakeTimers | undefined;
  afterEach(() => clock?.restore());

  it("reports how long each queued caller waited, and nothing for callers admitted at once", async () => {
    clock = sinon.useFakeTimers({ now: 1_700_000_000_000, toFake: ["setTimeout", "clearTimeout", "Date"] });
    const waits: number[] = [];
    const budget = new WeightBudget({ capacity: 10, windowMs: 1_000, onWait: (ms) => waits.push(ms) });
    await budget.acquire(6);
    await clock.tickAsync(400);
    const second = budget.acquire(6); // must wait until the first leaves the window, 600 ms later
    expect(waits).toEqual([]);
    await clock.tickAsync(600);
    await second;
    expect(waits).toEqual([600]);
  });

  it("keeps admitting when the observer throws", async () => {
    clock = sinon.useFakeTimers({ now: 1_700_000_000_000, toFake: ["setTimeout", "clearTimeout", "Date"] });
    const budget = new WeightBudget({
      capacity: 1,
      windowMs: 100,
      onWait: () => {
        throw new Error("observer bug");
      },
    });
    const all = Promise.all([budget.acquire(1), budget.acquire(1), budget.acquire(1)]);
    await clock.tickAsync(300);
    await expect(all).resolves.toHaveLength(3);
  });
});
