// A numbers audit: `hlbot twap buy --size 1.5` (HYPE at 25: about 37 USDC) signed a valid-looking
// request, and `--live` sent it for the venue to refuse ("TWAP order value too small"). An order valued
// under the venue's TWAP minimum is refused before anything is signed or sent.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runCli } from "../helpers/cli.js";

let sim: Simulator & { url: string };
const dir = mkdtempSync(join(tmpdir(), "hlbot-twap-min-"));
const wallet = Wallet.createRandom();
beforeAll(async () => {
  sim = await startSimulator({ clock: "real", rateLimit: false });
  sim.fund(wallet.address.toLowerCase(), "USDC", "5000");
  sim.setPrice("@107", "25");
});
afterAll(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("a manual TWAP worth less than the venue minimum is refused before it is signed or sent", async () => {
  const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
  const args = [
    "--coin",
    "HYPE",
    "--minutes",
    "5",
    "--live",
    "--base-url",
    sim.url,
    "--state",
    join(dir, "st"),
  ];
  const small = await runCli(["twap", "buy", "--size", "1.5", ...args], { env });
  expect(small.code).toBe(2);
  expect(small.stderr).toMatch(
    /--size: 1\.5 is worth 37\.5 USDC at the mid 25: the venue refuses a TWAP worth less than 100 USDC \(venue\.twapMinOrderValue\)/,
  );
  expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(0);
  // At the minimum or above, it goes out.
  const enough = await runCli(["twap", "buy", "--size", "4", ...args], { env });
  expect(enough.code, enough.stderr).toBe(0);
  // The live line names the network (a go-live trial: it named neither network nor bot file).
  expect(enough.stderr).toMatch(
    /accepted: twapOrder on testnet, nonce \d+, signed by 0x[0-9a-f]{40}; twapId \d+/,
  );
  expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
}, 60_000);
