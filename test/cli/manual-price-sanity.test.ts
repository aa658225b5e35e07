// A manual TWAP passes the price checks a strategy's TWAP passes, and the limits value it as a cycle
// does (an architecture review: `hlbot twap buy` was valued at the bare allMids mid and never checked,
// so 60 HYPE at a glitching mid 70% under the day's price passed maxOrderUsd 500 at 450 USD, where a
// cycle blocked the same order and would have valued it at 1,500). The CLI in-process against the
// embedded simulator on 127.0.0.1 (real clock), with a real bot file and state folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Wallet } from "ethers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { cliWithKey, writeManualBotFile } from "../helpers/manualBot.js";
import { startRewritingProxy } from "../helpers/rewritingProxy.js";
import { demoWithHypeAt } from "../helpers/scenario.js";

let sim: Simulator & { url: string };
let dir: string;
let wallet: ReturnType<typeof Wallet.createRandom>;
let address: string;

beforeEach(async () => {
  // HYPE/USDC at 25 since before the start: the venue's previous-day price is 25.
  sim = await startSimulator({ clock: "real", rateLimit: false, scenario: demoWithHypeAt("25", 0) });
  dir = mkdtempSync(join(tmpdir(), "hlbot-manual-sanity-"));
  wallet = Wallet.createRandom();
  address = wallet.address.toLowerCase();
  sim.fund(address, "HYPE", "100");
  sim.fund(address, "USDC", "5000");
});
afterEach(async () => {
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
});

const writeConfig = (mode: "live" | "dry-run" = "live", baseUrl = sim.url) =>
  writeManualBotFile(dir, {
    baseUrl,
    mode,
    limits: { maxOrderUsd: 800, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 5 },
  });
const cli = (args: string[]) => cliWithKey(wallet.privateKey, args);

const twapBuy = (size: string, config: string, live = true) =>
  cli([
    "twap",
    "buy",
    "--coin",
    "HYPE",
    "--size",
    size,
    "--minutes",
    "30",
    ...(live ? ["--live"] : []),
    "--config",
    config,
  ]);
const placed = () => sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === address);

function decisions() {
  const db = new Database(join(dir, "state", "hlbot.db"), { readonly: true });
  try {
    return db
      .prepare("SELECT guard, guard_reason AS guardReason, intent FROM decisions ORDER BY id")
      .all() as Array<{ guard: string; guardReason: string | null; intent: string }>;
  } finally {
    db.close();
  }
}

describe("manual TWAPs and the price checks", () => {
  it("a mid 70% under the previous-day price refuses the order, as a cycle blocks it", async () => {
    const config = writeConfig();
    sim.setPrice("@107", "7.5");
    const run = await twapBuy("60", config); // 450 USD at the mid: under maxOrderUsd 800
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused, nothing sent: HYPE\/USDC mid 7\.5 is 70% below the previous-day price 25, outside the 50% bound .*\(price sanity\); a manual order passes the price checks of .*bot\.yaml \(limits\.priceSanity\)/,
    );
    // A strategy's words are not what happens to a manual order.
    expect(run.stderr).not.toMatch(/tried again while its slot is due/);
    expect(placed()).toHaveLength(0);
    expect(decisions().map((d) => d.guard)).toEqual(["blocked"]);

    // A dry run says the same (nothing is written to the state folder's journal).
    const dry = await twapBuy("60", config, false);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(/70% below the previous-day price 25/);
    expect(placed()).toHaveLength(0);
  });

  it("an order the checks pass is valued at the highest agreeing price for maxOrderUsd", async () => {
    const config = writeConfig();
    sim.setPrice("@107", "20"); // 20% under the previous-day 25: within the 50% bound
    // 36 HYPE: 720 USD at the mid, 900 at the previous-day price: above maxOrderUsd 800.
    const big = await twapBuy("36", config);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/above maxOrderUsd 800 USD \(≈900\.00 USD\); a manual order is never resized/);
    expect(placed()).toHaveLength(0);

    // 30 HYPE: 750 USD at 25: sent at the size typed, journaled at the value the limits counted.
    const ok = await twapBuy("30", config);
    expect(ok.code, ok.stderr).toBe(0);
    expect(placed()).toHaveLength(1);
    const allowed = decisions().filter((d) => d.guard === "allowed");
    expect(allowed).toHaveLength(1);
    const intent = JSON.parse(allowed[0]!.intent) as { size: string; notionalUsd: string };
    expect([intent.size, intent.notionalUsd]).toEqual(["30", "750"]);
  });
});

describe("manual TWAPs: refusals in a manual order's words", () => {
  it("a pair with no book is refused without a slot or a bound to widen", async () => {
    // A review: "(price sanity; the slot stays due); … widen that bound there" of a halted pair.
    const config = writeConfig();
    sim.setPairHalted("@107", true);
    const run = await twapBuy("10", config);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused, nothing sent: HYPE\/USDC has no book.*\(price sanity\)/);
    expect(run.stderr).not.toMatch(/slot stays due|widen that bound/);
  });

  it("a price read that fails is named as such, and a dry run does not speak of counting other instances", async () => {
    // A review: a failed spotMetaAndAssetCtxs was blamed on "the venue's history of the last 24 h", in a
    // dry run too, which counts no history.
    const proxy = await startRewritingProxy(sim.url);
    try {
      const config = writeConfig("live", proxy.url);
      proxy.failInfo("spotMetaAndAssetCtxs", 10);
      const dry = await twapBuy("10", config, false);
      expect(dry.code).toBe(1);
      expect(dry.stderr).toMatch(
        /the venue's prices and account state the checks before the limits read cannot be read: spotMetaAndAssetCtxs: .*without it the dry run cannot check the order as a live one would be/,
      );
      expect(dry.stderr).not.toMatch(/another instance/);
      const live = await twapBuy("10", config);
      expect(live.code).toBe(1);
      expect(live.stderr).toMatch(
        /the venue's account state \(the twapHistory of the last 24 h for maxDailyNotionalUsd, and the prices the checks before the limits read\) cannot be read/,
      );
      expect(placed()).toHaveLength(0);
    } finally {
      await proxy.close();
    }
  });
});
