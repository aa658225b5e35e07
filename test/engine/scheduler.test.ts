// The one scheduler of `run`, `once` and `simulate` against the embedded simulator in virtual time:
// `once` called every 15 minutes acts only in due cron slots (issue #12 case 1), catches a slot missed
// by downtime up once within the window, reports older ones as missed, and keeps deferred slots due.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { type CycleReport, runCycle } from "../../src/engine/cycle.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { Journal } from "../../src/engine/journal.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { lostSlots, oncePass, Scheduler } from "../../src/engine/scheduler.js";
import { openStateDb } from "../../src/lib/stateDb.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";

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
    budgetUsd: 10000,
    twap: { minutes: 30, randomize: false },
  },
};

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

function twapsPlaced(b: TestBot) {
  return b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
}

async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {
    ...(b.runtime.config.schedule ? { catchUpMs: b.runtime.config.schedule.catchUpMs } : {}),
  });
}

describe("a slot is acted in at most once, also across a crash", () => {
  it("a DCA whose TWAP was sent by a process that died before settling the slot does not buy again in it", async () => {
    const dca = { ...DCA, params: { ...DCA.params, twap: { minutes: 5, randomize: false } } };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot); // first sight: registers the strategy
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    // What a process does up to the send, dying before the scheduler records the slot as acted.
    const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
    const sent = await runCycle(deps, {
      trigger: "once",
      strategies: scheduledStrategies(bot.runtime.config.strategies),
    });
    expect(sent.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * MINUTE); // the TWAP has ended
    const next = await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    expect(next.plan.notDue.find((n) => n.strategy === "dca")?.reason).toMatch(
      /^acted in the slot of .*T08:30:00\.000Z already \(an earlier run sent its actions\): next slot /,
    );
    // The next day's slot buys as usual.
    bot.sim.advanceTo(slot + DAY);
    await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(2);
  });
});

describe("a clock that ran ahead and was corrected", () => {
  it("does not hold a daily DCA until the clock reaches the slots it settled then (an operator's trial)", async () => {
    // Past the hold on a far clock (schedule.maxClockSkew, raised here): what a clock ahead leaves behind.
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA],
      fund: { USDC: "20000" },
      configExtra: { schedule: { maxClockSkew: "3d" } },
    });
    bot.sim.setPrice("@107", "25");
    await once(bot); // first sight: registers the strategy
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    // A minute into today's slot the machine's clock jumps a day ahead: tomorrow's slot is settled then.
    bot.sim.advanceTo(slot + MINUTE);
    bot.clockOffsetMs = DAY;
    const ahead = await once(bot);
    expect(ahead.plan.groups.flatMap((g) => g.strategies.map((x) => x.name))).toEqual(["dca"]);
    expect(bot.runtime.journal.slotState(bot.address, "dca", bot.sim.now() + DAY).lastSlot).toBe(slot + DAY);
    const placedAhead = twapsPlaced(bot).length;
    // Corrected: today's slot comes and is acted in, unless what ran ahead sent something.
    bot.clockOffsetMs = 0;
    bot.sim.advanceTo(slot + 2 * MINUTE);
    const back = await once(bot);
    if (placedAhead === 0) {
      expect(back.plan.groups.flatMap((g) => g.strategies.map((x) => x.name))).toEqual(["dca"]);
      expect(twapsPlaced(bot)).toHaveLength(1);
    } else {
      expect(back.plan.notDue.find((n) => n.strategy === "dca")?.reason).toMatch(/already/);
      expect(twapsPlaced(bot)).toHaveLength(placedAhead);
    }
    const before = twapsPlaced(bot).length;
    // And the next day's slot buys as usual (before the fix: the slot memory said tomorrow, nothing ran).
    bot.sim.advanceTo(slot + DAY + MINUTE);
    await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(before + 1);
  });
});

describe("a clock that ran ahead, then a schedule edit or a frequent schedule (a review)", () => {
  async function onceWith(b: TestBot, schedule?: string) {
    const deps = b.runtime.cycleDeps(await b.runtime.facts());
    const list = scheduledStrategies(b.runtime.config.strategies).map((s) =>
      schedule === undefined ? s : ({ ...s, schedule } as typeof s),
    );
    return oncePass(deps, list, {});
  }

  it("a daily DCA that bought, then the clock two days ahead, corrected, and moved 08:30 → 09:00: no second buy", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await onceWith(bot);
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot + MINUTE);
    await onceWith(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    bot.sim.advanceTo(slot + 2 * MINUTE);
    bot.clockOffsetMs = 2 * DAY; // nothing can be sent (a nonce 2 days ahead): tomorrow's slot is settled missed
    await onceWith(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    bot.clockOffsetMs = 0;
    bot.sim.advanceTo(slot + 35 * MINUTE);
    await onceWith(bot, "0 9 * * *");
    expect(twapsPlaced(bot)).toHaveLength(1);
  });

  it("an hourly DCA that sent while 12 hours ahead buys in each real hour after the correction", async () => {
    const hourly = {
      ...DCA,
      schedule: "0 * * * *",
      params: { ...DCA.params, twap: { minutes: 5, randomize: false } },
    };
    bot = await startTestBot({ mode: "live", strategies: [hourly], fund: { USDC: "50000" } });
    bot.sim.setPrice("@107", "25");
    await onceWith(bot);
    const slot = new CronSchedule(hourly.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot + MINUTE);
    await onceWith(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    bot.sim.advanceTo(slot + 30 * MINUTE);
    bot.clockOffsetMs = 12 * HOUR; // the slot 12 h on is due, and its TWAP accepted (under a day ahead)
    await onceWith(bot);
    const afterAhead = twapsPlaced(bot).length;
    bot.clockOffsetMs = 0;
    for (let h = 1; h <= 3; h++) {
      bot.sim.advanceTo(slot + h * HOUR + MINUTE);
      await onceWith(bot);
    }
    expect(twapsPlaced(bot)).toHaveLength(afterAhead + 3);
  });
});

describe("a watch cancel is not the strategy acting", () => {
  it("a maxDeviation cancel made by once just after a slot began leaves the slot to run in that once", async () => {
    // Every 10 minutes a 30-minute TWAP guarded at 1%: the price jumps, and the once at :10 cancels the
    // running TWAP (the watch runs first) and then runs the :10 slot, which buys again.
    const dca = {
      ...DCA,
      schedule: "*/10 * * * *",
      params: { ...DCA.params, twap: { minutes: 30, randomize: false, maxDeviation: 0.01 } },
    };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(dca.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    bot.sim.advanceTo(slot + 10 * MINUTE + 5_000);
    bot.sim.setPrice("@107", "27");
    const pass = await once(bot);
    expect(pass.watch.report?.actions.map((a) => [a.action, a.outcome])).toEqual([
      ["twapCancel", "accepted"],
    ]);
    expect(pass.plan.notDue.find((n) => n.strategy === "dca")).toBeUndefined();
    expect(twapsPlaced(bot)).toHaveLength(2);
  });
});

describe("a brief stop across a slot", () => {
  it("keeps the slot due: blocked by the kill switch at 08:30, the DCA buys once resumed within the catch-up", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    const stop = bot.runtime.config.limits.killSwitchFile;
    writeFileSync(stop, "paused for a minute\n");
    const blocked = await once(bot);
    expect(blocked.runs.flatMap((r) => r.report?.decisions.map((d) => d.guard) ?? [])).toEqual(["blocked"]);
    expect(twapsPlaced(bot)).toHaveLength(0);
    rmSync(stop);
    bot.sim.advance(MINUTE);
    await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    // Acted in now: not again in the same slot.
    bot.sim.advance(45 * MINUTE);
    await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
  });
});

describe("once follows the strategies' cron schedules (virtual time)", () => {
  it("a DCA scheduled 30 8 * * * run by once every 15 minutes buys once a day, at 08:30", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot); // first sight: registers the strategy, nothing is due
    for (let t = 15 * MINUTE; t <= 3 * DAY; t += 15 * MINUTE) {
      bot.sim.advance(15 * MINUTE);
      await once(bot);
    }
    const placed = twapsPlaced(bot);
    expect(placed.map((e) => new Date(e.time).toISOString())).toEqual([
      new Date(start + 8.5 * HOUR).toISOString(),
      new Date(start + DAY + 8.5 * HOUR).toISOString(),
      new Date(start + 2 * DAY + 8.5 * HOUR).toISOString(),
    ]);
  }, 120_000);

  it("says which strategies were not due, and when they are", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    const first = await once(bot);
    expect(first.runs).toEqual([]);
    expect(first.plan.notDue).toEqual([
      expect.objectContaining({
        strategy: "dca",
        reason: expect.stringMatching(/not due: next slot .*T08:30:00/),
      }),
    ]);
  });

  it("catches a slot missed by downtime up once within the window, never twice; older ones are missed", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot);
    bot.sim.advanceTo(start + 8.5 * HOUR);
    expect((await once(bot)).runs.map((r) => r.acted)).toEqual([["dca"]]);
    // Down until 09:40 two days later: the 08:30 slot of that day is caught up, the one before is missed.
    bot.sim.advanceTo(start + 2 * DAY + 9 * HOUR + 40 * MINUTE);
    const back = await once(bot);
    expect(back.runs.map((r) => [new Date(r.group.slot).toISOString(), r.acted])).toEqual([
      [new Date(start + 2 * DAY + 8.5 * HOUR).toISOString(), ["dca"]],
    ]);
    expect(back.plan.missed).toEqual([
      { strategy: "dca", count: 1, latest: start + DAY + 8.5 * HOUR, whileDeferred: false },
    ]);
    // Superseded by a slot that ran: not lost (the decision was made at the later slot).
    expect(lostSlots(back.plan)).toEqual([]);
    bot.sim.advance(15 * MINUTE);
    expect((await once(bot)).runs).toEqual([]); // never twice
    // Down past the window: reported as missed, not run.
    bot.sim.advanceTo(start + 3 * DAY + 11 * HOUR);
    const late = await once(bot);
    expect(late.runs).toEqual([]);
    expect(late.plan.missed).toEqual([
      { strategy: "dca", count: 1, latest: start + 3 * DAY + 8.5 * HOUR, whileDeferred: false },
    ]);
    // Nothing ran for it at all: lost (told as schedule.missed).
    expect(lostSlots(late.plan)).toEqual(late.plan.missed);
    expect((await once(bot)).plan.missed).toEqual([]); // reported once
    expect(twapsPlaced(bot)).toHaveLength(2);
  }, 60_000);

  it("a failed run leaves its slot due: the next once call within the window acts in it", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA],
      fund: { USDC: "20000" },
      configExtra: { venue: { readAttempts: 1 } },
    });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot);
    bot.sim.advanceTo(start + 8.5 * HOUR);
    bot.sim.setFaults({ info: { serverErrorRate: 1 } });
    const failed = await once(bot);
    expect(failed.runs.map((r) => r.error)).toEqual([expect.stringMatching(/500/)]);
    bot.sim.setFaults({});
    bot.sim.advance(15 * MINUTE);
    expect((await once(bot)).runs.map((r) => r.acted)).toEqual([["dca"]]);
    expect(twapsPlaced(bot)).toHaveLength(1);
  }, 60_000);

  it("a slot missed before a due one that keeps failing is reported by the first once call only", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA],
      fund: { USDC: "20000" },
      configExtra: { venue: { readAttempts: 1 } },
    });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot);
    // Down over day 1's slot; back within day 2's window, but the venue fails every read for a while.
    bot.sim.advanceTo(start + DAY + 9 * HOUR);
    bot.sim.setFaults({ info: { serverErrorRate: 1 } });
    const missedSeen = [];
    for (let i = 0; i < 4; i++) {
      const r = await once(bot);
      expect(r.runs.map((x) => x.error)).toEqual([expect.stringMatching(/500/)]);
      missedSeen.push(r.plan.missed);
      bot.sim.advance(15 * MINUTE);
    }
    expect(missedSeen).toEqual([
      [{ strategy: "dca", count: 1, latest: start + 8.5 * HOUR, whileDeferred: false }],
      [],
      [],
      [],
    ]);
    bot.sim.setFaults({});
    // The due slot (day 2's) is still acted in once the venue answers.
    const ok = await once(bot);
    expect(ok.runs.map((r) => [new Date(r.group.slot).toISOString(), r.acted])).toEqual([
      [new Date(start + DAY + 8.5 * HOUR).toISOString(), ["dca"]],
    ]);
    expect(ok.plan.missed).toEqual([]);
  }, 60_000);
});

describe("a stop between a cycle's actions", () => {
  it("settles the strategies that sent (no second DCA TWAP after a restart) and leaves due those that sent nothing", async () => {
    const STAKE = {
      name: "staking",
      kind: "validator-staking",
      schedule: "30 8 * * *",
      params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 10 } },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA, STAKE],
      fund: { USDC: "20000", HYPE: "1000" },
    });
    bot.sim.setPrice("@107", "25");
    const start = bot.sim.now();
    await once(bot); // first sight
    bot.sim.advanceTo(start + 8.5 * HOUR);
    // Ctrl-C while the first request (the DCA's TWAP) is in flight.
    const stopping = new AbortController();
    const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
    const exchange = deps.exchange!;
    const submit = exchange.submit.bind(exchange);
    exchange.submit = (async (...args: Parameters<typeof submit>) => {
      const out = await submit(...args);
      stopping.abort();
      return out;
    }) as typeof exchange.submit;
    const cut = await oncePass(deps, scheduledStrategies(bot.runtime.config.strategies), {
      readSignal: stopping.signal,
    });
    expect(cut.runs.map((r) => [r.acted, r.deferred, r.report?.cutShort?.notSent])).toEqual([
      [["dca"], ["staking"], 3],
    ]);
    expect(twapsPlaced(bot)).toHaveLength(1);
    // Restarted 40 minutes later (the TWAP has ended), within the catch-up window.
    bot.sim.advanceTo(start + 8.5 * HOUR + 40 * MINUTE);
    const again = await once(bot);
    expect(again.runs.map((r) => r.acted)).toEqual([["staking"]]);
    expect(twapsPlaced(bot)).toHaveLength(1);
    expect(bot.sim.ledger().filter((e) => e.kind === "cDeposit" && e.user === bot!.address)).toHaveLength(1);
  }, 60_000);
});

describe("deferred slots stay due (CONTRACTS #1)", () => {
  it("a slot whose decisions were all deferred skips is not settled; one with any other decision is", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-defer-"));
    const db = await openStateDb({ dir });
    try {
      const journal = new Journal(db);
      const strategies = [
        { name: "a", kind: "twap-accumulate", params: {}, schedule: "0 * * * *" },
        { name: "b", kind: "twap-accumulate", params: {}, schedule: "0 * * * *" },
      ] as never;
      const scheduler = new Scheduler({ journal, account: "0xabc", strategies });
      const t0 = Date.parse("2026-01-01T00:00:00Z");
      scheduler.register(t0 - 1);
      const [group] = scheduler.plan(t0).groups;
      expect(group?.strategies.map((x) => x.name)).toEqual(["a", "b"]);
      const report = {
        startedAt: t0,
        decisions: [
          {
            decision: { kind: "skip", strategy: "a", reason: "balance reserved", defer: true },
            guard: "skipped",
          },
          { decision: { kind: "skip", strategy: "b", reason: "nothing to do" }, guard: "skipped" },
        ],
        actions: [],
      } as unknown as CycleReport;
      expect(scheduler.settle(group!, report)).toEqual({ acted: ["b"], deferred: ["a"], failed: [] });
      // "a" is tried again after a minute (still the same slot); "b" is done with it.
      expect(scheduler.plan(t0 + 30_000).groups).toEqual([]);
      const again = scheduler.plan(t0 + MINUTE).groups;
      expect(again.map((g) => [g.slot, g.strategies.map((x) => x.name)])).toEqual([[t0, ["a"]]]);
      // Still waiting when the next slot comes: its slot is superseded while deferred (the daemon says
      // so at info, not as a warning at every tick); "b" simply has its next slot due.
      scheduler.settle(again[0]!, report);
      const next = scheduler.plan(t0 + HOUR + MINUTE);
      expect(next.missed).toEqual([{ strategy: "a", count: 1, latest: t0, whileDeferred: true }]);
      // Deferred, then its retries failed (an outage) until the next slot: a slot lost to failures, not
      // "superseded while deferred" (it was said at info with the deferral's words).
      const [deferredAgain] = scheduler
        .plan(t0 + HOUR + MINUTE)
        .groups.filter((g) => g.strategies.some((x) => x.name === "a"));
      scheduler.settle(deferredAgain!, { ...report, startedAt: t0 + HOUR } as CycleReport);
      scheduler.failed(deferredAgain!, t0 + HOUR + 2 * MINUTE);
      const afterOutage = scheduler.plan(t0 + 2 * HOUR + MINUTE);
      expect(afterOutage.missed).toEqual([
        { strategy: "a", count: 1, latest: t0 + HOUR, whileDeferred: false },
      ]);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it("a daily slot deferred until it left the catch-up window is lost, not 'superseded' (a review: no-book holds)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-defer-"));
  const db = await openStateDb({ dir });
  try {
    const journal = new Journal(db);
    const strategies = [{ name: "dca", kind: "twap-accumulate", params: {}, schedule: "0 1 * * *" }] as never;
    const scheduler = new Scheduler({ journal, account: "0xabc", strategies, catchUpMs: 3 * MINUTE });
    const t0 = Date.parse("2026-01-01T01:00:00Z");
    scheduler.register(t0 - 1);
    const report = {
      startedAt: t0,
      decisions: [
        {
          decision: { kind: "skip", strategy: "dca", reason: "HYPE/USDC has no book", defer: true },
          guard: "blocked",
        },
      ],
      actions: [],
    } as unknown as CycleReport;
    // Held at each try within its 3-minute window.
    for (let t = t0; t < t0 + 3 * MINUTE; t += MINUTE) {
      const [group] = scheduler.plan(t).groups;
      if (group) scheduler.settle(group, { ...report, startedAt: t } as CycleReport);
    }
    // The window is over and no later slot is due: the day's buy is lost, and said so (schedule.missed).
    const after = scheduler.plan(t0 + 4 * MINUTE);
    expect(after.missed).toEqual([{ strategy: "dca", count: 1, latest: t0, whileDeferred: false }]);
    expect(lostSlots(after).map((m) => m.strategy)).toEqual(["dca"]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("the TWAP watch in once and simulate", () => {
  it("once cancels a rebalance TWAP whose mid moved past twap.maxDeviation, journaled with the reason", async () => {
    const guarded = {
      ...REBALANCE,
      schedule: "0 * * * *",
      params: { ...REBALANCE.params, twap: { minutes: 60, randomize: false, maxDeviation: 0.05 } },
    };
    bot = await startTestBot({ mode: "live", strategies: [guarded], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const start = bot.sim.now();
    await once(bot);
    bot.sim.advanceTo(start + HOUR);
    expect((await once(bot)).runs.map((r) => r.report?.actions.map((a) => a.action))).toEqual([
      ["twapOrder"],
    ]);
    bot.sim.advance(15 * MINUTE);
    expect((await once(bot)).watch).toMatchObject({ checked: 1, report: undefined }); // within 5%
    bot.sim.setPrice("@107", "37"); // a sell, and the mid fell about 7.5%
    bot.sim.advance(15 * MINUTE);
    const pass = await once(bot);
    expect(pass.watch.report?.actions.map((a) => [a.strategy, a.action, a.outcome])).toEqual([
      ["rebalance", "twapCancel", "accepted"],
    ]);
    expect(pass.watch.report?.actions[0]?.reason).toMatch(
      /moved [\d.]+% against the sell from [\d.]+ at decision time \(maxDeviation 5%\)/,
    );
    expect(bot.sim.twaps(bot.address).map((t) => t.status)).toEqual(["terminated"]);
    bot.sim.advance(15 * MINUTE);
    expect((await once(bot)).watch.checked).toBe(0); // cancelled: nothing left to watch
  }, 60_000);

  it("simulate stops a 4-hourly sell DCA within two minutes of a crash through its floor", {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-crash-"));
    try {
      // The demo scenario, with HYPE flat at 25 for an hour, then crashing to 15 over ten minutes.
      const scenario = readFileSync(DEMO_SCENARIO_PATH, "utf8").replace(
        /"@107": \{[^}]*\}/,
        '"@107": { interpolate: linear, points: [{ at: 0s, px: "25" }, { at: 1h, px: "25" }, { at: 70m, px: "15" }, { at: 2d, px: "15" }] }',
      );
      expect(scenario).toContain("at: 70m");
      writeFileSync(join(dir, "crash.yaml"), scenario);
      writeFileSync(
        join(dir, "sell.yaml"),
        stringify({
          name: "sell-dca",
          kind: "twap-accumulate",
          schedule: "0 */4 * * *",
          params: {
            coin: "HYPE",
            quote: "USDC",
            side: "sell",
            amountUsd: 2000,
            limitPx: 22,
            twap: { minutes: 240, randomize: false },
          },
        }),
      );
      writeFileSync(
        join(dir, "bot.yaml"),
        stringify({
          network: "testnet",
          strategies: ["sell.yaml"],
          state: "./state",
          limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 1000 },
        }),
      );
      const config = await loadConfig(join(dir, "bot.yaml"), {});
      const { record } = await runSimulation({ config, scenarioFile: join(dir, "crash.yaml"), days: 0.5 });
      const from = record.from;
      // 25 − 10·(t − 60 min)/10 min < 22 from minute 63 on.
      const crossedAt = from + 63 * MINUTE;
      const slices = record.ledger.filter((e) => e.kind === "twapSlice");
      expect(slices.filter((e) => e.time < crossedAt).length).toBeGreaterThan(100);
      expect(slices.filter((e) => e.time >= crossedAt + 2 * MINUTE)).toEqual([]);
      const cancels = record.cycles.flatMap((c) => c.decisions.filter((d) => d.kind === "twapCancel"));
      expect(cancels.map((d) => [d.strategy, d.outcome])).toEqual([["sell-dca", "accepted"]]);
      expect(cancels[0]?.reason).toMatch(/below the sell floor limitPx 22/);
      // The next slots (04:00, 08:00) skip: the mid is below the floor.
      const later = record.cycles.filter((c) => c.at >= from + 4 * HOUR).flatMap((c) => c.decisions);
      expect(later.map((d) => d.kind)).toEqual(["skip", "skip"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
