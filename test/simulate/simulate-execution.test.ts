// What `hlbot simulate` says about execution and about whether the bot helped: per-TWAP slippage against
// the decision mid, shortfall against the run's time-weighted mid, spread and impact against each slice's
// mid (all from the simulator's ledger), a buy-and-hold benchmark valued along the same prices with the
// difference broken into rewards, fees, spread/impact and the rest, and reasons grouped by template.
import { beforeAll, describe, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { Decimal } from "../../src/lib/decimal.js";
import { formatSummary } from "../../src/simulate/format.js";
import { renderReport } from "../../src/simulate/report.js";
import { runSimulation, type SimulationResult } from "../../src/simulate/runner.js";
import {
  buildSummary,
  reasonTemplate,
  type SimulationSummary,
  timeWeighted,
} from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

let config: LoadedConfig;
let result: SimulationResult;
let s: SimulationSummary;

beforeAll(async () => {
  config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
  result = await runSimulation({ config, days: 2 });
  s = buildSummary(result.record);
}, 60_000);

const d = (v: string) => new Decimal(v);

describe("execution figures per TWAP and in total", () => {
  it("recomputes each TWAP's slippage, shortfall and spread+impact from its slices in the ledger", () => {
    expect(s.twaps.length).toBeGreaterThan(0);
    for (const t of s.twaps) {
      const placed = result.record.ledger.find((e) => e.kind === "twapPlaced" && e.data.twapId === t.twapId)!;
      expect(t.decisionMid).toBe(String(placed.data.mid));
      const slices = result.record.ledger.filter((e) => e.kind === "twapSlice" && e.data.twapId === t.twapId);
      const sign = t.side === "buy" ? 1 : -1;
      const impact = slices.reduce(
        (a, e) => a.plus(d(String(e.data.px)).minus(String(e.data.mid)).times(String(e.data.sz)).times(sign)),
        new Decimal(0),
      );
      expect(Number(t.impact)).toBeCloseTo(impact.toNumber(), 2);
      // The book always costs something: half the spread at least.
      expect(impact.gt(0)).toBe(true);
      const avg = d(t.executedNotional).div(t.executedSize);
      const expected = avg.minus(t.decisionMid!).div(t.decisionMid!).times(10_000).times(sign);
      expect(Number(t.slippageBps)).toBeCloseTo(expected.toNumber(), 1);
      expect(Number(t.slippage)).toBeCloseTo(
        avg.minus(t.decisionMid!).times(t.executedSize).times(sign).toNumber(),
        1,
      );
      expect(t.twMid).not.toBeNull();
      expect(Number(t.shortfallBps)).toBeGreaterThan(0);
      // The run's mid is weighted by time: the mids at its slices (filled or skipped), each segment
      // between two at the mean of its ends, over the run's span.
      const mids = result.record.ledger
        .filter(
          (e) =>
            (e.kind === "twapSlice" || e.kind === "twapSliceSkipped") &&
            e.data.twapId === t.twapId &&
            e.data.mid !== undefined,
        )
        .map((e) => ({ at: e.time, mid: Number(e.data.mid) }));
      let area = 0;
      for (let i = 1; i < mids.length; i++)
        area += ((mids[i - 1]!.mid + mids[i]!.mid) / 2) * (mids[i]!.at - mids[i - 1]!.at);
      const span = mids[mids.length - 1]!.at - mids[0]!.at;
      expect(Number(t.twMid)).toBeCloseTo(span > 0 ? area / span : mids[0]!.mid, 6);
    }
    // The books the costs come from are named, per traded pair, with the scenario's figures.
    expect(s.books.map((b) => [b.pair, b.book?.class])).toEqual([
      ["HYPE/USDC", "deep"],
      ["PURR/USDC", "thin"],
    ]);
    expect(s.books[0]?.book).toMatchObject({ spreadBps: 2, depth: 2_000_000, depthRange: 0.02 });
    expect(formatSummary(s)).toContain(
      "HYPE/USDC deep: spread 2 bps, 2,000,000 USDC within 2% a side, recovering with a 1 min half-life",
    );
    const total = s.twaps.reduce((a, t) => a + Number(t.impact), 0);
    expect(Number(s.execution.impact)).toBeCloseTo(total, 1);
    expect(s.execution.fees).toBe(s.fees.value);
    // A total's bps is over the notional at its reference prices, as each row's is (a user saw one
    // TWAP at 93.48 bps and a total of 92.61, the total being over the notional at the fills).
    const over = (ref: (t: (typeof s.twaps)[number]) => string | null) =>
      s.twaps.reduce(
        (a, t) => (ref(t) === null ? a : a.plus(d(t.executedSize).times(ref(t)!))),
        new Decimal(0),
      );
    const bps = (cost: string, notional: Decimal) => d(cost).div(notional).times(10_000).toNumber();
    expect(Number(s.execution.slippageBps)).toBeCloseTo(
      bps(
        s.execution.slippage,
        over((t) => t.decisionMid),
      ),
      1,
    );
    expect(Number(s.execution.shortfallBps)).toBeCloseTo(
      bps(
        s.execution.shortfall,
        over((t) => t.twMid),
      ),
      1,
    );
  });
});

describe("the time-weighted mid", () => {
  it("weighs each price by the time it stood for: uneven slices do not make a plain mean", () => {
    // 100 for 40 s, then a move to 110 over 10 s: the plain mean of the three samples is 103.33; by
    // trapezoids (100 × 40 + 105 × 10) / 50 = 101.
    const at = (s: number, mid: number) => ({ at: s * 1000, mid: new Decimal(mid) });
    expect(timeWeighted([at(0, 100), at(40, 100), at(50, 110)])?.toNumber()).toBeCloseTo(101, 9);
    expect(timeWeighted([at(50, 110), at(0, 100), at(40, 100)])?.toNumber()).toBeCloseTo(101, 9);
    expect(timeWeighted([at(7, 42)])?.toNumber()).toBe(42);
    expect(timeWeighted([])).toBeUndefined();
  });
});

describe("buy and hold", () => {
  it("values the starting holdings along the same prices and explains the difference", () => {
    const b = s.benchmark;
    expect(b.start).toBe(s.portfolio.start.value);
    const end = b.holdings.reduce(
      (a, h) => a.plus(d(h.amount).times(result.record.end.prices[h.coin] ?? 0)),
      new Decimal(0),
    );
    expect(b.end).toBe(
      end
        .toDecimalPlaces(2)
        .toFixed(2)
        .replace(/\.?0+$/, "") || "0",
    );
    expect(Number(b.botMinusBenchmark)).toBeCloseTo(Number(s.portfolio.end.value) - Number(b.end), 1);
    const k = b.breakdown;
    const parts =
      Number(k.stakingRewards) + Number(k.fees) + Number(k.spreadAndImpact) + Number(k.timingAndOther);
    // To the cent: the parts shown add up to the total shown.
    expect(Math.round(parts * 100)).toBe(Math.round(Number(b.botMinusBenchmark) * 100));
    expect(Number(k.fees)).toBeLessThan(0);
    expect(Number(k.spreadAndImpact)).toBeLessThan(0);
    expect(Number(k.stakingRewards)).toBeGreaterThan(0);
  });

  it("costs in bps are the fees' bps plus spread and impact's, buy or sell (a quant's check)", () => {
    const e = s.execution;
    expect(e.feesBps).not.toBeNull();
    expect(e.impactBps).not.toBeNull();
    expect(Math.round(Number(e.costsBps) * 100)).toBe(
      Math.round((Number(e.feesBps) + Number(e.impactBps)) * 100),
    );
    expect(formatSummary(s)).toContain(
      `fees and spread+impact together ${e.costsBps} bps (the sum of the two;`,
    );
  });

  it("shows in the console and as a line in the report's value chart", () => {
    const text = formatSummary(s);
    expect(text).toMatch(/^Did the bot help\? Against buy and hold/m);
    expect(text).toMatch(/^ {2}buy and hold +[\d,.]+ +[\d,.]+/m);
    expect(text).toMatch(/spread\+impact/);
    const html = renderReport({ summary: s, record: result.record });
    expect(html).toMatch(/<polyline[^>]*><title>buy and hold/);
    expect(html).toContain("<h2>Did the bot help?</h2>");
    expect(html).toContain("<h3>Execution</h3>");
  });
});

describe("reasons grouped by template", () => {
  it("groups reasons that differ only by their numbers, with counts, in JSON, console and HTML", () => {
    expect(reasonTemplate("PURR is 15.52% of 24364.43 USDC, target 15% ± 1.5%: within band")).toBe(
      "PURR is #% of # USDC, target #% ± #%: within band",
    );
    // Other validators named, the same sentence: one template (a staking trial's summary ran to 77 kinds).
    expect(
      reasonTemplate("Alpha (0xaaaa…0001) is jailed: delegate 2.5 HYPE to Hyper Bravo (0xaaaa…0002)"),
    ).toBe(reasonTemplate("Echo (0xaaaa…0005) is jailed: delegate 7 HYPE to Hyper Delta (0x1234…abcd)"));
    // Names of several words, known to the run, are taken whole (they read "Low Fee <validator>").
    const names = ["Node", "Low Fee Node", "Hypurr Collective"];
    const template = reasonTemplate(
      "Low Fee Node (0xaaaa…0001) earns 1 point more than Hypurr Collective (0xaaaa…0002)",
      names,
    );
    expect(template).toBe("<validator> earns # point more than <validator>");
    expect(reasonTemplate("Node (0xaaaa…0003) earns 2 points more than Node (0xaaaa…0004)", names)).toBe(
      template.replace("# point", "# points"),
    );
    const total = s.skipped.reduce((a, g) => a + g.count, 0);
    expect(s.reasons.reduce((a, g) => a + g.count, 0)).toBe(total);
    expect(s.reasons.length).toBeLessThan(s.skipped.length);
    const band = s.reasons.find((g) => g.template.includes("within band"))!;
    expect(band.count).toBeGreaterThan(10);
    expect(band.distinct).toBeGreaterThan(1);
    const latest = s.skipped
      .filter((g) => reasonTemplate(g.reason) === band.template)
      .sort((a, b) => (a.last < b.last ? 1 : -1))[0]!;
    expect(band.latest).toBe(latest.reason);
    const text = formatSummary(s);
    expect(text).toContain(`${band.count}×  ${band.latest}`);
    const html = renderReport({ summary: s, record: result.record });
    expect(html).toContain(`<td class="num">${band.count}</td>`);
    expect(JSON.parse(JSON.stringify(s)).reasons).toEqual(s.reasons);
  });
});
