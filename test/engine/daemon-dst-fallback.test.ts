// A clock trial: `hlbot run` on a host whose time zone has DST (TZ=Europe/Berlin here; the same
// with America/New_York on its fall-back night). Schedules are UTC and node-cron is given
// timezone "UTC", yet node-cron 4.6.0 reads "now" with Date#setMilliseconds(0) (local time): during
// the repeated local hour (02:00-03:00 CET = 01:00-02:00 UTC on 2025-10-26) that jumps an hour back,
// so its heartbeat re-arms setTimeout(0) for the whole hour and drops every tick in it as "missed".
// Expected: an hourly DCA buys at 01:00 and 02:00 UTC, and node-cron arms a handful of timers.
process.env.TZ = "Europe/Berlin";

import cron from "node-cron";
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { cronSchedule, Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

const MINUTE = 60_000;
const FALL_BACK = Date.UTC(2025, 9, 26, 1, 0); // 03:00 CEST -> 02:00 CET

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
  bot = clock = daemon = undefined;
});

describe("fall-back night on a Europe/Berlin host", () => {
  it("node-cron (as hlbot's daemon configures it) ticks at 01:00 UTC without spinning", async () => {
    clock = sinon.useFakeTimers({
      now: FALL_BACK - 10 * MINUTE,
      toFake: ["setTimeout", "clearTimeout", "Date"],
    });
    const ticks: string[] = [];
    const { logger } = captureLogger();
    let job = { stop: () => {} };
    job = cronSchedule("0 * * * *", (at) => ticks.push(at.toISOString()), { name: "hourly", logger });
    // Count the timers node-cron arms (a spy would keep millions of calls); stop it once it spins.
    let armed = 0;
    const real = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      armed++;
      if (armed === 1000) {
        queueMicrotask(() => job.stop());
      }
      return real(fn, ms);
    }) as typeof setTimeout;
    try {
      await clock.tickAsync(70 * MINUTE + 1000); // to 02:00:01 UTC
    } finally {
      globalThis.setTimeout = real;
      job.stop();
    }
    expect(ticks).toEqual(["2025-10-26T01:00:00.000Z", "2025-10-26T02:00:00.000Z"]);
    expect(armed).toBeLessThan(100);
    void cron;
  }, 120_000);

  it("the daemon's hourly DCA buys at 01:00 UTC (02:00 CET, the repeated hour)", async () => {
    const b = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "hourly",
          kind: "twap-accumulate",
          schedule: "0 * * * *",
          params: {
            coin: "HYPE",
            quote: "USDC",
            side: "buy",
            amountUsd: 150,
            twap: { minutes: 5, randomize: false },
          },
        },
      ],
      fund: { USDC: "50000" },
    });
    bot = b;
    b.sim.advanceTo(FALL_BACK - 10 * MINUTE);
    clock = sinon.useFakeTimers({
      now: b.sim.now(),
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
    });
    const { logger } = captureLogger();
    daemon = new Daemon({
      runtime: b.runtime,
      strategies: scheduledStrategies(b.runtime.config.strategies),
      logger,
    });
    daemon.start();
    await daemon.idle();
    for (let i = 0; i < 14; i++) {
      b.sim.advance(5 * MINUTE);
      await clock.tickAsync(5 * MINUTE);
      await daemon.idle();
    }
    const placed = b.sim
      .ledger()
      .filter((e) => e.kind === "twapPlaced" && e.user === b.address)
      .map((e) => new Date(e.time as number).toISOString());
    expect(placed).toEqual(["2025-10-26T01:00:00.000Z", "2025-10-26T02:00:00.000Z"]);
  }, 180_000);
});
