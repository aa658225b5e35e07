// `hlbot venue` as a real process: prints its URL, serves requests signed by an independent
// implementation of the signing rules (and refuses them altered by one field), applies --fund, and
// stops cleanly on SIGTERM and SIGINT. Bad flags exit 2 before anything starts.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, ensureBuilt } from "../helpers/dist.js";
import { independentL1, independentUserSigned, type WireBody } from "../helpers/independentSigning.js";
import { ADDR, KEYS } from "./fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-venue-cli-"));
const children: ChildProcess[] = [];

beforeAll(() => ensureBuilt(["cli/main.js", "cli/commands/venue.js", "simulator/index.js"]), 120_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function startVenue(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, "venue", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => {
    err += String(d);
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; stderr: ${err}`)), 15_000);
    child.stdout!.on("data", (d) => {
      out += String(d);
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) {
        clearTimeout(timer);
        resolve({ child, url: line.trim(), stderr: () => err, exit });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${err}`));
    });
  });
}

function runToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "venue", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let err = "";
  child.stderr.on("data", (d) => {
    err += String(d);
  });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr: err })));
}

async function postJson(url: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

function alter(body: WireBody, fn: (action: Record<string, unknown>) => void): WireBody {
  const copy = structuredClone(body);
  fn(copy.action);
  return copy;
}

describe("hlbot venue", () => {
  it("accepts independently signed requests, refuses them altered by one field, funds accounts, stops on SIGTERM", async () => {
    const venue = await startVenue([
      "--port",
      "0",
      "--seed",
      "3",
      "--fund",
      `${ADDR.stranger}:HYPE=100,USDC=2000`,
    ]);
    expect(venue.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const now = Date.now();

    const twap = { type: "twapOrder", twap: { a: 10107, b: false, s: "10", r: false, m: 5, t: false } };
    const l1 = independentL1(KEYS.trader, twap, now, "testnet");
    const placed = (await postJson(venue.url, "/exchange", l1)) as {
      response: { data: { status: { running?: unknown } } };
    };
    expect(placed.response.data.status.running).toMatchObject({ twapId: expect.any(Number) });
    const l1Altered = alter(independentL1(KEYS.trader, twap, now + 1, "testnet"), (a) => {
      (a.twap as { s: string }).s = "11";
    });
    const refused = (await postJson(venue.url, "/exchange", l1Altered)) as {
      status: string;
      response: string;
    };
    expect(refused.status).toBe("err");
    expect(refused.response).toMatch(/^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
    expect(refused.response).not.toContain(ADDR.trader);
    // With a vault and an expiry: the L1 recipe's optional tail.
    const buy = { type: "twapOrder", twap: { a: 10107, b: true, s: "10", r: false, m: 5, t: false } };
    const withTail = independentL1(KEYS.trader, buy, now + 2, "testnet", {
      vaultAddress: ADDR.sub,
      expiresAfter: now + 60_000,
    });
    const forSub = (await postJson(venue.url, "/exchange", withTail)) as typeof placed;
    expect(forSub.response.data.status.running).toMatchObject({ twapId: expect.any(Number) });

    const delegate = {
      type: "tokenDelegate",
      signatureChainId: "0x66eee",
      hyperliquidChain: "Testnet",
      validator: "0x5ac99df645f3414876c816caa18b2d234024b487",
      wei: 100_000_000,
      isUndelegate: false,
      nonce: now + 3,
    };
    const user = independentUserSigned(KEYS.trader, delegate);
    expect(await postJson(venue.url, "/exchange", user)).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    const userAltered = alter(independentUserSigned(KEYS.trader, { ...delegate, nonce: now + 4 }), (a) => {
      a.wei = 200_000_000;
    });
    const refusedUser = (await postJson(venue.url, "/exchange", userAltered)) as { response: string };
    expect(refusedUser.response).toMatch(/^Must deposit before performing actions\. User: 0x[0-9a-f]{40}$/);
    expect(refusedUser.response).not.toContain(ADDR.trader);

    // --fund created the stranger's account: it can now stake.
    const deposit = {
      type: "cDeposit",
      signatureChainId: "0x66eee",
      hyperliquidChain: "Testnet",
      wei: 5_000_000_000,
      nonce: now,
    };
    expect(await postJson(venue.url, "/exchange", independentUserSigned(KEYS.stranger, deposit))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    const balances = (await postJson(venue.url, "/info", {
      type: "spotClearinghouseState",
      user: ADDR.stranger,
    })) as {
      balances: { coin: string; total: string }[];
    };
    expect(balances.balances.find((b) => b.coin === "HYPE")?.total).toBe("50.0");
    expect(balances.balances.find((b) => b.coin === "USDC")?.total).toBe("2010.0");

    venue.child.kill("SIGTERM");
    expect(await venue.exit).toBe(0);
    expect(venue.stderr()).toMatch(/stopped \(SIGTERM\)/);
  }, 30_000);

  it("takes a scenario file and the mainnet network; stops on SIGINT", async () => {
    const file = join(dir, "tiny.yaml");
    writeFileSync(
      file,
      [
        "name: tiny",
        "tokens:",
        "  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }",
        "  - { name: HYPE, index: 150, szDecimals: 2, weiDecimals: 8 }",
        "pairs: [{ index: 107, base: HYPE, quote: USDC }]",
        'prices: { "@107": { start: "40" } }',
        `balances: { "${ADDR.trader}": { HYPE: "10" } }`,
      ].join("\n"),
    );
    const venue = await startVenue(["--scenario", file, "--network", "mainnet"]);
    expect(venue.stderr()).not.toContain("warning");
    expect(await postJson(venue.url, "/info", { type: "allMids" })).toEqual({ "@107": "40.0" });
    const now = Date.now();
    const noop = (n: number, network: "mainnet" | "testnet") =>
      independentL1(KEYS.trader, { type: "noop" }, n, network);
    expect(await postJson(venue.url, "/exchange", noop(now, "mainnet"))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(await postJson(venue.url, "/exchange", noop(now + 1, "testnet"))).toMatchObject({ status: "err" });
    venue.child.kill("SIGINT");
    expect(await venue.exit).toBe(0);
  }, 30_000);

  it("on a port in use: one line naming the port and --port, exit 1 (#15); --help lists the exit codes", async () => {
    const taken = await startVenue(["--port", "0"]);
    const port = new URL(taken.url).port;
    const res = await runToExit(["--port", port]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `hlbot: cannot listen on 127.0.0.1:${port}: port ${port} is already in use (another hlbot venue?); choose another with --port N, or leave --port out for a free one\n`,
    );
    taken.child.kill("SIGTERM");
    expect(await taken.exit).toBe(0);
    const host = await runToExit(["--host", "192.0.2.1"]);
    expect(host.code).toBe(1);
    expect(host.stderr).toBe(
      "hlbot: cannot listen on 192.0.2.1: 192.0.2.1 is not an address of this machine; choose another with --host (default 127.0.0.1)\n",
    );
    const help = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [BIN, "venue", "--help"], { stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (d) => {
        out += String(d);
      });
      child.on("exit", () => resolve(out));
    });
    expect(help).toMatch(
      /Exit codes: 0 stopped by Ctrl-C or SIGTERM, 2 bad flags .*1 cannot listen on --port/s,
    );
  }, 30_000);

  it("warns about the gaps of a candle file its scenario replays (#15)", async () => {
    const h = 3_600_000;
    const t0 = Date.UTC(2025, 0, 1);
    const row = (t: number) => `@107,1h,${t},x,25,26,24,25.5,1,1`;
    writeFileSync(
      join(dir, "gappy.csv"),
      `coin,interval,time_ms,time_iso,open,high,low,close,volume,trades\n${[0, 1, 4].map((k) => row(t0 + k * h)).join("\n")}\n`,
    );
    const file = join(dir, "replay.yaml");
    writeFileSync(
      file,
      [
        "name: replay",
        "tokens:",
        "  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }",
        "  - { name: HYPE, index: 150, szDecimals: 2, weiDecimals: 8 }",
        "pairs: [{ index: 107, base: HYPE, quote: USDC }]",
        'prices: { "@107": { candles: gappy.csv } }',
      ].join("\n"),
    );
    const venue = await startVenue(["--scenario", file]);
    await new Promise((r) => setTimeout(r, 200));
    expect(venue.stderr()).toContain(
      `warning: ${join(dir, "gappy.csv")}: 1 gap in the 1h candles (2 candles missing); the largest 2 h, from 2025-01-01T02:00:00.000Z to 2025-01-01T04:00:00.000Z (before line 4).`,
    );
    // A history trial: candles that ended before now were served as their last close, held flat, with
    // no word (the venue runs on this machine's clock).
    expect(venue.stderr()).toContain(
      `warning: the 1h candles of @107 (${join(dir, "gappy.csv")}) end 2025-01-01T05:00:00.000Z, before now: this venue runs on this machine's clock, so @107's price holds their last close`,
    );
    venue.child.kill("SIGTERM");
    expect(await venue.exit).toBe(0);
  }, 30_000);

  it("exits 2 on bad flags and bad scenarios, naming the problem", async () => {
    const badFund = await runToExit(["--fund", "0x12:HYPE=1"]);
    expect(badFund.code).toBe(2);
    expect(badFund.stderr).toMatch(/--fund/);
    const badAmount = await runToExit(["--fund", `${ADDR.trader}:HYPE=lots`]);
    expect(badAmount.code).toBe(2);
    const badCoin = await runToExit(["--fund", `${ADDR.trader}:DOGE=1`]);
    expect(badCoin.code).toBe(2);
    expect(badCoin.stderr).toMatch(/DOGE/);
    expect((await runToExit(["--port", "http"])).code).toBe(2);
    // #15: every malformed --fund names the option, the expected form and what is wrong, exit 2; an
    // address alone used to start a venue that funded nothing.
    const form =
      "--fund: expected ADDR:COIN=AMOUNT[,COIN=AMOUNT…] (e.g. 0xf39f…2266:HYPE=1000,USDC=5000), got";
    const cases: Array<[string, string]> = [
      [ADDR.trader, "no COIN=AMOUNT after the address"],
      [`${ADDR.trader}:HYPE`, '"HYPE" is not COIN=AMOUNT'],
      [`${ADDR.trader}:HYPE=1e3`, 'the HYPE amount "1e3" is not a plain decimal (1000, 0.5)'],
      ["HYPE=100", 'ADDR "HYPE=100" is not 0x followed by 40 hex digits'],
      [`${ADDR.trader}:HYPE=1,DOGE=2`, "DOGE is not a token of the scenario ("],
    ];
    for (const [value, why] of cases) {
      const res = await runToExit(["--fund", value]);
      expect(res.code, value).toBe(2);
      expect(res.stderr, value).toContain(`hlbot: ${form} ${JSON.stringify(value)}: ${why}`);
      expect(res.stderr.trim().split("\n"), value).toHaveLength(1);
    }
    expect((await runToExit(["--network", "devnet"])).code).toBe(2);
    const file = join(dir, "bad.yaml");
    writeFileSync(file, "tokens:\n  - { name: USDC, index: -1, szDecimals: 8, weiDecimals: 8 }\n");
    const badScenario = await runToExit(["--scenario", file]);
    expect(badScenario.code).toBe(2);
    expect(badScenario.stderr).toMatch(/bad\.yaml:2: tokens\[0\]\.index/);
  }, 30_000);
});
