// A schedule edited after the strategy acted: the slot of the new schedule nearest that run counts as
// acted in. Moving a daily DCA from 08:00 to 08:30 at 08:45, after it bought at 08:00, bought a second
// time that day (review of 2026-11-27). Through `once`'s pass and the journal's slot rows, on the simulator.
import { afterEach, expect, it } from "vitest";
import { oncePass } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

it("moving a daily schedule later the same day does not buy a second time that day; the next day it buys", async () => {
  const dca = {
    name: "dca",
    kind: "twap-accumulate",
    schedule: "0 8 * * *",
    params: { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 10, randomize: false } },
  };
  bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "5000" } });
  const b = bot;
  const pass = async (strategies = b.runtime.strategies()) =>
    oncePass(b.runtime.cycleDeps(await b.runtime.facts()), strategies);
  const placed = () => b.sim.ledger({ kind: "twapPlaced", user: b.address }).length;
  await pass(); // first sight
  const day = 24 * 60 * 60_000;
  const at8 = Math.ceil((b.sim.now() + 1) / day) * day + 8 * 60 * 60_000;
  b.sim.advance(at8 + 30_000 - b.sim.now());
  expect((await pass()).runs[0]?.acted).toEqual(["dca"]);
  expect(placed()).toBe(1);
  // 08:45: the owner moves the daily buy to 08:30 (same strategy, same params).
  b.sim.advance(45 * 60_000);
  const edited = b.runtime.strategies().map((s) => ({ ...s, schedule: "30 8 * * *" }));
  const second = await pass(edited);
  expect(second.runs).toEqual([]);
  expect(placed()).toBe(1);
  // The next day's 08:30 buys.
  b.sim.advance(day - 15 * 60_000 + 30_000);
  expect((await pass(edited)).runs[0]?.acted).toEqual(["dca"]);
  expect(placed()).toBe(2);
});
