// A year-long report stays light: charts and the embedded JSON carry at most about 1,500 samples, chosen
// so that the run's lowest and highest values and its last sample survive; the distinct reason
// wordings are capped (the grouped reasons stay complete).
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { MAX_REPORT_SAMPLES, renderReport, thinSamples } from "../../src/simulate/report.js";
import { runSimulation, type Sample, type SimulationResult } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

const HOUR = 3_600_000;

function hourly(n: number): Sample[] {
  return Array.from({ length: n }, (_, i) => ({
    t: i * HOUR,
    value: 1000 + 100 * Math.sin(i / 50) + (i === 4321 ? -900 : 0) + (i === 6000 ? 5000 : 0),
    assets: { USDC: 500, HYPE: 500 },
    stake: {},
    prices: { USDC: 1, HYPE: 25 },
  }));
}

describe("thinSamples", () => {
  it("keeps short runs whole", () => {
    const s = hourly(100);
    expect(thinSamples(s)).toBe(s);
  });

  it("bounds a year of hourly samples, in time order, keeping the extremes and the last", () => {
    const s = hourly(8760 + 500);
    const thin = thinSamples(s);
    expect(thin.length).toBeLessThanOrEqual(MAX_REPORT_SAMPLES + 1);
    expect(thin.length).toBeGreaterThan(MAX_REPORT_SAMPLES / 2);
    expect(thin.map((x) => x.t)).toEqual([...thin.map((x) => x.t)].sort((a, b) => a - b));
    expect(thin).toContain(s[4321]);
    expect(thin).toContain(s[6000]);
    expect(thin[0]).toBe(s[0]);
    expect(thin[thin.length - 1]).toBe(s[s.length - 1]);
  });
});

describe("the HTML report of a long run", () => {
  let result: SimulationResult;
  beforeAll(async () => {
    const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    result = await runSimulation({ config, days: 1 });
  }, 60_000);

  it("stays small however many samples and distinct reasons the run had", () => {
    const summary = buildSummary(result.record);
    const skipped = Array.from({ length: 5000 }, (_, i) => ({
      ...summary.skipped[0]!,
      count: i + 1,
      reason: `PURR weight 15.${i}% is within the band around 15% ${"(long explanation) ".repeat(20)}`,
    }));
    const html = renderReport({
      summary: { ...summary, skipped },
      record: { ...result.record, samples: hourly(9000).map((x) => ({ ...x, t: result.record.from + x.t })) },
    });
    expect(html.length).toBeLessThan(1_500_000);
    expect(html).toMatch(/the 200 most frequent of the 5000 distinct reasons/);
    const embedded = JSON.parse(
      /<script type="application\/json" id="hlbot-simulation">(.*?)<\/script>/s.exec(html)![1]!,
    ) as { samples: unknown[]; samplesThinned: boolean; summary: { skipped: Array<{ count: number }> } };
    expect(embedded.samplesThinned).toBe(true);
    expect(embedded.samples.length).toBeLessThanOrEqual(MAX_REPORT_SAMPLES + 1);
    expect(embedded.summary.skipped[0]!.count).toBe(5000);
  });
});
