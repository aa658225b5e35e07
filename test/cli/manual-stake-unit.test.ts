// Every live staking command is signed in HYPE × 10^8 and checked against the unit the venue states,
// with a bot file or without (a review: `hlbot stake`, whose limit reads no venue history, and every
// staking command without a bot file, were sent unchecked; under another unit each amount would be a
// power of ten off). The CLI in-process, against the simulator behind a proxy that restates HYPE's unit.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { cliWithKey, writeManualBotFile } from "../helpers/manualBot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let sim: Simulator & { url: string };
let proxy: RewritingProxy;
let dir: string;
const wallet = Wallet.createRandom();
const address = wallet.address.toLowerCase();

beforeEach(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  proxy = await startRewritingProxy(sim.url);
  dir = mkdtempSync(join(tmpdir(), "hlbot-stake-unit-"));
  sim.fund(address, "HYPE", "100");
  proxy.rewriteInfo("spotMeta", (meta) => {
    const m = meta as { tokens: Array<{ name: string; weiDecimals: number }> };
    return { ...m, tokens: m.tokens.map((t) => (t.name === "HYPE" ? { ...t, weiDecimals: 6 } : t)) };
  });
});
afterEach(async () => {
  await proxy.close();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => cliWithKey(wallet.privateKey, args);

const UNIT =
  /refused, nothing sent: the venue states HYPE's weiDecimals as 6, and hlbot signs staking amounts in units of 10\^-8 HYPE/;
const sent = () =>
  sim.ledger().filter((e) => e.user === address && (e.kind === "cDeposit" || e.kind === "delegate"));

it("hlbot stake and delegate without a bot file are refused under another unit, nothing sent", async () => {
  const flags = ["--live", "--network", "testnet", "--base-url", proxy.url, "--state", join(dir, "state")];
  const stake = await cli(["stake", "--amount", "10", ...flags]);
  expect(stake.code).toBe(1);
  expect(stake.stderr).toMatch(UNIT);
  const delegate = await cli([
    "delegate",
    "--validator",
    "0x5ac99df645f3414876c816caa18b2d234024b487",
    "--amount",
    "10",
    ...flags,
  ]);
  expect(delegate.code).toBe(1);
  expect(delegate.stderr).toMatch(UNIT);
  expect(sent()).toEqual([]);
});

it("hlbot stake under a bot file is refused too (its limit reads no venue history)", async () => {
  const config = writeManualBotFile(dir, {
    baseUrl: proxy.url,
    limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 50 },
  });
  const stake = await cli(["stake", "--amount", "10", "--live", "--config", config]);
  expect(stake.code).toBe(1);
  expect(stake.stderr).toMatch(UNIT);
  expect(sent()).toEqual([]);
  // The venue's own unit: sent.
  proxy.clear();
  const ok = await cli(["stake", "--amount", "10", "--live", "--config", config]);
  expect(ok.code, ok.stderr).toBe(0);
  expect(sent()).toHaveLength(1);
});
