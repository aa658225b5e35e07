// A review: `once` with a strategy file that does not load runs no strategy, but the TWAP watch still reads
// the limits of the files that loaded (a limitPx added since the TWAP was sent applies), and the kill
// switch's cancels (killSwitchCancelRunning) run in a cycle of their own when no strategy ran.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, beforeEach, expect, it } from "vitest";
import { stringify } from "yaml";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runCli } from "../helpers/cli.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let sim: Simulator & { url: string };
let dir: string;
let wallet: ReturnType<typeof Wallet.createRandom>;
let address: string;

beforeEach(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  wallet = Wallet.createRandom();
  address = wallet.address.toLowerCase();
  sim.fund(address, "USDC", "5000");
  sim.fund(address, "HYPE", "100");
  sim.setPrice("PURR/USDC", "0.2");
  dir = mkdtempSync(join(tmpdir(), "hlbot-broken-guards-"));
});
afterEach(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

function writeBot(strategies: string[], limits: Record<string, unknown> = {}): string[] {
  writeFileSync(
    join(dir, "bot.yaml"),
    stringify({
      network: "testnet",
      baseUrl: sim.url,
      mode: "live",
      strategies,
      state: "./state",
      schedule: { allowSeconds: true },
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000, ...limits },
      log: { level: "warn", format: "json" },
    }),
  );
  return ["--config", join(dir, "bot.yaml")];
}
function writeDca(limitPx?: string): void {
  writeFileSync(
    join(dir, "dca.yaml"),
    stringify({
      name: "dca",
      kind: "twap-accumulate",
      schedule: "*/2 * * * * *",
      params: {
        coin: "PURR",
        side: "buy",
        amountUsd: 500,
        twap: { minutes: 120 },
        ...(limitPx ? { limitPx } : {}),
      },
    }),
  );
}
function writeStaking(broken: boolean): void {
  writeFileSync(
    join(dir, "staking.yaml"),
    stringify({
      name: "staking",
      kind: "validator-staking",
      schedule: "0 */6 * * *",
      params: { validators: broken ? "three" : 3 },
    }),
  );
}
const env = () => ({ HLBOT_PRIVATE_KEY: wallet.privateKey });
const running = () => sim.twaps(address).filter((t) => t.status === "activated");
async function placeDca(cfg: string[]): Promise<void> {
  expect((await runCli(["once", ...cfg], { env: env() })).code).toBe(0);
  await sleep(2_100);
  const placed = await runCli(["once", ...cfg], { env: env() });
  expect(placed.code, placed.stderr).toBe(0);
  expect(running()).toHaveLength(1);
}

for (const broken of [false, true])
  it(`a limitPx added to the DCA file after its TWAP started applies (staking file broken: ${broken})`, async () => {
    writeDca(); // no guard when the TWAP was sent
    writeStaking(false);
    const cfg = writeBot(["dca.yaml", "staking.yaml"]);
    await placeDca(cfg);
    // The operator sees the price run and adds a ceiling to stop the TWAP; the staking file is half-edited.
    sim.setPrice("PURR/USDC", "0.6");
    writeDca("0.3");
    writeStaking(broken);
    const r = await runCli(["once", ...cfg, "--json"], { env: env() });
    const summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "").summary;
    expect(summary.watch).toMatchObject({ checked: 1, cancelled: 1 });
    expect(running()).toHaveLength(0);
  }, 60_000);

for (const broken of [false, true])
  it(`touch state/STOP with killSwitchCancelRunning cancels the running TWAP at the next once (staking file broken: ${broken})`, async () => {
    writeDca();
    writeStaking(false);
    const cfg = writeBot(["dca.yaml", "staking.yaml"], { killSwitchCancelRunning: true });
    await placeDca(cfg);
    mkdirSync(join(dir, "state"), { recursive: true });
    writeFileSync(join(dir, "state", "STOP"), "operator: stop\n");
    writeStaking(broken);
    await sleep(2_100);
    const _r = await runCli(["once", ...cfg], { env: env() });
    expect(running()).toHaveLength(0);
  }, 60_000);
