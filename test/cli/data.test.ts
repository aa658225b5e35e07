// `hlbot data fetch` against the simulated venue on 127.0.0.1 (the server `hlbot venue` runs, here on a
// virtual clock advanced by the test so it has hours of history): every closed candle in pages within
// the venue's limit, in exactly the format `readCandleFile` reads; an interrupted file continues
// without duplicates; bad flags exit 2 before anything is sent; a failing venue (429 with body null,
// 5xx, a body that is not JSON, an answer the schema or the reader refuses) exits 1 with a clear reason
// and keeps a partial file that the same command continues. End to end on the built CLI: fetch, then
// `hlbot simulate --prices FILE` replays the file.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resumeCommand } from "../../src/cli/commands/data.js";
import { parseJson } from "../../src/lib/json.js";
import { CANDLE_CSV_HEADER, readCandleFile } from "../../src/simulator/candles.js";
import { runCli } from "../helpers/cli.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";
import { type Reply, startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import { startVenueProxy } from "../helpers/venueProxy.js";
import { START, testScenario } from "../simulator/fixtures.js";
import { type HttpSim, startTestSim } from "../simulator/helpers.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const dir = mkdtempSync(join(tmpdir(), "hlbot-data-"));

function run(argv: string[], cwd?: string) {
  return runCli(argv, cwd ? { cwd } : {});
}

let sim: HttpSim;
/** The mid the venue answered at each minute of the first ten hours. */
const mids = new Map<number, string>();
const TO = new Date(START + 600 * MIN).toISOString();

beforeAll(async () => {
  sim = await startTestSim({
    scenario: testScenario({ prices: { "@107": { start: "25", drift: 0, volatility: 1 } } }),
  });
  for (let i = 0; i <= 600; i++) {
    mids.set(sim.now(), sim.prices()["@107"]!);
    sim.advance(MIN);
  }
  // A day and a half in all, for hourly candles.
  sim.advance(26 * HOUR);
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** data fetch of @107's 1m candles over the first ten hours, 100 per request. */
const args = (url: string, out?: string, coin = "HYPE") => [
  "data",
  "fetch",
  "--coin",
  coin,
  "--interval",
  "1m",
  "--from",
  "2025-01-01",
  "--to",
  TO,
  "--base-url",
  url,
  "--page-size",
  "100",
  ...(out ? ["--out", out] : []),
];

describe("hlbot data fetch", () => {
  it("exits 1 and leaves no file when the range holds no closed candle", async () => {
    const out = join(dir, "none.csv");
    // After the venue's now: nothing has closed there yet.
    const res = await run([
      "data",
      "fetch",
      "--coin",
      "HYPE",
      "--interval",
      "1m",
      "--from",
      "2030-01-01",
      "--base-url",
      sim.url,
      "--out",
      out,
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/no closed @107 1m candles from 2030-01-01T00:00:00.000Z .*; no file written/);
    expect(existsSync(out)).toBe(false);
  });

  it("writes every closed candle across pages, at the default path, with the reader's format", async () => {
    const asked: Array<{ from: number; to: number; n: number }> = [];
    const proxy = await startVenueProxy(sim.url, {
      candleSnapshot: (answer, request) => {
        const req = request.req as { startTime: number; endTime: number };
        asked.push({ from: req.startTime, to: req.endTime, n: (answer as unknown[]).length });
        return answer;
      },
    });
    const cwd = mkdtempSync(join(dir, "default-"));
    const host = new URL(proxy.url).host.replace(":", "_");
    const res = await run(args(proxy.url), cwd);
    await proxy.close();
    expect(res.code).toBe(0);
    // spotMeta resolves HYPE. The first window (100 minutes from midnight) is empty: one request over
    // the rest of the range finds the first candle (the simulator's start, noon) instead of walking
    // six more empty windows; then pages of 100 candles, each after the last one's close.
    expect(proxy.seen).toEqual(["spotMeta", ...Array(asked.length).fill("candleSnapshot")]);
    const midnight = Date.parse("2025-01-01");
    const to = Date.parse(TO);
    expect(asked.slice(0, 2)).toEqual([
      { from: midnight, to: midnight + 100 * MIN - 1, n: 0 },
      { from: midnight + 100 * MIN, to, n: 601 },
    ]);
    expect(asked.slice(2)).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((k) => ({
        from: START + k * 100 * MIN,
        to: Math.min(START + (k + 1) * 100 * MIN - 1, to),
        n: k < 6 ? 100 : 1,
      })),
    );
    expect(res.stderr).toContain("@107 (HYPE) 1m candles");
    expect(res.stderr).toContain(
      "note: the first candle opens at 2025-01-01T12:00:00.000Z, later than --from",
    );
    expect(res.stdout).toBe(
      `601 candles (601 new) of @107 1m, ${new Date(START).toISOString()} to ${TO} → candles/HYPE-1m-${host}.csv\n`,
    );
    // Named by its source: a local venue's file is never taken for (or resumed as) mainnet history.
    const file = join(cwd, `candles/HYPE-1m-${host}.csv`);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines[0]).toBe(CANDLE_CSV_HEADER);
    expect(lines.at(-1)).toBe("");
    const [coin, interval, t, time, open, , , , volume, trades] = lines[1]!.split(",");
    expect([coin, interval, t, time, open, volume, trades]).toEqual([
      "@107",
      "1m",
      String(START),
      new Date(START).toISOString(),
      mids.get(START),
      "0.0",
      "0",
    ]);
    const read = readCandleFile(file);
    expect(read).toMatchObject({ coin: "@107", interval: "1m", intervalMs: MIN });
    expect(read.candles).toHaveLength(601);
    for (const c of read.candles) expect(c.o).toBe(Number(mids.get(c.t)));
  });

  it("continues an interrupted file after its last whole row, without duplicates", async () => {
    const out = join(dir, "resume.csv");
    expect((await run(args(sim.url, out))).code).toBe(0);
    const complete = readFileSync(out, "utf8");
    const lines = complete.split("\n");

    // Interrupted after 250 rows.
    writeFileSync(out, `${lines.slice(0, 251).join("\n")}\n`);
    let res = await run(args(sim.url, out));
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`${out} has 250 candles up to`);
    expect(res.stdout).toContain("601 candles (351 new)");
    expect(readFileSync(out, "utf8")).toBe(complete);

    // Cut in the middle of a row: that row is dropped and downloaded again.
    writeFileSync(out, `${lines.slice(0, 301).join("\n")}\n${lines[301]!.slice(0, 30)}`);
    res = await run(args(sim.url, out));
    expect(res.code).toBe(0);
    expect(res.stderr).toContain("dropped the incomplete last line");
    expect(res.stdout).toContain("601 candles (301 new)");
    expect(readFileSync(out, "utf8")).toBe(complete);

    // A complete file: nothing new.
    res = await run(args(sim.url, out));
    expect(res.stdout).toContain("601 candles (0 new)");
    expect(readFileSync(out, "utf8")).toBe(complete);
  });

  /** `data fetch` of 1h HYPE candles through a proxy answering only the candles `keep` keeps. */
  const fetchKept = async (keep: (t: number) => boolean, name: string) => {
    const proxy = await startVenueProxy(sim.url, {
      candleSnapshot: (answer) => (answer as Array<{ t: number }>).filter((c) => keep(c.t)),
    });
    const out = join(dir, name);
    const res = await run([
      "data",
      "fetch",
      "--coin",
      "HYPE",
      "--interval",
      "1h",
      "--from",
      "2025-01-01",
      "--base-url",
      proxy.url,
      "--out",
      out,
    ]);
    await proxy.close();
    return { res, out };
  };

  it("notes the gaps a venue leaves (candles it did not answer), as simulate will warn (#15)", async () => {
    const missing = [START + 3 * HOUR, START + 4 * HOUR, START + 5 * HOUR];
    const { res, out } = await fetchKept((t) => !missing.includes(t), "gappy-1h.csv");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      `note: ${out}: 1 gap in the 1h candles (3 candles missing); the largest 3 h, from ${new Date(START + 3 * HOUR).toISOString()} to ${new Date(START + 6 * HOUR).toISOString()}`,
    );
    expect(readCandleFile(out).gaps).toMatchObject({ count: 1, missing: 3 });
  });

  it("a pair that seldom traded: its candles are kept and replayable; a file a replay refuses is kept and said, exit 1", async () => {
    // Trades in some hours only, irregularly (a history trial: written, then refused with exit 2 and
    // advice to run the same command).
    const hours = new Set([0, 1, 3, 4, 8, 9, 14, 16, 17, 23, 30, 31]);
    const seldom = await fetchKept((t) => hours.has((t - START) / HOUR), "seldom-1h.csv");
    expect(seldom.res.code, seldom.res.stderr).toBe(0);
    expect(readCandleFile(seldom.out).candles.length).toBe(hours.size);
    // One candle every 4 hours, every time: read as 4h candles labelled 1h. Kept, said, exit 1.
    const regular = await fetchKept((t) => ((t - START) / HOUR) % 4 === 0, "regular-1h.csv");
    expect(regular.res.code).toBe(1);
    expect(regular.res.stderr).toMatch(
      new RegExp(
        `(^|\n)hlbot data fetch: \\d+ candles kept in ${regular.out.replace(/[.]/g, "\\.")}, but simulate --prices would refuse the file: .*looks like 4h candles labelled 1h`,
      ),
    );
    expect(existsSync(regular.out)).toBe(true);
  });

  it("on Ctrl-C before any candle: says so, leaves no file, exit 130 (#15)", async () => {
    const server = await startHttpServer([{ fault: "hang" }]);
    const out = join(dir, "never-started.csv");
    const running = run(args(server.url, out));
    const deadline = Date.now() + 10_000;
    while (server.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    process.emit("SIGINT", "SIGINT");
    const res = await running;
    await server.close();
    expect(res.code).toBe(130);
    expect(res.stderr).toBe(
      "hlbot data fetch: interrupted before any candle was written; no file kept. Run the same command again " +
        `to start over: hlbot data fetch --coin HYPE --interval 1m --from 2025-01-01 --to ${TO} --base-url ${server.url} --page-size 100 --out ${out}\n`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("takes a pair by its venue name or its tokens", async () => {
    for (const coin of ["@107", "HYPE/USDC"]) {
      const out = join(dir, `pair-${coin.replace("/", "-")}.csv`);
      const res = await run(args(sim.url, out, coin));
      expect(res.code, res.stderr).toBe(0);
      expect(readCandleFile(out)).toMatchObject({ coin: "@107" });
    }
  });

  it.each([
    ["an unknown interval", ["--interval", "2m"], "--interval: expected one of 1m, 3m"],
    ["a bad --from", ["--from", "yesterday"], "--from: expected a date"],
    ["--to before --from", ["--from", "2025-02-01", "--to", "2025-01-31"], "--to: is before --from"],
    ["a page size above the limit", ["--page-size", "5001"], "--page-size: expected 1 to 5000"],
    ["a bad --network", ["--network", "devnet"], "--network"],
  ])("exits 2 on %s, before sending anything", async (_name, flags, mention) => {
    const server = await startHttpServer([{ json: null }]);
    const out = join(dir, "never.csv");
    const res = await run([...args(server.url, out), ...flags]);
    await server.close();
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(res.stderr).toContain(mention);
    expect(server.requests).toHaveLength(0);
    expect(existsSync(out)).toBe(false);
  });

  it("exits 2 on a coin the venue does not list, or a file of other candles", async () => {
    const out = join(dir, "nope.csv");
    const unknown = await run(args(sim.url, out, "NOPE"));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no spot token or pair named NOPE");
    expect(existsSync(out)).toBe(false);

    const other = join(dir, "other.csv");
    writeFileSync(other, `${CANDLE_CSV_HEADER}\n@107,1h,${START},x,25,26,24,25.5,1,1\n`);
    const res = await run(args(sim.url, other));
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`--out: ${other} holds @107 1h candles, not @107 1m`);

    const broken = join(dir, "broken.csv");
    writeFileSync(broken, `${CANDLE_CSV_HEADER}\n@107,1m,${START},x,25,24,24,25.5,1,1\n`);
    const refused = await run(args(sim.url, broken));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${broken}:2: high must be`);
  });
});

describe("the command that resumes a download", () => {
  it("repeats the flags as given but never a credential in --base-url", () => {
    const cmd = resumeCommand(
      {
        coin: "HYPE",
        interval: "1h",
        from: "2025-01-01",
        network: "mainnet",
        baseUrl: "https://alice:s3cret-pass@proxy.example:8443",
        pageSize: "5000",
      },
      "candles/HYPE.csv",
    );
    expect(cmd).not.toContain("s3cret-pass");
    expect(cmd).toContain("--base-url 'https://[REDACTED]@proxy.example:8443'");
    expect(cmd).toMatch(/^hlbot data fetch --coin HYPE --interval 1h --from 2025-01-01 /);
  });
});

describe("hlbot data fetch on a failing venue", () => {
  /**
   * A venue that forwards to the simulator, and answers the `failAt`-th candleSnapshot request (and
   * every one after it) with `failure`.
   */
  async function failingVenue(failAt: number, failure: Reply): Promise<TestHttpServer> {
    let candleRequests = 0;
    return startHttpServer(async (request) => {
      const body = request.json as { type?: string };
      if (body?.type === "candleSnapshot" && ++candleRequests >= failAt) return failure;
      const res = await fetch(`${sim.url}${request.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: request.body,
      });
      return {
        status: res.status,
        headers: { date: res.headers.get("date") ?? "" },
        json: parseJson(await res.text()),
      };
    });
  }

  const complete = async () => {
    const out = join(dir, "reference.csv");
    if (!existsSync(out)) expect((await run(args(sim.url, out))).code).toBe(0);
    return readFileSync(out, "utf8");
  };

  it.each([
    ["a 429 with body null", { status: 429, json: null, headers: { "retry-after": "0" } }, "429"],
    ["a 500", { status: 500, text: "internal error", headers: { "retry-after": "0" } }, "500"],
    [
      "a body that is not JSON",
      { text: '[{"t":1735732800000,', headers: { "content-type": "application/json" } },
      "JSON",
    ],
    [
      "a price sent as a number",
      {
        json: [{ t: START + 500 * MIN, T: START + 501 * MIN - 1, o: 25.1, c: "25.2", h: "25.3", l: "25.0" }],
      },
      "0.o",
    ],
    [
      "a high below the open",
      {
        json: [
          { t: START + 500 * MIN, T: START + 501 * MIN - 1, o: "25.1", c: "25.2", h: "25.0", l: "24.9" },
        ],
      },
      "high must be the highest",
    ],
    [
      "a candle half a minute off the grid",
      {
        json: [
          {
            t: START + 400 * MIN + 30_000,
            T: START + 401 * MIN + 29_999,
            o: "25.1",
            c: "25.2",
            h: "25.3",
            l: "25",
          },
        ],
      },
      "not a whole number of 1m candles",
    ],
  ])(
    "exits 1 on %s, keeps the pages written, and the same command continues",
    async (_name, failure, mention) => {
      // Request 1 is an empty window before noon, 2 the look over the rest of the range; the 7th
      // fails after four pages of candles.
      const server = await failingVenue(7, failure as Reply);
      const out = join(dir, `failing-${_name.replaceAll(" ", "-")}.csv`);
      const res = await run(args(server.url, out));
      await server.close();
      expect(res.code).toBe(1);
      expect(res.stdout).toBe("");
      expect(res.stderr).toContain(mention);
      expect(res.stderr).toMatch(
        /hlbot data fetch: stopped; .* keeps 400 candles up to 2025-01-01T18:39:00.000Z/,
      );
      expect(res.stderr).toContain("Run the same command again to continue");
      expect(readCandleFile(out).candles).toHaveLength(400);

      const again = await run(args(sim.url, out));
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("601 candles (201 new)");
      expect(readFileSync(out, "utf8")).toBe(await complete());
    },
  );
});

describe("hlbot data fetch → hlbot simulate --prices (built CLI)", () => {
  beforeAll(
    () =>
      ensureBuilt(["cli/main.js", "cli/commands/data.js", "cli/commands/simulate.js", "simulate/runner.js"]),
    180_000,
  );

  function hlbot(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [BIN, ...argv],
        { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? "" }, timeout: 60_000 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }

  it("on Ctrl-C says which file keeps how many candles up to when, and the command that resumes it (#15)", async () => {
    // A slow venue (each candleSnapshot answered after 300 ms): Ctrl-C lands mid-download.
    const slow = await startHttpServer(async (request) => {
      const body = request.json as { type?: string };
      const res = await fetch(`${sim.url}${request.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: request.body,
      });
      return {
        status: res.status,
        headers: { date: res.headers.get("date") ?? "" },
        json: parseJson(await res.text()),
        ...(body?.type === "candleSnapshot" ? { delayMs: 300 } : {}),
      };
    });
    const out = join(dir, "interrupted.csv");
    const child = spawn(process.execPath, [BIN, ...args(slow.url, out)], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += String(d);
    });
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // Two pages written (of seven): interrupt.
    const rows = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").length - 2 : 0);
    const deadline = Date.now() + 20_000;
    while (rows() < 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    expect(await exit).toBe(130);
    await slow.close();

    const kept = readCandleFile(out).candles;
    expect(kept.length).toBeGreaterThanOrEqual(200);
    expect(kept.length).toBeLessThan(601);
    const resume = `hlbot data fetch --coin HYPE --interval 1m --from 2025-01-01 --to ${TO} --base-url ${slow.url} --page-size 100 --out ${out}`;
    expect(stderr).toContain(
      `hlbot data fetch: interrupted; ${out} keeps ${kept.length} candles up to ${new Date(kept.at(-1)!.t).toISOString()}. ` +
        `Run the same command again to continue: ${resume}\n`,
    );
    // The printed command resumes it (against the venue itself, the slow server is gone).
    const argv = resume.split(" ").slice(1);
    argv[argv.indexOf("--base-url") + 1] = sim.url;
    const again = await run(argv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`601 candles (${601 - kept.length} new)`);
    const whole = join(dir, "uninterrupted.csv");
    expect((await run(args(sim.url, whole))).code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(whole, "utf8"));
  }, 60_000);

  it("downloads hourly candles that simulate replays from the first candle", async () => {
    const out = join(dir, "e2e-1h.csv");
    const fetched = await hlbot([
      "data",
      "fetch",
      "--coin",
      "HYPE",
      "--interval",
      "1h",
      "--from",
      "2025-01-01",
      "--base-url",
      sim.url,
      "--out",
      out,
    ]);
    expect(fetched.code, fetched.stderr).toBe(0);
    // From noon to the simulator's now (a day and a half later): 36 closed hours.
    expect(fetched.stdout).toBe(
      `36 candles (36 new) of @107 1h, 2025-01-01T12:00:00.000Z to 2025-01-02T23:00:00.000Z → ${out}\n`,
    );
    const file = readCandleFile(out);
    expect(file.candles[0]!.o).toBe(Number(mids.get(START)));

    const replay = await hlbot(["simulate", "--prices", out, "--to", "2025-01-02T12:00Z", "--json"]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).toContain(
      `hlbot: @107 replayed from ${out}: 36 1h candles, 2025-01-01 12:00 → 2025-01-03 00:00 UTC\n`,
    );
    const summary = JSON.parse(replay.stdout) as { period: { from: string } };
    expect(summary.period.from).toContain("2025-01-01T12:00");
  }, 120_000);
});
