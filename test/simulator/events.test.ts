// Timed scenario events: each happens at its time (an offset from the start or an ISO time) and not
// before, through the same paths as the simulator's controls, visible to a client only through the
// venue's answers; bad events are refused with the file's line.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/lib/errors.js";
import { createSimulator, HOUR, parseScenarioYaml } from "../../src/simulator/index.js";
import { ADDR, START, testScenario, VALIDATORS } from "./fixtures.js";

function summary(sim: ReturnType<typeof createSimulator>, address: string) {
  const all = sim.info({ type: "validatorSummaries" }) as Array<{
    validator: string;
    isJailed: boolean;
    commission: string;
    unjailableAfter: number | null;
  }>;
  return all.find((v) => v.validator === address)!;
}

describe("scenario events", () => {
  it("jails a validator at its time, with unjailableAfter from the event, and unjails it later", () => {
    const sim = createSimulator({
      scenario: testScenario({
        events: [
          { at: "2d", type: "validator", validator: VALIDATORS.b, jailed: true, unjailableIn: "6h" },
          { at: "3d", type: "validator", validator: VALIDATORS.b, jailed: false, commission: "0.05" },
        ],
      }),
    });
    sim.advance(2 * 24 * HOUR - 1);
    expect(summary(sim, VALIDATORS.b).isJailed).toBe(false);
    sim.advance(1);
    expect(summary(sim, VALIDATORS.b)).toMatchObject({
      isJailed: true,
      unjailableAfter: START + 2 * 24 * HOUR + 6 * HOUR,
    });
    sim.advance(24 * HOUR);
    expect(summary(sim, VALIDATORS.b)).toMatchObject({
      isJailed: false,
      unjailableAfter: null,
      commission: "0.05",
    });
  });

  it("halts a pair, shocks its price, and accepts an ISO time", () => {
    const sim = createSimulator({
      scenario: testScenario({
        events: [
          { at: "1h", type: "pair", pair: "@107", halted: true },
          { at: new Date(START + 2 * HOUR).toISOString(), type: "price", pair: "HYPE/USDC", change: -0.3 },
          { at: "3h", type: "price", pair: "@107", px: "40" },
        ],
      }),
    });
    sim.advance(HOUR);
    expect(sim.core.markets.requirePair("@107").halted).toBe(true);
    expect(sim.price("@107").toString()).toBe("25");
    sim.advance(HOUR);
    expect(sim.price("@107").toString()).toBe("17.5");
    sim.advance(HOUR);
    expect((sim.info({ type: "allMids" }) as Record<string, string>)["@107"]).toBe("40.0");
  });

  it("moves money in and out of the account; a withdrawal beyond the balance pays what there is", () => {
    const sim = createSimulator({
      scenario: testScenario({
        balances: { [ADDR.trader]: { USDC: "1000" } },
        events: [
          { at: "1h", type: "deposit", account: ADDR.trader, coin: "HYPE", amount: "10" },
          { at: "2h", type: "withdrawal", account: ADDR.trader, coin: "USDC", amount: "1500" },
        ],
      }),
    });
    sim.advance(HOUR);
    expect(sim.balance(ADDR.trader, "HYPE").total.toString()).toBe("10");
    sim.advance(HOUR);
    expect(sim.balance(ADDR.trader, "USDC").total.toString()).toBe("0");
    const flows = sim
      .ledger({ kind: ["fund", "withdrawalShort"], user: ADDR.trader })
      .filter((e) => e.time > START);
    expect(flows.map((e) => [e.kind, e.data.coin, e.data.amount ?? e.data.paid, e.data.value])).toEqual([
      ["fund", "HYPE", "10", "250"],
      ["fund", "USDC", "-1000", "-1000"],
      ["withdrawalShort", "USDC", "1000", undefined],
    ]);
  });

  it("an outage answers 500 for its period only, on its endpoint only", () => {
    const sim = createSimulator({
      scenario: testScenario({
        settings: { startTime: START, faults: { info: { latencyMs: 0 } } },
        events: [{ at: "1h", type: "outage", for: "30m", endpoint: "info" }],
      }),
    });
    const status = () => sim.request("info", { type: "allMids" }).status;
    expect(status()).toBe(200);
    sim.advance(HOUR);
    expect(status()).toBe(500);
    expect(sim.request("exchange", { action: {} }).status).not.toBe(500);
    sim.advance(30 * 60_000 - 1);
    expect(status()).toBe(500);
    sim.advance(1);
    expect(status()).toBe(200);
    expect(sim.core.faults.config.info.serverErrorRate).toBe(0);
  });

  it("refuses events that name nothing real, with the line of the event", () => {
    const base = `
name: bad
tokens:
  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }
pairs: []
events:
  - { at: 1d, type: price, pair: "@9", change: -0.5 }
`;
    const err = (() => {
      try {
        parseScenarioYaml(base, "bad.yaml");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/^bad\.yaml:7: events\[0\]\.pair: no pair named @9/);
    const noChange = base.replace(
      '{ at: 1d, type: price, pair: "@9", change: -0.5 }',
      '{ at: "tomorrow", type: validator, validator: "0x5ac99df645f3414876c816caa18b2d234024b487" }',
    );
    expect(() => parseScenarioYaml(noChange, "bad.yaml")).toThrow(/offset from the start like "2d"/);
  });
});
