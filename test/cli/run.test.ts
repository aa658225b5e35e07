// `hlbot run` as a real child process against a simulator over HTTP on 127.0.0.1 (wall-clock time):
// the instance lock, SIGTERM during a submission (graceful, forced by a second signal, and past the
// grace period), SIGHUP reload, and end to end against a spawned `hlbot venue` with /health and /metrics.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { Journal, type SubmissionRow } from "../../src/engine/journal.js";
import { openStateDb } from "../../src/lib/stateDb.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const REBALANCE_PARAMS = {
  targets: { HYPE: 0.5, USDC: 0.5 },
  quote: "USDC",
  band: 0.05,
  twap: { minutes: 60, randomize: false },
  minOrderUsd: 10,
};

type LogLine = Record<string, unknown> & { msg: string };

interface RunningCli {
  proc: ChildProcess;
  lines: LogLine[];
  stderr(): string;
  stdout(): string;
  exited: Promise<{ code: number | null; at: number }>;
  waitFor(what: string, match: (line: LogLine) => boolean, ms?: number): Promise<LogLine>;
}

const children: RunningCli[] = [];
let sim: (Simulator & { url: string }) | undefined;
let work = "";

beforeAll(async () => {
  ensureBuilt(["cli/main.js", "cli/commands/run.js", "engine/daemon.js"]);
  sim = await startSimulator({ clock: "real", rateLimit: false });
}, 120_000);
afterAll(async () => {
  await sim?.stop();
});
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    await c.exited;
  }
  sim?.setFaults({});
  if (work !== "") rmSync(work, { recursive: true, force: true });
  work = "";
});

/** Runs the built CLI, collecting stderr as JSON log lines. */
function cli(args: string[], env: Record<string, string>): RunningCli {
  const proc = spawn(process.execPath, [BIN, ...args], {
    cwd: work,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: LogLine[] = [];
  let err = "";
  let out = "";
  let partial = "";
  const watchers: Array<() => void> = [];
  proc.stdout!.on("data", (d: Buffer) => {
    out += d;
  });
  proc.stderr!.on("data", (d: Buffer) => {
    err += d;
    partial += d;
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as LogLine);
      } catch {
        lines.push({ msg: p });
      }
    }
    for (const w of watchers) w();
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    proc.on("close", (code) => resolve({ code, at: performance.now() })),
  );
  const running: RunningCli = {
    proc,
    lines,
    stderr: () => err,
    stdout: () => out,
    exited,
    waitFor(what, match, ms = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${what}; stderr:\n${err}`)),
          ms,
        );
        watchers.push(check);
        void exited.then(() => {
          check();
          clearTimeout(timer);
          if (!lines.find(match)) reject(new Error(`exited before ${what}; stderr:\n${err}`));
        });
        check();
      });
    },
  };
  children.push(running);
  return running;
}

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Bot {
  config: string;
  state: string;
  strategies: string;
  key: string;
  address: string;
  env: Record<string, string>;
}

/** A fresh account funded on `venueUrl`, its bot file and a strategy folder. */
function makeBot(venueUrl: string, o: { mode: "live" | "dry-run"; schedule?: string }): Bot {
  // A test that made its folder first (to start a venue in it) keeps it: one folder, removed afterwards.
  if (work === "") work = mkdtempSync(join(tmpdir(), "hlbot-run-"));
  const wallet = Wallet.createRandom();
  const strategies = join(work, "strategies");
  mkdirSync(strategies);
  writeFileSync(
    join(strategies, "rebalance.yaml"),
    stringify({
      name: "rebalance",
      kind: "twap-rebalance",
      schedule: o.schedule ?? "* * * * * *",
      params: REBALANCE_PARAMS,
    }),
  );
  const config = join(work, "bot.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      baseUrl: venueUrl,
      mode: o.mode,
      wallet: { privateKeyEnv: "HLBOT_TEST_KEY" },
      strategies: "./strategies",
      state: "./state",
      // These tests may schedule strategies by the second.
      schedule: { allowSeconds: true },
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 100000 },
      log: { level: "info", format: "json" },
    }),
  );
  return {
    config,
    state: join(work, "state"),
    strategies,
    key: wallet.privateKey,
    address: wallet.address.toLowerCase(),
    env: { HLBOT_TEST_KEY: wallet.privateKey },
  };
}

async function submissions(state: string): Promise<SubmissionRow[]> {
  const db = await openStateDb({ dir: state });
  try {
    return new Journal(db).recentSubmissions(10);
  } finally {
    db.close();
  }
}

function twapsOf(address: string): number {
  return sim!.ledger({ kind: "twapPlaced", user: address }).length;
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on("error", reject)
      .end();
  });
}

const isReady = (l: LogLine) => l.msg === "venue reachable: ready";

describe("hlbot run: checks before anything starts (in process)", () => {
  async function runInProcess(args: string[]): Promise<{ code: number; stderr: string; stdout: string }> {
    let stderr = "";
    let stdout = "";
    const code = await main(["run", ...args], {
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      env: { HLBOT_TEST_KEY: Wallet.createRandom().privateKey },
      isTTY: false,
    });
    return { code, stderr, stdout };
  }

  it("refuses bad flags with exit 2 before reading the configuration", async () => {
    work = mkdtempSync(join(tmpdir(), "hlbot-run-flags-"));
    const missing = join(work, "nowhere.yaml");
    for (const [flags, message] of [
      [["--grace-ms", "soon"], "--grace-ms: expected a whole number >= 0"],
      [["--metrics-port", "70000"], "--metrics-port: expected 0 to 65535"],
      [["--metrics-port", "-1"], "--metrics-port: expected a whole number"],
    ] as const) {
      const r = await runInProcess(["--config", missing, ...flags]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain("nowhere.yaml");
    }
  });

  it("refuses a configuration without any enabled strategy (exit 2), before taking the lock", async () => {
    const bot = makeBot("http://127.0.0.1:9", { mode: "dry-run" });
    writeFileSync(
      join(bot.strategies, "rebalance.yaml"),
      stringify({
        name: "rebalance",
        kind: "twap-rebalance",
        schedule: "* * * * *",
        enabled: false,
        params: REBALANCE_PARAMS,
      }),
    );
    const r = await runInProcess(["--config", bot.config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bot\.yaml: strategies: no enabled strategy to schedule/);
    expect(existsSync(join(bot.state, "lock.json"))).toBe(false);
  });
});

describe("hlbot run (child process)", () => {
  it("holds the state folder: a second `run` or `once` exits 2 naming the holder", async () => {
    const bot = makeBot(sim!.url, { mode: "dry-run" });
    const first = cli(["run", "--config", bot.config], bot.env);
    await first.waitFor("readiness", isReady);

    for (const command of ["once", "run"]) {
      const second = cli([command, "--config", bot.config], bot.env);
      const { code } = await second.exited;
      expect(code, second.stderr()).toBe(2);
      expect(second.stderr()).toContain(
        `is in use by another hlbot (\`hlbot run --config ${bot.config}\`, pid ${first.proc.pid}`,
      );
    }
    // A cron wrapper tells "busy, try later" from a broken configuration (both exit 2) by --json's busy.
    const busy = cli(["once", "--config", bot.config, "--json"], bot.env);
    expect((await busy.exited).code).toBe(2);
    expect(JSON.parse(busy.stdout().trim().split("\n").at(-1) ?? "null").summary).toMatchObject({
      busy: true,
      failed: 1,
      // Whose pass it was, from the key (a scripter's line said null).
      account: bot.address.toLowerCase(),
    });
    first.proc.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);
    // The lock is gone with the process: the next instance starts.
    const next = cli(["once", "--config", bot.config, "--json"], bot.env);
    expect((await next.exited).code, next.stderr()).toBe(0);
  }, 60_000);

  it("on SIGTERM during a submission, waits for its answer, journals it and exits 0 within the grace period", async () => {
    const bot = makeBot(sim!.url, { mode: "live" });
    sim!.fund(bot.address, "HYPE", "1000");
    sim!.fund(bot.address, "USDC", "5000");
    sim!.setFaults({ exchange: { latencyMs: 1_500 } });
    const run = cli(["run", "--config", bot.config, "--grace-ms", "10000"], bot.env);
    await until("the TWAP to reach the venue", () => twapsOf(bot.address) === 1);
    const signalledAt = performance.now();
    run.proc.kill("SIGTERM");
    const { code, at } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(at - signalledAt).toBeLessThan(10_000);
    expect(at - signalledAt).toBeGreaterThan(500); // it did wait for the held answer
    expect(
      run.lines.some((l) => /waiting up to 10000 ms for the running cycle of rebalance/.test(l.msg)),
    ).toBe(true);
    const rows = await submissions(bot.state);
    expect(rows.map((r) => [r.actionType, r.status])).toEqual([["twapOrder", "accepted"]]);
    expect(twapsOf(bot.address)).toBe(1);
    // The TWAP it leaves running, unwatched, is said (a seller's trial: the service stopped silently).
    expect(
      run.lines.some((l) =>
        /^1 TWAP this bot placed may still be running on the venue: #\d+ \(rebalance, until \d\d:\d\d UTC\)\. They keep filling/.test(
          l.msg,
        ),
      ),
    ).toBe(true);
    // Once, in the log's own format (a scripter's JSON log had it again as a plain line).
    expect(run.stderr()).not.toMatch(/^hlbot: 1 TWAP this bot placed/m);
    expect(run.stderr().toLowerCase()).not.toContain(bot.key.slice(2).toLowerCase());
  });

  it("exits at once on a second signal, leaving the unanswered submission pending for reconciliation", async () => {
    const bot = makeBot(sim!.url, { mode: "live" });
    sim!.fund(bot.address, "HYPE", "1000");
    sim!.fund(bot.address, "USDC", "5000");
    sim!.setFaults({ exchange: { latencyMs: 8_000 } });
    const run = cli(["run", "--config", bot.config], bot.env);
    await until("the TWAP to reach the venue", () => twapsOf(bot.address) === 1);
    run.proc.kill("SIGTERM");
    await run.waitFor("the stop to begin", (l) => /running cycle has 30000 ms/.test(l.msg));
    const secondAt = performance.now();
    run.proc.kill("SIGTERM");
    const { code, at } = await run.exited;
    expect(code).toBe(143);
    expect(at - secondAt).toBeLessThan(2_000);
    expect(run.lines.some((l) => /second SIGTERM: exiting now/.test(l.msg))).toBe(true);
    expect((await submissions(bot.state)).map((r) => r.status)).toEqual(["pending"]);
  });

  it("past the grace period, aborts the submission, journals it unknown and exits 1", async () => {
    const bot = makeBot(sim!.url, { mode: "live" });
    sim!.fund(bot.address, "HYPE", "1000");
    sim!.fund(bot.address, "USDC", "5000");
    sim!.setFaults({ exchange: { latencyMs: 8_000 } });
    const run = cli(["run", "--config", bot.config, "--grace-ms", "300"], bot.env);
    await until("the TWAP to reach the venue", () => twapsOf(bot.address) === 1);
    const signalledAt = performance.now();
    run.proc.kill("SIGTERM");
    const { code, at } = await run.exited;
    expect(code).toBe(1);
    expect(at - signalledAt).toBeLessThan(3_000);
    expect(run.stderr()).toContain("stopped after the 300 ms grace period; the cycle in flight was aborted");
    expect((await submissions(bot.state)).map((r) => r.status)).toEqual(["unknown"]);
    // The TWAP whose answer was cut short may run on the venue: said with the rest (an operator's trial
    // was told of one TWAP while the venue ran two).
    expect(run.stderr()).toMatch(
      /1 TWAP this bot placed may still be running on the venue: an order whose answer was lost \(submission #\d+, rebalance, sent \d\d:\d\d UTC; the next start reconciles it\)/,
    );
  });

  it("a live daemon whose bot file was set to dry-run says on SIGHUP that it is still LIVE and how to stop it", async () => {
    // An owner edited mode: dry-run to stop live trading and read one line that never said it was not.
    const bot = makeBot(sim!.url, { mode: "live", schedule: "0 0 1 1 *" }); // yearly: never during the test
    const run = cli(["run", "--config", bot.config], bot.env);
    await run.waitFor("readiness", isReady);
    writeFileSync(bot.config, readFileSync(bot.config, "utf8").replace("mode: live", "mode: dry-run"));
    run.proc.kill("SIGHUP");
    const changed = await run.waitFor("the bot-file warning", (l) => /^the bot file changed/.test(l.msg));
    expect(changed.changed).toEqual(["mode"]);
    expect(changed.msg).toMatch(
      /; this daemon is still LIVE and keeps sending: restart it for the new mode, or `hlbot stop` to stop it sending now$/,
    );
    run.proc.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);
  });

  it("reloads the strategy folder on SIGHUP: a broken file is reported and the old set kept, a good one applied", async () => {
    const bot = makeBot(sim!.url, { mode: "dry-run", schedule: "0 0 1 1 *" }); // yearly: never during the test
    const run = cli(["run", "--config", bot.config], bot.env);
    await run.waitFor("readiness", isReady);

    const broken = join(bot.strategies, "fast.yaml");
    writeFileSync(
      broken,
      "name: fast\nkind: twap-rebalance\nschedule: '* * * * * *'\nparams:\n  quote: USDC\n",
    );
    run.proc.kill("SIGHUP");
    const problem = await run.waitFor("the reload problem", (l) => typeof l.problem === "string");
    expect(problem.problem).toMatch(/strategies\/fast\.yaml:4: params\.targets: is required/);
    await run.waitFor("the refusal", (l) =>
      /strategy reload refused: keeping the 1 current strategy/.test(l.msg),
    );
    // A strategy file's fault, not the bot file's (an operator's trial read "a restart would fail").
    expect(run.lines.filter((l) => /the bot file no longer loads/.test(l.msg))).toEqual([]);

    writeFileSync(
      broken,
      stringify({ name: "fast", kind: "twap-rebalance", schedule: "* * * * * *", params: REBALANCE_PARAMS }),
    );
    run.proc.kill("SIGHUP");
    await run.waitFor("the reload", (l) => /strategies reloaded: 2 scheduled; added fast/.test(l.msg));
    await run.waitFor("a run of the new strategy", (l) => l.strategy === "fast" && /^cycle ok/.test(l.msg));
    expect(run.lines.some((l) => l.strategy === "rebalance" && /^cycle/.test(l.msg))).toBe(false);

    // A limit tightened in the bot file is not applied by SIGHUP: the daemon says so.
    writeFileSync(
      bot.config,
      readFileSync(bot.config, "utf8").replace("maxOrderUsd: 100000", "maxOrderUsd: 110"),
    );
    run.proc.kill("SIGHUP");
    const changed = await run.waitFor("the bot-file warning", (l) => /^the bot file changed/.test(l.msg));
    expect(changed.changed).toEqual(["limits.maxOrderUsd"]);
    expect(changed.msg).toMatch(
      /SIGHUP reloads only the strategy files and its strategies: list: the running daemon keeps the other settings it started with/,
    );
    expect(changed.msg).toMatch(/; the limits it started with stay in force until then$/);
    // A dry-run daemon is not said to be LIVE.
    expect(changed.msg).not.toMatch(/still LIVE/);

    // The bot file's strategies: edited to a list without the rebalancer: it stops (a config trial: it
    // kept running after a SIGHUP, and nothing said why).
    writeFileSync(
      bot.config,
      readFileSync(bot.config, "utf8").replace(
        /strategies: \.\/strategies\n/,
        "strategies:\n  - ./strategies/fast.yaml\n",
      ),
    );
    run.proc.kill("SIGHUP");
    const source = await run.waitFor("the new list", (l) =>
      /^the bot file's strategies: changed/.test(l.msg),
    );
    expect(source.msg).toMatch(/\(folder .*strategies → .*strategies\/fast\.yaml\): reloading from it$/);
    await run.waitFor("the reload", (l) =>
      /strategies reloaded: 1 scheduled; .*removed rebalance/.test(l.msg),
    );
    run.proc.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);
  });
});

describe("hlbot run: strategies naming a market the venue does not list", () => {
  it("leaves them out at start and runs the others; refuses a reload adding one; nothing left is exit 2", async () => {
    const typo = (name: string) =>
      stringify({
        name,
        kind: "twap-accumulate",
        schedule: "0 0 1 1 *",
        params: { coin: "HYPEE", side: "buy", amountUsd: 150, twap: { minutes: 30 } },
      });
    const bot = makeBot(sim!.url, { mode: "dry-run", schedule: "0 0 1 1 *" });
    writeFileSync(join(bot.strategies, "dca.yaml"), typo("dca"));
    const run = cli(["run", "--config", bot.config], bot.env);
    const left = await run.waitFor("the left-out strategy", (l) => typeof l.problem === "string");
    expect(left.msg).toMatch(/^strategy left out: .*dca\.yaml:\d+: params\.coin: HYPEE is not a spot token/);
    const scheduled = await run.waitFor("the schedule", (l) => /^scheduling/.test(l.msg));
    expect(scheduled.msg).toMatch(/^scheduling 1 strategy/);
    await run.waitFor("readiness", isReady);

    writeFileSync(join(bot.strategies, "dca2.yaml"), typo("dca2"));
    run.proc.kill("SIGHUP");
    await run.waitFor("the refusal", (l) =>
      /strategy reload refused: keeping the 1 current strategy/.test(l.msg),
    );
    run.proc.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);

    rmSync(join(bot.strategies, "rebalance.yaml"));
    const none = cli(["run", "--config", bot.config], bot.env);
    expect((await none.exited).code).toBe(2);
    expect(none.stderr()).toMatch(/HYPEE is not a spot token/);
  }, 60_000);

  it("a metrics host that is not this machine's names --metrics-host, not --metrics-port", async () => {
    // A documentation trial read "--metrics-port: cannot listen on 1.2.3.4.5:0".
    const bot = makeBot(sim!.url, { mode: "dry-run", schedule: "0 0 1 1 *" });
    const run = cli(
      ["run", "--config", bot.config, "--metrics-host", "192.0.2.1", "--metrics-port", "0"],
      bot.env,
    );
    expect((await run.exited).code).toBe(2);
    expect(run.stderr()).toMatch(/--metrics-host: cannot listen on 192\.0\.2\.1:0/);
    // In the log as well, for a pipeline that reads the log (a scripter's saw a daemon go quiet).
    expect(
      run.lines.some(
        (l) => l.level === "fatal" && /cannot go on: .*cannot listen on 192\.0\.2\.1:0/.test(l.msg),
      ),
    ).toBe(true);
  }, 60_000);
});

describe("hlbot run: a strategy file that does not load", () => {
  it("holds every strategy but not the daemon: the guards run, /health says why (503) while /live stays 200, a SIGHUP after the fix starts the strategies", async () => {
    const bot = makeBot(sim!.url, { mode: "dry-run", schedule: "0 0 1 1 *" });
    const broken = (validators: unknown) =>
      writeFileSync(
        join(bot.strategies, "staking.yaml"),
        stringify({
          name: "staking",
          kind: "validator-staking",
          schedule: "0 */6 * * *",
          params: { validators },
        }),
      );
    broken("three");
    const run = cli(["run", "--config", bot.config, "--metrics-port", "0"], bot.env);
    const left = await run.waitFor("the file's error", (l) => typeof l.problem === "string");
    expect(left.level).toBe("error");
    expect(left.msg).toMatch(
      /^strategy file does not load: .*staking\.yaml:\d+: params\.validators: expected a whole number.*; no strategy runs until it does/,
    );
    const scheduled = await run.waitFor("the schedule", (l) => /^scheduling/.test(l.msg));
    expect(scheduled.msg).toMatch(/^scheduling 0 strategies/);
    const served = await run.waitFor("the metrics URL", (l) => typeof l.metrics === "string");
    const health = await get(`${served.metrics as string}/health`);
    expect(health.status).toBe(503);
    expect(health.body).toMatch(/strategy file problem\(s\), no strategy runs: .*staking\.yaml/);
    // A liveness probe must not restart it: a restart mends no file, and the guards run meanwhile.
    expect(await get(`${served.metrics as string}/live`)).toEqual({ status: 200, body: '{"status":"ok"}' });
    broken(3);
    run.proc.kill("SIGHUP");
    await run.waitFor("the reload", (l) => /^strategies reloaded: 2 scheduled/.test(l.msg));
    expect((await get(`${served.metrics as string}/health`)).status).toBe(200);
    run.proc.kill("SIGTERM");
    expect((await run.exited).code).toBe(0);
  }, 60_000);
});

describe("a journal removed under the running daemon", () => {
  it("stops it (exit 1) saying so, rather than trading on into a deleted file", async () => {
    // A recovery trial: `rm state/hlbot.db*` while run traded; it went on 48 s (deposits, delegations,
    // notifications) into the unlinked file with /health "ok", and lost all of it.
    const wallet = Wallet.createRandom();
    work = mkdtempSync(join(tmpdir(), "hlbot-run-journal-"));
    const venue = cli(["venue", "--fund", `${wallet.address}:HYPE=1000,USDC=5000`], {});
    await until("the venue URL", () => venue.stdout().includes("\n"));
    const bot = makeBot(venue.stdout().trim(), { mode: "dry-run" });
    const run = cli(["run", "--config", bot.config], { HLBOT_TEST_KEY: wallet.privateKey });
    await run.waitFor("a cycle", (l) => /^cycle ok/.test(l.msg));
    const db = join(bot.state, "hlbot.db");
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    const { code } = await run.exited;
    expect(code).toBe(1);
    expect(
      run.lines.some((l) =>
        l.msg.startsWith(`the journal ${db} was removed or replaced under the running bot`),
      ),
    ).toBe(true);
    venue.proc.kill("SIGTERM");
    expect((await venue.exited).code).toBe(0);
  }, 30_000);
});

describe("hlbot run against hlbot venue (end to end)", () => {
  it("acts on schedule, answers /health and /metrics, and exits 0 on SIGTERM", async () => {
    const wallet = Wallet.createRandom();
    work = mkdtempSync(join(tmpdir(), "hlbot-run-e2e-"));
    const venue = cli(["venue", "--fund", `${wallet.address}:HYPE=1000,USDC=5000`], {});
    await until("the venue URL", () => venue.stdout().includes("\n"));
    const url = venue.stdout().trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const bot = makeBot(url, { mode: "live" });
    const env = { HLBOT_TEST_KEY: wallet.privateKey };
    const run = cli(["run", "--config", bot.config, "--metrics-port", "0"], env);
    const served = await run.waitFor("the metrics URL", (l) => typeof l.metrics === "string");
    const base = served.metrics as string;

    // Three runs in three different seconds: the strategy keeps acting on its schedule.
    await until("three cycles", () => run.lines.filter((l) => /^cycle ok/.test(l.msg)).length >= 3);
    const cycles = run.lines.filter((l) => /^cycle ok/.test(l.msg));
    expect(new Set(cycles.map((l) => String(l.time).slice(0, 19))).size).toBe(cycles.length);
    expect(new Set(cycles.map((l) => l.cycle)).size).toBe(cycles.length);
    expect(cycles[0]?.msg).toBe("cycle ok: twapOrder accepted");

    expect(await get(`${base}/health`)).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(await get(`${base}/ready`)).toEqual({ status: 200, body: '{"ready":true}' });
    const metrics = await get(`${base}/metrics`);
    expect(metrics.body).toContain('hlbot_submissions_total{action="twapOrder",outcome="accepted"} 1');
    expect(metrics.body).toMatch(/hlbot_cycles_total\{strategy="rebalance",outcome="ok"\} [3-9]/);
    // Which account, network and mode, for a dashboard of several bots (its series carry no account).
    expect(metrics.body).toContain(
      `hlbot_account_info{account="${wallet.address.toLowerCase()}",network="testnet",mode="live"} 1`,
    );

    const signalledAt = performance.now();
    run.proc.kill("SIGTERM");
    const { code, at } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(at - signalledAt).toBeLessThan(30_000);
    venue.proc.kill("SIGTERM");
    expect((await venue.exited).code).toBe(0);
  });
});

describe("hlbot venue restarted", () => {
  it("numbers its TWAPs anew, so a bot's old TWAP id is not a new TWAP's", async () => {
    // An operator's trial: each start numbered TWAPs from 1000, and the bot took a new TWAP for an old
    // one of the same id (reconciled "did not land" while it ran, credited to another strategy).
    const wallet = Wallet.createRandom();
    work = mkdtempSync(join(tmpdir(), "hlbot-venue-ids-"));
    const env = { HLBOT_PRIVATE_KEY: wallet.privateKey, HLBOT_STATE_DIR: join(work, "state") };
    const placeOne = async (scenario: string[] = []): Promise<number> => {
      const venue = cli(["venue", ...scenario, "--fund", `${wallet.address}:HYPE=1000,USDC=5000`], {});
      await until("the venue URL", () => venue.stdout().includes("\n"));
      const url = venue.stdout().trim();
      const twap = cli(
        ["twap", "buy", "--coin", "HYPE", "--size", "10", "--minutes", "5", "--live", "--base-url", url],
        env,
      );
      const done = await twap.exited;
      expect(done.code, twap.stderr()).toBe(0);
      venue.proc.kill("SIGTERM");
      expect((await venue.exited).code).toBe(0);
      const id = /twapId (\d+)/.exec(twap.stderr())?.[1];
      expect(id, twap.stderr()).toBeDefined();
      return Number(id);
    };
    const first = await placeOne();
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the next start is a second later
    // A scenario whose text names the setting without setting it (a review: a comment turned it off).
    const commented = join(work, "commented.yaml");
    writeFileSync(
      commented,
      `# settings.twapIdStart is left out\n${readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8")}`,
    );
    const second = await placeOne(["--scenario", commented]);
    expect(second).not.toBe(first);
    expect(second).toBeGreaterThan(first);
  }, 60_000);
});
