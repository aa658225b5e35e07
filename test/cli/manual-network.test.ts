// A manual command run without a bot file on a state folder of another network: the refusal names
// what set the network (the command's --network), not a bot file the user never gave.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { BIN, ensureBuilt } from "../helpers/dist.js";

let sim: Simulator & { url: string };
let work: string;
const wallet = Wallet.createRandom();

beforeAll(async () => {
  ensureBuilt(["cli/main.js", "engine/manual.js", "lib/stateDb.js"]);
  sim = await startSimulator({ rateLimit: false, clock: "real" });
  sim.fund(wallet.address.toLowerCase(), "HYPE", "100");
  work = mkdtempSync(join(tmpdir(), "hlbot-manual-network-"));
}, 120_000);

afterAll(async () => {
  await sim?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function hlbot(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? "", HLBOT_PRIVATE_KEY: wallet.privateKey },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("a manual command on another network's state folder", () => {
  it("says the command's network, and how to go on, without naming a bot file", async () => {
    const state = join(work, "state");
    const first = await hlbot(["stake", "--amount", "1", "--live", "--base-url", sim.url, "--state", state]);
    expect(first.code, first.stderr).toBe(0);
    const other = await hlbot([
      "stake",
      "--amount",
      "1",
      "--network",
      "mainnet",
      "--live",
      "--base-url",
      sim.url,
      "--state",
      state,
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /belongs to a testnet bot .*and this command acts on mainnet\. .*give it a mainnet state folder with --state/,
    );
    expect(other.stderr).not.toMatch(/bot file says/);
  }, 60_000);
});
