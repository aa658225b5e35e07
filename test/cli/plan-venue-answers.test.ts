// `hlbot plan` against answers the real venue sends and the simulator does not model (issue #11): a
// rewriting proxy on 127.0.0.1 in front of the embedded simulator changes single answers. A value hlbot
// only shows or ignores never stops a cycle; a strict field with a wrong type still does, naming its path.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { TWAP_END_MARGIN_MS } from "../../src/venue/info/methods/twapHistory.js";
import { resetUnknownReports } from "../../src/venue/info/tolerant.js";
import { demoWithHypeAt } from "../helpers/scenario.js";
import { startVenueProxy, type VenueProxy } from "../helpers/venueProxy.js";
import { subAccount } from "../venue/info/fixtures.js";

const wallet = Wallet.createRandom();
const address = wallet.address.toLowerCase();
const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void err.push(t),
      env,
      isTTY: false,
    },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

describe("plan with answers the simulator does not model", () => {
  let sim: Simulator & { url: string };
  let proxy: VenueProxy;
  let dir: string;
  let config: string;

  beforeAll(async () => {
    sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("40") });
    sim.fund(address, "HYPE", "1000");
    sim.fund(address, "USDC", "5000");
    proxy = await startVenueProxy(sim.url);
    dir = mkdtempSync(join(tmpdir(), "hlbot-plan-answers-"));
    writeFileSync(
      join(dir, "rebalance.yaml"),
      stringify({
        name: "rebalance",
        kind: "twap-rebalance",
        schedule: "0 * * * *",
        params: {
          targets: { HYPE: 0.5, USDC: 0.5 },
          quote: "USDC",
          band: 0.05,
          twap: { minutes: 60, randomize: false },
        },
      }),
    );
    config = join(dir, "bot.yaml");
    writeFileSync(
      config,
      stringify({
        network: "testnet",
        baseUrl: proxy.url,
        mode: "dry-run",
        strategies: ["rebalance.yaml"],
        state: "./state",
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "warn", format: "json" },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    proxy.seen.length = 0;
    resetUnknownReports();
  });

  it("plans for a master whose sub-account is in dexAbstraction mode and whose fees, referral and role carry unknown variants", async () => {
    const legacy = { ...subAccount(), master: address, abstraction: "dexAbstraction" };
    proxy.setRewrites({
      subAccounts2: () => [legacy, { ...legacy, name: "future", abstraction: "someFutureMode" }],
      userFees: (a) => ({
        ...(a as object),
        trial: { id: 7, until: "2026-01-01" },
        stakingLink: { type: "pendingLink", stakingUser: legacy.subAccountUser },
      }),
      referral: (a) => ({ ...(a as object), referrerState: { stage: "suspended" } }),
      userRole: () => ({ role: "multiSig", data: { threshold: 2 } }),
    });
    const run = io();
    expect(await main(["plan", "--config", config], run.io)).toBe(0);
    expect(run.stdout()).toMatch(/twapOrder/);
    // The link state hlbot does not know is reported once, through the bot's logger.
    expect(run.stderr()).toMatch(/userFees with an unknown stakingLink\.type value \\"pendingLink\\"/);
    // A cycle reads only what its strategies use: never the sub-accounts or the VIP flag.
    expect(proxy.seen).toContain("userFees");
    expect(proxy.seen).not.toContain("subAccounts2");
    expect(proxy.seen).not.toContain("isVip");
    expect(proxy.seen).toContain("userToMultiSigSigners");
    // A TWAP strategy needs the marks: spotMetaAndAssetCtxs answers spotMeta too, so it is not read twice.
    expect(proxy.seen).toContain("spotMetaAndAssetCtxs");
    expect(proxy.seen).not.toContain("spotMeta");
  });

  it("does not place a second TWAP beside one whose status it does not know, until that TWAP's end and a margin", async () => {
    const startedAt = sim.now() - 10 * 60_000 - TWAP_END_MARGIN_MS;
    const entry = (minutes: number) => ({
      time: Math.floor(startedAt / 1000),
      state: {
        coin: "@107",
        user: address,
        side: "A",
        sz: "5.0",
        executedSz: "1.0",
        executedNtl: "40.0",
        minutes,
        reduceOnly: false,
        randomize: false,
        timestamp: startedAt,
      },
      status: { status: "paused" },
      twapId: 777,
    });
    proxy.setRewrites({ twapHistory: () => [entry(60)] });
    const running = io();
    expect(await main(["plan", "--config", config], running.io)).toBe(0);
    expect(running.stdout()).toMatch(
      /a TWAP #777 \(not placed by this bot\) is already running on HYPE\/USDC \(@107\)/,
    );
    expect(running.stdout()).not.toMatch(/twapOrder/);

    // The same record for a 5-minute TWAP that began 10 minutes (and the margin) ago cannot be executing any more.
    proxy.setRewrites({ twapHistory: () => [entry(5)] });
    const ended = io();
    expect(await main(["plan", "--config", config], ended.io)).toBe(0);
    expect(ended.stdout()).not.toMatch(/already running/);
    expect(ended.stdout()).toMatch(/twapOrder/);
  });

  it.each([
    ["userFees", "userSpotCrossRate", (a: Record<string, unknown>) => ({ ...a, userSpotCrossRate: 0.00049 })],
    [
      "spotClearinghouseState",
      "balances.0.total",
      (a: Record<string, unknown>) => {
        const balances = a.balances as Array<Record<string, unknown>>;
        return { ...a, balances: [{ ...balances[0], total: 5000 }, ...balances.slice(1)] };
      },
    ],
  ])(
    "refuses a wrong type in a strict field (%s %s) with its path, and exits 1",
    async (query, path, rewrite) => {
      proxy.setRewrites({ [query]: (a) => rewrite(a as Record<string, unknown>) });
      const run = io();
      expect(await main(["plan", "--config", config], run.io)).toBe(1);
      expect(run.stderr()).toContain(`unexpected ${query} response: ${path}: `);
      proxy.setRewrites({});
    },
  );
});
