// A review: `hlbot once --dry-run` keeps its own slot memory, so a preview run later than
// schedule.catchUp after a slot the live cron ran told the operator's channels schedule.missed. Live only now.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, beforeEach, expect, it } from "vitest";
import { stringify } from "yaml";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { REBALANCE } from "../helpers/bot.js";
import { runCli } from "../helpers/cli.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let sim: Simulator & { url: string };
let receiver: TestHttpServer;
let dir: string;

beforeEach(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  receiver = await startHttpServer(() => ({ json: { ok: true } }));
  dir = mkdtempSync(join(tmpdir(), "hlbot-review-dry-"));
});
afterEach(async () => {
  await receiver.close();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Sleeps until `at` ms past the next 6-second slot (room for a loaded machine). */
async function slotPlus(at: number): Promise<void> {
  const ms = Date.now() % 6_000;
  await sleep((at - ms + 12_000) % 6_000);
}

it("a dry-run preview of once does not tell schedule.missed for slots the live cron ran", async () => {
  const wallet = Wallet.createRandom();
  const address = wallet.address.toLowerCase();
  sim.fund(address, "USDC", "5000");
  sim.fund(address, "HYPE", "100");
  sim.setPrice("HYPE/USDC", "50");
  mkdirSync(join(dir, "strategies"));
  writeFileSync(
    join(dir, "strategies", "rebalance.yaml"),
    stringify({ ...REBALANCE, schedule: "*/6 * * * * *" }),
  );
  const config = join(dir, "bot.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      baseUrl: sim.url,
      mode: "live",
      strategies: "./strategies",
      state: "./state",
      schedule: { allowSeconds: true, catchUp: "3s" },
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
      log: { level: "warn", format: "json" },
      notify: { minIntervalMs: 0, webhook: { url: `${receiver.url}/hook` } },
    }),
  );
  const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
  const cfg = ["--config", config];
  // Live cron and a first preview: both register the strategy.
  expect((await runCli(["once", ...cfg], { env })).code).toBe(0);
  expect((await runCli(["once", "--dry-run", ...cfg], { env })).code).toBe(0);
  // The live cron runs the next slot in time.
  await sleep(1_000);
  await slotPlus(200);
  const live = await runCli(["once", ...cfg, "--json"], { env });
  expect(live.code, live.stderr).toBe(0);
  const ran = (JSON.parse(live.stdout.trim().split("\n").at(-1)!) as { summary: { ran: unknown[] } }).summary
    .ran;
  expect(ran.length).toBe(1);
  // A preview a moment later (past the 3-s window of that slot, before the next).
  await slotPlus(4_500);
  const dry = await runCli(["once", "--dry-run", ...cfg], { env });
  expect(dry.code, dry.stderr).toBe(0);
  await sleep(500);
  const told = receiver.requests.map((r) => (r.json as NotifyEvent).type);
  // What should hold: the slot ran live; nothing is told as missed.
  expect(told, dry.stdout).not.toContain("schedule.missed");
}, 60_000);
