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

it("a dry run that read the venue (--coin) refuses it too; one signed offline (--asset, --sz-decimals) is not valued", async () => {
  // A fact-check trial: the dry run of a 12-USDC TWAP printed "dry run: twapOrder not sent … Add --live
  // to send it." while --live refused it, though the dry run had read spotMeta for --coin already.
  const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
  const state = ["--state", join(dir, "dry")];
  const dry = await runCli(
    ["twap", "buy", "--size", "0.5", "--coin", "HYPE", "--minutes", "30", "--base-url", sim.url, ...state],
    { env },
  );
  expect(dry.code).toBe(2);
  expect(dry.stderr).toMatch(
    /--size: 0\.5 is worth 12\.5 USDC at the mid 25: the venue refuses a TWAP worth less than 100 USDC/,
  );
  expect(dry.stdout).not.toMatch(/twapOrder/);
  // At the minimum, the same dry run signs it.
  const fine = await runCli(
    ["twap", "buy", "--size", "4", "--coin", "HYPE", "--minutes", "30", "--base-url", sim.url, ...state],
    { env },
  );
  expect(fine.code, fine.stderr).toBe(0);
  expect(`${fine.stdout}${fine.stderr}`).toMatch(/dry run: twapOrder not sent/);
  // Offline signing reads nothing: nothing to value it with, so it signs as before (nothing listens here).
  const offline = await runCli(
    [
      "twap",
      "buy",
      "--size",
      "0.5",
      "--asset",
      "10107",
      "--sz-decimals",
      "2",
      "--minutes",
      "30",
      "--base-url",
      "http://127.0.0.1:9",
      ...state,
    ],
    { env },
  );
  expect(offline.code, offline.stderr).toBe(0);
  expect(`${offline.stdout}${offline.stderr}`).toMatch(/dry run: twapOrder not sent/);
  expect(sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
}, 60_000);
