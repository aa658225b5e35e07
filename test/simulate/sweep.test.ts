// Parameter sweeps in-process (`hlbot simulate --sweep` with one job): a point's summary is exactly the
// summary of a plain simulation of a bot file holding its values; the same sweep twice gives the same
// table; the sweep file and its grid are checked strictly, with the file, line and key, before any run;
// runs are ranked by the chosen figure (ties in grid order, failed runs last with their error); over
// several seeds each point runs once per seed, exactly as a plain run on that seed, and is ranked by
// the mean (with its worst seed and the seeds it was best on); and a worker that crashes fails its run
// only. The worker threads themselves run from dist/: see
// test/cli/simulate-sweep.test.ts.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { Decimal } from "../../src/lib/decimal.js";
import { ConfigError } from "../../src/lib/errors.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary, type SimulationSummary } from "../../src/simulate/summary.js";
import {
  formatSweep,
  rankRuns,
  runSweep,
  type SweepResult,
  type SweepRun,
} from "../../src/simulate/sweep.js";
import { planSweep, readSweepFile, type SweepPlan } from "../../src/simulate/sweepFile.js";
import { gridSamples, type SweepPointOutcome, sweepFigures } from "../../src/simulate/sweepPoint.js";
import { REPO_ROOT } from "../helpers/build.js";

const DAYS = 2;
const temp = mkdtempSync(join(tmpdir(), "hlbot-sweep-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const DEMO = join(REPO_ROOT, "config/demo.yaml");

function sweepFile(name: string, text: string): string {
  const file = join(temp, name);
  writeFileSync(file, text);
  return file;
}

async function plan(name: string, text: string): Promise<SweepPlan> {
  return planSweep(await readSweepFile(sweepFile(name, text)), DEMO, {});
}

/** The message of the ConfigError `fn` rejects with. */
async function configError(fn: () => Promise<unknown>): Promise<string> {
  const err = await fn().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return (err as Error).message;
}

async function plainRun(configFile: string, seed?: number): Promise<SimulationSummary> {
  const result = await runSimulation({
    config: await loadConfig(configFile, {}),
    days: DAYS,
    ...(seed === undefined ? {} : { seed }),
  });
  return buildSummary(result.record);
}

const GRID = `config: ${DEMO}
days: ${DAYS}
grid:
  strategies.purr-allocation.params.band: [0.015, 0.04]
  strategies.hype-dca.params.amountUsd: [300, 200]
`;

describe("a sweep run in-process", () => {
  let sweep: SweepPlan;
  let first: SweepResult;
  beforeAll(async () => {
    sweep = await plan("grid.yaml", GRID);
    first = await runSweep(sweep, { jobs: 1, shared: { env: {}, days: DAYS } });
  }, 60_000);

  it("expands the grid in file order, the first key slowest", () => {
    expect(sweep.keys.map((k) => [k.label, k.strategy, k.path])).toEqual([
      ["band", "purr-allocation", ["params", "band"]],
      ["amountUsd", "hype-dca", ["params", "amountUsd"]],
    ]);
    expect(sweep.points.map((p) => p.values)).toEqual([
      [0.015, 300],
      [0.015, 200],
      [0.04, 300],
      [0.04, 200],
    ]);
    expect(first.runs.every((r) => r.outcome.ok)).toBe(true);
  });

  it("gives each point exactly the summary of a plain run of a bot file holding its values", async () => {
    // Point 1 holds the demo's own values: the demo bot as shipped.
    const asShipped = first.runs[0]!.outcome;
    expect(asShipped.ok && asShipped.summary).toEqual(await plainRun(DEMO));

    // Point 4: a copy of the demo bot with both values written into its strategy files.
    const copy = join(temp, "edited");
    cpSync(join(REPO_ROOT, "config"), copy, { recursive: true });
    const edit = (file: string, from: string, to: string) => {
      const path = join(copy, "demo-strategies", file);
      const text = readFileSync(path, "utf8");
      expect(text).toContain(from);
      writeFileSync(path, text.replace(from, to));
    };
    edit("purr-allocation.yaml", "band: 0.015", "band: 0.04");
    edit("hype-dca.yaml", "amountUsd: 300", "amountUsd: 200");
    const point4 = first.runs[3]!.outcome;
    const plain = await plainRun(join(copy, "demo.yaml"));
    expect(point4.ok && point4.summary).toEqual(plain);
    // And the values did change the run: the DCA bought 200 at a time.
    const dca = plain.twaps.filter((t) => t.strategy === "hype-dca");
    expect(dca.length).toBeGreaterThan(0);
    expect(asShipped.ok && asShipped.summary).not.toEqual(plain);
  }, 60_000);

  it("gives the same table when run again", async () => {
    const again = await runSweep(sweep, { jobs: 1, shared: { env: {}, days: DAYS } });
    expect(formatSweep(again)).toBe(formatSweep(first));
    const text = formatSweep(first);
    expect(text).toMatch(
      /^Sweep of 4 run\(s\) \(band × amountUsd: 2 × 2\) of .*grid\.yaml, bot file .*, on the demo scenario/,
    );
    expect(text).toContain("Ranked by vs hold");
    expect(text).toMatch(
      /\n +# +point +band +amountUsd +vs hold +end value +costs bps +slippage bps +rewards +traded +TWAPs\n/,
    );
    expect(text).toMatch(/\nBest: point \d \(band=0\.0\d+, amountUsd=\d+\): vs hold [+-][\d,]+\.\d\d USDC/);
  }, 60_000);

  it("rates costs per amount traded: fees plus spread and impact over the notional, in bps", () => {
    for (const r of first.runs) {
      if (!r.outcome.ok) throw new Error("a run failed");
      const s = r.outcome.summary;
      const traded = Number(s.execution.notional);
      expect(traded).toBeGreaterThan(0);
      const f = sweepFigures(s);
      expect(f.traded).toBe(s.execution.notional);
      // The summary's own figures, unrounded, over the notional: within the rounding of the totals.
      const costs = ((Number(s.fees.value) + Number(s.execution.impact)) / traded) * 10_000;
      expect(Math.abs(Number(f.costs) - costs)).toBeLessThan(0.02 + (0.01 / traded) * 10_000);
      expect(Math.abs(Number(f.fees) - (Number(s.fees.value) / traded) * 10_000)).toBeLessThan(
        0.02 + (0.01 / traded) * 10_000,
      );
      expect(f.slippage).toBe(s.execution.slippageBps);
    }
    const ranked = rankRuns(first.runs, "costs");
    const bps = ranked.map((r) => Number(r.figure));
    expect(bps).toEqual([...bps].sort((a, b) => a - b));
  });
});

describe("a sweep over several seeds", () => {
  // 2 points × 2 seeds: point 1 is the demo bot as shipped (amountUsd 300), point 2 buys 200 at a time.
  const SEEDS = [42, 7];
  let sweep: SweepPlan;
  let result: SweepResult;
  const done: Array<[number, number | undefined, number, number]> = [];
  let edited: string;
  beforeAll(async () => {
    sweep = await plan(
      "seeds.yaml",
      `config: ${DEMO}\ndays: ${DAYS}\nseed: [${SEEDS.join(", ")}]\ngrid:\n  strategies.hype-dca.params.amountUsd: [300, 200]\n`,
    );
    expect(sweep.sweep.seeds).toEqual(SEEDS);
    result = await runSweep(sweep, {
      jobs: 1,
      shared: { env: {}, days: DAYS },
      seeds: sweep.sweep.seeds,
      onRunDone: (run, n, total) => done.push([run.point.index, run.seed, n, total]),
    });
    edited = join(temp, "edited-dca");
    cpSync(join(REPO_ROOT, "config"), edited, { recursive: true });
    const file = join(edited, "demo-strategies", "hype-dca.yaml");
    const text = readFileSync(file, "utf8");
    expect(text).toContain("amountUsd: 300");
    writeFileSync(file, text.replace("amountUsd: 300", "amountUsd: 200"));
  }, 60_000);

  it("runs each point once per seed: 2 points × 2 seeds are 4 runs, each counted", () => {
    expect(result.runs.map((r) => [r.point.index, r.seed])).toEqual([
      [1, 42],
      [1, 7],
      [2, 42],
      [2, 7],
    ]);
    expect(result.runs.every((r) => r.outcome.ok)).toBe(true);
    expect(done).toEqual([
      [1, 42, 1, 4],
      [1, 7, 2, 4],
      [2, 42, 3, 4],
      [2, 7, 4, 4],
    ]);
  });

  it("gives each run exactly the summary of a plain run of that point's bot file on that seed", async () => {
    const files = [DEMO, join(edited, "demo.yaml")];
    for (const r of result.runs) {
      if (!r.outcome.ok) throw new Error("a run failed");
      const plain = await plainRun(files[r.point.index - 1]!, r.seed);
      expect(r.outcome.summary).toEqual(plain);
      expect(plain.seed).toBe(r.seed);
      expect(sweepFigures(r.outcome.summary).vsBenchmark).toBe(plain.benchmark.botMinusBenchmark);
    }
    // The seeds are different price paths: the same point does differently on them.
    const [a, b] = result.runs.map((r) =>
      r.outcome.ok ? r.outcome.summary.benchmark.botMinusBenchmark : "",
    );
    expect(a).not.toBe(b);
  }, 60_000);

  it("ranks the points by the mean over the seeds, with the worst seed and the seeds each was best on", () => {
    const figure = (point: number, seed: number) => {
      const run = result.runs.find((r) => r.point.index === point && r.seed === seed)!;
      if (!run.outcome.ok) throw new Error("a run failed");
      return new Decimal(run.outcome.summary.benchmark.botMinusBenchmark);
    };
    const ranked = rankRuns(result.runs, "vsBenchmark");
    expect(ranked).toHaveLength(2);
    const means = [1, 2].map((p) => figure(p, 42).plus(figure(p, 7)).div(2));
    const order = means[0]!.gte(means[1]!) ? [1, 2] : [2, 1];
    expect(ranked.map((r) => r.point.index)).toEqual(order);
    for (const r of ranked) {
      const p = r.point.index;
      expect(r.runs.map((x) => x.seed)).toEqual(SEEDS);
      expect(r.figure).toBe(means[p - 1]!.toFixed());
      expect(r.worst).toBe(Decimal.min(figure(p, 42), figure(p, 7)).toFixed());
      const other = 3 - p;
      const bestOn = SEEDS.filter((s) => figure(p, s).gte(figure(other, s))).length;
      expect(r.bestOn).toBe(bestOn);
    }
    const text = formatSweep(result);
    expect(text).toMatch(
      /^Sweep of 4 run\(s\), 2 point\(s\) × 2 seeds \(amountUsd: 2\) of .*seeds\.yaml, bot file .*, on the demo scenario \(seeds 42, 7\): /,
    );
    expect(text).toContain("Ranked by the mean vs hold over the 2 seeds");
    expect(text).toMatch(
      /\n +# +point +amountUsd +mean vs hold +worst vs hold +best on +end value +costs bps +slippage bps +rewards +traded +TWAPs\n/,
    );
    const best = ranked[0]!;
    expect(text).toContain(
      `\nBest: point ${best.point.index} (amountUsd=${best.point.values[0]}): mean vs hold ${new Decimal(best.figure!).gte(0) ? "+" : ""}${new Decimal(best.figure!).toFixed(2)} USDC over 2 seeds (worst `,
    );
  });
});

describe("the sweep file and its grid", () => {
  it("names the file, line and key of a typo, with a guess", async () => {
    const message = await configError(() =>
      plan(
        "typo.yaml",
        `grid:\n  strategies.purr-allocation.params.bnad: [0.01]\n  strategies.hype-dka.params.amountUsd: [100]\n  limits.maxOrderUsdd: [1]\n`,
      ),
    );
    expect(message).toContain(
      'typo.yaml:2: grid.strategies.purr-allocation.params.bnad: config/demo-strategies/purr-allocation.yaml:7 (params) has no key "bnad" (did you mean "band"?)',
    );
    expect(message).toMatch(
      /typo\.yaml:3: grid\.strategies\.hype-dka\.params\.amountUsd: config\/demo\.yaml has no strategy named "hype-dka" \(did you mean "hype-dca"\?\); its strategies: hype-dca, hype-staking, purr-allocation/,
    );
    expect(message).toContain(
      'typo.yaml:4: grid.limits.maxOrderUsdd: config/demo.yaml:26 (limits) has no key "maxOrderUsdd" (did you mean "maxOrderUsd"?)',
    );
  });

  it("accepts a key the file leaves to its default, and a whole mapping as a value", async () => {
    const p = await plan(
      "defaults.yaml",
      `grid:\n  strategies.purr-allocation.enabled: [true, false]\n  limits.priceSanity.maxMarkDeviation: [0.1]\n  strategies.purr-allocation.params.targets:\n    - {PURR: 0.1, USDC: 0.9}\n    - {PURR: 0.2, USDC: 0.8}\n`,
    );
    expect(p.points).toHaveLength(4);
    expect(p.keys.map((k) => k.label)).toEqual(["enabled", "maxMarkDeviation", "targets"]);
  });

  it("loads every point through the configuration's schemas before anything runs, naming the point", async () => {
    const message = await configError(() =>
      plan(
        "invalid.yaml",
        `grid:\n  strategies.purr-allocation.params.band: [0.02, 2]\n  strategies.hype-dca.params.twap.minutes: [10, 30]\n`,
      ),
    );
    expect(message).toMatch(
      /^.*invalid\.yaml:1: grid: point 3 of 4 \(band=2, minutes=10\) is not a valid configuration: config\/demo-strategies\/purr-allocation\.yaml:\d+: params\.band: /,
    );
    expect(message).toContain("point 4 of 4 (band=2, minutes=30)");
    expect(message).not.toContain("point 1 ");
  });

  it("checks the file itself: unknown keys, rank, empty lists, repeated values, days with to", async () => {
    const message = await configError(() =>
      readSweepFile(
        sweepFile(
          "bad.yaml",
          `rnak: endValue\nrank: endvalue\ndays: 3\nto: 2025-01-05\ngrid:\n  limits.maxOrderUsd: []\n  limits.maxDailyNotionalUsd: [1, 1]\n`,
        ),
      ),
    );
    expect(message).toContain('bad.yaml:1: rnak: unknown key "rnak" (did you mean "rank"?)');
    expect(message).toMatch(
      /bad\.yaml:2: rank: expected one of: vsBenchmark, endValue, costs, fees, slippage, rewards, got the string "endvalue" \(did you mean "endValue"\?\)/,
    );
    const second = await configError(() =>
      readSweepFile(
        sweepFile(
          "bad2.yaml",
          `days: 3\nto: 2025-01-05\ngrid:\n  limits.maxOrderUsd: []\n  limits.maxDailyNotionalUsd: [1, 1]\n`,
        ),
      ),
    );
    expect(second).toContain("bad2.yaml:2: to: give either to: or days:, not both");
    expect(second).toContain("bad2.yaml:4: grid.limits.maxOrderUsd: expected at least one value");
    expect(second).toContain("bad2.yaml:5: grid.limits.maxDailyNotionalUsd[1]: 1 is listed twice");
    // A number written as a string is the same value (three identical points ran: a sweep trial).
    const quoted = await configError(() =>
      readSweepFile(
        sweepFile("bad3.yaml", `days: 3\ngrid:\n  limits.maxOrderUsd: [1000, "1000", "1000.0"]\n`),
      ),
    );
    expect(quoted).toContain('bad3.yaml:3: grid.limits.maxOrderUsd[1]: "1000" is listed twice');
    expect(quoted).toContain('grid.limits.maxOrderUsd[2]: "1000.0" is listed twice');
    const missing = await configError(() => readSweepFile(join(temp, "nothing.yaml")));
    expect(missing).toMatch(/nothing\.yaml: sweep file not found/);
  });

  it("checks seed: one seed or a non-empty list of distinct whole numbers, at the item's line", async () => {
    const read = (name: string, seed: string) =>
      readSweepFile(sweepFile(name, `days: 1\nseed: ${seed}\ngrid:\n  limits.maxOrderUsd: [1000]\n`));
    expect((await read("one.yaml", "11")).seeds).toEqual([11]);
    expect((await read("list.yaml", "[42, 7, 11]")).seeds).toEqual([42, 7, 11]);
    expect(
      (await readSweepFile(sweepFile("none.yaml", "grid:\n  limits.maxOrderUsd: [1000]\n"))).seeds,
    ).toBeUndefined();
    expect(await configError(() => read("empty.yaml", "[]"))).toContain(
      "empty.yaml:2: seed: expected at least one seed, e.g. [42, 7, 11]",
    );
    expect(await configError(() => read("text.yaml", '[1, "x"]'))).toContain(
      'text.yaml:2: seed[1]: expected a whole number from 0 to 4294967295, got the string "x"',
    );
    const twice = await configError(() =>
      readSweepFile(
        sweepFile(
          "twice.yaml",
          "seed:\n  - 42\n  - 7\n  - 42\n  - -1\ngrid:\n  limits.maxOrderUsd: [1000]\n",
        ),
      ),
    );
    expect(twice).toContain("twice.yaml:4: seed[2]: 42 is listed twice");
    expect(twice).toContain("twice.yaml:5: seed[3]: expected a whole number from 0 to 4294967295, got -1");
    expect(await configError(() => read("half.yaml", "1.5"))).toContain(
      "half.yaml:2: seed: expected a whole number from 0 to 4294967295, got 1.5; or a list of seeds such as [42, 7, 11]",
    );
  });

  it("refuses two keys on the same value and a strategy's name", async () => {
    const message = await configError(() =>
      plan(
        "overlap.yaml",
        `grid:\n  strategies.hype-dca.params.twap: [{minutes: 10}]\n  strategies.hype-dca.params.twap.minutes: [20]\n  strategies.hype-dca.name: [x]\n`,
      ),
    );
    expect(message).toContain(
      "overlap.yaml:3: grid.strategies.hype-dca.params.twap.minutes: sets the same value as strategies.hype-dca.params.twap (one is inside the other)",
    );
    expect(message).toContain(
      "overlap.yaml:4: grid.strategies.hype-dca.name: a strategy's name cannot be swept",
    );
  });
});

/** A summary with only the figures ranking reads: costs as totals in USDC and per amount traded. */
function fakeSummary(
  vs: string,
  trade: { traded: string; fees: string; impact: string; slippageBps?: string } = {
    traded: "1000",
    fees: "1",
    impact: "0.5",
  },
): SimulationSummary {
  const traded = Number(trade.traded);
  const bps = (x: number) => (traded > 0 ? ((x / traded) * 10_000).toFixed(2) : null);
  return {
    scenario: "demo",
    replayed: [],
    seed: 42,
    period: { from: "2025-01-01T00:00:00.000Z", to: "2025-01-02T00:00:00.000Z", days: 1 },
    valuationCoin: "USDC",
    benchmark: { botMinusBenchmark: vs },
    portfolio: { end: { value: "100" }, flows: [] },
    fees: { value: trade.fees },
    execution: {
      notional: trade.traded,
      impact: trade.impact,
      fees: trade.fees,
      feesBps: bps(Number(trade.fees)),
      costsBps: bps(Number(trade.fees) + Number(trade.impact)),
      slippage: "0.2",
      slippageBps: traded > 0 ? (trade.slippageBps ?? "2") : null,
    },
    staking: { rewards: { value: "0" } },
    twaps: [],
  } as unknown as SimulationSummary;
}

describe("ranking", () => {
  const point = (index: number) => ({ index, values: [index], edits: [] });
  const ok = (vs: string, trade?: Parameters<typeof fakeSummary>[1]): SweepPointOutcome => ({
    ok: true,
    summary: fakeSummary(vs, trade),
    samples: undefined,
    wallMs: 1,
  });
  const planOf = (runs: SweepRun[], rank: string) =>
    ({
      sweep: { file: "s.yaml", rank },
      configPath: "/x/bot.yaml",
      keys: [
        {
          key: "limits.maxOrderUsd",
          label: "maxOrderUsd",
          strategy: undefined,
          path: [],
          values: runs.map((r) => r.point.index),
        },
      ],
      points: runs.map((r) => r.point),
    }) as unknown as SweepPlan;

  it("ranks by the figure in its direction, ties share a rank in grid order, failures come last", () => {
    const runs: SweepRun[] = [
      { point: point(1), outcome: ok("5") },
      { point: point(2), outcome: { ok: false, error: "boom", wallMs: 1 } },
      { point: point(3), outcome: ok("7.5") },
      { point: point(4), outcome: ok("5.00") },
      { point: point(5), outcome: ok("-1") },
    ];
    const ranked = rankRuns(runs, "vsBenchmark");
    expect(ranked.map((r) => [r.point.index, r.rank ?? null, r.tied])).toEqual([
      [3, 1, false],
      [1, 2, true],
      [4, 2, true],
      [5, 4, false],
      [2, null, false],
    ]);
    // Costs: lower is better; in bps of the notional traded.
    expect(rankRuns(runs, "costs").map((r) => r.figure)).toEqual(["15", "15", "15", "15", undefined]);

    const text = formatSweep({
      plan: planOf(runs, "vsBenchmark"),
      runs,
      jobs: 2,
      wallMs: 1,
      interrupted: false,
    });
    expect(text).toContain(
      "\n   #  point  maxOrderUsd  vs hold  end value  costs bps  slippage bps  rewards    traded  TWAPs\n",
    );
    expect(text).toContain(
      "\n   1      3            3    +7.50     100.00      15.00          2.00     0.00  1,000.00      0\n",
    );
    expect(text).toMatch(/\n {2}2= +1 +1 +\+5\.00/);
    expect(text).toMatch(/\n +- +2 +2 +failed\n/);
    expect(text).toContain("\n  point 2 failed: boom\n");
    expect(text).toContain("1 run(s) failed");
  });

  it("ranks costs, fees and slippage per amount traded: trading less is not cheaper", () => {
    // Point 3 trades a fifth of the others (a band that never rebalanced): its total costs are the
    // smallest, but per USDC traded they are equal to point 1's and worse than point 2's.
    const runs: SweepRun[] = [
      { point: point(1), outcome: ok("0", { traded: "5000", fees: "5", impact: "2.5", slippageBps: "3" }) },
      { point: point(2), outcome: ok("0", { traded: "5000", fees: "4", impact: "2", slippageBps: "2" }) },
      { point: point(3), outcome: ok("0", { traded: "1000", fees: "1", impact: "0.5", slippageBps: "3" }) },
      { point: point(4), outcome: ok("0", { traded: "1000", fees: "1.2", impact: "0.5", slippageBps: "5" }) },
    ];
    const order = (by: "costs" | "fees" | "slippage") =>
      rankRuns(runs, by).map((r) => [r.point.index, r.rank, r.figure]);
    expect(order("costs")).toEqual([
      [2, 1, "12"],
      [1, 2, "15"],
      [3, 2, "15"],
      [4, 4, "17"],
    ]);
    expect(order("fees")).toEqual([
      [2, 1, "8"],
      [1, 2, "10"],
      [3, 2, "10"],
      [4, 4, "12"],
    ]);
    expect(order("slippage")).toEqual([
      [2, 1, "2"],
      [1, 2, "3"],
      [3, 2, "3"],
      [4, 4, "5"],
    ]);
    const text = formatSweep({ plan: planOf(runs, "costs"), runs, jobs: 1, wallMs: 1, interrupted: false });
    expect(text).toContain("Ranked by costs bps: trading costs per amount traded");
    expect(text).toContain("\nBest: point 2 (maxOrderUsd=2): costs 12.00 bps\n");
    expect(text).toMatch(/\n {2}2= +3 +3 +15\.00 .* 1,000\.00 +0\n/);
  });

  it("leaves a run that traded nothing unranked by a cost per amount traded, after the ranked ones", () => {
    const runs: SweepRun[] = [
      { point: point(1), outcome: ok("0", { traded: "0", fees: "0", impact: "0" }) },
      { point: point(2), outcome: ok("1", { traded: "2000", fees: "3", impact: "1" }) },
      { point: point(3), outcome: { ok: false, error: "boom", wallMs: 1 } },
    ];
    const ranked = rankRuns(runs, "costs");
    expect(ranked.map((r) => [r.point.index, r.rank ?? null, r.figure ?? null])).toEqual([
      [2, 1, "20"],
      [1, null, null],
      [3, null, null],
    ]);
    const text = formatSweep({ plan: planOf(runs, "costs"), runs, jobs: 1, wallMs: 1, interrupted: false });
    expect(text).toMatch(/\n {2}- +1 +1 +- +\+0\.00 +100\.00 +- +0\.00 +0\.00 +0\n {2}- +3 +3 +failed\n/);
    expect(text).toContain("\n  not ranked (traded nothing, so no costs per amount traded): point 1\n");
    expect(text).toContain("\nBest: point 2 (maxOrderUsd=2): costs 20.00 bps\n");
    // Nothing ranked at all: no best.
    const none = formatSweep({
      plan: planOf(runs.slice(0, 1), "costs"),
      runs: runs.slice(0, 1),
      jobs: 1,
      wallMs: 1,
      interrupted: false,
    });
    expect(none).not.toContain("Best:");
    expect(none).toContain("No best: every run traded nothing, so no costs per amount traded");
    // By a figure in the valuation coin, the same run is ranked.
    expect(rankRuns(runs, "vsBenchmark").map((r) => r.rank ?? null)).toEqual([1, 2, null]);
  });

  it("over several seeds ranks by the mean, not by one seed or the worst; a failure on any seed unranks", () => {
    // Point 3 is best on seed 1 and point 2 on seed 2; by the mean point 2 is first, then 1, then 3.
    const on = (index: number, figures: string[]): SweepRun[] =>
      figures.map((vs, j) => ({ point: point(index), seed: [42, 7][j], outcome: ok(vs) }));
    const runs: SweepRun[] = [
      ...on(1, ["10", "-8"]),
      ...on(2, ["3", "2"]),
      ...on(3, ["12", "-20"]),
      { point: point(4), seed: 42, outcome: ok("50") },
      { point: point(4), seed: 7, outcome: { ok: false, error: "boom", wallMs: 1 } },
    ];
    const ranked = rankRuns(runs, "vsBenchmark");
    expect(
      ranked.map((r) => [r.point.index, r.rank ?? null, r.figure ?? null, r.worst ?? null, r.bestOn ?? null]),
    ).toEqual([
      [2, 1, "2.5", "2", 1],
      [1, 2, "1", "-8", 0],
      [3, 3, "-4", "-20", 1],
      [4, null, null, null, null],
    ]);
    expect(ranked[3]!.status).toBe("failed");
    // Lower is better: the worst seed is the highest.
    const costs = rankRuns(
      [
        { point: point(1), seed: 42, outcome: ok("0", { traded: "1000", fees: "1", impact: "0.5" }) },
        { point: point(1), seed: 7, outcome: ok("0", { traded: "1000", fees: "2", impact: "0.5" }) },
      ],
      "costs",
    );
    expect(costs.map((r) => [r.figure, r.worst, r.bestOn])).toEqual([["20", "25", 2]]);

    const text = formatSweep({
      plan: planOf(
        runs.filter((r) => r.seed === 42),
        "vsBenchmark",
      ),
      runs,
      jobs: 1,
      wallMs: 1,
      interrupted: false,
    });
    expect(text).toContain(
      "Sweep of 8 run(s), 4 point(s) × 2 seeds (maxOrderUsd: 4) of s.yaml, bot file /x/bot.yaml, on the demo scenario (seeds 42, 7)",
    );
    expect(text).toContain(
      "\n  #  point  maxOrderUsd  mean vs hold  worst vs hold  best on  end value  costs bps  slippage bps  rewards    traded  TWAPs\n",
    );
    expect(text).toContain(
      "\n  1      2            2         +2.50          +2.00      1/2     100.00      15.00          2.00     0.00  1,000.00      0\n",
    );
    expect(text).toMatch(/\n {2}- +4 +4 +failed\n/);
    expect(text).toContain("\n  point 4 failed on seed 7: boom\n");
    expect(text).toContain(
      "\nBest: point 2 (maxOrderUsd=2): mean vs hold +2.50 USDC over 2 seeds (worst +2.00 USDC; the best point on 1 of 2 seeds)\n",
    );
    expect(text).toContain("1 run(s) failed");
  });

  it("over several seeds leaves a point that traded nothing on a seed unranked by a cost per amount traded", () => {
    const none = { traded: "0", fees: "0", impact: "0" };
    const runs: SweepRun[] = [
      { point: point(1), seed: 42, outcome: ok("1", { traded: "1000", fees: "0.1", impact: "0" }) },
      { point: point(1), seed: 7, outcome: ok("0", none) },
      { point: point(2), seed: 42, outcome: ok("1", { traded: "2000", fees: "3", impact: "1" }) },
      { point: point(2), seed: 7, outcome: ok("1", { traded: "2000", fees: "1", impact: "1" }) },
    ];
    // Point 1 is far cheaper where it traded, but its mean would be over seed 42 alone.
    expect(rankRuns(runs, "costs").map((r) => [r.point.index, r.rank ?? null, r.figure ?? null])).toEqual([
      [2, 1, "15"],
      [1, null, null],
    ]);
    const text = formatSweep({
      plan: planOf(
        runs.filter((r) => r.seed === 42),
        "costs",
      ),
      runs,
      jobs: 1,
      wallMs: 1,
      interrupted: false,
    });
    expect(text).toContain("): point 1 (seed 7)\n");
    expect(text).toContain("not ranked (traded nothing on the seed(s) named");
    // By a figure in the valuation coin it is ranked: every run has one.
    expect(rankRuns(runs, "vsBenchmark").map((r) => [r.point.index, r.figure])).toEqual([
      [2, "1"],
      [1, "0.5"],
    ]);
  });

  it("keeps samples on whole hours for the report's chart", () => {
    const h = 3_600_000;
    const at = (t: number, value: number) => ({ t, value, assets: {}, stake: {}, prices: {} });
    const samples = [
      at(0, 1),
      at(0, 2),
      at(h, 3),
      at(h + 5, 4),
      at(2 * h, 5),
      at(3 * h, 6),
      at(4 * h, 7),
      at(4 * h + 9, 8),
    ];
    expect(gridSamples(samples, 100).map((x) => x.value)).toEqual([2, 3, 5, 6, 7, 8]);
    expect(gridSamples(samples, 3).map((x) => x.value)).toEqual([2, 6, 8]);
  });
});

describe("worker threads", () => {
  it("fail the point whose worker crashes and run the others", async () => {
    const p = await plan("crash.yaml", `grid:\n  limits.maxOrderUsd: [1000, 666, 3000, 4000, 5000]\n`);
    const worker = join(temp, "crashing-worker.mjs");
    // A stand-in worker: crashes on the point setting 666, answers the others at once.
    writeFileSync(
      worker,
      `import { parentPort } from "node:worker_threads";
parentPort.on("message", ({ id, job }) => {
  const value = job.edits[0].value;
  if (value === 666) setTimeout(() => { throw new Error("simulated crash"); });
  else parentPort.postMessage({ id, outcome: { ok: true, wallMs: 1, summary: ${JSON.stringify(fakeSummary("0"))} } });
});
`,
    );
    const done: number[] = [];
    const result = await runSweep(p, {
      jobs: 2,
      shared: { env: {}, days: 1 },
      workerUrl: pathToFileURL(worker),
      onRunDone: (run) => done.push(run.point.index),
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(result.runs[1]!.outcome).toMatchObject({
      ok: false,
      error: "the worker running it crashed: simulated crash",
    });
    expect(result.runs.filter((r) => r.outcome.ok)).toHaveLength(4);
    expect(result.jobs).toBe(2);
  });

  it("need the built worker: without it the sweep says so instead of hanging", async () => {
    const p = await plan("noworker.yaml", `grid:\n  limits.maxOrderUsd: [1000, 2000]\n`);
    await expect(
      runSweep(p, {
        jobs: 2,
        shared: { env: {}, days: 1 },
        workerUrl: pathToFileURL(join(temp, "absent.js")),
      }),
    ).rejects.toThrow(/absent\.js is not there: worker threads run the built JavaScript/);
  });
});

describe("the shipped sweep", () => {
  it("config/sweeps/demo.yaml plans 8 points of the demo bot", async () => {
    const p = await planSweep(await readSweepFile(join(REPO_ROOT, "config/sweeps/demo.yaml")), DEMO, {});
    expect(p.sweep.config).toBe(DEMO);
    expect(p.sweep.scenario).toBe(join(REPO_ROOT, "config/scenarios/demo.yaml"));
    expect(p.points).toHaveLength(8);
    expect(p.keys.map((k) => k.label)).toEqual(["band", "minutes", "amountUsd"]);
  });
});
