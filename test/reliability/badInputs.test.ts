// Promise 3, "bad input gets a clear error, never a crash or a request": runs the corpus in
// test/fixtures/bad-inputs through the CLI. Bot files (bot/), strategy files (strategy/) and command
// lines (cli.yaml) must exit 2, venue answers that violate an info schema (venue/) exit 1; each with one
// line naming the place (file:line: key, the flag, or the query and field), no stack trace unless
// --verbose, no signature and no request (bad input) or no action (bad venue data). Requests are counted
// at a 127.0.0.1 server every case points at, with a valid key loaded and --live where it applies, so a
// case that slipped through would sign and send.
//
// Cases run in-process through `main(argv, io)` (the same code as bin/hlbot.js, much faster); a sample
// also runs through the built CLI to show the real process behaves the same.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { main } from "../../src/cli/main.js";
import { clearSecretsForTests } from "../../src/lib/secrets.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const CORPUS = join(REPO_ROOT, "test/fixtures/bad-inputs");
/** A public test key (never funded): what the runner loads as the signer. */
const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
/** The key-shaped value written into the inline-key fixtures. */
const FIXTURE_KEY = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";

interface Case {
  group: "bot" | "strategy" | "cli" | "venue";
  name: string;
  argv: string[];
  expect: RegExp;
  exit: 1 | 2;
  env: Record<string, string>;
  /** Venue cases: what the server answers to the one info query. */
  reply?: { status: number; body: string; contentType: string };
  /** Bot and strategy cases: the fixture file. */
  file?: string;
  /** Text that must also be on stderr (a "did you mean" hint line). */
  hint?: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function header(text: string, key: string): string | undefined {
  return new RegExp(`^# ${key}: (.*)$`, "m").exec(text)?.[1];
}

function fileCases(group: "bot" | "strategy"): Case[] {
  const dir = join(CORPUS, group);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => {
      const file = join(dir, f);
      const text = readFileSync(file, "utf8");
      const expect = header(text, "expect");
      if (!expect) throw new Error(`${file} has no "# expect:" header`);
      const shown = relative(REPO_ROOT, file);
      const name = basename(f, ".yaml");
      return {
        group,
        name,
        // `plan` refuses a strategy file that does not load before any request; `once` (and `run`)
        // leave such a file out and still check the guards of running TWAPs, reading the venue
        // (test/cli/once-left-out.test.ts).
        argv: group === "strategy" || name.startsWith("strategies-") ? ["plan"] : ["once"],
        expect: new RegExp(expect.replaceAll("{file}", escapeRegExp(shown))),
        exit: 2,
        env: {},
        file,
      };
    });
}

function cliCases(): Case[] {
  const list = parse(readFileSync(join(CORPUS, "cli.yaml"), "utf8")) as Array<{
    name: string;
    argv: string[];
    expect: string;
    hint?: string;
    env?: Record<string, string>;
  }>;
  return list.map((c) => ({
    group: "cli",
    name: c.name,
    argv: c.argv,
    expect: new RegExp(c.expect),
    exit: 2,
    env: c.env ?? {},
    ...(c.hint ? { hint: c.hint } : {}),
  }));
}

function venueCases(): Case[] {
  const dir = join(CORPUS, "venue");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const c = JSON.parse(readFileSync(join(dir, f), "utf8")) as {
        type: string;
        args?: string[];
        status?: number;
        body?: unknown;
        text?: string;
        contentType?: string;
        expect: string;
      };
      return {
        group: "venue",
        name: basename(f, ".json"),
        argv: ["info", c.type, ...(c.args ?? []), "--base-url", "{url}", "--timeout", "2000"],
        expect: new RegExp(c.expect),
        exit: 1,
        env: {},
        reply: {
          status: c.status ?? 200,
          body: c.text ?? JSON.stringify(c.body),
          contentType: c.contentType ?? (c.text === undefined ? "application/json" : "text/plain"),
        },
      } satisfies Case;
    });
}

const CASES: Case[] = [...fileCases("bot"), ...fileCases("strategy"), ...cliCases(), ...venueCases()];

// ---- the request-counting venue stand-in -----------------------------------------------------------

interface Seen {
  path: string;
  body: string;
}
let server: Server;
let url: string;
const seen: Seen[] = [];
let reply: Case["reply"];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      seen.push({ path: req.url ?? "", body });
      const r = reply ?? { status: 500, body: "no venue here", contentType: "text/plain" };
      res.writeHead(r.status, { "content-type": r.contentType });
      res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// ---- running one case ------------------------------------------------------------------------------

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  requests: Seen[];
  state: string;
}

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function prepare(c: Case): { argv: string[]; env: Record<string, string>; state: string } {
  const state = mkdtempSync(join(tmpdir(), "hlbot-bad-"));
  temps.push(state);
  const env: Record<string, string> = {
    HLBOT_PRIVATE_KEY: KEY,
    HLBOT_TEST_KEY: KEY,
    HLBOT_TEST_BASE_URL: url,
    HLBOT_TEST_STATE: join(state, "state"),
    ...c.env,
  };
  const fill = (a: string) =>
    a
      .replaceAll("{url}", url)
      .replaceAll("{state}", state)
      .replaceAll("{valid}", join(CORPUS, "valid/bot.yaml"));
  let argv = c.argv.map(fill);
  if (c.group === "bot") argv = [...argv, "--config", c.file!];
  if (c.group === "strategy") {
    // A valid bot file (in the temp folder) whose only strategy is the broken one.
    const bot = readFileSync(join(CORPUS, "valid/bot.yaml"), "utf8").replace(
      "strategies: ./strategies",
      `strategies:\n  - ${JSON.stringify(c.file)}`,
    );
    const botFile = join(state, "bot.yaml");
    writeFileSync(botFile, bot);
    argv = [...argv, "--config", botFile];
  }
  return { argv, env, state };
}

async function runInProcess(c: Case, extraArgs: string[] = []): Promise<Run> {
  // Each case is a fresh process as far as secrets go: one case's key variable is not the next one's.
  clearSecretsForTests();
  const { argv, env, state } = prepare(c);
  let stdout = "";
  let stderr = "";
  const before = seen.length;
  reply = c.reply;
  const code = await main([...extraArgs, ...argv], {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env,
    isTTY: false,
  });
  reply = undefined;
  return { code, stdout, stderr, requests: seen.slice(before), state };
}

async function runBuilt(c: Case): Promise<Run> {
  const { argv, env, state } = prepare(c);
  const before = seen.length;
  reply = c.reply;
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? -1)));
  reply = undefined;
  return { code, stdout, stderr, requests: seen.slice(before), state };
}

/** Lines of stderr that are hints (commander's "(Did you mean …?)", "(run with --help for usage)"). */
function messageLines(stderr: string): string[] {
  return stderr.split("\n").filter((l) => l.trim() !== "" && !/^\(.*\)$/.test(l.trim()));
}

function spellings(key: string): string[] {
  const bare = key.replace(/^0x/i, "");
  return [bare, bare.toUpperCase(), `0x${bare}`, `0X${bare.toUpperCase()}`].map((s) => s.toLowerCase());
}

function nonceRows(state: string): number {
  const db = join(state, "state", "hlbot.db");
  const alt = join(state, "hlbot.db");
  const file = existsSync(db) ? db : existsSync(alt) ? alt : undefined;
  if (!file) return 0;
  const conn = new Database(file, { readonly: true });
  try {
    const table = conn.prepare("SELECT 1 FROM sqlite_master WHERE name = 'nonces'").get();
    return table ? (conn.prepare("SELECT COUNT(*) AS n FROM nonces").get() as { n: number }).n : 0;
  } finally {
    conn.close();
  }
}

function expectRefusal(c: Case, r: Run): void {
  const lines = messageLines(r.stderr);
  const where = `${c.group}/${c.name}: stderr was ${JSON.stringify(r.stderr)}`;
  expect(r.code, where).toBe(c.exit);
  expect(lines, where).toHaveLength(1);
  expect(lines[0], where).toMatch(c.expect);
  if (c.hint) expect(r.stderr, where).toContain(c.hint);
  expect(r.stderr, where).not.toMatch(/^\s+at /m);
  // Nothing signed: no signature on stdout, no nonce taken from the durable counter.
  expect(r.stdout, where).not.toMatch(/signature/);
  expect(nonceRows(r.state), where).toBe(0);
  if (c.group === "venue") {
    // Reads only: a garbled answer is read once more (src/venue/info/query.ts), nothing else is sent.
    expect(
      r.requests.map((q) => q.path),
      where,
    ).toEqual(["/info", "/info"].slice(0, Math.max(1, r.requests.length)));
    expect(r.requests.length, where).toBeLessThanOrEqual(2);
  } else {
    expect(r.requests, where).toEqual([]);
  }
  const all = `${r.stdout}\n${r.stderr}`.toLowerCase();
  for (const s of [...spellings(KEY), ...spellings(FIXTURE_KEY)]) expect(all.includes(s), where).toBe(false);
}

describe("bad-input corpus", () => {
  it("holds at least 100 cases, of every kind the promise names", () => {
    const byGroup = (g: Case["group"]) => CASES.filter((c) => c.group === g).length;
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    for (const g of ["bot", "strategy", "cli", "venue"] as const) expect(byGroup(g), g).toBeGreaterThan(10);
    console.log(
      `bad-input corpus: ${CASES.length} cases (bot ${byGroup("bot")}, strategy ${byGroup("strategy")}, cli ${byGroup("cli")}, venue ${byGroup("venue")})`,
    );
  });

  it("control: the valid bot file is accepted and does reach the server (the detectors work)", async () => {
    const valid: Case = {
      group: "cli",
      name: "valid",
      argv: ["once", "--config", join(CORPUS, "valid/bot.yaml")],
      expect: /./,
      exit: 1,
      env: {},
    };
    const r = await runInProcess(valid);
    expect(r.code).toBe(1); // the stand-in answers 500 to everything
    expect(r.requests.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^hlbot: \w+: venue server error \(HTTP 500\)/m);
  });

  for (const group of ["bot", "strategy", "cli", "venue"] as const) {
    describe(group, () => {
      for (const c of CASES.filter((x) => x.group === group)) {
        it(c.name, async () => {
          expectRefusal(c, await runInProcess(c));
        });
      }
    });
  }

  it("prints the stack trace only with --verbose", async () => {
    for (const c of [CASES.find((x) => x.group === "bot")!, CASES.find((x) => x.group === "cli")!]) {
      const r = await runInProcess(c, ["--verbose"]);
      expect(r.code).toBe(c.exit);
      expect(r.stderr).toMatch(/^\s+at /m);
      expect(r.requests).toEqual([]);
    }
  });

  describe("through the built CLI", () => {
    beforeAll(() => ensureBuilt(["cli/main.js"]), 120_000);
    const sample = ["bot", "strategy", "cli", "venue"].flatMap((g) =>
      CASES.filter((c) => c.group === g).slice(0, 2),
    );
    for (const c of sample) {
      it(`${c.group}/${c.name} behaves as in-process`, async () => {
        const built = await runBuilt(c);
        expectRefusal(c, built);
        const inProcess = await runInProcess(c);
        expect(built.stderr.replaceAll(built.state, "<state>")).toBe(
          inProcess.stderr.replaceAll(inProcess.state, "<state>"),
        );
      });
    }
  });
});
