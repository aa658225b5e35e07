// biome-ignore-all lint/suspicious/noControlCharactersInRegex: these tests look for raw control characters in output.
// Issue #17 items 8 to 16 ("Keys" and "Robustness") and #11's "only the configured key is a secret":
// each case as an attacker or a broken environment produced it, run in-process through `main(argv, io)`
// against a request-counting server on 127.0.0.1 (or the simulator), with real files in temp folders.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { encryptKeystoreJson, Wallet } from "ethers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { type AccountStatus, formatStatus } from "../../src/cli/status.js";
import { loadConfig } from "../../src/engine/config/loader.js";
import { acquireInstanceLock, LockHeldError } from "../../src/engine/lock.js";
import { openRuntime } from "../../src/engine/runtime.js";
import { ResponseTooLargeError } from "../../src/lib/errors.js";
import { JsonDepthError, parseJson } from "../../src/lib/json.js";
import { silentLogger } from "../../src/lib/log.js";
import { clearSecretsForTests } from "../../src/lib/secrets.js";
import { startSimulator } from "../../src/simulator/index.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { DEFAULT_MAX_RESPONSE_BYTES, HttpTransport } from "../../src/venue/transport/http.js";
import { ensureBuilt, REPO_ROOT } from "../helpers/dist.js";
import { demoWithHypeAt } from "../helpers/scenario.js";

/** A public test key (never funded). */
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const BARE = KEY.slice(2);
const SPELLINGS = [KEY, BARE, BARE.toUpperCase(), `0X${BARE.toUpperCase()}`, `0x${BARE.toUpperCase()}`];
const TX = "0x1d4e1b2c3a4f5e6d7c8b9a0f1e2d3c4b5a6978877665544332211000ffeeddcc";
/** `${NAME}` as written in a bot file. */
const ref = (name: string) => `$${"{"}${name}}`;

// ---- a request-counting venue stand-in -------------------------------------------------------------

interface Seen {
  path: string;
  body: string;
}
let server: Server;
let url: string;
const seen: Seen[] = [];
let handler: ((req: IncomingMessage, body: string, res: ServerResponse) => void) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      seen.push({ path: req.url ?? "", body });
      if (handler) return handler(req, body, res);
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("no venue here");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
afterEach(() => {
  handler = undefined;
  clearSecretsForTests();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-hostile-"));
  temps.push(dir);
  return dir;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  requests: Seen[];
}

async function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const before = seen.length;
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { HLBOT_PRIVATE_KEY: KEY, ...env },
    isTTY: false,
  });
  return { code, stdout, stderr, requests: seen.slice(before) };
}

function expectNoKey(r: Run, what: string, opts: { requests?: boolean } = {}): void {
  const sent = opts.requests === false ? [] : r.requests;
  const all = `${r.stdout}\n${r.stderr}\n${sent.map((q) => `${q.path} ${q.body}`).join("\n")}`.toLowerCase();
  for (const s of SPELLINGS) expect(all.includes(s.toLowerCase().replace(/^0x/, "")), what).toBe(false);
}

/** A valid bot file in a fresh folder with one valid strategy; `extra` replaces or adds top-level lines. */
function botFile(lines: Record<string, string> = {}): { file: string; dir: string } {
  const dir = tempDir();
  mkdirSync(join(dir, "strategies"));
  writeFileSync(
    join(dir, "strategies", "rebalance.yaml"),
    readFileSync(join(REPO_ROOT, "test/fixtures/bad-inputs/valid/strategies/rebalance.yaml")),
  );
  const fields: Record<string, string> = {
    network: "testnet",
    baseUrl: url,
    mode: "live",
    strategies: "./strategies",
    state: join(dir, "state"),
    limits: "{ maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 10000 }",
    log: "{ level: silent }",
    venue: "{ readAttempts: 1 }",
    ...lines,
  };
  const text = Object.entries(fields)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
  const file = join(dir, "bot.yaml");
  writeFileSync(file, `${text}\n`);
  return { file, dir };
}

// ---- 8. the key interpolated into another field ----------------------------------------------------

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("8. the key variable is read by the wallet alone", () => {
  it("refuses the key variable in baseUrl, even with a digit after it, and sends nothing", async () => {
    const { file } = botFile({ baseUrl: `"${url}/\${HLBOT_PRIVATE_KEY}0/"` });
    for (const argv of [
      ["config", "validate", file],
      ["once", "--config", file],
    ]) {
      const r = await cli(argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/baseUrl: \$\{HLBOT_PRIVATE_KEY\} holds a secret/);
      expect(r.requests).toEqual([]);
      expectNoKey(r, argv.join(" "));
    }
  });

  it("refuses the variable a bot file's wallet names, and the keystore password variable", async () => {
    const named = botFile({ wallet: "{ privateKeyEnv: MY_KEY }", account: `"${ref("MY_KEY")}"` });
    let r = await cli(["config", "validate", named.file], { MY_KEY: KEY, HLBOT_PRIVATE_KEY: undefined });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/account: \$\{MY_KEY\} holds a secret/);
    expectNoKey(r, "named key variable");

    const pw = botFile({
      wallet: "{ keystore: ./ks.json, passwordEnv: MY_PW }",
      network: `"${ref("MY_PW")}"`,
    });
    r = await cli(["config", "validate", pw.file], { MY_PW: "hunter2" });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/network: \$\{MY_PW\} holds a secret/);
    expect(r.stderr).not.toContain("hunter2");
  });

  it("refuses any other variable whose value holds the key", async () => {
    const { file } = botFile({ baseUrl: `"${url}/\${INNOCENT}/"` });
    const r = await cli(["once", "--config", file], { INNOCENT: `x${BARE.toUpperCase()}0` });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/baseUrl: the value of \$\{INNOCENT\} holds a secret/);
    expect(r.requests).toEqual([]);
    expectNoKey(r, "INNOCENT");
  });
});

// ---- 9. only the configured key is a secret; every spelling is refused as an argument ---------------

describe("9. only the configured key is a secret, in any spelling", () => {
  it("a transaction hash exported in the environment is not a secret (#11)", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("null");
    };
    const r = await cli(["info", "txDetails", "--hash", TX, "--base-url", url], { TX });
    expect(r.stderr).not.toMatch(/secret/);
    expect(r.requests.length).toBeGreaterThan(0);
    expect(r.requests[0]!.body).toContain(TX.slice(2));
  });

  const flagCases: Array<[string, (k: string) => string[]]> = [
    ["--amount", (k) => ["stake", "--amount", k, "--live", "--base-url", url]],
    ["--validator", (k) => ["delegate", "--validator", k, "--amount", "1", "--live", "--base-url", url]],
    ["--account", (k) => ["stake", "--amount", "1", "--account", k, "--base-url", url]],
    ["--user", (k) => ["info", "spotClearinghouseState", "--user", k, "--base-url", url]],
    ["--base-url", (k) => ["info", "meta", "--base-url", `${url}/${k}`]],
    ["--config", (k) => ["plan", "--config", `/tmp/${k}.yaml`]],
    ["--key-env", (k) => ["stake", "--amount", "1", "--key-env", k, "--base-url", url]],
    ["--keystore", (k) => ["stake", "--amount", "1", "--keystore", k, "--base-url", url]],
    ["tx <hash>", (k) => ["tx", k, "--base-url", url]],
  ];
  for (const [flag, argv] of flagCases) {
    it(`refuses the key pasted into ${flag} in any spelling, with or without it in the environment`, async () => {
      for (const spelling of [`0X${BARE.toUpperCase()}`, BARE, KEY]) {
        // The environment holds the key in another spelling.
        let r = await cli(argv(spelling), { HLBOT_PRIVATE_KEY: `0X${BARE.toUpperCase()}` });
        expect(r.code, `${flag} ${spelling}: ${r.stderr}`).toBe(2);
        expect(r.requests, flag).toEqual([]);
        expectNoKey(r, `${flag} ${spelling}`);
        clearSecretsForTests();
        // A keystore user: the key is in no variable; it is still never echoed, and nothing is sent.
        // (`tx` cannot tell a keystore's key, not decrypted, from a hash: it sends it, as any hash.)
        r = await cli(argv(spelling), { HLBOT_PRIVATE_KEY: undefined });
        expectNoKey(r, `keystore user, ${flag} ${spelling}`, { requests: flag !== "tx <hash>" });
        clearSecretsForTests();
      }
    });
  }

  it("a keystore's key is a secret from the moment it is decrypted", async () => {
    const dir = tempDir();
    const wallet = new Wallet(KEY);
    const ks = join(dir, "ks.json");
    writeFileSync(
      ks,
      await encryptKeystoreJson({ address: wallet.address, privateKey: KEY }, "pw-long-enough", {
        scrypt: { N: 2 },
      }),
      { mode: 0o600 },
    );
    const { loadSigner } = await import("../../src/venue/signing/signer.js");
    const { redact } = await import("../../src/lib/secrets.js");
    await loadSigner({ keystore: ks }, { HLBOT_KEYSTORE_PASSWORD: "pw-long-enough" });
    expect(redact(`0X${BARE.toUpperCase()}`)).toBe("[REDACTED]");
    expect(redact("pw-long-enough")).toBe("[REDACTED]");
  });
});

// ---- 10. passwords and URL credentials -------------------------------------------------------------

describe("10. keystore passwords and URL credentials are redacted", () => {
  it("a keystore password copied into another variable and interpolated is not printed", async () => {
    for (const [password, value] of [
      ["hunter2", ref("PW_COPY")],
      ["a longer passphrase", `x${ref("PW_COPY")}y`],
    ]) {
      const { file } = botFile({ wallet: "{ keystore: ./ks.json }", network: `"${value}"` });
      const r = await cli(["config", "validate", file], {
        HLBOT_KEYSTORE_PASSWORD: password,
        PW_COPY: password,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/network: the value of \$\{PW_COPY\} holds a secret/);
      expect(r.stderr).not.toContain(password!);
      clearSecretsForTests();
    }
  });

  it("user:password@ in a base URL appears in no network error", async () => {
    // A closed port: the connection fails and the error names the URL.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await cli([
      "info",
      "spotMeta",
      "--base-url",
      `http://alice:s3cretpass@127.0.0.1:${port}`,
      "--timeout",
      "2000",
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/\[REDACTED\]@127\.0\.0\.1/);
    expect(r.stderr).not.toContain("s3cretpass");
    expect(r.stderr).not.toContain("alice");
  });
});

// ---- 11. strategy files that are symlinks (Kubernetes ConfigMap mounts) ------------------------------

/** Lays out a ConfigMap's data as kubelet mounts it: `..2024_…/` holds the files, `..data` links to it, each key links through `..data`. */
function configMapMount(data: Record<string, string>): string {
  const dir = tempDir();
  const mount = join(dir, "strategies");
  const stamp = "..2024_01_01_00_00_00.000000001";
  mkdirSync(join(mount, stamp), { recursive: true });
  for (const [name, text] of Object.entries(data)) writeFileSync(join(mount, stamp, name), text);
  symlinkSync(stamp, join(mount, "..data"));
  for (const name of Object.keys(data)) symlinkSync(join("..data", name), join(mount, name));
  return mount;
}

describe("11. strategy files mounted as symlinks", () => {
  for (const example of ["cronjob.yaml", "daemon.yaml"]) {
    it(`the shipped Kubernetes example ${example} validates with its strategies`, async () => {
      const docs = parseAllDocuments(readFileSync(join(REPO_ROOT, "examples/kubernetes", example), "utf8"));
      let data: Record<string, string> | undefined;
      for (const d of docs) {
        const js = d.toJS() as { kind?: string; data?: Record<string, string> } | null;
        if (js?.kind === "ConfigMap" && js.data) data = js.data;
      }
      // The cron example mounts the ConfigMap the daemon example defines.
      data ??= parseAllDocuments(readFileSync(join(REPO_ROOT, "examples/kubernetes/daemon.yaml"), "utf8"))
        .map((d) => d.toJS() as { kind?: string; data?: Record<string, string> })
        .find((js) => js?.kind === "ConfigMap")?.data;
      expect(data).toBeDefined();
      const mount = configMapMount(data!);
      const { file } = botFile({ strategies: mount });
      const r = await cli(["config", "validate", file]);
      expect(r.code, r.stderr).toBe(0);
      const count = Object.keys(data!).filter((n) => /\.ya?ml$/.test(n)).length;
      expect(count).toBeGreaterThan(0);
      expect(r.stdout).toMatch(new RegExp(`\\b${count} strateg`));
    });
  }

  it("a broken symlink is an error, not a strategy silently left out", async () => {
    const { file, dir } = botFile();
    symlinkSync(join(dir, "nowhere.yaml"), join(dir, "strategies", "gone.yaml"));
    const r = await cli(["config", "validate", file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/gone\.yaml: this strategy file is a symlink to nothing/);
  });

  it("once says an empty strategy set is an error (exit 2), not 0 having done nothing; it only reads (the TWAP guards)", async () => {
    const { file, dir } = botFile();
    rmSync(join(dir, "strategies", "rebalance.yaml"));
    const r = await cli(["once", "--config", file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/strategies: no enabled strategy to run/);
    expect(r.requests.filter((q) => q.path !== "/info")).toEqual([]);
  });
});

// ---- a rewriting proxy in front of the simulator ----------------------------------------------------

interface Proxy {
  url: string;
  /** Rewrites the simulator's answer to a path (undefined: passed through as is). */
  rewrite: ((path: string, text: string) => string | undefined) | undefined;
  close(): Promise<void>;
}

async function rewritingProxy(target: string): Promise<Proxy> {
  const proxy: Proxy = {
    url: "",
    rewrite: undefined,
    close: () => new Promise<void>((resolve) => srv.close(() => resolve())),
  };
  const srv = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method ?? "POST",
        headers: { "content-type": "application/json" },
        body: Buffer.concat(chunks),
      });
      const text = await answer.text();
      const out = proxy.rewrite?.(req.url ?? "", text) ?? text;
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  return proxy;
}

/** A bot file trading against `baseUrl` with the rebalance strategy, live. */
function liveBot(baseUrl: string): { file: string; dir: string } {
  const dir = tempDir();
  writeFileSync(
    join(dir, "rebalance.yaml"),
    stringify({
      name: "rebalance",
      kind: "twap-rebalance",
      // Every 2 seconds: `once` acts only in a due slot, and its first call only registers the schedule.
      schedule: "*/2 * * * * *",
      params: {
        targets: { HYPE: 0.5, USDC: 0.5 },
        quote: "USDC",
        band: 0.05,
        twap: { minutes: 60, randomize: false },
      },
    }),
  );
  const file = join(dir, "bot.yaml");
  writeFileSync(
    file,
    stringify({
      network: "testnet",
      baseUrl,
      mode: "live",
      strategies: ["rebalance.yaml"],
      state: "./state",
      // These tests may schedule strategies by the second.
      schedule: { allowSeconds: true },
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
      log: { level: "silent" },
    }),
  );
  return { file, dir };
}

// ---- 13. a 200 that cannot be read is an unknown outcome, reconciled ---------------------------------

describe("13. an accepted answer with a hostile extra field", () => {
  it("is an unknown outcome, reconciled as landed by the next run, never a crash inviting a retry", {
    timeout: 60_000,
  }, async () => {
    const sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
    const proxy = await rewritingProxy(sim.url);
    try {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      sim.fund(address, "HYPE", "1000");
      sim.fund(address, "USDC", "5000");
      const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
      proxy.rewrite = (path, text) =>
        path === "/exchange" ? text.replace(/\}\s*$/, `,"extra":${deep}}`) : undefined;
      const { file, dir } = liveBot(proxy.url);
      const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
      expect((await cli(["once", "--config", file], env)).code).toBe(0);
      await sleep(2_100);
      const first = await cli(["once", "--config", file], env);
      expect(`${first.stdout}${first.stderr}`).not.toMatch(/call stack/i);
      expect(first.code, first.stderr).toBe(1);
      expect(sim.twaps(address)).toHaveLength(1);
      const db = new Database(join(dir, "state", "hlbot.db"), { readonly: true });
      const rows = db.prepare("SELECT status FROM submissions").all() as Array<{ status: string }>;
      db.close();
      expect(rows.map((r) => r.status)).toEqual(["unknown"]);

      // The next run reconciles it as landed and places nothing new.
      clearSecretsForTests();
      proxy.rewrite = undefined;
      await sleep(2_100);
      const second = await cli(["once", "--config", file], env);
      expect(`${second.stdout}${second.stderr}`).not.toMatch(/call stack/i);
      expect(sim.twaps(address)).toHaveLength(1);
      const db2 = new Database(join(dir, "state", "hlbot.db"), { readonly: true });
      const after = db2.prepare("SELECT status FROM submissions ORDER BY id").all() as Array<{
        status: string;
      }>;
      db2.close();
      expect(after[0]!.status).toBe("landed");
    } finally {
      await proxy.close();
      await sim.stop();
    }
  });

  it("parseJson refuses text nested deeper than the bound, with a SyntaxError", () => {
    const deep = `{"a":${"[".repeat(600)}${"]".repeat(600)}}`;
    expect(() => parseJson(deep)).toThrow(JsonDepthError);
    expect(() => parseJson(deep)).toThrow(SyntaxError);
    expect(parseJson(`{"a":${"[".repeat(500)}1${"]".repeat(500)}}`)).toBeDefined();
    // Brackets inside strings do not count.
    expect(parseJson(JSON.stringify({ s: "[".repeat(5000) }))).toEqual({ s: "[".repeat(5000) });
    expect(parseJson(`{"a":${"[".repeat(600)}${"]".repeat(600)}}`, { maxDepth: 1000 })).toBeDefined();
  });
});

// ---- 14. response size cap ------------------------------------------------------------------------

describe("14. response bodies are capped", () => {
  it("a read larger than the cap fails with a typed error, whether Content-Length says so or not", async () => {
    for (const chunked of [false, true]) {
      handler = (_req, _body, res) => {
        const big = `[${'"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",'.repeat(40_000)}1]`;
        res.writeHead(200, {
          "content-type": "application/json",
          ...(chunked ? {} : { "content-length": String(Buffer.byteLength(big)) }),
        });
        if (chunked) {
          res.write(big.slice(0, 1000));
          setTimeout(() => res.end(big.slice(1000)), 10);
        } else res.end(big);
      };
      const transport = new HttpTransport({
        endpoints: resolveEndpoints("testnet", url),
        budget: null,
        maxResponseBytes: 1_000_000,
        retry: { attempts: 3 },
      });
      const before = seen.length;
      try {
        await expect(transport.read({ type: "allMids" }, { weight: 2 })).rejects.toBeInstanceOf(
          ResponseTooLargeError,
        );
        // Not retried: the same request gets the same answer.
        expect(seen.length - before).toBe(1);
      } finally {
        await transport.close();
      }
    }
  });

  it("venue.maxResponseBytes in the bot file sets the cap of the runtime's transport", async () => {
    const { file } = botFile({ venue: "{ readAttempts: 1, maxResponseBytes: 65536 }" });
    const config = await loadConfig(file, { HLBOT_PRIVATE_KEY: KEY });
    expect(config.venue.maxResponseBytes).toBe(65_536);
    const runtime = await openRuntime({
      config,
      env: { HLBOT_PRIVATE_KEY: KEY },
      mode: "dry-run",
      logger: silentLogger(),
    });
    try {
      expect(runtime.transport.maxResponseBytes).toBe(65_536);
    } finally {
      await runtime.close();
    }
  });

  it("the default cap is generous (64 MiB) and a body under it is read", async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(64 * 1024 * 1024);
    handler = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ a: "x".repeat(2_000_000) }));
    };
    const transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", url), budget: null });
    try {
      expect(((await transport.read({ type: "allMids" }, { weight: 2 })) as { a: string }).a).toHaveLength(
        2_000_000,
      );
    } finally {
      await transport.close();
    }
  });
});

// ---- 16. smaller robustness cases --------------------------------------------------------------------

describe("16. an https:// URL to a plain-HTTP port", () => {
  it("a money-moving request whose TLS handshake failed is rejected as not sent, not 'may have been applied'", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(400);
      res.end("plain http");
    };
    const dir = tempDir();
    const tlsUrl = url.replace("http://", "https://");
    // A cancel by asset id reads nothing it needs first (a staking action reads spotMeta to check
    // HYPE's unit, and would stop there): the send itself meets the failed handshake.
    const r = await cli([
      "twap-cancel",
      "--asset",
      "10107",
      "--twap-id",
      "7",
      "--live",
      "--base-url",
      tlsUrl,
      "--state",
      dir,
      "--timeout",
      "2000",
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/may or may not have been applied|unknown outcome/);
    expect(r.stderr).toMatch(/rejected \(unreachable\): TLS handshake failed/);
    // A staking action is refused at its first read, naming the same failure, nothing sent.
    const stake = await cli([
      "stake",
      "--amount",
      "1",
      "--live",
      "--base-url",
      tlsUrl,
      "--state",
      dir,
      "--timeout",
      "2000",
    ]);
    expect(stake.code, stake.stderr).toBe(1);
    expect(stake.stderr).toMatch(
      /refused, nothing sent: the venue's spotMeta cannot be read .*TLS handshake failed/,
    );
  });
});

// ---- 12. venue strings cannot drive the terminal ------------------------------------------------------

const HOSTILE_NAME =
  "Val\u001b[2J\u001b]0;pwned\u0007\u001b]8;;http://evil\u0007x\u001b]8;;\u0007\r\nhlbot: accepted: cWithdraw\u009b31m\u202e";
/** Raw control characters a terminal would act on (LF excepted: output has lines). */
const RAW_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;

describe("12. control characters in venue strings", () => {
  it("info output (JSON) carries them escaped, and parses to the same name", async () => {
    const sim = await startSimulator({ rateLimit: false });
    try {
      const validator = sim.validators()[0]!.address;
      sim.setValidator(validator, { name: HOSTILE_NAME });
      const r = await cli(["info", "validatorSummaries", "--base-url", sim.url]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(RAW_CONTROLS);
      const list = JSON.parse(r.stdout) as Array<{ validator: string; name: string }>;
      expect(list.find((v) => v.validator === validator)?.name).toBe(HOSTILE_NAME);
    } finally {
      await sim.stop();
    }
  });

  it("status text shows a hostile validator or token name on its own line, escaped", () => {
    const status: AccountStatus = {
      account: "0x0000000000000000000000000000000000000001",
      at: 0,
      balances: [{ coin: HOSTILE_NAME, total: "1", hold: "0", usd: null, weight: null }],
      totalUsd: "0",
      valueUsd: null,
      staking: {
        delegated: "1",
        undelegated: "0",
        pendingWithdrawal: "0",
        nPendingWithdrawals: 0,
        pendingWithdrawals: [],
        locked: "0",
        usd: null,
      },
      delegations: [
        {
          validator: "0x5ac99df645f3414876c816caa18b2d234024b487",
          name: HOSTILE_NAME,
          amount: "1",
          lockedUntil: 0,
          locked: false,
          jailed: false,
          active: true,
          commission: null,
          netApr: null,
        },
      ],
      rewards: { total: "0", last: null },
      twaps: [],
      isVip: null,
      referral: { referredBy: HOSTILE_NAME, stage: "x", unclaimedRewards: "0" },
      multiSig: null,
      subAccounts: [
        { name: HOSTILE_NAME, address: "0x0000000000000000000000000000000000000002", abstraction: null },
      ],
      stakingLink: null,
      fees: { spotTaker: "0", spotMaker: "0" },
      unavailable: [],
      coreUnavailable: false,
    };
    const text = formatStatus(status, "testnet");
    expect(text).not.toMatch(RAW_CONTROLS);
    expect(text.split("\n").some((l) => l.startsWith("hlbot:"))).toBe(false);
  });

  it("the CLI's own output and errors pass through the same filter", async () => {
    const r = await cli(["info", `spot${HOSTILE_NAME}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW_CONTROLS);
  });
});

describe("16. configuration files that are not files, or bombs", () => {
  it("a YAML alias bomb exits 2 naming the file", async () => {
    const { file } = botFile();
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(
        `${name}: &${name} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    writeFileSync(file, `${readFileSync(file, "utf8")}${levels.join("\n")}\n`);
    for (const argv of [
      ["config", "validate", file],
      ["once", "--config", file],
    ]) {
      const r = await cli(argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("bot.yaml:1: too many YAML aliases");
    }
  });

  it("--config /dev/zero is refused at once, not read forever", async () => {
    const r = await cli(["once", "--config", "/dev/zero"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/\/dev\/zero: is not a regular file/);
  });

  it("a FIFO as the bot file or a strategy file is refused, not waited on", { timeout: 10_000 }, async () => {
    const dir = tempDir();
    const fifo = join(dir, "bot.yaml");
    execFileSync("mkfifo", [fifo]);
    let r = await cli(["config", "validate", fifo]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/bot\.yaml: is not a regular file/);
    r = await cli(["once", "--config", fifo]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toContain("undefined");
    const { file } = botFile({ strategies: `["${fifo}"]` });
    r = await cli(["once", "--config", file]);
    expect(r.code, r.stderr).toBe(2);
  });

  it("a file larger than 1 MiB is refused with its size", async () => {
    const { file } = botFile();
    writeFileSync(file, `${readFileSync(file, "utf8")}# ${"x".repeat(1_100_000)}\n`);
    const r = await cli(["once", "--config", file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/bot\.yaml: is \d+ bytes; a configuration file is at most 1048576 bytes/);
  });
});

describe("16. a damaged journal row", () => {
  it("is named (table, row, action) instead of a bare JSON error", { timeout: 60_000 }, async () => {
    const sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
    const proxy = await rewritingProxy(sim.url);
    try {
      const wallet = Wallet.createRandom();
      const address = wallet.address.toLowerCase();
      sim.fund(address, "HYPE", "1000");
      sim.fund(address, "USDC", "5000");
      // The answer is lost (a 502): the submission stays unknown and is reconciled by the next run.
      proxy.rewrite = (path) => (path === "/exchange" ? "<html>bad gateway</html>" : undefined);
      const { file, dir } = liveBot(proxy.url);
      const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
      const registered = await cli(["once", "--config", file], env);
      expect(registered.code, `${registered.stdout}${registered.stderr}`).toBe(0);
      await sleep(2_100);
      const first = await cli(["once", "--config", file], env);
      expect(first.code, first.stderr).toBe(1);
      const db = new Database(join(dir, "state", "hlbot.db"));
      const row = db.prepare("SELECT id FROM submissions").get() as { id: number };
      db.prepare("UPDATE submissions SET request = ? WHERE id = ?").run('{"action":{"type":"twapOr', row.id);
      db.close();
      clearSecretsForTests();
      proxy.rewrite = undefined;
      await sleep(2_100);
      const second = await cli(["once", "--config", file], env);
      expect(second.code).toBe(1);
      // `once` reports a failed cycle in its output (the slot stays due), other errors on stderr.
      expect(`${second.stdout}${second.stderr}`).toMatch(
        new RegExp(
          `journal row submissions #${row.id} \\(twapOrder, nonce \\d+\\) holds a request that is not valid JSON`,
        ),
      );
    } finally {
      await proxy.close();
      await sim.stop();
    }
  });
});

describe("16. the instance lock survives `rm state/lock.db`", () => {
  it("a second instance is refused while the first runs, and the first sees its lock is gone", {
    timeout: 180_000,
  }, async () => {
    ensureBuilt(["engine/lock.js"]);
    const dir = tempDir();
    const script = `
      const { acquireInstanceLock } = await import(${JSON.stringify(join(REPO_ROOT, "dist/engine/lock.js"))});
      const lock = acquireInstanceLock(${JSON.stringify(dir)}, "hlbot run --config test.yaml");
      process.stdout.write("locked\\n");
      process.stdin.on("data", () => process.stdout.write(lock.stillHeld() ? "held\\n" : "lost\\n"));
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    const waitFor = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => (out.includes(text) ? resolve() : setTimeout(check, 20));
        check();
      });
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
    });
    try {
      await waitFor("locked");
      child.stdin!.write("?\n");
      await waitFor("held");
      rmSync(join(dir, "lock.db"));
      expect(() => acquireInstanceLock(dir, "hlbot once")).toThrow(LockHeldError);
      child.stdin!.write("?\n");
      await waitFor("lost");
    } finally {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    // Once the holder is dead, the folder is free again.
    const lock = acquireInstanceLock(dir, "hlbot once");
    expect(lock.stillHeld()).toBe(true);
    lock.release();
  });
});

describe("16. the key does not stay in the daemon's environment", () => {
  it("run drops the key variables from its environment once the signer holds the key", {
    timeout: 30_000,
  }, async () => {
    const sim = await startSimulator({ clock: "real", rateLimit: false });
    try {
      const wallet = Wallet.createRandom();
      const { file } = liveBot(sim.url);
      const env: Record<string, string | undefined> = {
        HLBOT_PRIVATE_KEY: wallet.privateKey,
        HLBOT_KEYSTORE_PASSWORD: "unused but named",
        OTHER: "kept",
      };
      const baseline = process.listenerCount("SIGTERM");
      const done = main(["run", "--config", file, "--dry-run"], {
        stdout: () => {},
        stderr: () => {},
        env,
        isTTY: false,
      });
      // Running: the daemon installed its signal handlers (after the signer was loaded).
      const deadline = Date.now() + 20_000;
      while (process.listenerCount("SIGTERM") === baseline && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const seenEnv = { ...env };
      process.emit("SIGTERM", "SIGTERM");
      expect(await done).toBe(0);
      expect(seenEnv).toEqual({ OTHER: "kept" });
    } finally {
      await sim.stop();
    }
  });
});
