// Real price history replayed: the shipped real-shaped fixture (240 hourly HYPE candles) drives the
// pair's mid through each candle's open, extremes and close, never outside its high and low, the same
// way for the same seed; a scenario names the file relative to itself; malformed files are refused with
// their line; `hlbot simulate --prices` replays it deterministically.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { CANDLE_CSV_HEADER, readCandleFile } from "../../src/simulator/candles.js";
import { createSimulator, loadScenarioFile } from "../../src/simulator/index.js";
import { CandlePath } from "../../src/simulator/prices.js";
import { REPO_ROOT } from "../helpers/build.js";
import { testScenario } from "./fixtures.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/candles/HYPE-1h-sample.csv");
const HOUR = 3_600_000;

describe("the candle fixture replayed", () => {
  const file = readCandleFile(FIXTURE);

  it("is a real-shaped file: 240 hourly candles of @107", () => {
    expect(file.coin).toBe("@107");
    expect(file.interval).toBe("1h");
    expect(file.candles).toHaveLength(240);
  });

  it("passes through each open and close and stays within each candle's range", () => {
    const path = new CandlePath(file.candles, HOUR, 7, "price:@107");
    for (const c of file.candles) {
      expect(path.at(c.t)).toBeCloseTo(c.o, 9);
      for (let m = 1; m < 60; m += 7) {
        const px = path.at(c.t + m * 60_000);
        expect(px).toBeGreaterThanOrEqual(c.l - 1e-9);
        expect(px).toBeLessThanOrEqual(c.h + 1e-9);
      }
      expect(path.at(c.t + HOUR - 1)).toBeCloseTo(c.c, 3);
    }
    // Every candle's high and low are reached.
    const c = file.candles[17]!;
    const samples = Array.from({ length: 3601 }, (_, s) => path.at(c.t + s * 1000));
    expect(Math.max(...samples)).toBeCloseTo(c.h, 6);
    expect(Math.min(...samples)).toBeCloseTo(c.l, 6);
  });

  it("is deterministic per seed, whatever order the times are asked in", () => {
    const times = Array.from({ length: 500 }, (_, i) => file.candles[0]!.t + i * 1_717_000);
    const a = new CandlePath(file.candles, HOUR, 7, "p");
    const b = new CandlePath(file.candles, HOUR, 7, "p");
    const forward = times.map((t) => a.at(t));
    const backward = [...times]
      .reverse()
      .map((t) => b.at(t))
      .reverse();
    expect(backward).toEqual(forward);
    const other = new CandlePath(file.candles, HOUR, 8, "p");
    expect(times.map((t) => other.at(t))).not.toEqual(forward);
  });

  it("is named in a scenario relative to the scenario file", () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-candles-"));
    writeFileSync(
      join(dir, "h.csv"),
      `${CANDLE_CSV_HEADER}\n@107,1h,0,x,25,26,24,25.5,1,1\n@107,1h,3600000,x,25.5,27,25,26,1,1\n`,
    );
    const scenario = testScenario({ prices: { "@107": { candles: "h.csv" } as never } });
    writeFileSync(join(dir, "s.json.yaml"), JSON.stringify(scenario));
    const loaded = loadScenarioFile(join(dir, "s.json.yaml"));
    const sim = createSimulator({ scenario: loaded, startTime: 0 });
    expect(sim.price("@107").toString()).toBe("25");
    sim.advance(2 * HOUR);
    expect(sim.price("@107").toString()).toBe("26");
  });

  it("refuses malformed files with the line", () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-candles-"));
    const bad = (name: string, body: string) => {
      writeFileSync(join(dir, name), body);
      return () => readCandleFile(join(dir, name));
    };
    expect(bad("a.csv", "time,open\n")).toThrow(/a\.csv:1: expected the header/);
    expect(
      bad("b.csv", `${CANDLE_CSV_HEADER}\n@107,1h,0,x,25,26,24,25.5,1,1\n@107,1h,0,x,25,26,24,25.5,1,1\n`),
    ).toThrow(/b\.csv:3: time_ms 0 is not after/);
    expect(bad("c.csv", `${CANDLE_CSV_HEADER}\n@107,1h,0,x,25,24,24,25.5,1,1\n`)).toThrow(
      /c\.csv:2: high must be/,
    );
    expect(bad("d.csv", `${CANDLE_CSV_HEADER}\n@107,1h,0,x,25,26,abc,25.5,1,1\n`)).toThrow(
      /d\.csv:2: low: expected/,
    );
    expect(bad("e.csv", `${CANDLE_CSV_HEADER}\n`)).toThrow(/no candles/);
  });
});

describe("simulate --prices", () => {
  it("replays the fixture from its first candle, the same way every time", async () => {
    const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    const run = () => runSimulation({ config, prices: [FIXTURE], days: 2 });
    const [a, b] = [await run(), await run()];
    expect(a.record.from).toBe(Date.UTC(2025, 0, 1));
    expect(JSON.stringify(buildSummary(b.record))).toBe(JSON.stringify(buildSummary(a.record)));
    const file = readCandleFile(FIXTURE);
    // The valuation's HYPE price at the end is the replayed path's, within the candle then open.
    const end = a.record.end.prices.HYPE!.toNumber();
    const c = file.candles[48]!;
    expect(end).toBeGreaterThanOrEqual(c.l - 0.001);
    expect(end).toBeLessThanOrEqual(c.h + 0.001);
    await expect(runSimulation({ config, prices: [join(REPO_ROOT, "README.md")], days: 1 })).rejects.toThrow(
      /expected the header/,
    );
  }, 60_000);
});
