// The alert "no successful cycle for two schedule periods" paged all night after a block of runs: the
// period after "*/2 6 * * *"'s 06:58 slot is the 2 minutes inside tomorrow's block (an SRE's trial). The
// scheduler now also gives each strategy's latest slot, and the shipped alert fires only when a slot has
// come since the last success.
import { afterEach, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { Scheduler } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

it("gives each strategy's latest slot beside its next one and the gap after it", async () => {
  const workHours = {
    name: "workhours",
    kind: "twap-accumulate",
    schedule: "*/2 6 * * *",
    params: { coin: "HYPE", quote: "USDC", side: "buy", amountUsd: 250, twap: { minutes: 30 } },
  };
  bot = await startTestBot({ mode: "live", strategies: [workHours], fund: { USDC: "20000" } });
  const d = bot.runtime.cycleDeps(await bot.runtime.facts());
  const scheduler = new Scheduler({
    journal: d.journal,
    account: d.account,
    mode: "live",
    strategies: scheduledStrategies(bot.runtime.config.strategies),
  });
  const at = Date.parse("2025-03-04T07:06:36Z");
  const slots = scheduler.nextSlots(at).get("workhours")!;
  expect(slots.previous).toBe(Date.parse("2025-03-04T06:58:00Z"));
  expect(slots.next).toBe(Date.parse("2025-03-05T06:00:00Z"));
  expect(slots.periodMs).toBe(120_000);
  // A success at 06:58:05 is after the latest slot: no slot has come since, nothing to alert on.
  expect(slots.previous! < Date.parse("2025-03-04T06:58:05Z")).toBe(true);
});
