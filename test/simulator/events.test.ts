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

  it("a validator jailed at the daily payout keeps the day its delegators earned before, whichever runs first", () => {
    // Rewards accrue through the day and are paid at 00:00 UTC (START is noon: payouts at 12 h, 36 h, …).
    const rewardsOfDays = (at: string) => {
      const sim = createSimulator({
        scenario: testScenario({
          delegations: [{ user: ADDR.staker, validator: VALIDATORS.b, amount: "100" }],
          events: [{ at, type: "validator", validator: VALIDATORS.b, jailed: true }],
        }),
      });
      sim.advance(4 * 24 * HOUR);
      return sim.ledger({ kind: ["reward"], user: ADDR.staker }).map((e) => [e.time - START, e.data.amount]);
    };
    // Jailed at the payout of 36 h (scheduled before it, as the scenario's events are): 36 h's payout
    // still pays the day before; nothing after.
    const atPayout = rewardsOfDays("36h");
    expect(atPayout.map(([t]) => t)).toEqual([12 * HOUR, 36 * HOUR]);
    expect(atPayout[1]![1]).toBe("0.010001");
    // A minute later, the next day pays that minute.
    const minuteLater = rewardsOfDays("2161m");
    expect(minuteLater.map(([t]) => t)).toEqual([12 * HOUR, 36 * HOUR, 60 * HOUR]);
    expect(minuteLater[1]).toEqual(atPayout[1]);
    // That minute at 3.65%/365 a day on 100.020001 HYPE: 1/1440 of 0.0100020001, in whole wei (1e-8).
    expect(minuteLater[2]![1]).toBe("0.00000694");
    // The same minute written compound (a bear-market trial's "36h33m" was refused).
    expect(rewardsOfDays("1d12h1m")).toEqual(minuteLater);
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

  it("refuses a fee rate written as a percentage (spotCross: 7 charged 700% and left a balance negative)", () => {
    const scenario = (fees: string) => `
name: fees
tokens:
  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }
pairs: []
settings:
  fees: { ${fees} }
`;
    expect(() => parseScenarioYaml(scenario("spotCross: 7"), "f.yaml")).toThrow(
      /^f\.yaml:7: settings\.fees\.spotCross: a fee rate is a fraction of the notional \(0\.0007 is 7 bps\), from 0 to 0\.1$/,
    );
    expect(() => parseScenarioYaml(scenario("spotAdd: -0.5"), "f.yaml")).toThrow(
      /settings\.fees\.spotAdd: .*from -0\.1 to 0\.1/,
    );
    const ok = parseScenarioYaml(scenario('spotCross: "0.001", spotAdd: "-0.0001"'), "f.yaml");
    expect(ok.settings.fees.spotCross.toFixed()).toBe("0.001");
    expect(ok.settings.fees.spotAdd.toFixed()).toBe("-0.0001");
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
    // A day the month does not have, rolled into the next month by Date.parse (a config trial).
    const noSuchDay = base.replace("at: 1d,", 'at: "2025-02-30T00:00:00Z",');
    expect(() => parseScenarioYaml(noSuchDay, "bad.yaml")).toThrow(/\(no such day: 2025-02 has no day 30\)/);
    expect(() =>
      parseScenarioYaml(
        base.replace("name: bad\n", 'name: bad\nsettings: { startTime: "2025-04-31T00:00:00Z" }\n'),
        "bad.yaml",
      ),
    ).toThrow(
      /settings\.startTime: expected unix ms or an ISO date-time, got "2025-04-31T00:00:00Z" \(no such day/,
    );
    // A misspelt type gets its line and a "did you mean", not zod's "Invalid discriminator value".
    const misspelt = base.replace("type: price", "type: prcie");
    expect(() => parseScenarioYaml(misspelt, "bad.yaml")).toThrow(
      /^bad\.yaml:7: events\[0\]\.type: unknown value "prcie" \(did you mean "price"\?\); one of: validator, pair, price, deposit, withdrawal, outage$/,
    );
  });
});

describe("events a scenario author wrote wrong (a scenario author's trial)", () => {
  const base = `
name: bad
tokens:
  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }
pairs: []
validators:
  - { address: "0x5ac99df645f3414876c816caa18b2d234024b487", name: V }
events:
  - EVENT
`;
  const withEvent = (e: string) => base.replace("EVENT", e);
  const message = (text: string) => {
    try {
      parseScenarioYaml(text, "bad.yaml");
    } catch (e) {
      return (e as Error).message;
    }
    return "accepted";
  };

  it("reads a time without a zone in UTC, whatever the machine's zone, and only ISO forms", () => {
    const tz = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      const sc = parseScenarioYaml(
        withEvent('{ at: "2025-01-02T00:00:00", type: outage, for: 1h }').replace(
          "name: bad\n",
          'name: bad\nsettings: { startTime: "2025-01-01 00:00" }\n',
        ),
        "bad.yaml",
      );
      expect(sc.settings.startTime).toBe(Date.parse("2025-01-01T00:00:00Z"));
      expect(sc.events[0]!.at).toEqual({ time: Date.parse("2025-01-02T00:00:00Z") });
      expect(message(withEvent('{ at: "Jan 2 2025", type: outage, for: 1h }'))).toMatch(
        /^bad\.yaml:9: events\[0\]\.at: expected an offset from the start like "2d".*or an ISO date-time, got "Jan 2 2025"/,
      );
      expect(message(withEvent('{ at: "2025", type: outage, for: 1h }'))).toMatch(
        /events\[0\]\.at: give the offset's unit/,
      );
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it("refuses an offset without a unit, an outage with no fault, an APR written as a percentage, a missing time", () => {
    expect(message(withEvent("{ at: 2, type: outage, for: 1h }"))).toMatch(
      /^bad\.yaml:9: events\[0\]\.at: give the offset's unit: "2d", "2h", "2m", "2s" or "2ms"/,
    );
    expect(message(withEvent('{ at: "1", type: outage, for: 1h }'))).toMatch(/give the offset's unit: "1d"/);
    // Zero is zero in any unit (a review: `at: 0` was refused as ambiguous); an empty time is not zero.
    expect(message(withEvent("{ at: 0, type: outage, for: 1h, faults: { serverErrorRate: 1 } }"))).toBe(
      "accepted",
    );
    expect(message(withEvent('{ at: "", type: outage, for: 1h }'))).not.toBe("accepted");
    // The same trap in a length: `for: 2` was a 2-ms outage that did nothing (a review).
    expect(message(withEvent("{ at: 1d, type: outage, for: 2 }"))).toMatch(
      /events\[0\]\.for: give the duration's unit: "2d", "2h"/,
    );
    expect(
      message(
        withEvent(
          '{ at: 1d, type: validator, validator: "0x5ac99df645f3414876c816caa18b2d234024b487", jailed: true, unjailableIn: 3 }',
        ),
      ),
    ).toMatch(/events\[0\]\.unjailableIn: give the duration's unit/);
    expect(message(withEvent("{ at: 1d, type: outage, for: 1h, faults: {} }"))).toMatch(
      /^bad\.yaml:9: events\[0\]\.faults: sets no fault, so nothing would happen/,
    );
    expect(
      message(
        withEvent("{ at: 1d, type: outage, for: 1h, faults: { serverErrorRate: 0, latencyMs: [0, 0] } }"),
      ),
    ).toMatch(/sets no fault/);
    expect(message(withEvent("{ at: 1d, type: outage, for: 1h, faults: { latencyMs: [100, 20000] } }"))).toBe(
      "accepted",
    );
    expect(
      message(
        withEvent(
          '{ at: 1d, type: validator, validator: "0x5ac99df645f3414876c816caa18b2d234024b487", apr: "25" }',
        ),
      ),
    ).toMatch(/events\[0\]\.apr: a fraction: 0\.025 is 2\.5%; above 1 \(100%\) is refused/);
    expect(message(withEvent("{ type: outage, for: 1h }"))).toMatch(
      /events\[0\]\.at: required: when the event happens, an offset from the start like "2d"/,
    );
  });
});

describe("a jailed validator's uptime", () => {
  it("falls by the share of each period it spent jailed, and recovers as the period moves past", () => {
    const sim = createSimulator({
      scenario: testScenario({
        events: [
          { at: "1d", type: "validator", validator: VALIDATORS.b, jailed: true },
          { at: "2d", type: "validator", validator: VALIDATORS.b, jailed: false },
        ],
      }),
    });
    const uptime = () => {
      const all = sim.info({ type: "validatorSummaries" }) as Array<{
        validator: string;
        stats: Array<[string, { uptimeFraction: string }]>;
      }>;
      const v = all.find((x) => x.validator === VALIDATORS.b)!;
      return Object.fromEntries(v.stats.map(([p, st]) => [p, Number(st.uptimeFraction)]));
    };
    const base = uptime();
    sim.advance(36 * HOUR); // 12 hours into the jailing
    expect(uptime().day).toBeCloseTo(base.day! * 0.5, 5);
    sim.advance(12 * HOUR); // unjailed now, after a whole day jailed
    expect(uptime().week).toBeCloseTo(base.week! * (6 / 7), 5);
    expect(uptime().day).toBeCloseTo(0, 5);
    sim.advance(24 * HOUR); // the day's window has moved past it; the week's has not
    expect(uptime().day).toBeCloseTo(base.day!, 5);
    expect(uptime().week).toBeCloseTo(base.week! * (6 / 7), 5);
    sim.advance(7 * 24 * HOUR); // the week's window too; the month's (30 days) still holds the day
    expect(uptime().week).toBe(base.week);
    expect(uptime().month).toBeCloseTo(base.month! * (29 / 30), 5);
    sim.advance(30 * 24 * HOUR);
    expect(uptime()).toEqual(base);
  });
});
