// `hlbot once` with a strategy file that does not load (a cron user's trial): no strategy runs, but the
// TWAP guards and the kill switch's cancels do. A typo saved in the staking file while a DCA's TWAP ran made every call exit 2 before the
// TWAP watch, so the DCA kept buying at three times its limitPx until the file was fixed; disabling the
// only strategy to stop it did the same.
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
  dir = mkdtempSync(join(tmpdir(), "hlbot-left-out-"));
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

/** A PURR DCA every 2 seconds (`once` acts only in a due slot), with a buy ceiling when given one. */
function writeDca(name: string, o: { enabled?: boolean; limitPx?: string } = {}): void {
  writeFileSync(
    join(dir, `${name}.yaml`),
    stringify({
      name,
      kind: "twap-accumulate",
      schedule: "*/2 * * * * *",
      ...(o.enabled === undefined ? {} : { enabled: o.enabled }),
      params: {
        coin: "PURR",
        side: "buy",
        amountUsd: 500,
        twap: { minutes: 120 },
        ...(o.limitPx === undefined ? {} : { limitPx: o.limitPx }),
      },
    }),
  );
}

/** The staking file, saved whole or with a typo (`validators: "three"`). */
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

/** Registers the strategies, then runs them in their next slot: the DCA's TWAP is running. */
async function placeDca(cfg: string[]): Promise<void> {
  expect((await runCli(["once", ...cfg], { env: env() })).code).toBe(0);
  await sleep(2_100);
  const placed = await runCli(["once", ...cfg], { env: env() });
  expect(placed.code, placed.stderr).toBe(0);
  expect(running()).toHaveLength(1);
}

it("a strategy file that does not load stops the strategies (exit 2, file:line said), not the TWAP watch", async () => {
  writeDca("dca", { limitPx: "0.5" });
  writeStaking(false);
  writeDca("dca2", { limitPx: "0.5" });
  const cfg = writeBot(["dca.yaml", "staking.yaml"]);
  await placeDca(cfg);

  // The price jumps above the DCA's ceiling just as a typo is saved in the staking file, and a second
  // DCA (on another pair's budget: a fresh strategy) is added.
  sim.setPrice("PURR/USDC", "0.6");
  writeStaking(true);
  writeBot(["dca.yaml", "staking.yaml", "dca2.yaml"]);
  const r = await runCli(["once", ...cfg, "--json"], { env: env() });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /hlbot: error: \S*staking\.yaml:\d+: params\.validators: expected a whole number.*\(this strategy file does not load: no strategy runs until it does; the guards of running TWAPs still run\)/,
  );
  // The guard held: the TWAP buying above its limitPx was cancelled.
  expect(running()).toHaveLength(0);
  const summary = (
    JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "") as {
      summary: {
        leftOut: string[];
        notDue: Array<{ strategy: string }>;
        watch: { checked: number; cancelled: number };
      };
    }
  ).summary;
  expect(summary.watch).toMatchObject({ checked: 1, cancelled: 1 });
  expect(summary.leftOut).toEqual([expect.stringMatching(/staking\.yaml:\d+: params\.validators/)]);
  // No strategy ran or was planned (they share the account: one missing changes what the others do).
  expect(summary.notDue).toEqual([]);
  expect(sim.twaps(address)).toHaveLength(1);
}, 60_000);

it("with no enabled strategy left, once still checks the guards of running TWAPs, and exits 2 saying so", async () => {
  writeDca("dca", { limitPx: "0.5" });
  const cfg = writeBot(["dca.yaml"]);
  await placeDca(cfg);
  // Disabled to stop it; the price then crosses its ceiling.
  writeDca("dca", { enabled: false, limitPx: "0.5" });
  sim.setPrice("PURR/USDC", "0.6");
  const r = await runCli(["once", ...cfg], { env: env() });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(
    /strategies: no enabled strategy to run .*only the guards of running TWAPs are checked/,
  );
  expect(r.stdout).toMatch(/TWAP watch: 1 guarded TWAP\(s\) checked, 1 cancelled/);
  // Said on stdout too, not "no strategy is due" (a docs trial).
  expect(r.stdout).toMatch(/: no enabled strategy to run; only the guards of running TWAPs were checked\n/);
  expect(r.stdout).not.toMatch(/no strategy is due/);
  expect(running()).toHaveLength(0);
  // A file that does not load: the headline says no strategy ran, and why (a cron log read it as idle).
  writeDca("dca", { limitPx: "0.5" });
  writeStaking(true);
  const broken = await runCli(["once", ...writeBot(["dca.yaml", "staking.yaml"])], { env: env() });
  expect(broken.code).toBe(2);
  expect(broken.stdout).toMatch(
    /: NO STRATEGY RAN: a strategy file does not load \(see the errors on stderr\); only the guards of running TWAPs were checked\n/,
  );
}, 60_000);

// With the file that does not load, the watch still reads the limits of the files that loaded (a limitPx
// added since the TWAP was sent applies), and the kill switch's cancels (killSwitchCancelRunning) run
// in a cycle of their own when no strategy ran (a review of the first version).
for (const broken of [false, true])
  it(`a limitPx added to the DCA file after its TWAP started applies (staking file broken: ${broken})`, async () => {
    writeDca("dca"); // no guard when the TWAP was sent
    writeStaking(false);
    const cfg = writeBot(["dca.yaml", "staking.yaml"]);
    await placeDca(cfg);
    // The operator sees the price run and adds a ceiling to stop the TWAP; the staking file is half-edited.
    sim.setPrice("PURR/USDC", "0.6");
    writeDca("dca", { limitPx: "0.3" });
    writeStaking(broken);
    const r = await runCli(["once", ...cfg, "--json"], { env: env() });
    const summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "").summary;
    expect(summary.watch).toMatchObject({ checked: 1, cancelled: 1 });
    expect(running()).toHaveLength(0);
  }, 60_000);

for (const broken of [false, true])
  it(`touch state/STOP with killSwitchCancelRunning cancels the running TWAP at the next once (staking file broken: ${broken})`, async () => {
    writeDca("dca");
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
