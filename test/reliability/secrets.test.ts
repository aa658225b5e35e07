// Promise 5, "no leaked secrets": every flow of the built CLI (config validate, plan, once, run with its
// metrics endpoint, simulate with a report, status, history, info, tx, every manual command in dry run
// and live, and their error paths, with and without --verbose) runs with one known key. Then stdout,
// stderr, the metrics and health answers, the log file, the journal database (with its WAL) and the
// report are searched for the key in every spelling (with and without 0x, any letter case) and as raw
// bytes: zero hits. The keystore password gets the same search. The state folder must be private
// (0700, every file 0600), and a keystore or password file other users can read gets a warning.
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { encryptKeystoreJson, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { BIN, ensureBuilt } from "../helpers/dist.js";

const VALIDATOR = "0x5ac99df645f3414876c816caa18b2d234024b487";
const PASSWORD = "correct horse battery staple 4417";

let sim: Simulator & { url: string };
let dir: string;
let state: string;
let configFile: string;
let simConfigFile: string;
let key: string;
let account: string;
let keystore: string;
let passwordFile: string;

interface Run {
  argv: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}
const runs: Run[] = [];
const extraOutput: string[] = [];
const children = new Set<ChildProcess>();
let served = 0;

function run(
  argv: string[],
  env: Record<string, string | undefined> = {},
  opts: { untilMs?: number; fetchServed?: boolean } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HLBOT_PRIVATE_KEY: key, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    let fetched = false;
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const url = /serving \/health, \/live, \/ready and \/metrics on (http:\/\/[^"\s]+)/.exec(stderr)?.[1];
      if (opts.fetchServed && url && !fetched) {
        fetched = true;
        // Whatever the daemon serves is output too: fetch it while it runs, after a cycle or two.
        void (async () => {
          await new Promise((r) => setTimeout(r, 2500));
          for (const path of ["/metrics", "/health", "/live", "/ready"])
            extraOutput.push(await (await fetch(`${url}${path}`)).text());
          served++;
        })();
      }
    });
    const timer = opts.untilMs ? setTimeout(() => child.kill("SIGTERM"), opts.untilMs) : undefined;
    child.on("close", (code) => {
      if (timer) clearTimeout(timer);
      children.delete(child);
      const r = { argv, code, stdout, stderr };
      if (process.env.HLBOT_SECRETS_DEBUG)
        writeFileSync(process.env.HLBOT_SECRETS_DEBUG, `${code} ${argv.join(" ")}\n${stderr.slice(-300)}\n`, {
          flag: "a",
        });
      runs.push(r);
      resolve(r);
    });
  });
}

/** Every way the key could be written down, lower-cased for a case-insensitive search. */
function spellings(secret: string): string[] {
  const bare = secret.replace(/^0x/i, "").toLowerCase();
  return [bare, `0x${bare}`];
}

function hits(text: string, secrets: readonly string[]): string[] {
  const lower = text.toLowerCase();
  return secrets.filter((s) => lower.includes(s));
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

beforeAll(async () => {
  ensureBuilt(["cli/main.js", "cli/commands/run.js", "cli/commands/simulate.js"]);
  const wallet = Wallet.createRandom();
  key = wallet.privateKey;
  account = wallet.address.toLowerCase();
  sim = await startSimulator({ clock: "real", rateLimit: false, seed: 11 });
  sim.fund(account, "HYPE", "1000");
  sim.fund(account, "USDC", "20000");

  dir = mkdtempSync(join(tmpdir(), "hlbot-secrets-"));
  state = join(dir, "state");
  const strategies = [
    {
      name: "rebalance",
      kind: "twap-rebalance",
      schedule: "*/2 * * * * *",
      params: { targets: { HYPE: 0.5, USDC: 0.5 }, band: 0.05, twap: { minutes: 30 } },
    },
    {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "*/2 * * * * *",
      params: { coin: "PURR", side: "buy", amountUsd: 150, twap: { minutes: 5 } },
    },
    {
      name: "staking",
      kind: "validator-staking",
      schedule: "*/2 * * * * *",
      params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 500 } },
    },
    {
      name: "link",
      kind: "link-staking",
      schedule: "*/3 * * * * *",
      params: { counterparty: "0xa11ce00000000000000000000000000000a11ce0" },
    },
  ];
  const botFile = (name: string, scheduleOf: (i: number) => string) => {
    const files = strategies.map((s, i) => {
      const file = join(dir, `${name}-strategy-${i}.yaml`);
      writeFileSync(file, stringify({ enabled: true, ...s, schedule: scheduleOf(i) }));
      return file;
    });
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        mode: "live",
        wallet: { privateKeyEnv: "HLBOT_PRIVATE_KEY" },
        strategies: files,
        state,
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 10000, maxDailyNotionalUsd: 100000, maxStakeMovePerDay: 10000 },
        log: { level: "debug", format: "json", file: join(state, "hlbot.log") },
      }),
    );
    return file;
  };
  configFile = botFile("bot", (i) => strategies[i]!.schedule);
  // `hlbot simulate` runs the schedules over a virtual day: hourly, not every few seconds.
  simConfigFile = botFile("sim", (i) => `${i * 10} * * * *`);
  keystore = join(dir, "keystore.json");
  writeFileSync(
    keystore,
    await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, PASSWORD, {
      scrypt: { N: 1024 },
    }),
    {
      mode: 0o600,
    },
  );
  passwordFile = join(dir, "password.txt");
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
}, 180_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await sim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("no leaked secrets", () => {
  it("runs every flow with a known key and finds it nowhere", { timeout: 240_000 }, async () => {
    const cfg = ["--config", configFile];
    const live = ["--live", "--base-url", sim.url, "--state", state];
    const bare = key.replace(/^0x/, "");

    // The bot's own flows.
    await run(["config", "validate", ...cfg]);
    await run(["plan", ...cfg]);
    await run(["plan", ...cfg, "--json"]);
    await run(["--verbose", "plan", ...cfg]);
    await run(["once", ...cfg]);
    await run(["once", ...cfg, "--dry-run", "--json"]);
    const daemon = await run(
      ["run", ...cfg, "--metrics-port", "0"],
      {},
      { untilMs: 5000, fetchServed: true },
    );
    expect(daemon.code, daemon.stderr.slice(-2000)).toBe(0);
    expect(served).toBe(1);
    await run(["status", ...cfg]);
    await run(["status", ...cfg, "--json"]);
    await run(["history", ...cfg]);
    await run(["history", ...cfg, "--json"]);
    await run(["simulate", "--config", simConfigFile, "--days", "1", "--report", join(dir, "report.html")]);
    await run(["simulate", "--config", simConfigFile, "--days", "1", "--json"]);

    // Every manual command, dry run and live, plain and --json.
    const manual: string[][] = [
      ["stake", "--amount", "10"],
      ["delegate", "--validator", VALIDATOR, "--amount", "5"],
      ["undelegate", "--validator", VALIDATOR, "--amount", "1"], // locked: the venue refuses (exit 1)
      ["unstake", "--amount", "1"],
      ["twap", "buy", "--coin", "HYPE", "--size", "5", "--minutes", "5"],
      ["twap-cancel", "--coin", "HYPE", "--twap-id", "999999"], // no such TWAP: refused
      ["link-staking", "--user", "0xb0b0000000000000000000000000000000000b0b"],
    ];
    for (const m of manual) {
      await run([...m, "--base-url", sim.url, "--state", state]);
      await run([...m, ...live]);
      await run([...m, ...live, "--json"]);
    }
    await run(["info", "spotClearinghouseState", "--user", account, "--base-url", sim.url]);
    const hash = sim.ledger({ kind: "action", user: account }).at(-1)?.hash;
    expect(hash).toBeDefined();
    await run(["tx", hash!, "--base-url", sim.url]);

    // Keystore flows: private, then readable by others (a warning), then a wrong password.
    const ks = ["--keystore", keystore, "--password-file", passwordFile];
    const privateRun = await run(["stake", "--amount", "1", ...ks, ...live]);
    expect(privateRun.stderr).not.toMatch(/can be read by other users/);
    chmodSync(keystore, 0o644);
    chmodSync(passwordFile, 0o644);
    const exposed = await run(["stake", "--amount", "1", ...ks, "--base-url", sim.url, "--state", state]);
    expect(exposed.code).toBe(0);
    expect(exposed.stderr).toMatch(
      /warning: keystore .*keystore\.json can be read by other users \(mode 0644\)/,
    );
    expect(exposed.stderr).toMatch(
      /warning: keystore password file .*password\.txt can be read by other users/,
    );
    chmodSync(keystore, 0o600);
    chmodSync(passwordFile, 0o600);
    await run(["stake", "--amount", "1", "--keystore", keystore, "--password-env", "PW", ...live], {
      PW: "wrong",
    });
    await run(["stake", "--amount", "1", "--keystore", keystore, ...live], {
      HLBOT_KEYSTORE_PASSWORD: PASSWORD,
    });

    // Error paths: a key that is not a key, the key where an argument belongs, inline in a config,
    // the wrong network's signature, an unreachable venue; some with --verbose stack traces.
    await run(["stake", "--amount", "1", ...live], { HLBOT_PRIVATE_KEY: `${key}ff` });
    await run(["--verbose", "stake", "--amount", "1", ...live], {
      HLBOT_PRIVATE_KEY: `0x${bare.slice(0, 63)}`,
    });
    await run(["stake", "--amount", "1", ...live], { HLBOT_PRIVATE_KEY: ` ${bare.toUpperCase()}\n` });
    await run(["stake", "--amount", key, ...live]);
    await run(["--verbose", "delegate", "--validator", key, "--amount", "1", ...live]);
    await run(["twap", "buy", "--coin", key, "--size", "1", "--minutes", "5", ...live]);
    await run(["info", "userRole", "--user", bare, "--base-url", sim.url]);
    const asHash = await run(["tx", key, "--base-url", sim.url]);
    expect(asHash.code).toBe(2); // refused: the key is never sent as a hash
    await run(["info", "txDetails", "--hash", key, "--base-url", sim.url]);
    await run(["stake", "--amount", "1", "--network", "mainnet", ...live]);
    await run(["stake", "--amount", "1", "--live", "--base-url", "http://127.0.0.1:1", "--state", state]);
    // The key read from a file (after the arguments were checked) and pasted into an argument no check
    // refuses: the command as typed is journaled, and `history` prints it (it once kept the key whole).
    const keyFile = join(dir, "key.hex");
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const fromFile = { HLBOT_PRIVATE_KEY: undefined, HLBOT_PRIVATE_KEY_FILE: keyFile };
    await run(
      ["stake", "--amount", "1", "--live", "--base-url", `http://127.0.0.1:1/${bare}`, "--state", state],
      fromFile,
    );
    await run(
      [
        "twap",
        "buy",
        "--coin",
        "HYPE",
        "--size",
        "5",
        "--minutes",
        "5",
        "--base-url",
        `${sim.url}/?${bare}`,
        "--state",
        state,
      ],
      fromFile,
    );
    await run(["history", ...cfg]);
    await run(["--verbose", "once", ...cfg], { HLBOT_PRIVATE_KEY: "" });
    const inline = join(dir, "inline.yaml");
    writeFileSync(
      inline,
      readFileSync(configFile, "utf8").replace("privateKeyEnv: HLBOT_PRIVATE_KEY", `privateKey: "${key}"`),
    );
    await run(["plan", "--config", inline]);
    await run(["--verbose", "config", "validate", "--config", inline]);
    await run(["run", "--config", inline]);
    writeFileSync(inline, `# my key: ${bare.toUpperCase()}\n${readFileSync(configFile, "utf8")}`);
    await run(["once", "--config", inline]);

    // ---- the search --------------------------------------------------------------------------------
    // The key `hlbot simulate` derives for its demo account (the demo scenario's seed, 42) is a key too.
    const demoKey = bytesToHex(keccak_256(utf8ToBytes("hlbot simulate demo account\nseed 42\nattempt 0")));
    const secrets = [...spellings(key), ...spellings(demoKey), PASSWORD.toLowerCase()];
    const outputHits = runs.flatMap((r) =>
      hits(`${r.stdout}\n${r.stderr}`, secrets).map((s) => `${r.argv.join(" ")}: ${s.slice(0, 6)}…`),
    );
    for (const text of extraOutput) outputHits.push(...hits(text, secrets));
    const keyBytes = Buffer.from(bare, "hex");
    const fileHits: string[] = [];
    let bytesScanned = 0;
    for (const file of filesUnder(dir)) {
      if ([keystore, passwordFile, inline, keyFile].includes(file)) continue; // hold it by design
      const data = readFileSync(file);
      bytesScanned += data.length;
      if (hits(data.toString("latin1"), secrets).length > 0 || data.includes(keyBytes)) fileHits.push(file);
    }

    // ---- permissions of the state folder ------------------------------------------------------------
    const loose = [state, ...filesUnder(state)]
      .map((p) => ({ p, mode: statSync(p).mode & 0o777 }))
      .filter(({ p, mode }) => (p === state ? mode !== 0o700 : (mode & 0o077) !== 0))
      .map(({ p, mode }) => `${p} ${mode.toString(8)}`);

    const figures = {
      flows: runs.length,
      exitCodes: runs.reduce<Record<string, number>>((a, r) => {
        a[String(r.code)] = (a[String(r.code)] ?? 0) + 1;
        return a;
      }, {}),
      outputBytes: runs.reduce((a, r) => a + r.stdout.length + r.stderr.length, 0),
      servedBytes: extraOutput.reduce((a, t) => a + t.length, 0),
      filesScanned: filesUnder(dir).length,
      bytesScanned,
      outputHits: outputHits.length,
      fileHits: fileHits.length,
      looseStateFiles: loose.length,
    };
    console.log(`secret figures ${JSON.stringify(figures)}`);
    if (process.env.HLBOT_RELIABILITY_OUT) {
      mkdirSync(process.env.HLBOT_RELIABILITY_OUT, { recursive: true });
      writeFileSync(
        join(process.env.HLBOT_RELIABILITY_OUT, "secrets.json"),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
    }
    expect(outputHits).toEqual([]);
    expect(fileHits).toEqual([]);
    expect(loose).toEqual([]);
    // The flows did run: live actions reached the venue, and errors were exercised.
    expect(figures.exitCodes["0"]).toBeGreaterThan(20);
    expect(figures.exitCodes["2"]).toBeGreaterThan(5);
    expect(figures.exitCodes["1"]).toBeGreaterThan(2);
    expect(sim.ledger({ kind: "action", user: account }).length).toBeGreaterThan(5);
  });
});
