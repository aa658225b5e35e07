// `hlbot simulate --sweep` as a real process on the built CLI, where the points run on worker threads:
// the workers give exactly the summaries of the same points run one by one in one thread, and point 1
// (the demo's own values) exactly the summary of a plain `hlbot simulate`; the table, JSON and report;
// flags override the sweep file; with --seeds every point runs once per seed, each run the summary of a
// plain `hlbot simulate --seed S`, ranked by the mean; every problem stops it before a run (exit 2);
// Ctrl-C terminates the workers and prints what finished (exit 130).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/lib/decimal.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const temp = mkdtempSync(join(tmpdir(), "hlbot-cli-sweep-"));
beforeAll(
  () => ensureBuilt(["cli/main.js", "cli/sweep.js", "simulate/sweep.js", "simulate/sweepWorker.js"]),
  120_000,
);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function hlbot(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, "simulate", ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "" },
    encoding: "utf8",
    timeout: 90_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function sweepFile(name: string, text: string): string {
  const file = join(temp, name);
  writeFileSync(file, text);
  return file;
}

const GRID = sweepFile(
  "grid.yaml",
  `config: ${relative(temp, join(REPO_ROOT, "config/demo.yaml"))} # relative to this file
days: 2
grid:
  strategies.purr-allocation.params.band: [0.015, 0.04]
  strategies.hype-dca.params.amountUsd: [300, 200]
`,
);

interface SweepJson {
  sweep: { rank: { by: string; better: string }; points: number; period: { days: number } };
  runs: Array<{
    rank: number | null;
    point: number;
    status: string;
    values: Record<string, unknown>;
    figure: string | null;
    summary: unknown;
  }>;
}

describe("hlbot simulate --sweep", () => {
  it("runs the points on worker threads with the summaries of one thread and of a plain run", () => {
    const report = join(temp, "sweep.html");
    const threads = hlbot(["--sweep", GRID, "--jobs", "2", "--json", "--report", report]);
    expect(threads.stderr).not.toMatch(/error|warn/i);
    expect(threads.code).toBe(0);
    const serial = hlbot(["--sweep", GRID, "--jobs", "1", "--json"]);
    expect(serial.code).toBe(0);
    const plain = hlbot(["--days", "2", "--json"]);
    expect(plain.code).toBe(0);

    const a = JSON.parse(threads.stdout) as SweepJson;
    const b = JSON.parse(serial.stdout) as SweepJson;
    expect(a.runs).toEqual(b.runs);
    expect(a.sweep).toMatchObject({
      rank: { by: "vsBenchmark", better: "higher" },
      points: 4,
      period: { days: 2 },
    });
    expect(a.runs.map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(a.runs.map((r) => r.rank)).toEqual([...a.runs.map((r) => r.rank)].sort());
    const figures = a.runs.map((r) => Number(r.figure));
    expect(figures).toEqual([...figures].sort((x, y) => y - x));
    const first = a.runs.find((r) => r.point === 1)!;
    expect(first.values).toEqual({
      "strategies.purr-allocation.params.band": 0.015,
      "strategies.hype-dca.params.amountUsd": 300,
    });
    // The same figures; the plain run also names its bot file and its warnings (a sweep point's are the
    // sweep's, in its table).
    const { configFile, warnings, ...figuresOfPlain } = JSON.parse(plain.stdout);
    expect(configFile).toMatch(/demo\.yaml$/);
    expect(warnings).toEqual([]);
    expect(first.summary).toEqual(figuresOfPlain);

    // Not a terminal: one line per finished run, then the total.
    const lines = threads.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    for (const line of lines.slice(0, 4))
      expect(line).toMatch(
        /^hlbot simulate --sweep: \d\/4 point \d \(band=0\.0\d+, amountUsd=\d+\): vs hold [+-][\d,]+\.\d\d USDC \(\d+\.\d\d s\)$/,
      );
    expect(lines[4]).toMatch(
      new RegExp(
        `^hlbot simulate --sweep: 4 of 4 run\\(s\\) in \\d+\\.\\d\\d s on 2 worker threads; report written to ${report}$`,
      ),
    );
    expect(serial.stderr).toMatch(/4 of 4 run\(s\) in \d+\.\d\d s on this thread\n$/);

    const html = readFileSync(report, "utf8");
    expect(html).toContain("<h2>Runs, best first</h2>");
    expect(html).toContain("Bot − buy and hold over time, the 4 best run(s)");
    expect(html).toContain('<script type="application/json" id="hlbot-sweep">');
    expect(html).not.toMatch(/<(link|img)\b|\bsrc=|https?:\/\/(?!www\.w3\.org)/);
  }, 180_000);

  it("prints the ranked table; flags override the file's period", () => {
    const r = hlbot(["--sweep", GRID, "--days", "1", "--jobs", "2"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^Sweep of 4 run\(s\) \(band × amountUsd: 2 × 2\) of .*grid\.yaml, bot file config\/demo\.yaml, on the demo scenario \(seed 42\): 2025-01-01 00:00 → 2025-01-02 00:00 UTC$/,
    );
    expect(r.stdout).toMatch(
      /\n +# +point +band +amountUsd +vs hold +end value +costs bps +slippage bps +rewards +traded +TWAPs\n/,
    );
    expect(r.stdout).toMatch(/\n +1=? +\d +0\.0\d+ +\d+ +[+-][\d,]+\.\d\d +[\d,]+\.\d\d/);
    expect(r.stdout).toMatch(
      /\nBest: point \d \(band=0\.0\d+, amountUsd=\d+\): vs hold [+-][\d,]+\.\d\d USDC/,
    );
  }, 120_000);

  it("--seeds runs every point once per seed, each a plain run on that seed, ranked by the mean", () => {
    const two = sweepFile("two.yaml", "days: 2\ngrid:\n  strategies.hype-dca.params.amountUsd: [300, 200]\n");
    const report = join(temp, "seeds.html");
    const r = hlbot(["--sweep", two, "--seeds", "42,7", "--jobs", "2", "--json", "--report", report]);
    expect(r.code, r.stderr).toBe(0);
    // 2 points × 2 seeds: 4 runs, each one line naming its seed, then the total.
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    for (const line of lines.slice(0, 4))
      expect(line).toMatch(
        /^hlbot simulate --sweep: \d\/4 point \d \(amountUsd=\d+\) seed (42|7): vs hold [+-][\d,]+\.\d\d USDC \(\d+\.\d\d s\)$/,
      );
    expect(lines[4]).toMatch(
      /^hlbot simulate --sweep: 4 of 4 run\(s\) in \d+\.\d\d s on 2 worker threads; report/,
    );
    const json = JSON.parse(r.stdout) as {
      sweep: { seeds: number[]; points: number; runs: number; rank: { of: string } };
      runs: Array<{
        rank: number;
        point: number;
        figure: string;
        worst: string;
        bestOn: number;
        seeds: Array<{ seed: number; status: string; figure: string; summary: Record<string, unknown> }>;
      }>;
    };
    expect(json.sweep).toMatchObject({
      seeds: [42, 7],
      points: 2,
      runs: 4,
      rank: { of: "mean over the seeds" },
    });
    expect(json.runs.map((p) => p.rank)).toEqual([1, 2]);
    for (const p of json.runs) {
      expect(p.seeds.map((x) => [x.seed, x.status])).toEqual([
        [42, "ok"],
        [7, "ok"],
      ]);
      const [a, b] = p.seeds.map((x) => new Decimal(x.figure));
      expect(p.figure).toBe(a!.plus(b!).div(2).toFixed());
      expect(p.worst).toBe(Decimal.min(a!, b!).toFixed());
    }
    expect(new Decimal(json.runs[0]!.figure).gte(json.runs[1]!.figure)).toBe(true);
    expect(json.runs.reduce((n, p) => n + p.bestOn, 0)).toBe(2);
    // Point 1 (the demo's own values) on seed 7 is `hlbot simulate --seed 7`.
    const plain = hlbot(["--days", "2", "--seed", "7", "--json"]);
    expect(plain.code).toBe(0);
    const { configFile: _, warnings: _w, ...plainSummary } = JSON.parse(plain.stdout);
    expect(json.runs.find((p) => p.point === 1)!.seeds[1]!.summary).toEqual(plainSummary);

    const html = readFileSync(report, "utf8");
    expect(html).toContain(
      '<th class="num">mean vs hold</th><th class="num">worst vs hold</th><th class="num">best on</th>',
    );
    expect(html).toContain("on seed 42, the first of the 2 seeds");

    // One seed given as --seeds is the sweep of --seed: the table of today, without the new columns.
    const one = hlbot(["--sweep", two, "--seeds", "7", "--jobs", "1"]);
    const seed = hlbot(["--sweep", two, "--seed", "7", "--jobs", "1"]);
    expect([one.code, seed.code]).toEqual([0, 0]);
    expect(one.stdout).toBe(seed.stdout);
    expect(one.stdout).toContain("(seed 7)");
    expect(one.stdout).not.toMatch(/mean|worst|best on/);
  }, 180_000);

  it("says what plain simulate says of the candles: their gaps and the part of the run held flat", () => {
    // A trial's sweep over a file with gaps and shorter than the run said nothing of either.
    const t0 = Date.UTC(2025, 0, 1);
    const rows = [
      ...Array.from({ length: 10 }, (_, i) => i),
      ...Array.from({ length: 10 }, (_, i) => 14 + i),
    ];
    const candles = join(temp, "gaps.csv");
    writeFileSync(
      candles,
      `coin,interval,time_ms,time_iso,open,high,low,close,volume,trades\n${rows
        .map((h) => `@107,1h,${t0 + h * 3_600_000},x,25,26,24,25.5,1,1`)
        .join("\n")}\n`,
    );
    const one = sweepFile("one.yaml", "days: 1.5\ngrid:\n  strategies.hype-dca.params.amountUsd: [300]\n");
    const sweep = hlbot(["--sweep", one, "--prices", candles, "--jobs", "1"]);
    expect(sweep.code, sweep.stderr).toBe(0);
    const plain = hlbot(["--prices", candles, "--days", "1.5", "--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    const notes = (stderr: string) =>
      stderr.split("\n").filter((l) => /^(hlbot: @107|warning: |hlbot: .* decides? inside)/.test(l));
    expect(notes(sweep.stderr)).toEqual([
      `hlbot: @107 replayed from ${candles}: 20 1h candles, 2025-01-01 00:00 → 2025-01-02 00:00 UTC; the run goes beyond them, where the price stays at the first open or last close`,
      expect.stringMatching(
        /^warning: .*gaps\.csv: 1 gap in the 1h candles \(4 candles missing\); the largest 4 h/,
      ),
      `warning: @107 from ${candles}: 16 h of the run's 1 d 12 h (44.44%) without a candle (after the last 12 h, in gaps 4 h): the price held flat there, not replayed`,
      // The demo's DCA (:30) and staking (:15) decide inside the 1h candles.
      expect.stringMatching(
        /^hlbot: hype-dca \("30 0,12 \* \* \*"\), hype-staking .* decide inside the 1h candles of @107/,
      ),
    ]);
    expect(notes(plain.stderr)).toEqual(notes(sweep.stderr));
  }, 120_000);

  it("stops before any run on a problem (exit 2)", () => {
    const typo = sweepFile("typo.yaml", "days: 1\ngrid:\n  strategies.purr-allocation.params.bnad: [0.01]\n");
    let r = hlbot(["--sweep", typo]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `hlbot: ${typo}:3: grid.strategies.purr-allocation.params.bnad: config/demo-strategies/purr-allocation.yaml:7 (params) has no key "bnad" (did you mean "band"?)\n`,
    );
    const invalid = sweepFile(
      "invalid.yaml",
      "days: 1\ngrid:\n  limits.maxOrderUsd: [100, 5000]\n  strategies.purr-allocation.params.band: [0.02, 1.5]\n",
    );
    r = hlbot(["--sweep", invalid]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${invalid}:2: grid: point 2 of 4 (maxOrderUsd=100, band=1.5) is not a valid configuration: config/demo-strategies/purr-allocation.yaml:12: params.band: must be at most 1 (a fraction: 0.5 means 50%), got 1.5`,
    );
    const badFrom = sweepFile("from.yaml", "from: 2025-13-01\ngrid:\n  limits.maxOrderUsd: [100]\n");
    r = hlbot(["--sweep", badFrom]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${badFrom}:1: from: expected an ISO date or date-time`);
    // A thousand worker threads, each with a simulator in memory (a sweep trial): refused.
    const fine = sweepFile("fine.yaml", "days: 1\ngrid:\n  limits.maxOrderUsd: [100]\n");
    r = hlbot(["--sweep", fine, "--jobs", "1000"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--jobs: at most \d+ \(4 per core on this machine\)/);
    // An event before the run's start is the same problem for every point: said once, nothing run.
    const early = join(temp, "early-event.yaml");
    const eventLine = `  - { at: "2024-12-31T12:00:00Z", type: deposit, account: "0x${"1".repeat(40)}", coin: USDC, amount: "1" }`;
    const scenarioText = `${readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8")}\nevents:\n${eventLine}\n`;
    writeFileSync(early, scenarioText);
    const earlySweep = sweepFile(
      "early.yaml",
      `scenario: early-event.yaml\ndays: 1\ngrid:\n  limits.maxOrderUsd: [100, 200, 300]\n`,
    );
    r = hlbot(["--sweep", earlySweep]);
    expect(r.code).toBe(2);
    const line = scenarioText.split("\n").indexOf(eventLine) + 1;
    expect(r.stderr).toBe(
      `hlbot: ${early}:${line}: events[0].at: the deposit event at 2024-12-31T12:00:00.000Z is before the start of the run, 2025-01-01T00:00:00.000Z: give it a later time, an offset from the start like "2d", or start the run earlier (--from)\n`,
    );
    expect(r.stdout).toBe("");
    // Candle files are read once, before any point: one that is missing, or of a pair the scenario does
    // not have, is one error.
    const fixture = readFileSync(join(REPO_ROOT, "test/fixtures/candles/HYPE-1h-sample.csv"), "utf8");
    const otherPair = join(temp, "other-pair.csv");
    writeFileSync(otherPair, fixture.replaceAll("\n@107,", "\n@999,"));
    r = hlbot(["--sweep", GRID, "--prices", otherPair]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toBe(
      `hlbot: ${otherPair}: the candles are of @999, a pair the scenario does not have (PURR/USDC, @107, @142)\n`,
    );
    r = hlbot(["--sweep", GRID, "--prices", join(temp, "absent.csv")]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toMatch(/^hlbot: .*absent\.csv: the candle file: file not found\n$/);
    const badSeed = sweepFile("seed.yaml", 'days: 1\nseed: [42, "x"]\ngrid:\n  limits.maxOrderUsd: [100]\n');
    r = hlbot(["--sweep", badSeed]);
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toBe(
      `hlbot: ${badSeed}:2: seed[1]: expected a whole number from 0 to 4294967295, got the string "x"\n`,
    );
    for (const [args, message] of [
      [["--jobs", "2"], "hlbot: --jobs: only with --sweep\n"],
      [["--seeds", "1,2"], "hlbot: --seeds: only with --sweep\n"],
      [
        ["--sweep", GRID, "--seeds", "42,x"],
        'hlbot: --seeds: expected seeds (whole numbers from 0 to 4294967295) separated by commas, e.g. 42,7,11; got "x"\n',
      ],
      [["--sweep", GRID, "--seeds", "42,7,42"], "hlbot: --seeds: 42 is listed twice\n"],
      [
        ["--sweep", GRID, "--seed", "1", "--seeds", "2,3"],
        "hlbot: --seeds: give either --seed (one) or --seeds (several), not both\n",
      ],
      [["--sweep", GRID, "--jobs", "0"], 'hlbot: --jobs: expected a whole number >= 1, got "0"\n'],
      [["--sweep", GRID, "--fork"], "hlbot: --fork: a sweep runs a scenario: give --sweep or --fork\n"],
      [["--sweep", join(temp, "absent.yaml")], `hlbot: ${join(temp, "absent.yaml")}: sweep file not found\n`],
    ] as const) {
      r = hlbot([...args]);
      expect(r.stderr).toBe(message);
      expect(r.code).toBe(2);
    }
  }, 60_000);

  it("Ctrl-C stops the workers, leaves no state folder behind and prints what finished (exit 130)", async () => {
    const long = sweepFile(
      "long.yaml",
      `days: 10\ngrid:\n  strategies.hype-dca.params.amountUsd: [100, 150, 200, 250, 300, 350, 400, 450]\n`,
    );
    // Each run's throw-away state folder is made in TMPDIR: a terminated worker left its folder there.
    const tmp = mkdtempSync(join(temp, "tmp-"));
    const child = spawn(process.execPath, [BIN, "simulate", "--sweep", long, "--jobs", "2"], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", TMPDIR: tmp },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    const firstRun = new Promise<void>((resolve) =>
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString("utf8");
        if (stderr.includes(" 1/8 point ")) resolve();
      }),
    );
    const exit = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    await firstRun;
    const sent = Date.now();
    child.kill("SIGINT");
    expect(await exit).toBe(130);
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(stdout).toMatch(/\n +- +\d +\d+ +interrupted\n/);
    expect(stdout).toMatch(/\n +1=? +\d +\d+ +[+-]/);
    expect(stderr).toMatch(
      /hlbot simulate --sweep: \d of 8 run\(s\) in \d+\.\d\d s on 2 worker threads; interrupted\n$/,
    );
    expect(readdirSync(tmp)).toEqual([]);
  }, 60_000);
});
