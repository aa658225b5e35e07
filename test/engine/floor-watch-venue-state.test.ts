// The floor watch sets what this bot's running TWAPs may still spend of a floored token against the
// account's total. A TWAP of ours cancelled by hand (or ended) spends nothing more: counted from the journal
// at its even pace, it had the watch cancel another TWAP that kept within the floor (a review).
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { watchRunningTwaps } from "../../src/engine/guards.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { HYPE_ASSET } from "../simulator/fixtures.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const dca = (name: string, schedule: string) => ({
  name,
  kind: "twap-accumulate",
  schedule,
  params: { coin: "HYPE", side: "buy", amountUsd: 4000, twap: { minutes: 120, randomize: false } },
});

it("a TWAP of ours cancelled by hand counts for nothing: the other one, within the floor, keeps running", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [dca("first", "0 0 * * *"), dca("second", "0 0 * * *")],
    fund: { USDC: "13000" },
    limits: { keepOnSpot: { USDC: 4000 } },
  });
  const b = bot;
  b.sim.setPrice("@107", "25");
  const deps = () => b.runtime.cycleDeps({ multiSig: null });
  const placed = await runCycle(deps(), { trigger: "once", strategies: b.runtime.strategies() });
  const ids = placed.actions.filter((a) => a.outcome === "accepted").map((a) => a.twapId!);
  expect(ids).toHaveLength(2);
  // The first cancelled by hand; then 3,000 USDC withdrawn: 10,000 − what filled is left, over the
  // floor of 4,000 by more than the second's rest, though not by both rests.
  expect(b.sim.core.twaps.cancel(b.address, HYPE_ASSET, ids[0]!)).toBe(true);
  b.sim.advance(10 * 60_000);
  b.sim.fund(b.address, "USDC", "-3000");
  const watch = await watchRunningTwaps(deps(), b.runtime.strategies());
  expect(watch.report?.actions.filter((a) => a.action === "twapCancel") ?? []).toEqual([]);
  expect(b.sim.twaps(b.address).find((t) => t.id === ids[1])?.status).toBe("activated");
});

/** Two DCAs' TWAPs of 4,000 USDC each over 120 min, 10 minutes in, after `withdrawn` USDC left the account. */
async function twoRunning(withdrawn: string, firstByHand = false) {
  bot = await startTestBot({
    mode: "live",
    strategies: [dca("first", "0 0 * * *"), dca("second", "0 0 * * *")],
    fund: { USDC: "13000" },
    limits: { keepOnSpot: { USDC: 4000 } },
  });
  const b = bot;
  b.sim.setPrice("@107", "25");
  const deps = () => b.runtime.cycleDeps({ multiSig: null });
  const placed = await runCycle(deps(), { trigger: "once", strategies: b.runtime.strategies() });
  const ids = placed.actions.filter((a) => a.outcome === "accepted").map((a) => a.twapId!);
  expect(ids).toHaveLength(2);
  if (firstByHand) {
    // As `hlbot twap` journals it: under the strategy name "manual".
    const db = new Database(join(b.dir, "state", "hlbot.db"));
    db.prepare("UPDATE submissions SET strategy = 'manual' WHERE twap_id = ?").run(ids[0]);
    db.close();
  }
  b.sim.advance(10 * 60_000);
  b.sim.fund(b.address, "USDC", `-${withdrawn}`);
  await watchRunningTwaps(deps(), b.runtime.strategies());
  const status = (id: number) => b.sim.twaps(b.address).find((t) => t.id === id)?.status;
  return ids.map(status);
}

it("cancels only as many of our TWAPs as the floor needs, the newest first (a review: both went where one was enough)", async () => {
  // About 9,330 USDC left, each TWAP with about 3,670 to go: without the newer one, 5,660 stay over 4,000.
  expect(await twoRunning("3000")).toEqual(["activated", "terminated"]);
});

it("never cancels a TWAP placed by hand for the floor: README holds manual commands to no floor (a review)", async () => {
  // About 7,330 USDC left: the bot's TWAP is cancelled; the user's own keeps running.
  expect(await twoRunning("5000", true)).toEqual(["activated", "terminated"]);
});
