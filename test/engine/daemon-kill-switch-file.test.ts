// An urgent exit under the daemon (a seller's trial): `touch state/STOP` (README: "`hlbot stop` (or
// `touch state/STOP`)") with limits.killSwitchCancelRunning: true. `once` cancels the running TWAPs at
// its next call, even when no strategy is due; the daemon ran the kill switch's cancels only inside a
// strategy's cycle, so a daily seller's sale kept filling for hours. Its watch now cancels them.
import { writeFileSync } from "node:fs";
import sinon from "sinon";
import { afterEach, expect, it } from "vitest";
import { Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

const MINUTE = 60_000;
let bot: TestBot | undefined;
let clock: sinon.SinonFakeTimers | undefined;
let daemon: Daemon | undefined;
afterEach(async () => {
  if (daemon) {
    const stopping = daemon.stop(0);
    await clock?.tickAsync(10_000);
    await stopping;
  }
  clock?.restore();
  await bot?.close();
  bot = undefined;
  clock = undefined;
  daemon = undefined;
});
async function step(d: Daemon, ms: number, times = 1) {
  for (let i = 0; i < times; i++) {
    bot!.sim.advance(ms);
    await clock!.tickAsync(ms);
    await d.idle();
  }
}

it("daemon: a kill switch file engaged with killSwitchCancelRunning cancels the running sale within minutes", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "sell-dca",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: {
          coin: "HYPE",
          quote: "USDC",
          side: "sell",
          amountUsd: 5000,
          twap: { minutes: 600, randomize: false },
        },
      },
    ],
    fund: { HYPE: "1000" },
    limits: { killSwitchCancelRunning: true },
  });
  bot.sim.setPrice("@107", "25");
  bot.runtime.journal.slotState(bot.address, "sell-dca", bot.sim.now() - 1);
  clock = sinon.useFakeTimers({
    now: bot.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const { logger } = captureLogger();
  daemon = new Daemon({
    runtime: bot.runtime,
    strategies: scheduledStrategies(bot.runtime.config.strategies),
    logger,
  });
  daemon.start();
  await step(daemon, MINUTE, 2);
  const placed = bot.sim.twaps(bot.address).map((t) => String(t.status));
  expect(placed).toEqual(["activated"]);

  writeFileSync(bot.runtime.config.limits.killSwitchFile, "urgent exit");
  await step(daemon, MINUTE, 2);
  // Cancelled within the watch's minute (it ran on until the strategy's next slot).
  expect(bot.sim.twaps(bot.address).map((t) => String(t.status))).toEqual(["terminated"]);
  // Once done, the engaged switch costs no further cycle.
  const cycles = bot.runtime.journal.recentCycles(100).length;
  await step(daemon, MINUTE, 5);
  expect(bot.runtime.journal.recentCycles(100)).toHaveLength(cycles);
}, 60_000);
