// `hlbot plan --json` and `hlbot once` end to end: the built CLI as a real process, against the
// embedded simulator served over 127.0.0.1 in real time.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";
import { ACCOUNT_KEY } from "../helpers/exchange.js";
import { independentL1Signer, type WireBody } from "../helpers/independentSigning.js";
import { startRewritingProxy } from "../helpers/rewritingProxy.js";
import { demoWithHypeAt } from "../helpers/scenario.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "bin/hlbot.js"), ...args], {
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("plan --json and once through the CLI", () => {
  let sim: Simulator & { url: string };
  let dir: string;
  const wallet = Wallet.createRandom();
  const address = wallet.address.toLowerCase();
  const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };

  function writeConfig(mode: "live" | "dry-run"): string {
    const file = join(dir, `bot-${mode}.yaml`);
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        mode,
        strategies: ["rebalance.yaml"],
        state: "./state",
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "warn", format: "json" },
      }),
    );
    return file;
  }

  beforeAll(async () => {
    buildOnce();
    sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
    sim.fund(address, "HYPE", "1000");
    sim.fund(address, "USDC", "5000");
    dir = mkdtempSync(join(tmpdir(), "hlbot-plan-"));
    writeFileSync(
      join(dir, "rebalance.yaml"),
      stringify({
        name: "rebalance",
        kind: "twap-rebalance",
        // Every 2 seconds: `once` acts only in a due slot (issue #12), so the test needs slots that come.
        schedule: "*/2 * * * * *",
        params: {
          targets: { HYPE: 0.5, USDC: 0.5 },
          quote: "USDC",
          band: 0.05,
          twap: { minutes: 60, randomize: false },
        },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // Since #17.6 plan prints unsigned requests by default; this signature check asks for --sign (deliberate).
  it("plan --json --sign prints one line per action whose request recovers to the signer, and sends nothing", async () => {
    const { code, stdout, stderr } = await run(
      ["plan", "--json", "--sign", "--config", writeConfig("dry-run")],
      env,
    );
    expect(code, stderr).toBe(0);
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ strategy: "rebalance", action: "twapOrder", outcome: "dry-run" });
    expect(String(line?.reason)).toMatch(/HYPE/);
    const request = line?.request as WireBody;
    // The simulator's price keeps walking in real time from 40: the size is 437.5 give or take a lot.
    expect(request.action).toMatchObject({
      type: "twapOrder",
      twap: { a: 10107, b: false, r: false, m: 60, t: false },
    });
    expect(Number((request.action as { twap: { s: string } }).twap.s)).toBeCloseTo(437.5, 0);
    expect(independentL1Signer(request, "testnet")).toBe(address);
    expect(stderr).toContain("plan for"); // the human summary goes to stderr
    expect(stderr).toMatch(/anyone who has it can send it to the venue and execute it/);
    expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(0);
    for (const text of [stdout, stderr])
      expect(text.toLowerCase()).not.toContain(wallet.privateKey.slice(2).toLowerCase());
  });

  it("plan prints unsigned requests by default (digest, distinct nonces), coherent with plan --unsigned", async () => {
    writeFileSync(
      join(dir, "link.yaml"),
      stringify({
        name: "link",
        kind: "link-staking",
        schedule: "0 0 * * *",
        params: { counterparty: "0x3333333333333333333333333333333333333333" },
      }),
    );
    const file = join(dir, "bot-two.yaml");
    const base = {
      network: "testnet",
      baseUrl: sim.url,
      mode: "dry-run",
      account: address,
      strategies: ["rebalance.yaml", "link.yaml"],
      state: "./state-two",
      // These tests may schedule strategies by the second.
      schedule: { allowSeconds: true },
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
      log: { level: "warn", format: "json" },
    };
    writeFileSync(file, stringify(base));
    const shapes: string[][][] = [];
    for (const args of [[], ["--unsigned"]]) {
      const { code, stdout, stderr } = await run(["plan", "--json", ...args, "--config", file], env);
      expect(code, stderr).toBe(0);
      expect(stderr).not.toMatch(/anyone who has it/);
      const lines = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { action: string; request: Record<string, unknown> });
      expect(lines.map((l) => l.action)).toEqual(["twapOrder", "linkStakingUser"]);
      for (const l of lines) {
        expect(l.request).not.toHaveProperty("signature");
        expect(l.request).toMatchObject({
          unsigned: true,
          digest: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        });
      }
      const nonces = lines.map((l) => l.request.nonce as number);
      expect(new Set(nonces).size).toBe(nonces.length);
      // The L1 TWAP carries the time to live a key would sign; the user-signed link does not.
      expect(lines[0]!.request.expiresAfter).toEqual(expect.any(Number));
      shapes.push(lines.map((l) => Object.keys(l.request).sort()));
    }
    // Without a key the request has the same fields as with one: the digest is the one a key would sign.
    expect(shapes[1]).toEqual(shapes[0]);
    expect(sim.ledger().filter((e) => e.kind === "stakingLinkRequested")).toHaveLength(0);
  });

  it("plan --unsigned for a sub-account shows its vaultAddress, which any key acting for it signs", async () => {
    const sub = "0x1111111111111111111111111111111111111111"; // a sub-account in the demo scenario
    sim.fund(sub, "HYPE", "100");
    const file = join(dir, "bot-sub.yaml");
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        mode: "dry-run",
        account: sub,
        strategies: ["rebalance.yaml"],
        state: "./state-sub",
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "warn", format: "json" },
      }),
    );
    const { code, stdout, stderr } = await run(["plan", "--json", "--unsigned", "--config", file], {});
    expect(code, stderr).toBe(0);
    const [line] = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { action: string; request: Record<string, unknown> });
    expect(line?.action).toBe("twapOrder");
    expect(line?.request).toMatchObject({ vaultAddress: sub, expiresAfter: expect.any(Number) });
  });

  it("plan --unsigned refuses staking for a sub-account as a signed plan does, and an API wallet as account", async () => {
    // A docs trial: the sub-account's cDeposit and delegations were listed "allowed; unsigned" with its
    // amounts; signed by the master's key (user-signed: no vaultAddress) they would move the master's HYPE.
    // And an API wallet named as `account` was planned for as an empty account, exit 0.
    const sub = "0x1111111111111111111111111111111111111111";
    sim.fund(sub, "HYPE", "100");
    writeFileSync(
      join(dir, "staking.yaml"),
      stringify({
        name: "staking",
        kind: "validator-staking",
        schedule: "*/2 * * * * *",
        params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
      }),
    );
    const bot = (name: string, account: string) => {
      const file = join(dir, `bot-${name}.yaml`);
      writeFileSync(
        file,
        stringify({
          network: "testnet",
          baseUrl: sim.url,
          mode: "dry-run",
          account,
          strategies: ["staking.yaml"],
          state: `./state-${name}`,
          schedule: { allowSeconds: true },
          limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
          log: { level: "warn", format: "json" },
        }),
      );
      return file;
    };
    const forSub = await run(["plan", "--unsigned", "--config", bot("sub-staking", sub)], {});
    expect(forSub.stdout).toMatch(
      /staking: cDeposit \(allowed; not sent, REFUSED\): move [\d.]+ idle spot HYPE into staking[^\n]*\n\s+venue: not sent: cDeposit cannot be done for the sub-account or vault 0x1111111111111111111111111111111111111111: it is user-signed/,
    );
    expect(forSub.stdout).not.toContain("unsigned, not sent");
    expect(forSub.stderr).toMatch(
      /staking: staking actions .* are signed by an account's own key only, and 0x1111.* is a sub-account/,
    );
    // Signed by the master's key: the warning says staking cannot be run for a sub-account (it has no
    // key of its own), not "run them from a bot file whose key is 0x1111…'s own" (an operator's trial).
    const signedForSub = await run(["plan", "--config", bot("sub-signed", sub)], {
      HLBOT_PRIVATE_KEY: ACCOUNT_KEY,
    });
    expect(signedForSub.stderr).toMatch(
      /Staking cannot be run for a sub-account or vault \(it has no key of its own/,
    );
    expect(signedForSub.stderr).not.toMatch(/whose key is 0x1111/);
    const agent = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"; // the demo scenario's API wallet
    const forAgent = await run(["plan", "--unsigned", "--config", bot("agent", agent)], {});
    expect(forAgent.code, forAgent.stdout).toBe(2);
    expect(forAgent.stderr).toMatch(
      /0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc is an API wallet of 0x[0-9a-f]{40}, not an account: set `account`: 0x/,
    );
  });

  it("plan exits 1 and names the strategy when it is held: the local clock 3 h ahead of the venue's", async () => {
    const proxy = await startRewritingProxy(sim.url);
    try {
      proxy.rewriteDate(() => new Date(Date.now() - 3 * 3_600_000).toUTCString());
      const { code, stdout, stderr } = await run(
        ["plan", "--config", writeConfig("dry-run"), "--base-url", proxy.url],
        env,
      );
      expect(stdout).toMatch(/rebalance.*holding: the local clock is about 3 h ahead of the venue's/);
      expect(stderr).toContain("hlbot plan: 1 strategy failed its run and planned nothing: rebalance");
      expect(code).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it("once acts only in a due slot: first sight registers, then it submits (exit 0), then finds the TWAP running", async () => {
    const config = writeConfig("live");
    const sight = await run(["once", "--config", config, "--json"], env);
    expect(sight.code, sight.stderr).toBe(0);
    // Nothing acted, yet one summary line says so and why.
    const summary = JSON.parse(sight.stdout.trim()) as {
      summary: { ran: unknown[]; notDue: Array<{ strategy: string; reason: string }> };
    };
    expect(summary.summary.ran).toEqual([]);
    expect(summary.summary.notDue).toEqual([
      expect.objectContaining({
        strategy: "rebalance",
        reason: expect.stringMatching(/^not due: next slot/),
      }),
    ]);
    await sleep(2_100);
    const first = await run(["once", "--config", config], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/twapOrder \(allowed; sent, accepted\)/);
    // What was sent, without its signature (a cron log holding a live order's signed body).
    expect(first.stdout).toMatch(/"nonce":\d+/);
    expect(first.stdout).toContain('"signature":"(not shown: the journal keeps the signed body)"');
    expect(first.stdout).not.toMatch(/"r":"0x/);
    await sleep(2_100);
    const second = await run(["once", "--config", config], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/already running/);
    expect(sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === address)).toHaveLength(1);

    const history = await run(["history", "--config", config, "--json"], env);
    const parsed = JSON.parse(history.stdout) as {
      submissions: Array<{ status: string; actionType: string; request: unknown; result: unknown }>;
    };
    expect(parsed.submissions.map((s) => [s.actionType, s.status])).toEqual([["twapOrder", "accepted"]]);
    // Request and answer are objects, not JSON text (a scripter needed `fromjson` on each).
    expect(parsed.submissions[0]?.request).toMatchObject({ action: { type: "twapOrder" } });
    expect(parsed.submissions[0]?.result).toMatchObject({ status: "ok" });
    // Skipped decisions and their reasons are shown too, grouped by strategy (issue #12 case 10).
    const decisions = (
      JSON.parse(history.stdout) as { decisions: Record<string, Array<Record<string, string>>> }
    ).decisions;
    const ofOnce = decisions.rebalance?.filter((d) => d.trigger === "once");
    expect(ofOnce?.map((d) => [d.kind, d.guard])).toEqual([
      ["twapOrder", "allowed"],
      ["skip", "skipped"],
    ]);
    expect(ofOnce?.[1]?.reason).toMatch(/already running/);
    const text = await run(["history", "--config", config], env);
    expect(text.stdout).toMatch(/Decisions by strategy:\n {2}rebalance:\n/);
    expect(text.stdout).toMatch(/once {2}twapOrder \(allowed\): .*\n.*once {2}skip: .*already running/);
    // Each live cycle says what it sent and how the venue answered.
    expect(text.stdout).toMatch(/once\/live {2}ok {2}1 decisions, 1 sent \(1 accepted\)/);
    expect(text.stdout).toMatch(/once\/live {2}ok {2}1 decisions, 0 sent/);
    // The cycles' strategies are a list in JSON, not JSON text.
    const cycles = (JSON.parse(history.stdout) as { cycles: Array<{ strategies: unknown }> }).cycles;
    expect(cycles.some((c) => Array.isArray(c.strategies) && c.strategies.includes("rebalance"))).toBe(true);
    const unknownName = await run(["history", "--config", config, "--strategy", "rebalanse"], env);
    expect(unknownName.code).toBe(0);
    expect(unknownName.stderr).toMatch(
      /warning: no decision of strategy "rebalanse" .*; the bot file has no strategy of that name \(rebalance\)/,
    );
  }, 90_000);

  it("once leaves out a strategy naming a coin the venue does not list, runs the others, and exits 2", async () => {
    // A user's trial: `coin: HYPEE` was a skip on every run, never an error. Stopping the whole command
    // instead would also stop the TWAP watch and the other strategies: only the misspelt one is left out.
    writeFileSync(
      join(dir, "typo.yaml"),
      stringify({
        name: "typo",
        kind: "twap-accumulate",
        schedule: "*/2 * * * * *",
        params: { coin: "HYPEE", side: "buy", amountUsd: 150, twap: { minutes: 30 } },
      }),
    );
    const file = join(dir, "bot-typo.yaml");
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        mode: "dry-run",
        strategies: ["rebalance.yaml", "typo.yaml"],
        state: "./state-typo",
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "warn", format: "json" },
      }),
    );
    const once = await run(["once", "--config", file, "--json"], env);
    expect(once.code).toBe(2);
    expect(once.stderr).toMatch(
      /typo\.yaml:\d+: params\.coin: HYPEE is not a spot token on the venue \(did you mean "HYPE"\?\) \(this strategy was left out\)/,
    );
    const summary = JSON.parse(once.stdout.trim()) as {
      summary: { notDue: Array<{ strategy: string }>; leftOut: string[] };
    };
    // The rebalance was planned (first sight: registered, not due yet); the misspelt one was not.
    expect(summary.summary.notDue.map((n) => n.strategy)).toEqual(["rebalance"]);
    expect(summary.summary.leftOut).toHaveLength(1);
    // plan, which only shows, refuses the file as it is.
    const plan = await run(["plan", "--config", file], env);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toMatch(/HYPEE is not a spot token/);
  }, 60_000);

  it("once says when the kill switch is engaged, even with nothing due, in text and JSON", async () => {
    const config = writeConfig("live");
    expect((await run(["stop", "--config", config, "--reason", "checking the fills"], env)).code).toBe(0);
    try {
      const text = await run(["once", "--config", config], env);
      expect(text.stdout).toMatch(
        / {2}kill switch engaged since \S+ \(checking the fills\): nothing is submitted until `hlbot resume`\n/,
      );
      const json = await run(["once", "--config", config, "--json"], env);
      const summary = JSON.parse(json.stdout.trim().split("\n").at(-1)!) as {
        summary: { killSwitch: string | null };
      };
      expect(summary.summary.killSwitch).toMatch(/^engaged since .*\(checking the fills\)/);
    } finally {
      expect((await run(["resume", "--config", config], env)).code).toBe(0);
    }
  }, 60_000);

  it("once --json lists the decisions the kill switch or the limits blocked, beside what was acted", async () => {
    // Its own strategy and state: a PURR buy every 2 seconds, which nothing else here trades.
    writeFileSync(
      join(dir, "purr-dca.yaml"),
      stringify({
        name: "purr-dca",
        kind: "twap-accumulate",
        schedule: "*/2 * * * * *",
        params: { coin: "PURR/USDC", side: "buy", amountUsd: 150, twap: { minutes: 30, randomize: false } },
      }),
    );
    const config = join(dir, "bot-blocked.yaml");
    writeFileSync(
      config,
      readFileSync(writeConfig("live"), "utf8")
        .replace("rebalance.yaml", "purr-dca.yaml")
        .replace("./state", "./state-blocked"),
    );
    expect((await run(["once", "--config", config], env)).code).toBe(0); // first sight: registers
    expect((await run(["stop", "--config", config, "--reason", "blocked test"], env)).code).toBe(0);
    try {
      await new Promise((r) => setTimeout(r, 2_100)); // the next 2-second slot
      const json = await run(["once", "--config", config, "--json"], env);
      const summary = JSON.parse(json.stdout.trim().split("\n").at(-1)!) as {
        summary: { ran: Array<{ blocked: Array<{ strategy: string; reason: string }> }> };
      };
      const blocked = summary.summary.ran.flatMap((r) => r.blocked);
      expect(blocked.length).toBeGreaterThan(0);
      expect(blocked).toEqual([{ strategy: "purr-dca", reason: expect.stringMatching(/kill switch is on/) }]);
      // history says the cycle's decision was blocked ("ok 1 decisions, 0 sent" read as a quiet cycle).
      const history = await run(["history", "--config", config], env);
      expect(history.stdout).toMatch(/once\/live {2}ok {2}1 decisions \(1 blocked\), 0 sent/);
    } finally {
      expect((await run(["resume", "--config", config], env)).code).toBe(0);
    }
  }, 60_000);

  it("once --json ends with its summary line when the venue cannot be reached (exit 1)", async () => {
    const file = join(dir, "unreachable.yaml");
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: "http://127.0.0.1:1", // nothing listens there
        mode: "live",
        strategies: ["rebalance.yaml"],
        state: "./state-unreachable",
        venue: { readAttempts: 1, timeoutMs: 2000 },
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 10000, maxStakeMovePerDay: 10 },
        log: { level: "fatal" },
      }),
    );
    const { code, stdout, stderr } = await run(["once", "--config", file, "--json"], env);
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/the venue could not be read, so no strategy ran and nothing was sent/);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const { summary } = JSON.parse(lines[0]!) as { summary: Record<string, unknown> };
    expect(summary).toMatchObject({ account: address, mode: "live", ran: [], failed: 1 });
    expect(String(summary.error)).toMatch(/127\.0\.0\.1:1|ECONNREFUSED|connect/i);

    // An API wallet acting for another account asks the venue its role before the journal opens: the
    // pass is still a failed cycle in the journal, and --json still ends with its summary line.
    const agent = join(dir, "unreachable-agent.yaml");
    const other = "0x1111111111111111111111111111111111111111";
    writeFileSync(
      agent,
      readFileSync(file, "utf8").replace("./state-unreachable", "./state-unreachable-agent") +
        `account: "${other}"\n`,
    );
    const viaAgent = await run(["once", "--config", agent, "--json"], env);
    expect(viaAgent.code, viaAgent.stderr).toBe(1);
    // Said in words too, not only the failed query's name.
    expect(viaAgent.stderr).toMatch(/no strategy ran and nothing was sent; the strategies due now stay due/);
    const line = JSON.parse(viaAgent.stdout.trim().split("\n").at(-1)!) as {
      summary: Record<string, unknown>;
    };
    expect(line.summary).toMatchObject({ account: other, ran: [], failed: 1 });
    const history = await run(["history", "--config", agent, "--json"], env);
    const cycles = (
      JSON.parse(history.stdout) as { cycles: Array<{ trigger: string; status: string; error: string }> }
    ).cycles;
    expect(cycles.map((c) => [c.trigger, c.status])).toEqual([["once", "failed"]]);
    expect(cycles[0]?.error).toMatch(/^the pass could not start: userRole: /);
  }, 60_000);

  it("once stopped by Ctrl-C lets the request in flight finish and sends nothing new (exit 130)", async () => {
    const staker = Wallet.createRandom();
    const who = staker.address.toLowerCase();
    sim.fund(who, "HYPE", "1000");
    writeFileSync(
      join(dir, "staking.yaml"),
      stringify({
        name: "staking",
        kind: "validator-staking",
        schedule: "*/2 * * * * *",
        params: { validators: 2, maxCommission: 0.1, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
      }),
    );
    const file = join(dir, "staking-bot.yaml");
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        mode: "live",
        strategies: ["staking.yaml"],
        state: "./state-staking",
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "fatal" },
      }),
    );
    const keyEnv = { HLBOT_PRIVATE_KEY: staker.privateKey };
    expect((await run(["once", "--config", file], keyEnv)).code).toBe(0); // first sight registers
    await sleep(2100); // the next 2-second slot comes
    const mine = (kind: string) => sim.ledger().filter((e) => e.kind === kind && e.user === who);
    sim.setFaults({ exchange: { latencyMs: 3000 } }); // each answer comes 3 s after the venue acted
    try {
      const child = spawn(process.execPath, [join(REPO_ROOT, "bin/hlbot.js"), "once", "--config", file], {
        env: { PATH: process.env.PATH ?? "", ...keyEnv },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      const end = Date.now() + 20_000;
      while (mine("cDeposit").length === 0 && Date.now() < end) await sleep(20);
      expect(mine("cDeposit")).toHaveLength(1); // the first action reached the venue, its answer is held
      child.kill("SIGINT");
      expect(await closed).toBe(130);
      expect(stderr).toContain("stopping after the request in flight; nothing new is sent");
      expect(stdout.match(/; not sent: hlbot is stopping/g)).toHaveLength(2);
      expect(mine("delegate")).toEqual([]);
    } finally {
      sim.setFaults({});
    }
  }, 60_000);

  it("once stopped during its reads names the due strategy it did not run, not 'no strategy is due'", async () => {
    // A cron trial: SIGTERM 3.5 s into a pass whose venue answered slowly printed "no strategy is due"
    // (exit 130) about a strategy that was due; its slot stayed due, but the words said otherwise.
    const staker = Wallet.createRandom();
    sim.fund(staker.address.toLowerCase(), "HYPE", "1000");
    writeFileSync(
      join(dir, "staking-slow.yaml"),
      stringify({
        name: "staking-slow",
        kind: "validator-staking",
        schedule: "*/2 * * * * *",
        params: { validators: 2, maxCommission: 0.1, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
      }),
    );
    const file = join(dir, "slow-bot.yaml");
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        mode: "live",
        strategies: ["staking-slow.yaml"],
        state: "./state-slow",
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "fatal" },
      }),
    );
    const keyEnv = { HLBOT_PRIVATE_KEY: staker.privateKey };
    expect((await run(["once", "--config", file], keyEnv)).code).toBe(0); // first sight registers
    await sleep(2100); // the next 2-second slot comes
    sim.setFaults({ info: { latencyMs: 1500 } });
    try {
      const child = spawn(process.execPath, [join(REPO_ROOT, "bin/hlbot.js"), "once", "--config", file], {
        env: { PATH: process.env.PATH ?? "", ...keyEnv },
      });
      let stdout = "";
      child.stdout.on("data", (d) => (stdout += d));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      // Its signal handlers are set before it takes the state folder's lock; then it reads, slowly.
      const lock = join(dir, "state-slow", "lock.json");
      const end = Date.now() + 20_000;
      while (!existsSync(lock) && Date.now() < end) await sleep(20);
      await sleep(1000);
      child.kill("SIGTERM");
      expect(await closed).toBe(130);
      expect(stdout).not.toMatch(/no strategy is due/);
      expect(stdout).toMatch(
        /stopped before the due strategies ran: staking-slow \(slot [^)]+\) \(their slots stay due\)/,
      );
    } finally {
      sim.setFaults({});
    }
  }, 60_000);

  it("once exits 2 on a broken configuration, naming the file and line", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "network: moonnet\nlimits: {}\n");
    const { code, stderr } = await run(["once", "--config", bad], env);
    expect(code).toBe(2);
    expect(stderr).toMatch(/bad\.yaml:1/);
  });
});
