// A go-live trial: `hlbot status` with an API wallet's key and no `account:` showed the agent's own
// address (no balances, "Running TWAPs: none") while TWAPs ran on its master's account: false
// reassurance. It now shows the master's account and says why.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runCli } from "../helpers/cli.js";

let sim: Simulator & { url: string };
const dir = mkdtempSync(join(tmpdir(), "hlbot-status-agent-"));
const agent = Wallet.createRandom();
const master = "0x2222222222222222222222222222222222222222";
beforeAll(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  sim.core.accounts.addAgent({
    address: agent.address.toLowerCase(),
    master,
    name: "bot",
    validUntil: sim.now() + 86_400_000,
    approvedAt: sim.now(),
  });
  sim.fund(master, "USDC", "1234");
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("status with an API wallet's key and no account shows its master's account, saying so", async () => {
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    `network: testnet\nbaseUrl: ${sim.url}\nstate: ./st\nlimits:\n  maxOrderUsd: 500\n  maxDailyNotionalUsd: 2000\n  maxStakeMovePerDay: 100\n`,
  );
  const r = await runCli(["status", "--config", bot, "--json"], {
    env: { HLBOT_PRIVATE_KEY: agent.privateKey },
  });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(
    `hlbot: the key ${agent.address.toLowerCase()} is an API wallet of ${master}: showing ${master}`,
  );
  expect(JSON.stringify(JSON.parse(r.stdout))).toContain(master);
  expect(r.stdout).toContain("1234");
}, 30_000);
