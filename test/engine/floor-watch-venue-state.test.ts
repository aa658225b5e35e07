// The floor watch sets what this bot's running TWAPs may still spend of a floored token against the
// account's total. A TWAP of ours cancelled by hand (or ended) spends nothing more: counted from the journal
// at its even pace, it had the watch cancel another TWAP that kept within the floor (a review).
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
