// A chaos trial: a DCA slot whose only TWAP never reached the venue was settled as acted, and the buy of
// that slot was lost although the slot was still within schedule.catchUp.
// (1) every send answered HTTP 500 (outcome unknown; the venue did nothing), reconciled absent a
//     minute later: the next `once` in the same slot said "not due". Now absent reopens the slot.
// (2) every send answered 429 (rejected "rate limited": never processed): the same. Now the slot stays due.
import sinon from "sinon";
import { afterEach, expect, it } from "vitest";
import { Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { submissionEvents } from "../../src/engine/notify/events.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { lostSlots, type Missed, oncePass, runDueSlots, Scheduler } from "../../src/engine/scheduler.js";
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
async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {});
}
const outcomes = (p: Awaited<ReturnType<typeof once>>) =>
  p.runs.flatMap((r) => r.report?.actions.map((a) => `${a.action}:${a.outcome}`) ?? []);
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "30 8 * * *", // daily
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

for (const [label, faults] of [
  ["HTTP 500 on every send (unknown, later absent)", { exchange: { serverErrorRate: 1 } }],
  ["429 on every send (rejected: never processed)", { exchange: { rateLimitRate: 1 } }],
] as const) {
  it(`a daily DCA buys in its slot after ${label}, once the venue answers again`, async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot + 1_000);
    bot.sim.setFaults(faults);
    const first = await once(bot);
    bot.sim.setFaults({});
    expect(outcomes(first)).toHaveLength(1);
    expect(outcomes(first)[0]).not.toBe("twapOrder:accepted");
    // 15 minutes later (a cron every 15 min), well within schedule.catchUp (2 h): nothing landed.
    bot.sim.advanceTo(slot + 15 * MINUTE);
    const res = await fetch(`${bot.sim.url}/info`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "twapHistory", user: bot.address }),
    });
    const twaps = (await res.json()) as unknown[];
    expect(twaps).toHaveLength(0); // the venue never placed the order
    const second = await once(bot);
    // The slot's buy is placed now (it said "not due" until the next day).
    expect(outcomes(second)).toEqual(["twapOrder:accepted"]);
    // And once only: the next pass in the same slot sends nothing.
    bot.sim.advanceTo(slot + 30 * MINUTE);
    expect(outcomes(await once(bot))).toEqual([]);
  });
}

// A review of the above.
it("daemon: a daily DCA's slot reopened by an absent verdict is acted in within schedule.catchUp", async () => {
  bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
  const b = bot;
  b.sim.setPrice("@107", "25");
  b.runtime.journal.slotState(b.address, "dca", b.sim.now() - 1);
  const slot = new CronSchedule(DCA.schedule).next(b.sim.now())!;
  b.sim.advanceTo(slot - 2 * MINUTE);
  clock = sinon.useFakeTimers({
    now: b.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const { logger } = captureLogger();
  daemon = new Daemon({
    runtime: b.runtime,
    strategies: scheduledStrategies(b.runtime.config.strategies),
    logger,
  });
  const d = daemon;
  const step = async (times: number) => {
    for (let i = 0; i < times; i++) {
      b.sim.advance(MINUTE);
      await clock!.tickAsync(MINUTE);
      await d.idle();
    }
  };
  d.start();
  await step(1);
  b.sim.setFaults({ exchange: { serverErrorRate: 1 } }); // every attempt answered 500: outcome unknown
  for (let i = 0; i < 120; i++) {
    b.sim.advance(1000);
    await clock.tickAsync(1000);
  }
  await d.idle();
  b.sim.setFaults({});
  expect(b.runtime.journal.lastTwapSubmission("dca")?.status).toBe("unknown");
  await step(60); // the watch reconciles it absent once it expired, and the slot is planned again
  // It waited for the next day's tick (nothing planned the reopened slot).
  expect(b.sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
}, 120_000);

const DAY = 24 * 60 * 60_000;
async function rateLimitedSlot() {
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "dca",
        kind: "twap-accumulate",
        schedule: "0 8 * * *",
        params: { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 30, randomize: false } },
      },
    ],
    fund: { USDC: "5000" },
  });
  const b = bot;
  b.sim.setPrice("@107", "25");
  const scheduler = new Scheduler({
    journal: b.runtime.journal,
    account: b.address,
    mode: "live",
    strategies: b.runtime.strategies(),
  });
  scheduler.register(b.sim.now());
  b.sim.advance(Math.ceil((b.sim.now() + 1) / DAY) * DAY + 8 * 3600_000 + 30_000 - b.sim.now());
  b.sim.setFaults({ exchange: { rateLimitRate: 1 } });
  return { b, scheduler, slot: Math.floor(b.sim.now() / DAY) * DAY + 8 * 3600_000 };
}

it("a daily slot lost because every send was rate limited is reported lost (the daemon's scheduler said 'superseded while deferred')", async () => {
  const { b, scheduler, slot } = await rateLimitedSlot();
  let attempts = 0;
  const missed: Missed[] = [];
  const lost: Missed[] = [];
  for (let i = 0; i < 12; i++) {
    const r = await runDueSlots(scheduler, b.runtime.cycleDeps(await b.runtime.facts()), { trigger: "run" });
    missed.push(...r.plan.missed);
    lost.push(...lostSlots(r.plan));
    attempts += r.runs.flatMap((run) => run.report?.actions ?? []).length;
    b.sim.advance(15 * 60_000);
  }
  expect(attempts).toBeGreaterThan(1); // tried again while the slot was due
  const plan = scheduler.plan(b.sim.now());
  missed.push(...plan.missed);
  lost.push(...lostSlots(plan));
  expect(missed.filter((m) => m.latest === slot).map((m) => m.whileDeferred === true)).toEqual([false]);
  expect(lost.filter((m) => m.latest === slot)).toHaveLength(1);
});

it("the notice of a never-processed (429) send says nothing happened and it is tried again", async () => {
  const { b, scheduler } = await rateLimitedSlot();
  const r = await runDueSlots(scheduler, b.runtime.cycleDeps(await b.runtime.facts()), { trigger: "run" });
  expect(r.runs[0]!.deferred).toEqual(["dca"]);
  const events = submissionEvents(
    { account: b.address, network: "testnet", now: b.sim.now() },
    r.runs[0]!.report!,
  );
  expect(events.map((e) => [e.type, e.title])).toEqual([
    [
      "submission.rejected",
      expect.stringMatching(
        /^dca: twapOrder buy [\d.]+ HYPE \(HYPE\/USDC, asset 10107\) over 30 min NOT PROCESSED \(the venue was rate limiting, unreachable, or a proxy refused it\): nothing happened; tried again while its slot is due$/,
      ),
    ],
  ]);
});
