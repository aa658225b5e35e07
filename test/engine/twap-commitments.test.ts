// What running TWAPs may still take is kept out of new orders, whether or not the venue holds it. The
// venue's docs do not say that a spot TWAP puts its remaining size on hold (the simulator did, so every
// simulation showed a tidy allocation); on a venue that holds nothing, hlbot sized a second DCA from USDC
// the first one's TWAP still needed: both ended partly unfilled, hundreds of slices skipped, and two
// TWAPs together could spend through a keepOnSpot floor (a review of the simulations).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { readSnapshot } from "../../src/engine/readSnapshot.js";
import { DEFAULT_VENUE_RULES } from "../../src/engine/snapshot.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { createSimulator, DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { scratchDir } from "../helpers/scratch.js";
import { ADDR, HYPE_ASSET, START, testScenario } from "../simulator/fixtures.js";

/** Two 240-minute DCAs buying 20,000 USD each, an hour apart, from the demo account's 25,000 USDC. */
async function twoDcas(o: { holds: boolean; keepUsdc?: number }) {
  const dir = scratchDir("hlbot-commitments-");
  const strategy = (name: string, coin: string, schedule: string) => {
    const file = join(dir, `${name}.yaml`);
    const params = { coin, side: "buy", amountUsd: 20_000, twap: { minutes: 240, randomize: false } };
    writeFileSync(file, stringify({ name, kind: "twap-accumulate", schedule, params }));
    return file;
  };
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    stringify({
      network: "testnet",
      strategies: [strategy("a-hype", "HYPE", "0 0 * * *"), strategy("b-ubtc", "UBTC", "0 1 * * *")],
      state: "./state",
      // What the bot believes of the venue is what the simulated venue does.
      venue: { twapHolds: o.holds },
      limits: {
        maxOrderUsd: 50_000,
        maxDailyNotionalUsd: 100_000,
        maxStakeMovePerDay: 2000,
        ...(o.keepUsdc === undefined ? {} : { keepOnSpot: { USDC: o.keepUsdc } }),
      },
    }),
  );
  const scenario = join(dir, "scenario.yaml");
  const text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  writeFileSync(scenario, text.replace("settings:\n", `settings:\n  twapHolds: ${o.holds}\n`));
  const { record } = await runSimulation({
    config: await loadConfig(bot, {}),
    scenarioFile: scenario,
    days: 1,
  });
  const skipped = record.ledger.filter(
    (e) => e.kind === "twapSliceSkipped" && e.data.reason === "insufficient balance",
  ).length;
  const placed = record.ledger.filter((e) => e.kind === "twapPlaced");
  return { record, skipped, placed };
}

describe("running TWAPs' commitments", () => {
  it("keep a second DCA to what the first TWAP does not still need, on a venue that holds nothing", async () => {
    const held = await twoDcas({ holds: true });
    const unheld = await twoDcas({ holds: false });
    expect(held.skipped).toBe(0);
    expect(unheld.skipped).toBe(0);
    // The same two orders either way: the second sized to the USDC the first one leaves.
    expect(unheld.placed.map((e) => e.data.sz)).toEqual(held.placed.map((e) => e.data.sz));
    expect(unheld.placed).toHaveLength(2);
  }, 120_000);

  it("keep two TWAPs together above a keepOnSpot floor", async () => {
    const { record, skipped } = await twoDcas({ holds: false, keepUsdc: 5_000 });
    expect(skipped).toBe(0);
    // The demo account starts with 25,000 USDC: what the slices paid (with fees taken in USDC) stays
    // within the 20,000 above the floor.
    let paid = 0;
    for (const e of record.ledger) {
      if (e.kind !== "twapSlice" || e.data.side !== "B") continue;
      paid += Number(e.data.ntl) + (e.data.feeToken === "USDC" ? Number(e.data.fee) : 0);
    }
    expect(paid).toBeGreaterThan(15_000);
    expect(paid).toBeLessThanOrEqual(20_000);
  }, 120_000);
});

describe("running TWAPs' commitments beside what else the venue holds (reviews)", () => {
  // A 200-HYPE buy TWAP at 25 may still take 200 × 25 × 1.03 = 5,150 USDC; 3,000 USDC of the hold is
  // someone else's: a resting limit buy placed by hand (120 HYPE at 25), or perp margin on a unified
  // account (the venue reports it in the spot USDC hold). Of 10,000 USDC, 1,850 is free.
  async function snapshotWith(o: {
    /** Whether the simulated venue holds for TWAPs. */
    venueHolds: boolean;
    /** What the bot believes (venue.twapHolds). */
    believes: boolean;
    orders: "listed" | "none" | "unreadable";
  }) {
    const base = testScenario({ balances: { [ADDR.trader]: { USDC: "10000", HYPE: "0" } } });
    const sim = createSimulator({
      scenario: {
        ...base,
        settings: { ...base.settings, startTime: START, twapHolds: o.venueHolds },
      } as never,
      rateLimit: false,
    });
    const transport = new HttpTransport({
      endpoints: {
        info: "http://v.invalid/info",
        exchange: "http://v.invalid/exchange",
        explorer: "http://v.invalid/explorer",
      },
      wire: sim.wire,
      budget: null,
    });
    const real = new InfoClient(transport);
    let openOrderReads = 0;
    // The venue's answers as they are with 3,000 USDC held for something else (the simulator rests no orders).
    const info = new Proxy(real, {
      get(target, prop, recv) {
        if (prop === "spotClearinghouseState")
          return async (...args: Parameters<InfoClient["spotClearinghouseState"]>) => {
            const a = await target.spotClearinghouseState(...args);
            const usdc = (b: { coin: string; hold: string }) =>
              b.coin === "USDC" ? { ...b, hold: (Number(b.hold) + 3000).toFixed(8) } : b;
            return { ...a, balances: a.balances.map(usdc) };
          };
        if (prop === "openOrders")
          return async () => {
            openOrderReads++;
            if (o.orders === "unreadable") throw new Error("socket hang up");
            if (o.orders === "none") return [];
            return [
              { coin: "@107", side: "B", limitPx: "25", sz: "120", oid: 7, timestamp: START },
              // A perp order holds margin, not spot tokens.
              { coin: "BTC", side: "B", limitPx: "90000", sz: "1", oid: 8, timestamp: START },
            ];
          };
        return Reflect.get(target, prop, recv);
      },
    }) as InfoClient;
    const placed = sim.core.twaps.place(
      ADDR.trader,
      {
        asset: HYPE_ASSET,
        isBuy: true,
        size: "200",
        reduceOnly: false,
        minutes: 600,
        randomize: false,
        hasDetails: false,
      },
      "0x01",
    );
    if (!placed.ok) throw new Error(placed.error);
    const warnings: string[] = [];
    const snapshot = await readSnapshot(info, {
      account: ADDR.trader,
      network: "testnet",
      rules: { ...DEFAULT_VENUE_RULES, twapHolds: o.believes },
      parts: new Set(["twaps"]),
      facts: { multiSig: null },
      now: sim.now(),
      logger: { warn: (_o: unknown, m: string) => void warnings.push(m) } as never,
    });
    await sim.stop();
    return { usdc: snapshot.balances.get("USDC")!, openOrderReads, warnings };
  }

  it("by default the commitment goes on top of the venue's whole hold, and nothing more is read", async () => {
    // A resting order's hold, or perp margin (a unified account, no order listed): the same 1,850 free.
    for (const orders of ["listed", "none"] as const) {
      const { usdc, openOrderReads } = await snapshotWith({ venueHolds: false, believes: false, orders });
      expect(usdc.available.toFixed()).toBe("1850");
      // An emergency stop's cancels do not wait for a read they do not need (a review).
      expect(openOrderReads).toBe(0);
    }
  });

  it("venue.twapHolds true: the venue's hold covers the TWAP beside the resting order, nothing counted twice", async () => {
    const { usdc, openOrderReads } = await snapshotWith({
      venueHolds: true,
      believes: true,
      orders: "listed",
    });
    expect(openOrderReads).toBe(1);
    expect(usdc.available.toNumber()).toBeGreaterThanOrEqual(1800);
    expect(usdc.available.toNumber()).toBeLessThanOrEqual(1850);
  });

  it("venue.twapHolds true but the venue holds nothing: a resting order's hold does not hide the commitment", async () => {
    const { usdc } = await snapshotWith({ venueHolds: false, believes: true, orders: "listed" });
    expect(usdc.available.toFixed()).toBe("1850");
  });

  it("venue.twapHolds true, open orders unreadable: the whole hold is taken as others', the commitment on top", async () => {
    const { usdc, warnings } = await snapshotWith({
      venueHolds: false,
      believes: true,
      orders: "unreadable",
    });
    expect(usdc.available.toFixed()).toBe("1850");
    expect(warnings).toEqual([expect.stringMatching(/^open orders unreadable/)]);
  });
});
