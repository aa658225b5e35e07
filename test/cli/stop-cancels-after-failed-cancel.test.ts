// An urgent exit (a seller's trial): `hlbot stop --cancel-twaps` with two TWAPs running on two pairs.
// One failed cancel (a 500 from the exchange endpoint) stopped the kill switch's other cancels in that
// cycle ("not sent: an earlier action of this strategy in this cycle was not accepted"), and the next
// stop, run once the venue answered again, held every cancel behind the first one's unknown outcome
// ("waiting: an earlier cancellation is not reconciled yet") and exited 0 while both TWAPs kept selling.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { cliWithKey, writeManualBotFile } from "../helpers/manualBot.js";

let sim: Simulator & { url: string };
let dir: string;
let wallet: ReturnType<typeof Wallet.createRandom>;
let address: string;

beforeEach(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  dir = mkdtempSync(join(tmpdir(), "hlbot-review-stop-"));
  wallet = Wallet.createRandom();
  address = wallet.address.toLowerCase();
  sim.fund(address, "HYPE", "1000");
  sim.fund(address, "PURR", "100000");
  sim.fund(address, "USDC", "100");
});
afterEach(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const writeConfig = () =>
  writeManualBotFile(dir, {
    baseUrl: sim.url,
    limits: { maxOrderUsd: 50000, maxDailyNotionalUsd: 100000, maxStakeMovePerDay: 5 },
    logLevel: "silent",
  });

const cli = (args: string[]) => cliWithKey(wallet.privateKey, args);

const running = () => sim.twaps(address).filter((t) => String(t.status) === "activated").length;

describe("stop --cancel-twaps after one failed cancel", () => {
  it("still cancels the other TWAPs, or exits non-zero while they run", async () => {
    const config = writeConfig();
    for (const [coin, size] of [
      ["HYPE", "500"],
      ["PURR", "50000"],
    ] as const) {
      const placed = await cli([
        "twap",
        "sell",
        "--coin",
        coin,
        "--size",
        size,
        "--minutes",
        "600",
        "--live",
        "--config",
        config,
      ]);
      expect(placed.code, placed.stderr).toBe(0);
    }
    expect(running()).toBe(2);

    // The exchange answers 500 during the first stop: its first cancel is unknown.
    sim.setFaults({ exchange: { serverErrorRate: 1 } });
    const first = await cli(["stop", "--config", config, "--cancel-twaps"]);
    sim.setFaults({});
    expect(first.code).toBe(1);
    // Both cancels were tried (the second was "not sent: an earlier action … was not accepted").
    expect(first.stdout).not.toMatch(/not sent: an earlier action of this strategy/);
    expect(first.stdout.match(/kill-switch: twapCancel \(allowed; sent, outcome UNKNOWN/g)).toHaveLength(2);

    // The venue answers again; the operator runs the stop again at once.
    const second = await cli(["stop", "--config", config, "--cancel-twaps"]);
    // Both cancels sent again and accepted: nothing runs (it exited 0 with both still selling).
    expect({ left: running(), code: second.code }).toEqual({ left: 0, code: 0 });
    expect(second.stdout.match(/kill-switch: twapCancel \(allowed; sent, accepted/g)).toHaveLength(2);
  }, 60_000);
});
