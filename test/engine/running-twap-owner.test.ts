// A portfolio trial: "a TWAP #1000 is already running on HYPE/USDC" held a rebalancer without saying whose
// TWAP it was (another strategy's, one typed by hand, or one this bot never placed). The venue does not
// say; the journal does, and the reason now names it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { placeManualHypeTwap } from "../helpers/manual.js";

let bot: TestBot | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await bot?.close();
  bot = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const DCA = {
  name: "dca-hype",
  kind: "twap-accumulate",
  params: { coin: "HYPE", side: "buy", amountUsd: 500, twap: { minutes: 60, randomize: false } },
};

const heldReason = async (b: TestBot, strategy: string) => {
  const report = await runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
    trigger: "once",
    strategies: b.runtime.strategies().filter((s) => s.name === strategy),
  });
  expect(report.actions).toEqual([]);
  return report.decisions.map((d) => d.decision.reason).join("\n");
};

/** A manual TWAP buy of 20 HYPE, journaled in `stateDir`. */
const manualTwap = (b: TestBot, stateDir: string) =>
  placeManualHypeTwap(b, { stateDir, size: "20", minutes: 60 });

it("a strategy held by another strategy's running TWAP names that strategy", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [DCA, REBALANCE],
    fund: { HYPE: "100", USDC: "20000" },
  });
  bot.sim.setPrice("@107", "25");
  const first = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
    trigger: "once",
    strategies: bot.runtime.strategies().filter((s) => s.name === "dca-hype"),
  });
  expect(first.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
  expect(await heldReason(bot, "rebalance")).toMatch(
    /a TWAP #\d+ of dca-hype is already running on HYPE\/USDC/,
  );
});

it("a TWAP typed by hand, or one this bot's journal never saw, is said to be so", async () => {
  bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
  bot.sim.setPrice("@107", "25");
  await manualTwap(bot, bot.runtime.config.state);
  expect(await heldReason(bot, "dca-hype")).toMatch(
    /a TWAP #\d+ \(placed by hand: hlbot twap\) is already running on HYPE\/USDC/,
  );

  // Another journal placed it (another bot, or this one's before a new state folder).
  bot.sim.advance(61 * 60_000);
  const other = mkdtempSync(join(tmpdir(), "hlbot-other-"));
  dirs.push(other);
  await manualTwap(bot, other);
  expect(await heldReason(bot, "dca-hype")).toMatch(
    /a TWAP #\d+ \(not placed by this bot\) is already running on HYPE\/USDC/,
  );
});
