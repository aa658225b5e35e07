// The in-process wire of `hlbot simulate`: the transport's own code (retries, status classification,
// JSON parsing, the Date header) over the simulator's request pipeline without a socket. A refused
// request is retried like over HTTP, a dropped connection is a reset the exchange path never retries,
// a 429 with body null is a RateLimitError, and the venue's (virtual) time arrives in the Date header.
import { afterEach, describe, expect, it } from "vitest";
import { NetworkError, RateLimitError, ServerError } from "../../../src/lib/errors.js";
import { createSimulator, type Simulator } from "../../../src/simulator/index.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { HYPE_ASSET, KEYS, START, testScenario } from "../../simulator/fixtures.js";
import { l1Body } from "../../simulator/helpers.js";

let sim: Simulator;
afterEach(async () => {
  await sim.stop();
});

function transport(attempts: number): HttpTransport {
  return new HttpTransport({
    endpoints: resolveEndpoints("testnet", "http://simulator.invalid"),
    wire: sim.wire,
    budget: null,
    retry: { attempts, baseDelayMs: 1, maxDelayMs: 2, jitter: 0 },
  });
}

describe("HttpTransport over the simulator's wire", () => {
  it("answers reads with the venue's data and its virtual time", async () => {
    sim = createSimulator({ scenario: testScenario() });
    sim.advance(90_000);
    const t = transport(1);
    expect(await t.read({ type: "allMids" }, { weight: 2 })).toEqual({ "@107": "25.0" });
    expect(t.lastServerDate()?.getTime()).toBe(Math.floor((START + 90_000) / 1000) * 1000);
  });

  it("retries a read the venue refused with 500, and stops after the policy's attempts", async () => {
    sim = createSimulator({ scenario: testScenario() });
    sim.setFaults({ info: { serverErrorRate: 1 } });
    const retries: number[] = [];
    const t = new HttpTransport({
      endpoints: resolveEndpoints("testnet", "http://simulator.invalid"),
      wire: sim.wire,
      budget: null,
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 2, jitter: 0 },
      onRetry: (e) => retries.push(e.attempt),
    });
    await expect(t.read({ type: "allMids" }, { weight: 2 })).rejects.toBeInstanceOf(ServerError);
    expect(retries).toEqual([1, 2]);
    sim.setFaults({});
    expect(await t.read({ type: "allMids" }, { weight: 2 })).toEqual({ "@107": "25.0" });
  });

  it("a 429 with body null is a RateLimitError", async () => {
    sim = createSimulator({ scenario: testScenario() });
    sim.setFaults({ info: { rateLimitRate: 1 } });
    await expect(transport(1).read({ type: "allMids" }, { weight: 2 })).rejects.toBeInstanceOf(
      RateLimitError,
    );
  });

  it("a dropped connection after the venue took the request is a reset, sent once", async () => {
    sim = createSimulator({ scenario: testScenario() });
    sim.setFaults({ exchange: { dropRate: 1 } });
    const before = sim.core.faults.config.exchange.dropRate;
    const body = await l1Body(KEYS.trader, { type: "twapCancel", a: HYPE_ASSET, t: 1 }, START);
    const err = await transport(4)
      .exchange(JSON.stringify(body))
      .catch((e: unknown) => e);
    expect(before).toBe(1);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).kind).toBe("reset");
    expect((err as NetworkError).notSent).toBe(false);
    // The venue saw it exactly once: the transport never resends an exchange request by itself.
    expect(sim.ledger({ kind: "action" })).toHaveLength(1);
  });
});
