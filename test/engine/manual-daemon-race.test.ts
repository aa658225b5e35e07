// A safety review: the daily limits are checked against usage read once per cycle (cycle.ts: dayUsage, then
// applyLimits accumulates in memory) and, in another process, once per manual command (manual.ts:
// manualRefusal). Nothing serialises the two with the journal writes, so a manual TWAP typed while the
// daemon's cycle is sending its intents passes against the usage it read, and the cycle's later intents
// pass against usage that never saw the manual one: together they exceeded maxDailyNotionalUsd. The
// journal now checks the limits again in the transaction that writes each submission.
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { executeManualAction, manualVenue } from "../../src/engine/manual.js";
import { privateKeySigner } from "../../src/venue/signing/signer.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

it("a manual TWAP during a cycle's sends cannot take the day past maxDailyNotionalUsd", async () => {
  const dca = (name: string, coin: string) => ({
    name,
    kind: "twap-accumulate",
    params: { coin, side: "buy", amountUsd: 600, twap: { minutes: 30, randomize: false } },
  });
  bot = await startTestBot({
    mode: "live",
    strategies: [dca("dca-hype", "HYPE"), dca("dca-purr", "PURR")],
    limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 1000 },
    fund: { USDC: "20000" },
  });
  bot.sim.setPrice("@107", "25");
  const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
  // Each /exchange answer takes 800 ms (a slow venue); reads stay fast.
  bot.sim.setFaults({ exchange: { latencyMs: 800 } });
  const cycle = runCycle(deps, { trigger: "once", strategies: bot.runtime.strategies() });
  await new Promise((r) => setTimeout(r, 400)); // the cycle's first TWAP is in flight
  const config = bot.runtime.config;
  const venue = manualVenue(config, { network: config.network, baseUrl: bot.sim.url });
  let manual: Awaited<ReturnType<typeof executeManualAction>>;
  try {
    manual = await executeManualAction({
      venue,
      config,
      // 0.003 UBTC at ~95,000 = ~285 USD on UBTC/USDC (asset 10142): within what the manual command sees left.
      call: {
        type: "twapOrder",
        params: { asset: 10142, isBuy: true, size: "0.003", szDecimals: 5, minutes: 30 },
      } as never,
      signer: privateKeySigner(bot.key),
      account: bot.address,
      live: true,
      stateDir: config.state,
      stateFromConfig: true,
      reason: "hlbot twap --coin UBTC --buy --size 0.003",
      note: () => {},
      warn: () => {},
      clock: () => bot!.sim.now(),
    });
  } finally {
    await venue.close();
  }
  const report = await cycle;
  const used = bot.runtime.journal.usage(bot.address, 0).notionalUsd;
  // Whichever wrote second is refused before sending, with the reason; the day stays within its limit.
  expect(used.toNumber()).toBeLessThanOrEqual(1000);
  const refused = [
    ...(manual.status === "done" && manual.outcome.status === "accepted" ? [] : [JSON.stringify(manual)]),
    ...report.actions.filter((a) => a.outcome === "rejected").map((a) => a.detail ?? ""),
  ].join("\n");
  expect(refused).toMatch(/would pass maxDailyNotionalUsd 1000/);
});
