import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import {
  BadResponseError,
  HttpStatusError,
  NetworkError,
  RateLimitError,
  ServerError,
  UnprocessableError,
} from "../../../src/lib/errors.js";
import { type Endpoints, resolveEndpoints } from "../../../src/venue/networks.js";
import { WeightBudget } from "../../../src/venue/transport/budget.js";
import {
  HttpTransport,
  type HttpTransportOptions,
  type RetryEvent,
} from "../../../src/venue/transport/http.js";
import { type ReplyScript, startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(
  script: ReplyScript,
  options: Partial<HttpTransportOptions> = {},
): Promise<{ server: TestHttpServer; transport: HttpTransport }> {
  const server = await startHttpServer(script);
  cleanups.push(() => server.close());
  const endpoints: Endpoints = {
    ...resolveEndpoints("testnet", server.url),
    explorer: `${server.url}/explorer`,
  };
  const transport = new HttpTransport({ endpoints, budget: null, retry: { attempts: 1 }, ...options });
  cleanups.push(() => transport.close());
  return { server, transport };
}

/** Waits on real I/O (setImmediate is never faked here) until `cond` holds. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const start = process.hrtime.bigint();
  while (!cond()) {
    if (process.hrtime.bigint() - start > 5_000_000_000n) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

async function settleIo(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe("HttpTransport reads", () => {
  it("POSTs JSON to {base}/info and returns the parsed body", async () => {
    const { server, transport } = await setup([{ json: { BTC: "30135.0" } }], { userAgent: "hlbot-test" });
    const result = await transport.read({ type: "allMids" }, { weight: 2 });
    expect(result).toEqual({ BTC: "30135.0" });
    const req = server.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/info");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe("hlbot-test");
    expect(req.json).toEqual({ type: "allMids" });
  });

  it("sends explorer reads to the explorer endpoint", async () => {
    const { server, transport } = await setup([{ json: { type: "txDetails" } }]);
    await transport.read({ type: "txDetails", hash: "0x00" }, { weight: 40, endpoint: "explorer" });
    expect(server.requests[0]!.path).toBe("/explorer");
  });

  it("keeps integers beyond 2^53 exact as bigint", async () => {
    const { transport } = await setup([{ text: '[{"stake":123456789012345678901,"n":1}]' }]);
    const result = (await transport.read({ type: "validatorSummaries" }, { weight: 20 })) as Array<
      Record<string, unknown>
    >;
    expect(result[0]!.stake).toBe(123456789012345678901n);
    expect(result[0]!.n).toBe(1);
  });

  it("reuses pooled keep-alive connections for consecutive requests", async () => {
    const { server, transport } = await setup([{ json: {} }]);
    for (let i = 0; i < 8; i++) await transport.read({ type: "spotMeta" }, { weight: 20 });
    const ports = new Set(server.requests.map((r) => r.remotePort));
    expect(server.requests).toHaveLength(8);
    // undici may open a second socket while the first is being released; it never opens one per request.
    expect(ports.size).toBeLessThanOrEqual(2);
    expect(server.requests.every((r) => r.headers.connection === "keep-alive")).toBe(true);
  });

  it("accepts JSON under a wrong content type, and a bare null", async () => {
    const { transport } = await setup([
      { text: '{"a":1}', headers: { "content-type": "text/html" } },
      { json: null },
    ]);
    expect(await transport.read({ type: "x" }, { weight: 1 })).toEqual({ a: 1 });
    expect(await transport.read({ type: "x" }, { weight: 1 })).toBeNull();
  });

  it.each([
    ["an HTML page", { text: "<html>oops</html>", headers: { "content-type": "text/html" } }],
    ["truncated JSON", { text: '{"balances":[' }],
    ["an empty body", { text: "" }],
    ["plain text", { text: "Failed" }],
  ])("rejects a 200 with %s as BadResponseError, without retrying", async (_name, reply) => {
    const { server, transport } = await setup([reply], { retry: { attempts: 3 } });
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect((err as BadResponseError).status).toBe(200);
    expect(server.requests).toHaveLength(1);
  });

  it("maps 422 text/plain to UnprocessableError carrying the text, never retried", async () => {
    const text = "Failed to deserialize the JSON body into the target type";
    const { server, transport } = await setup([{ status: 422, text }], { retry: { attempts: 4 } });
    const err = await transport.read({ type: "l2book" }, { weight: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect((err as UnprocessableError).body).toBe(text);
    expect((err as UnprocessableError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("maps 429 with a null body to RateLimitError", async () => {
    const { transport } = await setup([{ status: 429, json: null }]);
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).status).toBe(429);
    expect((err as RateLimitError).retryAfterMs).toBeUndefined();
  });

  it.each([
    [500, { status: 500, text: "" }],
    [
      502,
      {
        status: 502,
        text: "<html><body><h1>502 Bad Gateway</h1></body></html>",
        headers: { "content-type": "text/html" },
      },
    ],
    [503, { status: 503, json: { error: "maintenance" } }],
  ])("maps %i to ServerError", async (status, reply) => {
    const { transport } = await setup([reply]);
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect((err as ServerError).status).toBe(status);
  });

  it("maps other statuses to HttpStatusError", async () => {
    const { transport } = await setup([{ status: 404, text: "not found" }], { retry: { attempts: 3 } });
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpStatusError);
    expect((err as HttpStatusError).status).toBe(404);
  });

  it("times out a hanging request with NetworkError kind timeout", async () => {
    const { transport } = await setup([{ fault: "hang" }], { timeoutMs: 150 });
    const started = Date.now();
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("timeout");
    expect((err as NetworkError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("honours a per-call timeout over the transport default", async () => {
    const { transport } = await setup([{ fault: "hang" }], { timeoutMs: 60_000 });
    const err = await transport.read({ type: "x" }, { weight: 1, timeoutMs: 100 }).catch((e: unknown) => e);
    expect((err as NetworkError).kind).toBe("timeout");
  });

  it("maps a dropped connection and a truncated body to NetworkError kind reset", async () => {
    const { transport } = await setup([
      { fault: "reset" },
      { fault: "truncate", json: { a: "x".repeat(1000) } },
    ]);
    const first = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(NetworkError);
    expect((first as NetworkError).kind).toBe("reset");
    const second = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(NetworkError);
    expect((second as NetworkError).kind).toBe("reset");
  });

  it("maps a refused connection to NetworkError kind connection", async () => {
    const { server, transport } = await setup([{ json: {} }]);
    await server.close();
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("connection");
  });

  it("stops at once with kind aborted when the caller aborts, and does not retry", async () => {
    const { server, transport } = await setup([{ fault: "hang" }], { retry: { attempts: 4 } });
    const controller = new AbortController();
    const pending = transport.read({ type: "x" }, { weight: 1, signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort();
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("aborted");
    expect((err as NetworkError).retryable).toBe(false);
    await settleIo();
    expect(server.requests).toHaveLength(1);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const { server, transport } = await setup([{ json: {} }]);
    const err = await transport
      .read({ type: "x" }, { weight: 1, signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect((err as NetworkError).kind).toBe("aborted");
    expect(server.requests).toHaveLength(0);
  });

  it("remembers the Date header of the latest response", async () => {
    const { transport } = await setup([
      { json: {}, headers: { date: "Wed, 01 Jan 2025 00:00:00 GMT" } },
      { status: 500, headers: { date: "Thu, 02 Jan 2025 00:00:00 GMT" } },
    ]);
    expect(transport.lastServerDate()).toBeUndefined();
    await transport.read({ type: "x" }, { weight: 1 });
    expect(transport.lastServerDate()?.toISOString()).toBe("2025-01-01T00:00:00.000Z");
    await transport.read({ type: "x" }, { weight: 1 }).catch(() => undefined);
    expect(transport.lastServerDate()?.toISOString()).toBe("2025-01-02T00:00:00.000Z");
  });

  it("says the latest answer carried no Date rather than passing on an older one (it would age into a skew)", async () => {
    const { transport } = await setup([
      { json: {}, headers: { date: "Wed, 01 Jan 2025 00:00:00 GMT" } },
      { json: {}, noDate: true },
      { json: {}, headers: { date: "not a date" } },
      { json: {}, headers: { date: "Wed, 01 Jan 2025 00:00:00 GMT" } },
    ]);
    await transport.read({ type: "x" }, { weight: 1 });
    expect(transport.latestAnswerDate()?.toISOString()).toBe("2025-01-01T00:00:00.000Z");
    await transport.read({ type: "x" }, { weight: 1 });
    expect(transport.latestAnswerDate()).toBeUndefined();
    // The last date seen stays known for what only wants one (the start-up check, `data fetch`).
    expect(transport.lastServerDate()?.toISOString()).toBe("2025-01-01T00:00:00.000Z");
    await transport.read({ type: "x" }, { weight: 1 });
    expect(transport.latestAnswerDate()).toBeUndefined();
    // The same text as the last readable one: that date again.
    await transport.read({ type: "x" }, { weight: 1 });
    expect(transport.latestAnswerDate()?.toISOString()).toBe("2025-01-01T00:00:00.000Z");
  });
});

describe("HttpTransport retries (fake timers)", () => {
  let clock: sinon.SinonFakeTimers | undefined;
  afterEach(() => {
    clock?.restore();
    clock = undefined;
  });

  function fakeTime(): sinon.SinonFakeTimers {
    clock = sinon.useFakeTimers({ now: 1_700_000_000_000, toFake: ["setTimeout", "clearTimeout", "Date"] });
    return clock;
  }

  /** Drives a read through its retries: after each failure, advances the fake clock by the announced delay. */
  async function driveRetries(
    server: TestHttpServer,
    events: RetryEvent[],
    retries: number,
    c: sinon.SinonFakeTimers,
  ): Promise<void> {
    for (let i = 1; i <= retries; i++) {
      await until(() => events.length >= i, `retry ${i}`);
      const delay = events[i - 1]!.delayMs;
      await c.tickAsync(Math.max(0, delay - 1));
      await settleIo();
      // The backoff is still running: nothing new may have been sent.
      expect(server.requests).toHaveLength(i);
      await c.tickAsync(1);
      await server.waitForRequests(i + 1);
    }
  }

  it("retries 500s with growing, jittered, bounded delays and then succeeds", async () => {
    const c = fakeTime();
    const events: RetryEvent[] = [];
    const { server, transport } = await setup(
      [
        { status: 500 },
        { status: 502, text: "<html>bad gateway</html>" },
        { fault: "reset" },
        { json: { ok: 1 } },
      ],
      {
        retry: { attempts: 4, baseDelayMs: 400, maxDelayMs: 10_000, jitter: 0.25 },
        onRetry: (e) => events.push(e),
      },
    );
    const pending = transport.read({ type: "x" }, { weight: 1 });
    await driveRetries(server, events, 3, c);
    expect(await pending).toEqual({ ok: 1 });
    const delays = events.map((e) => e.delayMs);
    expect(events.map((e) => e.error.constructor.name)).toEqual([
      "ServerError",
      "ServerError",
      "NetworkError",
    ]);
    for (const [i, d] of delays.entries()) {
      const nominal = 400 * 2 ** i;
      expect(d).toBeGreaterThanOrEqual(nominal * 0.75);
      expect(d).toBeLessThanOrEqual(nominal);
      if (i > 0) expect(d).toBeGreaterThan(delays[i - 1]!);
    }
    // The server saw the requests exactly that far apart on the (fake) clock.
    const gaps = server.requests.slice(1).map((r, i) => r.receivedAt - server.requests[i]!.receivedAt);
    expect(gaps).toEqual(delays);
  });

  it("caps the exponential delay at maxDelayMs", async () => {
    const c = fakeTime();
    const events: RetryEvent[] = [];
    const { server, transport } = await setup([{ status: 503 }], {
      retry: { attempts: 5, baseDelayMs: 1000, maxDelayMs: 2500, jitter: 0 },
      onRetry: (e) => events.push(e),
    });
    const pending = transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    await driveRetries(server, events, 4, c);
    expect(await pending).toBeInstanceOf(ServerError);
    expect(events.map((e) => e.delayMs)).toEqual([1000, 2000, 2500, 2500]);
  });

  it("waits exactly the Retry-After of a 429 instead of the backoff", async () => {
    const c = fakeTime();
    const events: RetryEvent[] = [];
    const { server, transport } = await setup(
      [{ status: 429, json: null, headers: { "retry-after": "7" } }, { json: [] }],
      { retry: { attempts: 4, baseDelayMs: 100 }, onRetry: (e) => events.push(e) },
    );
    const pending = transport.read({ type: "x" }, { weight: 1 });
    await driveRetries(server, events, 1, c);
    expect(await pending).toEqual([]);
    expect(events[0]!.delayMs).toBe(7000);
    expect(server.requests[1]!.receivedAt - server.requests[0]!.receivedAt).toBe(7000);
  });

  it("gives up at once when Retry-After exceeds maxRetryAfterMs", async () => {
    fakeTime();
    const { server, transport } = await setup(
      [{ status: 429, json: null, headers: { "retry-after": "600" } }],
      {
        retry: { attempts: 4, maxRetryAfterMs: 60_000 },
      },
    );
    const err = await transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfterMs).toBe(600_000);
    expect(server.requests).toHaveLength(1);
  });

  it("makes at most `attempts` requests and throws the last error", async () => {
    const c = fakeTime();
    const events: RetryEvent[] = [];
    // retry: {} means the defaults: 4 attempts in total.
    const { server, transport } = await setup([{ status: 429, json: null }], {
      retry: {},
      onRetry: (e) => events.push(e),
    });
    const pending = transport.read({ type: "x" }, { weight: 1 }).catch((e: unknown) => e);
    await driveRetries(server, events, 3, c);
    expect(await pending).toBeInstanceOf(RateLimitError);
    await c.tickAsync(60_000);
    await settleIo();
    expect(server.requests).toHaveLength(4);
    expect(events).toHaveLength(3);
  });

  it("aborting during the backoff ends the read without another request", async () => {
    fakeTime();
    const events: RetryEvent[] = [];
    const { server, transport } = await setup([{ status: 500 }], {
      retry: { attempts: 4 },
      onRetry: (e) => events.push(e),
    });
    const controller = new AbortController();
    const pending = transport
      .read({ type: "x" }, { weight: 1, signal: controller.signal })
      .catch((e: unknown) => e);
    await until(() => events.length === 1, "first retry");
    controller.abort();
    const err = await pending;
    expect((err as NetworkError).kind).toBe("aborted");
    expect(server.requests).toHaveLength(1);
  });
});

describe("HttpTransport /exchange", () => {
  it("POSTs the body text unchanged to {base}/exchange and returns status and parsed body", async () => {
    const { server, transport } = await setup([{ json: { status: "ok", response: { type: "default" } } }]);
    const body = '{"action":{"type":"cDeposit","wei":100000000},"nonce":1}';
    const res = await transport.exchange(body);
    expect(res).toEqual({ status: 200, body: { status: "ok", response: { type: "default" } } });
    expect(server.requests[0]!.path).toBe("/exchange");
    expect(server.requests[0]!.body).toBe(body);
  });

  it("returns undefined for an empty 200 body", async () => {
    const { transport } = await setup([{ text: "" }]);
    expect(await transport.exchange("{}")).toEqual({ status: 200, body: undefined });
  });

  it("rejects a non-JSON 200 with BadResponseError", async () => {
    const { transport } = await setup([{ text: "<html/>", headers: { "content-type": "text/html" } }]);
    await expect(transport.exchange("{}")).rejects.toBeInstanceOf(BadResponseError);
  });

  it.each([
    ["500", { status: 500 }, ServerError],
    ["429", { status: 429, json: null, headers: { "retry-after": "1" } }, RateLimitError],
    ["reset", { fault: "reset" as const }, NetworkError],
    [
      "422",
      { status: 422, text: "Failed to deserialize the JSON body into the target type" },
      UnprocessableError,
    ],
  ])("never retries (%s): exactly one request", async (_name, reply, type) => {
    const { server, transport } = await setup([reply], { retry: { attempts: 4, baseDelayMs: 1 } });
    const err = await transport.exchange("{}").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.requests).toHaveLength(1);
  });

  it("times out with NetworkError kind timeout", async () => {
    const { transport } = await setup([{ fault: "hang" }]);
    const err = await transport.exchange("{}", { timeoutMs: 100 }).catch((e: unknown) => e);
    expect((err as NetworkError).kind).toBe("timeout");
  });

  it("charges its weight to the budget", async () => {
    const budget = new WeightBudget({ capacity: 100, windowMs: 60_000 });
    const { transport } = await setup([{ json: {} }], { budget });
    await transport.exchange("{}");
    await transport.exchange("{}", { weight: 3 });
    expect(budget.used()).toBe(4);
  });
});

describe("HttpTransport budget", () => {
  it("charges base weight per attempt and the per-item surcharge after success", async () => {
    const budget = new WeightBudget({ capacity: 1200, windowMs: 60_000 });
    const { transport } = await setup([{ status: 500 }, { json: new Array(45).fill(0) }], {
      budget,
      retry: { attempts: 2, baseDelayMs: 1, jitter: 0 },
    });
    const result = await transport.read(
      { type: "twapHistory" },
      { weight: 20, extraWeight: (r) => Math.floor((r as unknown[]).length / 20) },
    );
    expect(result).toHaveLength(45);
    expect(budget.used()).toBe(20 + 20 + 2);
  });
});
