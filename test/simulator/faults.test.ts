// Rate limiting and fault injection through the HTTP interface, observed with hlbot's own transport.
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError, NetworkError, RateLimitError, ServerError } from "../../src/lib/errors.js";
import { TwapOrderResponse } from "../../src/venue/exchange/actions/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import type { HttpTransport } from "../../src/venue/transport/http.js";
import { ADDR, HYPE_ASSET, KEYS, START } from "./fixtures.js";
import { type HttpSim, l1Body, post, startTestSim, transportFor } from "./helpers.js";

let sim: HttpSim | undefined;
let transport: HttpTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await sim?.stop();
  sim = undefined;
  transport = undefined;
});

const twap = { type: "twapOrder", twap: { a: HYPE_ASSET, b: false, s: "20", r: false, m: 10, t: false } };

describe("IP rate limit", () => {
  it("answers 429 with the body null once the 1200-per-minute weight budget is spent; refills with the clock", async () => {
    sim = await startTestSim({ rateLimit: { capacity: 1200, windowMs: 60_000 } });
    const statuses: number[] = [];
    for (let i = 0; i < 65; i++)
      statuses.push((await post(sim, "/info", { type: "userFees", user: ADDR.trader })).status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(60).every((s) => s === 429)).toBe(true);
    const limited = await post(sim, "/info", { type: "allMids" });
    expect([limited.status, limited.text, limited.contentType]).toEqual([429, "null", "application/json"]);
    transport = transportFor(sim);
    await expect(new InfoClient(transport).allMids()).rejects.toBeInstanceOf(RateLimitError);
    // Weight 2 queries fit as soon as 2 units have refilled (100 ms of a 1200/min budget).
    sim.advance(100);
    expect((await post(sim, "/info", { type: "allMids" })).status).toBe(200);
    sim.advance(30_000);
    let ok = 0;
    while ((await post(sim, "/info", { type: "userFees", user: ADDR.trader })).status === 200) ok++;
    expect(ok).toBe(30);
  });

  it("charges the reference weights: userRole 60, explorer 40, exchange 1, per-item surcharges", async () => {
    sim = await startTestSim({ rateLimit: { capacity: 120, windowMs: 60_000 } });
    expect((await post(sim, "/info", { type: "userRole", user: ADDR.trader })).status).toBe(200);
    expect((await post(sim, "/info", { type: "userRole", user: ADDR.trader })).status).toBe(200);
    expect((await post(sim, "/info", { type: "allMids" })).status).toBe(429);
    sim.setRateLimit({ capacity: 40, windowMs: 60_000 });
    expect((await post(sim, "/explorer", { type: "txDetails", hash: `0x${"1".repeat(64)}` })).status).toBe(
      200,
    );
    expect(
      (
        await post(sim, "/exchange", {
          action: { type: "noop" },
          nonce: 1,
          signature: { r: "0x1", s: "0x1", v: 27 },
        })
      ).status,
    ).toBe(429);
    sim.setRateLimit(false);
    for (let i = 0; i < 200; i++) expect((await post(sim, "/info", { type: "spotMeta" })).status).toBe(200);
    // 20 fills returned cost 1 more (+1 per 20 items).
    sim.core.twaps.place(
      ADDR.trader,
      {
        asset: HYPE_ASSET,
        isBuy: false,
        size: "20",
        reduceOnly: false,
        minutes: 10,
        randomize: false,
        hasDetails: false,
      },
      "0x0",
    );
    sim.advance(10 * 60_000);
    const fillsThenMids = async (user: string) => {
      sim!.setRateLimit({ capacity: 22, windowMs: 60_000 });
      const fills = await post(sim!, "/info", { type: "userTwapSliceFills", user });
      return [
        fills.status,
        (fills.json as unknown[]).length,
        (await post(sim!, "/info", { type: "allMids" })).status,
      ];
    };
    expect(await fillsThenMids(ADDR.staker)).toEqual([200, 0, 200]);
    expect(await fillsThenMids(ADDR.trader)).toEqual([200, 20, 429]);
  });
});

describe("fault injection", () => {
  it("answers 500 before the request takes effect", async () => {
    sim = await startTestSim({ faults: { exchange: { serverErrorRate: 1 } } });
    transport = transportFor(sim);
    const body = await l1Body(KEYS.trader, twap, START);
    await expect(transport.exchange(JSON.stringify(body))).rejects.toBeInstanceOf(ServerError);
    expect(sim.twaps()).toHaveLength(0);
    expect((await post(sim, "/info", { type: "allMids" })).status).toBe(200);
  });

  it("answers 429 (null) on demand, before the request takes effect", async () => {
    sim = await startTestSim({ faults: { all: { rateLimitRate: 1 } } });
    const r = await post(sim, "/exchange", await l1Body(KEYS.trader, twap, START));
    expect([r.status, r.text]).toEqual([429, "null"]);
    expect(sim.twaps()).toHaveLength(0);
  });

  it("drops the connection after the request took effect", async () => {
    sim = await startTestSim({ faults: { exchange: { dropRate: 1 } } });
    transport = transportFor(sim);
    const body = await l1Body(KEYS.trader, twap, START);
    await expect(transport.exchange(JSON.stringify(body))).rejects.toBeInstanceOf(NetworkError);
    expect(sim.twaps(ADDR.trader)).toHaveLength(1);
    expect(sim.ledger({ kind: "twapPlaced" })).toHaveLength(1);
    // Resending the identical body is refused as a duplicate: the client can tell it landed.
    sim.setFaults({});
    expect((await transport.exchange(JSON.stringify(body))).body).toEqual({
      status: "err",
      response: `Invalid nonce: duplicate nonce ${START}`,
    });
  });

  it("adds latency (real time) to answers", async () => {
    sim = await startTestSim({ faults: { info: { latencyMs: 150 } } });
    const t0 = performance.now();
    expect((await post(sim, "/info", { type: "allMids" })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    const t1 = performance.now();
    expect(
      (
        await post(sim, "/exchange", {
          action: { type: "noop" },
          nonce: 1,
          signature: { r: "0x1", s: "0x1", v: 27 },
        })
      ).status,
    ).toBe(200);
    expect(performance.now() - t1).toBeLessThan(140);
  });

  it("sends a non-JSON body after the request took effect", async () => {
    sim = await startTestSim({ faults: { info: { nonJsonRate: 1 }, exchange: { nonJsonRate: 1 } } });
    transport = transportFor(sim);
    await expect(new InfoClient(transport).allMids()).rejects.toBeInstanceOf(BadResponseError);
    const r = await post(sim, "/exchange", await l1Body(KEYS.trader, twap, START));
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^text\/html/);
    expect(r.json).toBeUndefined();
    expect(sim.twaps(ADDR.trader)).toHaveLength(1);
  });

  it("sends JSON that violates the response schema after the request took effect", async () => {
    sim = await startTestSim({ faults: { all: { badSchemaRate: 1 } } });
    transport = transportFor(sim);
    await expect(
      new InfoClient(transport).spotClearinghouseState({ user: ADDR.trader }),
    ).rejects.toBeInstanceOf(BadResponseError);
    await expect(new InfoClient(transport).isVip({ user: ADDR.trader })).rejects.toBeInstanceOf(
      BadResponseError,
    );
    const r = await post(sim, "/exchange", await l1Body(KEYS.trader, twap, START));
    expect(r.status).toBe(200);
    expect(TwapOrderResponse.safeParse(r.json).success).toBe(false);
    expect(sim.twaps(ADDR.trader)).toHaveLength(1);
  });

  it("is deterministic from the seed and can be changed at run time", async () => {
    const run = async (seed: number) => {
      const s = await startTestSim({ seed, faults: { info: { serverErrorRate: 0.3, badSchemaRate: 0.3 } } });
      const out: string[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await post(s, "/info", { type: "allMids" });
        out.push(`${r.status}:${r.text.length}`);
      }
      s.setFaults({});
      const after = (await post(s, "/info", { type: "allMids" })).status;
      await s.stop();
      return { out, after };
    };
    const a = await run(3);
    const b = await run(3);
    const c = await run(4);
    expect(a.out).toEqual(b.out);
    expect(a.out).not.toEqual(c.out);
    expect(new Set(a.out).size).toBe(3);
    expect(a.after).toBe(200);
  });
});
