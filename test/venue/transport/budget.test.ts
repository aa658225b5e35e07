import sinon from "sinon";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NetworkError } from "../../../src/lib/errors.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { WeightBudget } from "../../../src/venue/transport/budget.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer } from "../../helpers/httpServer.js";

let clock: sinon.SinonFakeTimers;
beforeEach(() => {
  clock = sinon.useFakeTimers({ now: 1_700_000_000_000, toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(() => clock.restore());

/** Records when each acquire resolves, on the fake clock. */
function track(budget: WeightBudget, weights: number[]): { done: number[]; all: Promise<unknown> } {
  const done: number[] = [];
  const all = Promise.all(
    weights.map((w, i) =>
      budget.acquire(w).then(() => {
        done[i] = Date.now();
      }),
    ),
  );
  return { done, all };
}

describe("WeightBudget", () => {
  it("admits up to the capacity at once and makes the rest wait for the window", async () => {
    const start = Date.now();
    const budget = new WeightBudget(); // 1200 per 60 s
    const { done, all } = track(budget, new Array(62).fill(20));
    await clock.tickAsync(0);
    expect(done.filter((t) => t !== undefined)).toHaveLength(60);
    expect(budget.waiting()).toBe(2);
    await clock.tickAsync(59_999);
    expect(done.filter((t) => t !== undefined)).toHaveLength(60);
    await clock.tickAsync(1);
    await all;
    expect(done[60]).toBe(start + 60_000);
    expect(done[61]).toBe(start + 60_000);
  });

  it("never lets any window hold more than the capacity (sliding, not a bucket with burst + refill)", async () => {
    const budget = new WeightBudget({ capacity: 100, windowMs: 1_000 });
    const weights = [30, 50, 20, 40, 10, 60, 25, 25, 70, 5, 45, 35, 100, 15];
    const { done, all } = track(budget, weights);
    await clock.tickAsync(20_000);
    await all;
    for (const [i, t] of done.entries()) {
      let inWindow = 0;
      for (const [j, u] of done.entries()) if (u <= t && t - u < 1_000) inWindow += weights[j]!;
      expect(inWindow, `window ending at request ${i}`).toBeLessThanOrEqual(100);
    }
    // FIFO: admitted in request order.
    expect([...done].sort((a, b) => a - b)).toEqual(done);
  });

  it("counts charged surcharges against later requests", async () => {
    const budget = new WeightBudget({ capacity: 100, windowMs: 1_000 });
    await budget.acquire(20);
    budget.charge(75);
    expect(budget.used()).toBe(95);
    const { done, all } = track(budget, [10]);
    await clock.tickAsync(999);
    expect(done[0]).toBeUndefined();
    await clock.tickAsync(1);
    await all;
    expect(budget.used()).toBe(10);
  });

  it("treats a weight above the capacity as the full capacity instead of waiting forever", async () => {
    const budget = new WeightBudget({ capacity: 50, windowMs: 1_000 });
    await budget.acquire(500);
    expect(budget.used()).toBe(50);
  });

  it("rejects an aborted waiter with NetworkError aborted and lets the next one through", async () => {
    const budget = new WeightBudget({ capacity: 10, windowMs: 1_000 });
    await budget.acquire(10);
    const controller = new AbortController();
    const first = budget.acquire(10, controller.signal).catch((e: unknown) => e);
    const { done, all } = track(budget, [10]);
    controller.abort();
    const err = await first;
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("aborted");
    await clock.tickAsync(1_000);
    await all;
    expect(done[0]).toBe(1_700_000_001_000);
    expect(budget.used()).toBe(10);
  });

  it("rejects invalid weights", async () => {
    const budget = new WeightBudget();
    expect(() => budget.charge(-1)).toThrow(RangeError);
    await expect(budget.acquire(Number.NaN)).rejects.toThrow(RangeError);
  });
});

describe("HttpTransport with a budget", () => {
  it("delays requests instead of exceeding the weight limit", async () => {
    const server = await startHttpServer([{ json: {} }]);
    const budget = new WeightBudget({ capacity: 100, windowMs: 10_000 });
    const transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", server.url), budget });
    try {
      const reads = Array.from({ length: 7 }, () => transport.read({ type: "spotMeta" }, { weight: 20 }));
      await server.waitForRequests(5);
      // Let real I/O run: the 6th and 7th must still be held back by the budget.
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      expect(server.requests).toHaveLength(5);
      expect(budget.waiting()).toBe(2);
      await clock.tickAsync(10_000);
      await server.waitForRequests(7);
      await Promise.all(reads);
      const times = server.requests.map((r) => r.receivedAt);
      expect(times.slice(5).every((t) => t - times[0]! >= 10_000)).toBe(true);
    } finally {
      await transport.close();
      await server.close();
    }
  });
});
