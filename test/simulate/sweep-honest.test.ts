// A sweep trial: the ranking flattered points it should have flagged. A point whose maxOrderUsd blocked
// every TWAP was "Best" (on staking alone) while `config validate` of the same file warned "every TWAP
// will be blocked"; `rank: endValue` put first the point that did not pay the user's withdrawal (it
// kept ~25,800 USDC the user took out); a disabled strategy's key gave tied points that seemed to say
// its value did not matter.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ConfigIssuesError, issuesOf } from "../../src/engine/config/issues.js";
import { renderSweepReport } from "../../src/simulate/report.js";
import { formatSweep, rankRuns, runSweep, sweepJson } from "../../src/simulate/sweep.js";
import { planSweep, readSweepFile } from "../../src/simulate/sweepFile.js";
import { REPO_ROOT } from "../helpers/build.js";

const temp = mkdtempSync(join(tmpdir(), "hlbot-sweep-honest-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const DEMO = join(REPO_ROOT, "config/demo.yaml");

it("a point warned of (every TWAP blocked) says so, and a best point that traded nothing is said to", async () => {
  const file = join(temp, "lim.yaml");
  writeFileSync(file, `config: ${DEMO}\ndays: 2\ngrid:\n  limits.maxOrderUsd: [50, 5000]\n`);
  const plan = await planSweep(await readSweepFile(file), DEMO, {});
  expect(plan.points[0]!.warnings).toContainEqual(expect.stringMatching(/every TWAP will be blocked/));
  expect(plan.points[1]!.warnings).toBeUndefined();
  const result = await runSweep(plan, { jobs: 1, shared: { env: {}, days: 2 } });
  const text = formatSweep(result);
  expect(text).toMatch(
    /Warnings \(as `hlbot config validate` gives them\):\n {2}point 1 \(maxOrderUsd=50\): .*every TWAP will be blocked/,
  );
  const ranked = rankRuns(result.runs, "vsBenchmark");
  const blocked = ranked.find((r) => r.point.index === 1)!;
  const o = blocked.runs[0]!.outcome;
  expect(o.ok && o.summary.twaps.length).toBe(0);
  const best = text.split("\n").find((l) => l.startsWith("Best:"))!;
  // On these 2 days HYPE fell: doing nothing came first, as it would have.
  expect(ranked[0]!.point.index).toBe(1);
  expect(best).toMatch(
    /^Best: point 1 \(maxOrderUsd=50\): vs hold .*; but it traded nothing: its figure is what it held and staked, and its configuration is warned of above$/,
  );
  const json = sweepJson(result);
  expect(json.runs.find((r) => r.point === 1)?.warnings).toEqual(plan.points[0]!.warnings);
}, 120_000);

it("rank: endValue leaves unranked a point whose scenario withdrawal was paid only in part", async () => {
  const scenario = join(temp, "scen.yaml");
  writeFileSync(
    scenario,
    `${readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8")}
events:
  - { at: 2d, type: withdrawal, account: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", coin: HYPE, amount: "1000" }
`,
  );
  const file = join(temp, "wd.yaml");
  writeFileSync(
    file,
    `config: ${DEMO}\nscenario: ${scenario}\ndays: 3\nrank: endValue\ngrid:\n  strategies.hype-staking.params.stakeIdleSpot.keepSpot: [100, 1000]\n`,
  );
  const plan = await planSweep(await readSweepFile(file), DEMO, {});
  const result = await runSweep(plan, { jobs: 1, shared: { env: {}, scenarioFile: scenario, days: 3 } });
  const ranked = rankRuns(result.runs, "endValue");
  const short = ranked.filter((r) => {
    const o = r.runs[0]!.outcome;
    return o.ok && o.summary.portfolio.flows.some((f) => f.requested !== undefined);
  });
  // The trial's case: keepSpot 100 had staked the HYPE the withdrawal asked for.
  expect(short.map((r) => r.point.index)).toEqual([1]);
  expect(short.map((r) => r.rank)).toEqual([undefined]);
  expect(ranked[0]!.point.index).toBe(2);
  expect(formatSweep(result)).toMatch(
    /not ranked \(a scenario withdrawal was paid only in part, so its end value keeps what was to be taken out; vs hold counts it\): point 1/,
  );
}, 120_000);

it("a key of a disabled strategy is refused unless the grid sweeps its `enabled` too", async () => {
  const dir = mkdtempSync(join(temp, "bot-"));
  writeFileSync(
    join(dir, "bot.yaml"),
    "network: testnet\nmode: dry-run\nstate: ./state\nstrategies: [dca.yaml]\nlimits:\n  maxOrderUsd: 1000\n  maxDailyNotionalUsd: 5000\n  maxStakeMovePerDay: 10\n",
  );
  writeFileSync(
    join(dir, "dca.yaml"),
    "name: dca\nkind: twap-accumulate\nenabled: false\nschedule: '0 0 * * *'\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 150\n  twap: {minutes: 30}\n",
  );
  const sweep = (grid: string) => {
    const f = join(dir, "sweep.yaml");
    writeFileSync(f, `days: 2\ngrid:\n${grid}`);
    return readSweepFile(f).then((s) => planSweep(s, join(dir, "bot.yaml"), {}));
  };
  const err = await sweep("  strategies.dca.params.amountUsd: [150, 300]\n").then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigIssuesError);
  expect(issuesOf(err as ConfigIssuesError).map((i) => [i.line, i.message])).toEqual([
    [3, expect.stringMatching(/^strategy dca is disabled \(enabled: false in .*dca\.yaml\): it never runs/)],
  ]);
  const plan = await sweep(
    "  strategies.dca.enabled: [true]\n  strategies.dca.params.amountUsd: [150, 300]\n",
  );
  expect(plan.points.length).toBe(2);
});

it("with candles and several seeds, says the seeds replay the same history (a sweep trial: a fluke 'best on 5/5')", async () => {
  // The seeds change only the path within each candle: "worst" and "best on" measured that, and read as
  // robustness across markets; the point best on every seed was last on the other half of the candles.
  const file = join(temp, "candles.yaml");
  writeFileSync(file, `config: ${DEMO}\ndays: 1\ngrid:\n  limits.maxOrderUsd: [1000, 5000]\n`);
  const plan = await planSweep(await readSweepFile(file), DEMO, {});
  const prices = [join(REPO_ROOT, "test/fixtures/candles/HYPE-1h-sample.csv")];
  const result = await runSweep(plan, { jobs: 1, seeds: [1, 2], shared: { env: {}, days: 1, prices } });
  const text = formatSweep(result);
  const caveat =
    /the 2 seeds replay the same candles: worst and "best on" measure only the path within candles, randomised TWAPs and faults, not other markets; check other periods with --from\/--to/;
  expect(text.split("\n").find((l) => l.startsWith("Best:"))).toMatch(caveat);
  expect(text).toMatch(new RegExp(`best point \\(${caveat.source}\\):`));
  expect(renderSweepReport(result)).toMatch(
    /Note:<\/b> the 2 seeds replay the same candles: worst and &quot;best on&quot; measure only the path within candles/,
  );
  // Without candles, nothing of the kind.
  const plain = formatSweep(await runSweep(plan, { jobs: 1, seeds: [1, 2], shared: { env: {}, days: 1 } }));
  expect(plain).not.toMatch(/replay the same candles/);
}, 180_000);

it("'every point' warnings are those every point has, not the bot file's value the grid replaces (a sweep trial)", async () => {
  const bot = join(temp, "lowmax.yaml");
  writeFileSync(
    bot,
    readFileSync(DEMO, "utf8")
      .replace(/maxOrderUsd: \d+/, "maxOrderUsd: 50")
      .replace(/^strategies: .*$/m, `strategies: ${join(REPO_ROOT, "config/demo-strategies")}`),
  );
  const file = join(temp, "lowmax-sweep.yaml");
  writeFileSync(file, `config: ${bot}\ndays: 1\ngrid:\n  limits.maxOrderUsd: [50, 1000, 5000]\n`);
  const plan = await planSweep(await readSweepFile(file), bot, {});
  expect(plan.warnings ?? []).not.toContainEqual(expect.stringMatching(/maxOrderUsd 50/));
  expect(plan.points[0]!.warnings).toContainEqual(
    expect.stringMatching(/maxOrderUsd 50 .*every TWAP will be blocked/),
  );
  expect(plan.points[1]!.warnings ?? []).not.toContainEqual(expect.stringMatching(/maxOrderUsd 50/));
  expect(plan.points[2]!.warnings ?? []).not.toContainEqual(expect.stringMatching(/maxOrderUsd 50/));
});

it("a bot, strategy or scenario file given as the sweep file is said to be one, in a sentence", async () => {
  // A documentation trial: `--sweep config/demo.yaml` listed "grid: is required; network: unknown key …".
  const said = (path: string) =>
    readSweepFile(join(REPO_ROOT, path)).then(
      () => "",
      (e: Error) => e.message,
    );
  expect(await said("config/demo.yaml")).toMatch(
    /^config\/demo\.yaml:1: this is a bot file \(give it with --config\), not a sweep file/,
  );
  expect(await said("config/scenarios/demo.yaml")).toMatch(
    /: this is a scenario of the simulator \(give it with --scenario\)/,
  );
  expect(await said("strategies/twap-accumulate.yaml")).toMatch(/: this is a strategy file/);
});
