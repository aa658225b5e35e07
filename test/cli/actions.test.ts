// End-to-end tests of the manual action commands: the built CLI (`node bin/hlbot.js`) in a child
// process, a scripted venue on 127.0.0.1, and a fresh state folder per test. Printed bodies are checked
// with hlbot's own recovery AND with an independent implementation of the signing rules (ethers).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encryptKeystoreJson } from "ethers";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseJson } from "../../src/lib/json.js";
import { recoverL1Signer } from "../../src/venue/signing/l1.js";
import { recoverUserSignedSigner } from "../../src/venue/signing/userSigned.js";
import { BIN, ensureBuilt } from "../helpers/dist.js";
import {
  ACCOUNT_ADDRESS,
  ACCOUNT_KEY,
  AGENT_ADDRESS,
  AGENT_KEY,
  nonceTrackingVenue,
  OK_DEFAULT,
  twapRunning,
  VALIDATOR,
} from "../helpers/exchange.js";
import { type ReplyScript, startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import {
  independentL1Signer,
  independentUserSigner,
  l1ConnectionId,
  msgpack,
  type WireBody,
} from "../helpers/independentSigning.js";

const NETWORKS = ["mainnet", "testnet"] as const;
const SPOT_META = {
  tokens: [token("USDC", 0, 8), token("PURR", 1, 0), token("HYPE", 1105, 2)],
  universe: [
    { name: "PURR/USDC", tokens: [1, 0], index: 0, isCanonical: true },
    { name: "@1035", tokens: [1105, 0], index: 1035, isCanonical: false },
  ],
};

function token(name: string, index: number, szDecimals: number) {
  return {
    name,
    szDecimals,
    weiDecimals: 8,
    index,
    tokenId: `0x${index.toString(16).padStart(32, "0")}`,
    isCanonical: index === 0,
    evmContract: null,
    fullName: null,
    deployerTradingFeeShare: "0.0",
  };
}

let work: string;
const servers: TestHttpServer[] = [];

beforeAll(() => ensureBuilt(["cli/main.js", "cli/manualAction.js", "cli/commands/twap.js"]), 120_000);
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "hlbot-cli-actions-"));
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  rmSync(work, { recursive: true, force: true });
});

async function venue(script: Parameters<typeof startHttpServer>[0]): Promise<TestHttpServer> {
  const server = await startHttpServer(script);
  servers.push(server);
  return server;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in `work` with only the given environment (plus PATH). */
function hlbot(
  args: string[],
  env: Record<string, string> = { HLBOT_PRIVATE_KEY: ACCOUNT_KEY },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      // No output of any command may ever contain the key, in any spelling.
      for (const key of [ACCOUNT_KEY, AGENT_KEY]) {
        expect(`${stdout}\n${stderr}`.toLowerCase()).not.toContain(key.slice(2));
      }
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one line a dry run prints, parsed. */
function body(run: Run): WireBody {
  expect(run.code).toBe(0);
  expect(run.stdout.endsWith("\n")).toBe(true);
  expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
  return parseJson(run.stdout) as WireBody;
}

describe("the independent checker itself", () => {
  it("reproduces the worked twapOrder signing example (test/venue/signing/vectors.test.ts)", () => {
    const action = { type: "twapOrder", twap: { a: 0, b: true, s: "1.5", r: false, m: 30, t: false } };
    expect(Buffer.from(msgpack(action)).toString("hex")).toBe(
      "82a474797065a9747761704f72646572a47477617086a16100a162c3a173a3312e35a172c2a16d1ea174c2",
    );
    expect(l1ConnectionId({ action, nonce: 1700000000000 })).toBe(
      "0x18e2c1c850c380b4ebb983a22dec9feb05f019e49e60d0e689d08cb625ad85d4",
    );
  });
});

// These dry runs check the signing itself, so they ask for the signed body with --sign (the default
// output is unsigned since #17.6; see test/cli/dryRun.test.ts).
describe("dry run --sign", () => {
  for (const network of NETWORKS) {
    it(`delegate on ${network}: prints exactly the body, signed by the key's address under both implementations`, async () => {
      const run = await hlbot([
        "delegate",
        "--validator",
        VALIDATOR,
        "--amount",
        "12.5",
        "--network",
        network,
        "--sign",
      ]);
      const b = body(run);
      expect(Object.keys(b)).toEqual(["action", "nonce", "signature"]);
      expect(b.action).toMatchObject({
        type: "tokenDelegate",
        hyperliquidChain: network === "mainnet" ? "Mainnet" : "Testnet",
        validator: VALIDATOR,
        wei: 1_250_000_000,
        isUndelegate: false,
        nonce: b.nonce,
      });
      expect(recoverUserSignedSigner(b.action, "tokenDelegate", b.signature)).toBe(ACCOUNT_ADDRESS);
      expect(independentUserSigner(b)).toBe(ACCOUNT_ADDRESS);
      expect(run.stderr).toContain("dry run");
      expect(existsSync(join(work, "state"))).toBe(false); // a dry run creates no state
    });

    it(`twap --asset --sz-decimals on ${network}: no network needed, L1 body with expiresAfter`, async () => {
      const before = Date.now();
      const run = await hlbot([
        "twap",
        "sell",
        "--asset",
        "11035",
        "--sz-decimals",
        "2",
        "--size",
        "1.239",
        "--minutes",
        "30",
        "--randomize",
        "--network",
        network,
        "--base-url",
        "http://127.0.0.1:9",
        "--sign",
      ]);
      const b = body(run);
      expect(Object.keys(b)).toEqual(["action", "nonce", "signature", "expiresAfter"]);
      expect(b.action).toEqual({
        type: "twapOrder",
        twap: { a: 11035, b: false, s: "1.23", r: false, m: 30, t: true },
      });
      expect(b.nonce).toBeGreaterThanOrEqual(before);
      expect(b.expiresAfter! - b.nonce).toBeGreaterThanOrEqual(59_000);
      expect(b.expiresAfter! - b.nonce).toBeLessThanOrEqual(61_000);
      expect(recoverL1Signer({ ...b, network })).toBe(ACCOUNT_ADDRESS);
      expect(independentL1Signer(b, network)).toBe(ACCOUNT_ADDRESS);
      // Signed for this network only: the other network's source letter recovers someone else.
      expect(independentL1Signer(b, network === "mainnet" ? "testnet" : "mainnet")).not.toBe(ACCOUNT_ADDRESS);
      expect(run.stderr).toContain("truncated to 1.23");
    });

    it(`link-staking on ${network}: user-signed body recovers to the signer`, async () => {
      const run = await hlbot([
        "link-staking",
        "--user",
        AGENT_ADDRESS,
        "--finalize",
        "--network",
        network,
        "--json",
        "--sign",
      ]);
      const b = body(run);
      expect(b.action).toMatchObject({
        type: "linkStakingUser",
        user: AGENT_ADDRESS,
        isFinalize: true,
        nonce: b.nonce,
      });
      expect(recoverUserSignedSigner(b.action, "linkStakingUser", b.signature)).toBe(ACCOUNT_ADDRESS);
      expect(independentUserSigner(b)).toBe(ACCOUNT_ADDRESS);
      // --json: nothing but the body on stdout; on stderr, that a link is permanent, that the output is a
      // live order, and the notes (no bot file, dry run) as without --json.
      expect(run.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(/warning: a staking link is PERMANENT/),
        expect.stringMatching(/are not applied/),
        expect.stringMatching(/anyone who has it can send it/),
        expect.stringMatching(/^dry run: linkStakingUser not sent/),
      ]);
    });
  }

  it("stake and unstake print cDeposit / cWithdraw bodies with exact integer wei", async () => {
    const stake = body(await hlbot(["stake", "--amount", "0.00000001", "--sign"]));
    const unstake = body(await hlbot(["unstake", "--amount", "100000000", "--sign"]));
    expect(stake.action).toMatchObject({ type: "cDeposit", wei: 1 });
    // 10^16 wei is beyond 2^53: printed as exact digits, read back as a bigint.
    expect(unstake.action).toMatchObject({ type: "cWithdraw", wei: 10_000_000_000_000_000n });
    expect(independentUserSigner(stake)).toBe(ACCOUNT_ADDRESS);
    expect(independentUserSigner(unstake)).toBe(ACCOUNT_ADDRESS);
  });

  it("twap --coin reads spotMeta (and the mids it is valued at) but never opens a connection to /exchange", async () => {
    const server = await venue((req) => ({
      json: (req.json as { type: string }).type === "allMids" ? { "@1035": "25.5" } : SPOT_META,
    }));
    const run = await hlbot([
      "twap",
      "buy",
      "--coin",
      "HYPE",
      "--size",
      "4",
      "--minutes",
      "10",
      "--base-url",
      server.url,
      "--sign",
    ]);
    const b = body(run);
    expect((b.action as { twap: { a: number } }).twap.a).toBe(11035);
    // The dry run is valued against the venue's TWAP minimum (4 × 25.5 = 102 USDC), as --live is.
    expect(server.requests.map((r) => [r.path, (r.json as { type: string }).type]).sort()).toEqual([
      ["/info", "allMids"],
      ["/info", "spotMeta"],
      ["/info", "spotMeta"],
    ]);

    const cancel = body(
      await hlbot(["twap-cancel", "--coin", "PURR", "--twap-id", "77", "--base-url", server.url, "--sign"]),
    );
    expect(cancel.action).toEqual({ type: "twapCancel", a: 10000, t: 77 });
    expect(independentL1Signer(cancel, "testnet")).toBe(ACCOUNT_ADDRESS);

    const delegate = await hlbot([
      "delegate",
      "--validator",
      VALIDATOR,
      "--amount",
      "1",
      "--base-url",
      server.url,
    ]);
    expect(delegate.code).toBe(0);
    expect(server.requests.filter((r) => r.path !== "/info")).toHaveLength(0);
  });

  it("an API wallet may dry-run a twap for a vault; the body recovers to the agent", async () => {
    const vault = "0x1719884eb866cb12b2287399b15f7db5e7d775ea";
    const run = await hlbot(
      [
        "twap",
        "buy",
        "--asset",
        "10000",
        "--sz-decimals",
        "0",
        "--size",
        "5",
        "--minutes",
        "5",
        "--vault",
        vault,
        "--account",
        ACCOUNT_ADDRESS,
        "--sign",
      ],
      { HLBOT_PRIVATE_KEY: AGENT_KEY },
    );
    const b = body(run);
    expect(b.vaultAddress).toBe(vault);
    expect(independentL1Signer(b, "testnet")).toBe(AGENT_ADDRESS);
    expect(run.stderr).toContain(
      `signed by ${AGENT_ADDRESS} for sub-account or vault ${vault} (vaultAddress)`,
    );
  });

  it("reads the key from a keystore file with a password file", async () => {
    const keystore = join(work, "key.json");
    const passwordFile = join(work, "password");
    writeFileSync(
      keystore,
      await encryptKeystoreJson({ address: ACCOUNT_ADDRESS, privateKey: ACCOUNT_KEY }, "correct horse", {
        scrypt: { N: 1024 },
      }),
    );
    writeFileSync(passwordFile, "correct horse\n");
    const run = await hlbot(
      ["stake", "--amount", "1", "--keystore", keystore, "--password-file", passwordFile, "--sign"],
      {},
    );
    expect(independentUserSigner(body(run))).toBe(ACCOUNT_ADDRESS);
  });
});

describe("--coin, --asset and --sz-decimals must agree with the venue's spotMeta", () => {
  // A user's trial: `twap buy --coin PURR --asset 11035` signed a HYPE order (--asset "overrode"
  // --coin), and `--asset 10000 --sz-decimals 2 --size 1.5` was accepted for PURR (szDecimals 0).
  const spotVenue = () =>
    venue((req) =>
      req.path === "/info"
        ? {
            json:
              (req.json as { type: string }).type === "spotMeta"
                ? SPOT_META
                : (req.json as { type: string }).type === "userRole"
                  ? { role: "user" }
                  : { "PURR/USDC": "20", "@1035": "25.5" },
          }
        : { json: twapRunning(1) },
    );
  const twap = (url: string, ...args: string[]) =>
    hlbot(["twap", "buy", "--size", "10", "--minutes", "5", "--base-url", url, ...args]);

  it("refuses --coin and --asset naming different markets, saying both, before anything is signed", async () => {
    const server = await spotVenue();
    for (const extra of [["--sign"], ["--live", "--state", join(work, "st")]]) {
      const run = await twap(server.url, "--coin", "PURR", "--asset", "11035", ...extra);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        /--coin PURR is PURR\/USDC \(asset 10000\) but --asset 11035 is HYPE \(@1035\)/,
      );
    }
    const cancel = await hlbot([
      "twap-cancel",
      "--coin",
      "HYPE",
      "--asset",
      "10000",
      "--twap-id",
      "7",
      "--base-url",
      server.url,
    ]);
    expect(cancel.code).toBe(2);
    expect(cancel.stderr).toMatch(/--coin HYPE is @1035 \(asset 11035\) but --asset 10000 is PURR/);
    expect(server.requests.filter((r) => r.path === "/exchange")).toHaveLength(0);
    expect(existsSync(join(work, "st", "hlbot.db"))).toBe(false);
  });

  it("accepts --coin and --asset that name the same market", async () => {
    const server = await spotVenue();
    const b = body(await twap(server.url, "--coin", "purr", "--asset", "10000", "--sign"));
    expect((b.action as { twap: { a: number } }).twap.a).toBe(10000);
  });

  it("refuses a --sz-decimals that differs from spotMeta's wherever spotMeta is read", async () => {
    const server = await spotVenue();
    const withCoin = await twap(server.url, "--coin", "PURR", "--sz-decimals", "2", "--sign");
    expect(withCoin.code).toBe(2);
    expect(withCoin.stderr).toMatch(/--sz-decimals: 2 differs from spotMeta's szDecimals 0 for PURR/);
    // --asset with --sz-decimals reads no spotMeta in a dry run; live, the order is valued and checked.
    const live = await twap(
      server.url,
      "--asset",
      "10000",
      "--sz-decimals",
      "2",
      "--size",
      "1.5",
      "--live",
      "--state",
      join(work, "st"),
    );
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/--sz-decimals: 2 differs from spotMeta's szDecimals 0 for PURR/);
    expect(server.requests.filter((r) => r.path === "/exchange")).toHaveLength(0);
    expect(existsSync(join(work, "st", "hlbot.db"))).toBe(false);
    // The matching value goes through.
    const good = await twap(server.url, "--coin", "PURR", "--sz-decimals", "0", "--sign");
    expect((body(good).action as { twap: { a: number } }).twap.a).toBe(10000);
  });
});

describe("the bot file's wallet", () => {
  it("signs with the key file the bot file names when no key option is given; a key option wins", async () => {
    // A user's trial: with wallet.privateKeyFile in hlbot.yaml, `hlbot twap … --config hlbot.yaml` asked
    // for HLBOT_PRIVATE_KEY although the same file's limits, URLs and kill switch applied.
    const keyFile = join(work, "key.hex");
    writeFileSync(keyFile, `${ACCOUNT_KEY}\n`, { mode: 0o600 });
    const bot = join(work, "hlbot.yaml");
    writeFileSync(
      bot,
      [
        "network: testnet",
        "mode: dry-run",
        `strategies: ${join(process.cwd(), "strategies/twap-accumulate.yaml")}`,
        "wallet:",
        `  privateKeyFile: ${keyFile}`,
        "limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 }",
        "",
      ].join("\n"),
    );
    const fromFile = await hlbot(["stake", "--amount", "1", "--sign", "--config", bot], {});
    expect(fromFile.stderr).not.toMatch(/HLBOT_PRIVATE_KEY/);
    expect(independentUserSigner(body(fromFile))).toBe(ACCOUNT_ADDRESS);
    const flag = await hlbot(["stake", "--amount", "1", "--sign", "--config", bot, "--key-env", "MY_KEY"], {
      MY_KEY: AGENT_KEY,
    });
    expect(independentUserSigner(body(flag))).toBe(AGENT_ADDRESS);
  });
});

describe("the bot file's network", () => {
  // A user's trial: `hlbot twap sell … --config bot.yaml` with `network: mainnet` failed "--network:
  // testnet differs from the network of the bot config" although --network was never given.
  function mainnetBot(): string {
    const bot = join(work, "bot.yaml");
    writeFileSync(
      bot,
      [
        "network: mainnet",
        "mode: dry-run",
        `strategies: ${join(process.cwd(), "strategies/twap-accumulate.yaml")}`,
        "limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 }",
        "",
      ].join("\n"),
    );
    return bot;
  }
  // What a manual TWAP under a bot file reads: the metadata and mids it is valued at, and what the price
  // checks read before the limits (the pairs' contexts, the account's balances and TWAP history).
  const ctx = (coin: string, px: string) => ({
    coin,
    prevDayPx: px,
    dayNtlVlm: "1000000",
    markPx: px,
    midPx: px,
  });
  const spot = (req: { path: string; json: unknown }) => {
    const type = (req.json as { type: string }).type;
    const answers: Record<string, unknown> = {
      spotMeta: SPOT_META,
      spotMetaAndAssetCtxs: [SPOT_META, [ctx("PURR/USDC", "0.2"), ctx("@1035", "25.5")]],
      spotClearinghouseState: { balances: [] },
      twapHistory: [],
    };
    return { json: answers[type] ?? { "PURR/USDC": "0.2", "@1035": "25.5" } };
  };

  it("is the default of every manual command given --config; a different --network is still refused", async () => {
    const bot = mainnetBot();
    const server = await venue(spot);
    const common = ["--config", bot, "--base-url", server.url, "--sign"];
    const twap = await hlbot([
      "twap",
      "sell",
      "--coin",
      "HYPE",
      "--size",
      "12.5",
      "--minutes",
      "30",
      "--randomize",
      ...common,
    ]);
    expect(independentL1Signer(body(twap), "mainnet")).toBe(ACCOUNT_ADDRESS);
    const cancel = await hlbot(["twap-cancel", "--coin", "HYPE", "--twap-id", "7", ...common]);
    expect(independentL1Signer(body(cancel), "mainnet")).toBe(ACCOUNT_ADDRESS);
    for (const args of [
      ["stake", "--amount", "1"],
      ["unstake", "--amount", "1"],
      ["delegate", "--validator", VALIDATOR, "--amount", "1"],
      ["undelegate", "--validator", VALIDATOR, "--amount", "1"],
      ["link-staking", "--user", AGENT_ADDRESS],
    ]) {
      const b = body(await hlbot([...args, ...common]));
      expect((b.action as { hyperliquidChain: string }).hyperliquidChain).toBe("Mainnet");
      expect(independentUserSigner(b)).toBe(ACCOUNT_ADDRESS);
    }
    const conflicting = await hlbot(["stake", "--amount", "1", "--network", "testnet", ...common]);
    expect(conflicting.code).toBe(2);
    expect(conflicting.stderr).toMatch(/--network: testnet differs from the network of the bot config/);
    // Without a bot file the default stays testnet.
    const plain = body(await hlbot(["stake", "--amount", "1", "--sign"]));
    expect((plain.action as { hyperliquidChain: string }).hyperliquidChain).toBe("Testnet");
  });
});

/**
 * A venue for live manual actions: /info answers spotMeta (a live staking action checks HYPE's unit
 * first), /exchange follows `script` by the exchange request's own index.
 */
async function liveVenue(script: ReplyScript): Promise<TestHttpServer> {
  let sent = 0;
  return venue((req) => {
    if (req.path === "/exchange") {
      const i = sent++;
      return typeof script === "function" ? script(req, i) : script[Math.min(i, script.length - 1)]!;
    }
    if ((req.json as { type?: string } | undefined)?.type === "spotMeta") return { json: SPOT_META };
    return typeof script === "function" ? script(req, -1) : { json: [] };
  });
}

/** The requests a server got at /exchange (what was sent, not the reads before it). */
const sentTo = (server: TestHttpServer) => server.requests.filter((r) => r.path === "/exchange");

describe("--live", () => {
  it("sends the body to {base}/exchange, prints the venue's answer and exits 0", async () => {
    const server = await liveVenue([{ json: OK_DEFAULT }]);
    const state = join(work, "st");
    const run = await hlbot([
      "delegate",
      "--validator",
      VALIDATOR,
      "--amount",
      "1",
      "--live",
      "--base-url",
      server.url,
      "--state",
      state,
    ]);
    expect(run.code).toBe(0);
    expect(parseJson(run.stdout)).toEqual(OK_DEFAULT);
    expect(run.stderr).toContain("accepted");
    expect(sentTo(server)).toHaveLength(1);
    expect(sentTo(server)[0]!.path).toBe("/exchange");
    const sent = sentTo(server)[0]!.json as WireBody;
    expect(independentUserSigner(sent)).toBe(ACCOUNT_ADDRESS);
    expect(existsSync(join(state, "hlbot.db"))).toBe(true);

    // The durable store makes the next command's nonce larger, and a later dry run peeks past it.
    const second = await hlbot([
      "undelegate",
      "--validator",
      VALIDATOR,
      "--amount",
      "1",
      "--live",
      "--base-url",
      server.url,
      "--state",
      state,
    ]);
    expect(second.code).toBe(0);
    const secondNonce = (sentTo(server)[1]!.json as WireBody).nonce;
    expect(secondNonce).toBeGreaterThan(sent.nonce);
    const dry = body(await hlbot(["stake", "--amount", "1", "--state", state]));
    expect(dry.nonce).toBeGreaterThan(secondNonce);
    expect(sentTo(server)).toHaveLength(2);
  });

  it("uses HLBOT_STATE_DIR when --state is not given", async () => {
    const server = await liveVenue([{ json: OK_DEFAULT }]);
    const state = join(work, "from-env");
    const run = await hlbot(["stake", "--amount", "1", "--live", "--base-url", server.url], {
      HLBOT_PRIVATE_KEY: ACCOUNT_KEY,
      HLBOT_STATE_DIR: state,
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(state, "hlbot.db"))).toBe(true);
  });

  it("prints an outcome object with --json, including the twapId", async () => {
    // A live TWAP is valued at the venue's mid (spotMeta, allMids) for the journal's daily usage.
    // A live order first asks whether the key is an API wallet (userRole): this one is an account.
    const info: Record<string, unknown> = { spotMeta: SPOT_META, userRole: { role: "user" } };
    const server = await liveVenue((req) =>
      req.path === "/info"
        ? { json: info[(req.json as { type: string }).type] ?? { "@1035": "25.5" } }
        : { json: twapRunning(4242) },
    );
    const run = await hlbot([
      "twap",
      "buy",
      "--asset",
      "11035",
      "--sz-decimals",
      "2",
      "--size",
      "4",
      "--minutes",
      "5",
      "--live",
      "--json",
      "--base-url",
      server.url,
      "--state",
      join(work, "st"),
    ]);
    expect(run.code).toBe(0);
    const out = parseJson(run.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      status: "accepted",
      action: "twapOrder",
      data: { twapId: 4242 },
      response: twapRunning(4242),
    });
    const sent = sentTo(server).filter((r) => r.path === "/exchange");
    expect(sent).toHaveLength(1);
    // What was sent, without its signature: printed output travels, and a signed body is a live order.
    const { signature, ...rest } = sent[0]!.json as Record<string, unknown>;
    expect(signature).toBeDefined();
    expect(out.request).toEqual({ ...rest, signature: "(not shown: the journal keeps the signed body)" });
    // Notes stay on stderr with --json (stdout holds the one JSON line): no bot file, so no limits.
    expect(run.stderr).toMatch(/maxOrderUsd, maxDailyNotionalUsd and maxStakeMovePerDay are not applied/);
  });

  it("Ctrl-C while the request is in flight exits 130 saying it may land and stays pending to be reconciled", async () => {
    // A user's trial: Ctrl-C during a manual action exited 130 without a word.
    const server = await liveVenue((req) => (req.path === "/exchange" ? { fault: "hang" } : { json: [] }));
    const bot = join(work, "hlbot.yaml");
    writeFileSync(
      bot,
      [
        "network: testnet",
        "mode: dry-run",
        `strategies: ${join(process.cwd(), "strategies/twap-accumulate.yaml")}`,
        "state: ./st",
        "limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 }",
        "",
      ].join("\n"),
    );
    const child = spawn(
      process.execPath,
      [BIN, "stake", "--amount", "1", "--live", "--config", bot, "--base-url", server.url],
      { cwd: work, env: { PATH: process.env.PATH ?? "", HLBOT_PRIVATE_KEY: ACCOUNT_KEY }, stdio: "pipe" },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const deadline = Date.now() + 10_000;
    while (!sentTo(server).some((r) => r.path === "/exchange") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/SIGINT: stopped\. A request already sent may still land on the venue/);
    expect(stderr).toContain(`journal row in ${join(work, "st")} stays pending`);
    expect(stderr).toMatch(/reconciles it/);
    const history = await hlbot(["history", "--config", bot, "--json"]);
    const { submissions } = parseJson(history.stdout) as {
      submissions: Array<{ actionType: string; status: string; request: Record<string, unknown> }>;
    };
    expect(submissions).toMatchObject([{ actionType: "cDeposit", status: "pending" }]);
    // The pending request is shown without its signature: it could still be sent by anyone holding it.
    // An object, as once and the manual actions print it (a scripter needed `fromjson`).
    const shown = submissions[0]!.request;
    expect(shown.signature).toBe("(not shown: the journal keeps the signed body)");
    expect(shown.action).toMatchObject({ type: "cDeposit" });
    expect(history.stdout).not.toMatch(/"r\\?":\\?"0x/);
  });

  it("Ctrl-C before anything could be sent says nothing was sent, and --json prints its not-sent line", async () => {
    // A review: Ctrl-C while a --live twap read spotMeta from a venue that never answered said "a
    // request already sent may still land", and --json printed nothing.
    const server = await liveVenue(() => ({ fault: "hang" }));
    const child = spawn(
      process.execPath,
      [BIN, "twap", "buy", "--coin", "HYPE", "--size", "5", "--minutes", "5", "--live", "--json"].concat([
        "--base-url",
        server.url,
        "--state",
        join(work, "st"),
      ]),
      { cwd: work, env: { PATH: process.env.PATH ?? "", HLBOT_PRIVATE_KEY: ACCOUNT_KEY }, stdio: "pipe" },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const deadline = Date.now() + 10_000;
    // Waiting on its first read (the venue never answers), before anything is signed.
    while (server.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(server.requests.length).toBeGreaterThan(0);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/SIGINT: stopped; nothing was sent\n/);
    expect(stderr).not.toMatch(/may still land/);
    expect(parseJson(stdout.trim())).toMatchObject({ status: "not-sent", sent: false, code: "interrupted" });
    expect(sentTo(server)).toHaveLength(0);
  });

  it("exits 1 when the venue rejects the action", async () => {
    const server = await liveVenue([
      { json: { status: "err", response: "Insufficient balance for token transfer" } },
    ]);
    const run = await hlbot([
      "unstake",
      "--amount",
      "3",
      "--live",
      "--base-url",
      server.url,
      "--state",
      join(work, "st"),
    ]);
    expect(run.code).toBe(1);
    expect(parseJson(run.stdout)).toEqual({
      status: "err",
      response: "Insufficient balance for token transfer",
    });
    expect(run.stderr).toContain("rejected");
    expect(sentTo(server)).toHaveLength(1);
  });

  it("exits 1 on an unknown outcome: the first copy landed but timed out, the resend answered duplicate nonce", async () => {
    const server = await liveVenue(
      nonceTrackingVenue(() => ({ json: OK_DEFAULT }), { slow: [0], delayMs: 1_500 }),
    );
    const run = await hlbot([
      "stake",
      "--amount",
      "1",
      "--live",
      "--json",
      "--timeout",
      "300",
      "--base-url",
      server.url,
      "--state",
      join(work, "st"),
    ]);
    expect(run.code).toBe(1);
    expect(parseJson(run.stdout)).toMatchObject({ status: "unknown", probablyLanded: true, attempts: 2 });
    expect(sentTo(server)).toHaveLength(2);
    expect(sentTo(server)[1]!.body).toBe(sentTo(server)[0]!.body);
  });
});

describe("exit code 2: bad input or configuration, nothing signed, nothing sent", () => {
  const cases: Array<[string, string[], Record<string, string>?, RegExp?]> = [
    ["a negative amount", ["stake", "--amount", "-1"]],
    ["an amount with more than 8 decimals", ["stake", "--amount", "0.000000001"], undefined, /8 decimal/],
    [
      "a malformed validator",
      ["delegate", "--validator", "0x123", "--amount", "1"],
      undefined,
      /--validator/,
    ],
    ["an unknown network", ["stake", "--amount", "1", "--network", "devnet"], undefined, /--network/],
    [
      "a TWAP shorter than 5 minutes",
      ["twap", "buy", "--asset", "10000", "--sz-decimals", "0", "--size", "1", "--minutes", "1"],
      undefined,
      /minutes/,
    ],
    [
      "a twap without --coin or --asset",
      ["twap", "buy", "--size", "1", "--minutes", "5"],
      undefined,
      /--coin/,
    ],
    ["a bad side", ["twap", "hold", "--asset", "10000", "--size", "1", "--minutes", "5"]],
    ["a missing key", ["stake", "--amount", "1"], {}, /HLBOT_PRIVATE_KEY/],
    [
      "an invalid key",
      ["stake", "--amount", "1"],
      { HLBOT_PRIVATE_KEY: "0x1234" },
      /not a valid private key/,
    ],
    [
      "an API wallet signing a user-signed action",
      ["delegate", "--validator", VALIDATOR, "--amount", "1", "--account", ACCOUNT_ADDRESS],
      { HLBOT_PRIVATE_KEY: AGENT_KEY },
      /account's own key/,
    ],
  ];
  for (const [what, args, env, message] of cases) {
    it(`${what}`, async () => {
      const server = await venue([{ json: OK_DEFAULT }]);
      const state = join(work, "st");
      const run = await hlbot(
        [...args, "--live", "--base-url", server.url, "--state", state],
        env ?? { HLBOT_PRIVATE_KEY: ACCOUNT_KEY },
      );
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      if (message) expect(run.stderr).toMatch(message);
      expect(server.requests).toHaveLength(0);
      expect(existsSync(join(state, "hlbot.db"))).toBe(false);
    });
  }
});
