// A sub-account as `account:`, end to end through the built CLI against the simulator over 127.0.0.1:
// the TWAP bodies carry vaultAddress (hashed into the signature, checked with the public SDK's own
// hash function and an ethers-based recovery), a key that cannot act for the account exits 2 before
// signing, and a live TWAP lands on the sub-account, so the next run sees it running there.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createL1ActionHash } from "@nktkas/hyperliquid/signing";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type Simulator, startSimulator } from "../../../src/simulator/index.js";
import { buildOnce, REPO_ROOT } from "../../helpers/build.js";
import { independentL1Signer, l1ConnectionId, type WireBody } from "../../helpers/independentSigning.js";
import { testScenario } from "../../simulator/fixtures.js";

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

const SUB = "0x2222222222222222222222222222222222222222";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a sub-account as `account:` through the CLI", () => {
  let sim: Simulator & { url: string };
  let dir: string;
  const master = Wallet.createRandom();
  const agent = Wallet.createRandom();
  const stranger = Wallet.createRandom();
  const masterAddress = master.address.toLowerCase();
  const agentAddress = agent.address.toLowerCase();

  function writeConfig(name: string, mode: "live" | "dry-run"): string {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        baseUrl: sim.url,
        account: SUB,
        mode,
        strategies: ["rebalance.yaml"],
        state: `./state-${name}`,
        // These tests may schedule strategies by the second.
        schedule: { allowSeconds: true },
        limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        log: { level: "warn", format: "json" },
      }),
    );
    return file;
  }

  const planLines = (stdout: string) =>
    stdout
      .trim()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    buildOnce();
    sim = await startSimulator({
      clock: "real",
      rateLimit: false,
      scenario: testScenario({
        settings: { fees: { spotCross: "0.001", stakingDiscount: false, referralDiscount: "0" } },
        accounts: [{ address: masterAddress, subAccounts: [{ address: SUB, name: "bot" }] }],
        agents: [{ user: masterAddress, address: agentAddress, name: "bot" }],
        balances: { [masterAddress]: { USDC: "10" }, [SUB]: { HYPE: "1000", USDC: "5000" } },
      }),
    });
    sim.fund(stranger.address.toLowerCase(), "USDC", "10");
    dir = mkdtempSync(join(tmpdir(), "hlbot-sub-"));
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

  for (const [who, key, address] of [
    ["the master's own key", () => master.privateKey, () => masterAddress],
    ["an API wallet of the master", () => agent.privateKey, () => agentAddress],
  ] as const) {
    it(`plan --json with ${who}: the TWAP carries vaultAddress = the sub-account and recovers to the signer`, async () => {
      const config = writeConfig(who.replace(/\W+/g, "-"), "dry-run");
      const { code, stdout, stderr } = await run(["plan", "--json", "--sign", "--config", config], {
        HLBOT_PRIVATE_KEY: key(),
      });
      expect(code, stderr).toBe(0);
      const lines = planLines(stdout);
      expect(lines).toHaveLength(1);
      const request = lines[0]?.request as WireBody;
      // Sized from the sub-account's balances (1000 HYPE at 25 vs 5000 USDC): sell half the excess.
      expect(request.action).toMatchObject({ type: "twapOrder", twap: { b: false } });
      expect(request.vaultAddress).toBe(SUB);
      // The vault address is part of the hash: the public SDK's hash function agrees with ours, and
      // the same body without it would recover to someone else.
      expect(
        createL1ActionHash({
          action: request.action,
          nonce: request.nonce,
          vaultAddress: SUB,
          ...(request.expiresAfter === undefined ? {} : { expiresAfter: request.expiresAfter }),
        }),
      ).toBe(l1ConnectionId(request));
      expect(independentL1Signer(request, "testnet")).toBe(address());
      const { vaultAddress: _dropped, ...withoutVault } = request;
      expect(independentL1Signer(withoutVault, "testnet")).not.toBe(address());
    });
  }

  it("a key that cannot act for the sub-account exits 2 before anything is signed", async () => {
    const config = writeConfig("stranger", "dry-run");
    const { code, stdout, stderr } = await run(["plan", "--json", "--sign", "--config", config], {
      HLBOT_PRIVATE_KEY: stranger.privateKey,
    });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(`cannot act for ${SUB}`);
    expect(stderr).toContain(`sub-account of ${masterAddress}`);
    const once = await run(["once", "--config", writeConfig("stranger-live", "live")], {
      HLBOT_PRIVATE_KEY: stranger.privateKey,
    });
    expect(once.code).toBe(2);
    expect(sim.ledger().filter((e) => e.kind === "action")).toHaveLength(0);
  });

  it("once (live) places the TWAP on the sub-account, and the next once finds it running there", async () => {
    const config = writeConfig("live", "live");
    const env = { HLBOT_PRIVATE_KEY: agent.privateKey };
    // The first call only registers the strategy's schedule; it acts at its next slot.
    const sight = await run(["once", "--config", config], env);
    expect(sight.code, sight.stderr).toBe(0);
    await sleep(2_100);
    const first = await run(["once", "--config", config], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/twapOrder \(allowed; sent, accepted\)/);
    expect(sim.twaps(SUB)).toHaveLength(1);
    expect(sim.twaps(masterAddress)).toHaveLength(0);
    await sleep(2_100);
    const second = await run(["once", "--config", config], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/already running/);
    expect(sim.twaps(SUB)).toHaveLength(1);
  });
});
