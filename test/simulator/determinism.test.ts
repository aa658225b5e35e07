// Same scenario + seed → the same answers, prices, fills and ledger; another seed → other prices.
import { describe, expect, it } from "vitest";
import { ADDR, KEYS } from "./fixtures.js";
import { l1Body, post, startTestSim, userBody, userHeader } from "./helpers.js";

const DEMO_START = Date.UTC(2025, 0, 1);

async function script(seed: number) {
  // The demo scenario: random-walk prices, randomised TWAPs, rewards, faults on info queries.
  const sim = await startTestSim({ scenario: undefined, seed, faults: { info: { serverErrorRate: 0.2 } } });
  const transcript: string[] = [];
  const record = async (path: string, body: unknown) => {
    const r = await post(sim, path, body);
    transcript.push(`${path} ${r.status} ${r.text}`);
  };
  let nonce = DEMO_START;
  await record(
    "/exchange",
    await l1Body(
      KEYS.trader,
      { type: "twapOrder", twap: { a: 10107, b: true, s: "50", r: false, m: 60, t: true } },
      nonce++,
    ),
  );
  await record(
    "/exchange",
    await l1Body(
      KEYS.trader,
      { type: "twapOrder", twap: { a: 10000, b: false, s: "4000", r: false, m: 30, t: false } },
      nonce++,
    ),
  );
  await record(
    "/exchange",
    await userBody(KEYS.staker, { type: "cDeposit", ...userHeader(nonce++), wei: 10_000_000_000 }),
  );
  for (let hour = 0; hour < 30; hour++) {
    sim.advance(3_600_000);
    await record("/info", { type: "allMids" });
    await record("/info", { type: "spotClearinghouseState", user: ADDR.trader });
  }
  await record("/info", { type: "userTwapSliceFills", user: ADDR.trader });
  await record("/info", { type: "twapHistory", user: ADDR.trader });
  await record("/info", { type: "delegatorRewards", user: ADDR.trader });
  const ledger = JSON.stringify(sim.ledger());
  const prices = sim.prices();
  await sim.stop();
  return { transcript, ledger, prices };
}

describe("determinism", () => {
  it("repeats every answer, price, fill and ledger entry with the same seed", async () => {
    const a = await script(7);
    const b = await script(7);
    expect(a.transcript).toEqual(b.transcript);
    expect(a.ledger).toBe(b.ledger);
    expect(a.prices).toEqual(b.prices);
    expect(a.transcript.some((t) => t.startsWith("/info 500"))).toBe(true);
    expect(
      JSON.parse(a.ledger).filter((e: { kind: string }) => e.kind === "twapSlice").length,
    ).toBeGreaterThan(50);
  });

  it("moves prices differently with another seed", async () => {
    const a = await script(7);
    const c = await script(8);
    expect(a.prices["@107"]).not.toBe(c.prices["@107"]);
    expect(a.ledger).not.toBe(c.ledger);
  });
});
