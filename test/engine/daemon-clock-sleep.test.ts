// A clock trial: the daemon (`hlbot run`) across a laptop sleep or an NTP step forward that
// crosses a daily slot. node-cron's timers run on the monotonic clock; a tick that fires more than
// MISSED_TICK_TOLERANCE_MS (60 s) late is dropped as "missed", and nothing else asks the scheduler
// for due slots. README (clockWatch's own warning): "the slots skipped over count as missed and are
// caught up within the catch-up window" was untrue. Now the latest late tick is delivered to the
// scheduler, which plans from the wall clock and the journal. Expected: the 08:30 slot is caught up once on wake (it is
// well inside schedule.catchUp = 2h). Fake timers: setSystemTime moves the wall clock only, as a
// suspend does (timers / CLOCK_MONOTONIC do not advance while suspended).
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "30 8 * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

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

/** The DCA's TWAPs (HYPE, pair @107), not the PURR one of the mitigation check. */
const placed = (b: TestBot) =>
  b.sim
    .ledger()
    .filter((e) => e.kind === "twapPlaced" && e.user === b.address && JSON.stringify(e).includes('"@107"'));

async function setup(offsetMs = 0, extra: Array<Record<string, unknown>> = []) {
  const b = await startTestBot({ mode: "live", strategies: [DCA, ...extra], fund: { USDC: "20000" } });
  bot = b;
  // 07:50 UTC of the next day.
  const day = Math.floor(b.sim.now() / DAY) * DAY + DAY;
  b.sim.advanceTo(day + 7 * HOUR + 50 * MINUTE);
  b.clockOffsetMs = offsetMs;
  clock = sinon.useFakeTimers({
    now: b.sim.now() + offsetMs,
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"],
  });
  const { logger, lines } = captureLogger();
  daemon = new Daemon({
    runtime: b.runtime,
    strategies: scheduledStrategies(b.runtime.config.strategies),
    logger,
  });
  daemon.start();
  await daemon.idle();
  return { b, d: daemon, c: clock, lines, day };
}

async function stepMinutes(b: TestBot, d: Daemon, c: sinon.SinonFakeTimers, n: number) {
  for (let i = 0; i < n; i++) {
    b.sim.advance(MINUTE);
    await c.tickAsync(MINUTE);
    await d.idle();
  }
}

describe("daemon: a daily slot crossed by a sleep or a clock step", () => {
  it("control: no sleep, the 08:30 DCA buys once", async () => {
    const { b, d, c } = await setup();
    await stepMinutes(b, d, c, 50);
    expect(placed(b)).toHaveLength(1);
  });

  it("laptop asleep 08:00 -> 09:00: the 08:30 slot is caught up on wake (it is 30 min old, catchUp 2h)", async () => {
    const { b, d, c } = await setup();
    await stepMinutes(b, d, c, 10); // 08:00
    // Suspend for an hour: the venue's time and the wall clock move on, timers do not.
    b.sim.advance(HOUR);
    c.setSystemTime(Date.now() + HOUR);
    await stepMinutes(b, d, c, 90); // awake until 10:30 (the slot is then exactly 2h old)
    expect(placed(b)).toHaveLength(1);
  });

  it("NTP corrects a clock 2 min slow by a step at 08:29 (within maxClockSkew): the 08:30 slot still runs", async () => {
    const { b, d, c } = await setup(-2 * MINUTE);
    await stepMinutes(b, d, c, 39); // local 08:27, venue 08:29
    c.setSystemTime(Date.now() + 2 * MINUTE);
    b.clockOffsetMs = 0;
    await stepMinutes(b, d, c, 60);
    expect(placed(b)).toHaveLength(1);
  });

  it("a 1-hour sleep at 14:00, far from any slot, does not lose the NEXT day's 08:30 buy (its 24h timer fires an hour late)", async () => {
    const { b, d, c } = await setup();
    await stepMinutes(b, d, c, 50); // 08:40 day 1: bought once
    expect(placed(b)).toHaveLength(1);
    // Awake until 14:00, in 10-minute steps.
    for (let i = 0; i < 32; i++) await stepMinutes10(b, d, c);
    b.sim.advance(HOUR);
    c.setSystemTime(Date.now() + HOUR); // suspended 14:00 -> 15:00
    // Awake until 09:40 the next day (18h40).
    for (let i = 0; i < 112; i++) await stepMinutes10(b, d, c);
    expect(placed(b)).toHaveLength(2);
  });

  it("(what the owner hears) no slot is said missed: each day's buy is made", async () => {
    const { b, d, c, lines } = await setup();
    await stepMinutes(b, d, c, 50); // 08:40 day 1
    for (let i = 0; i < 32; i++) await stepMinutes10(b, d, c);
    b.sim.advance(HOUR);
    c.setSystemTime(Date.now() + HOUR);
    for (let i = 0; i < 112 + 144; i++) await stepMinutes10(b, d, c); // to 09:40 day 3
    expect(placed(b)).toHaveLength(3);
    // No slot was lost, so none is said missed (it was said a day late, after the buy was lost).
    expect(lines.filter((l) => /missed \d+ slot/.test(String(l.msg)))).toEqual([]);
  });

  it("clock 10 min ahead (held), NTP steps it back at venue 08:45: the day's buy comes once", async () => {
    const { b, d, c } = await setup(10 * MINUTE); // local 08:00, venue 07:50
    await stepMinutes(b, d, c, 55); // venue 08:45, local 08:55: held since local 08:30
    expect(placed(b)).toHaveLength(0);
    c.setSystemTime(Date.now() - 10 * MINUTE);
    b.clockOffsetMs = 0;
    await stepMinutes(b, d, c, 120); // to venue 10:45
    expect(placed(b)).toHaveLength(1);
  });

  it("(mitigation check) with an hourly strategy beside it, the daily DCA is caught up at the next hourly tick", async () => {
    const HOURLY = {
      name: "hourly",
      kind: "twap-accumulate",
      schedule: "0 * * * *",
      params: {
        coin: "PURR",
        quote: "USDC",
        side: "buy",
        amountUsd: 150,
        twap: { minutes: 5, randomize: false },
      },
    };
    const { b, d, c } = await setup(0, [HOURLY]);
    await stepMinutes(b, d, c, 10); // 08:00
    b.sim.advance(HOUR);
    c.setSystemTime(Date.now() + HOUR); // asleep 08:00 -> 09:00
    await stepMinutes(b, d, c, 90);
    expect(placed(b)).toHaveLength(1);
  });
});

async function stepMinutes10(b: TestBot, d: Daemon, c: sinon.SinonFakeTimers) {
  // A minute at a time: the daemon's minute watch may start a cycle, whose requests must be answered
  // before the fake clock runs past their timeouts.
  await stepMinutes(b, d, c, 10);
}
