// A cron user's trial (`hlbot once` every 15 minutes), against the embedded simulator over HTTP on
// 127.0.0.1 in virtual time, real SQLite state in a temp folder: what a trader expects after one refused
// order, a lost answer, a restored state folder and a machine clock minutes slow (each failed on the
// code before its fix), and the cases that held (kept as guards): 3 days off, a removed strategy.
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { openRuntime } from "../../src/engine/runtime.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { silentLogger } from "../../src/lib/log.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function once(b: TestBot) {
  const deps = b.runtime.cycleDeps(await b.runtime.facts());
  return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {
    ...(b.runtime.config.schedule ? { catchUpMs: b.runtime.config.schedule.catchUpMs } : {}),
  });
}

function twapsPlaced(b: TestBot) {
  return b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
}

const HOURLY_DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "0 * * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

/** A 4-hourly 50/50 rebalancer whose 2-hour TWAPs are guarded by maxDeviation 5%. */
const GUARDED_REBALANCE = {
  name: "rebalance",
  kind: "twap-rebalance",
  schedule: "0 */4 * * *",
  params: {
    targets: { HYPE: 0.5, USDC: 0.5 },
    quote: "USDC",
    band: 0.05,
    twap: { minutes: 120, randomize: false, maxDeviation: 0.05 },
    minOrderUsd: 10,
  },
};

describe("a DCA after one refused TWAP", () => {
  function outcomes(pass: Awaited<ReturnType<typeof once>>) {
    return pass.runs.flatMap((r) => r.report?.actions.map((a) => a.outcome) ?? []);
  }
  function reasons(pass: Awaited<ReturnType<typeof once>>) {
    return pass.runs.flatMap((r) => r.report?.decisions.map((d) => d.decision.reason) ?? []);
  }

  it("is not held back by a refusal of the request (a nonce off by a slow clock): it buys at the next slot", async () => {
    // The venue's nonce window is one minute here; the machine's clock is 3 minutes slow for one run.
    bot = await startTestBot({
      mode: "live",
      strategies: [HOURLY_DCA],
      fund: { USDC: "20000" },
      sim: { nonceWindowMs: MINUTE },
    });
    bot.sim.setPrice("@107", "25");
    await once(bot); // first sight: registers the strategy
    const slot = new CronSchedule(HOURLY_DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot + 5 * MINUTE);
    bot.clockOffsetMs = -3 * MINUTE;
    const refused = await once(bot);
    expect(outcomes(refused)).toEqual(["rejected"]);
    expect(bot.runtime.journal.lastTwapSubmission("dca")?.reason).toMatch(/nonce/i);
    bot.clockOffsetMs = 0;
    bot.sim.advanceTo(slot + HOUR);
    const next = await once(bot);
    // Before: "not sent: the venue refused this identical order" at every slot from then on (a DCA's
    // order is the same at every slot), a DCA stopped for good by one slow run.
    expect(reasons(next).filter((r) => /refused this identical order/.test(r))).toEqual([]);
    expect(outcomes(next)).toEqual(["accepted"]);
    expect(twapsPlaced(bot)).toHaveLength(1);
  });

  it("refused for its balance: held while the balances stand, sent once USDC arrives, tried again after a while", async () => {
    // The venue holds 10% beside a buy, the bot plans with 3%: 250 USDC of HYPE from 262 is refused.
    bot = await startTestBot({
      mode: "live",
      strategies: [HOURLY_DCA],
      fund: { USDC: "262" },
      sim: { settings: { twapBuyHoldMargin: "0.1" } },
    });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(HOURLY_DCA.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    expect(outcomes(await once(bot))).toEqual(["rejected"]);
    // An hour on, nothing changed: the same order would be refused again, so it is not sent.
    bot.sim.advanceTo(slot + HOUR);
    const held = await once(bot);
    expect(outcomes(held)).toEqual([]);
    expect(reasons(held).join("\n")).toMatch(
      /refused this identical order .*balances have not changed since/,
    );
    // Seven hours on, nothing changed still: tried once more (the cause may have been the venue's).
    bot.sim.advanceTo(slot + 7 * HOUR);
    expect(outcomes(await once(bot))).toEqual(["rejected"]);
    // USDC arrives: the next slot buys.
    bot.sim.fund(bot.address, "USDC", "5000");
    bot.sim.advanceTo(slot + 8 * HOUR);
    expect(outcomes(await once(bot))).toEqual(["accepted"]);
    expect(twapsPlaced(bot)).toHaveLength(1);
  });
});

describe("the TWAP watch of `once` and a TWAP whose answer was lost", () => {
  it("cancels a guarded rebalancer TWAP that landed with a lost answer, at the next once, with no strategy due", async () => {
    const rebalance = GUARDED_REBALANCE;
    bot = await startTestBot({ mode: "live", strategies: [rebalance], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    await once(bot); // registers
    const slot = new CronSchedule(rebalance.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    bot.sim.setFaults({ exchange: { dropRate: 1 } }); // the venue applies the sell, the answer is lost
    const placed = await once(bot);
    expect(placed.runs.flatMap((r) => r.report?.actions.map((a) => a.outcome) ?? [])).toEqual(["unknown"]);
    bot.sim.setFaults({});
    expect(twapsPlaced(bot)).toHaveLength(1);
    // The price of the sale crashes 15% (maxDeviation 5%). Cron calls once 15 and 30 minutes later.
    bot.sim.advanceTo(slot + 5 * MINUTE);
    bot.sim.setPrice("@107", "34");
    bot.sim.advanceTo(slot + 15 * MINUTE);
    const p1 = await once(bot);
    bot.sim.advanceTo(slot + 30 * MINUTE);
    const p2 = await once(bot);
    const cancels = [p1, p2].flatMap(
      (p) => p.watch.report?.actions.filter((a) => a.action === "twapCancel") ?? [],
    );
    // The 15-minute once cancels it. Before: no cancel, nothing reconciled the lost answer until a
    // strategy was due again (4 h later), so the whole 120-minute sale ran through the crash unguarded.
    expect(cancels.map((a) => a.outcome)).toEqual(["accepted"]);
  });
});

describe("a state folder restored from an older backup (the whole folder, as the README says to back up)", () => {
  it("does not let a DCA spend its budget again", async () => {
    const dca = { ...HOURLY_DCA, params: { ...HOURLY_DCA.params, budgetUsd: 1000 } };
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "20000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(dca.schedule).next(bot.sim.now())!;
    const state = join(bot.dir, "state");
    const backup = join(bot.dir, "state-backup");
    for (let h = 0; h < 2; h++) {
      bot.sim.advanceTo(slot + h * HOUR);
      await once(bot);
    }
    // Nightly backup of the whole state folder, taken with the bot stopped.
    await bot.runtime.close();
    cpSync(state, backup, { recursive: true });
    await bot.reopen();
    for (let h = 2; h < 6; h++) {
      bot.sim.advanceTo(slot + h * HOUR);
      await once(bot);
    }
    const before = twapsPlaced(bot).length; // 4 x ~250 = the 1000-USD budget, then "budget used up"
    expect(before).toBeGreaterThanOrEqual(3);
    // The disk dies; the user restores last night's backup of the state folder.
    await bot.runtime.close();
    rmSync(state, { recursive: true, force: true });
    cpSync(backup, state, { recursive: true });
    await bot.reopen();
    for (let h = 6; h < 9; h++) {
      bot.sim.advanceTo(slot + h * HOUR);
      await once(bot);
    }
    // Nothing more is bought: the venue shows TWAPs the restored journal lacks, so the DCA holds until
    // `journal rebuild`. Before: it bought ~500 USD more, silently, 50% over budget.
    expect(twapsPlaced(bot)).toHaveLength(before);
    const last = await once(bot);
    expect(last.runs.flatMap((r) => r.report?.decisions.map((d) => d.decision.reason) ?? [])).toEqual([
      expect.stringMatching(
        /^holding: the venue shows \d TWAP\(s\) .*does not have \(a new or restored state folder/,
      ),
    ]);
  });
});

describe("a machine clock a few minutes slow", () => {
  it("still lets the TWAP watch cancel a guarded TWAP (hlbot knows the venue's clock from its Date header)", async () => {
    const rebalance = GUARDED_REBALANCE;
    bot = await startTestBot({ mode: "live", strategies: [rebalance], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    await once(bot);
    const slot = new CronSchedule(rebalance.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    const placed = await once(bot);
    expect(placed.runs.flatMap((r) => r.report?.actions.map((a) => a.outcome) ?? [])).toEqual(["accepted"]);
    // The laptop's clock drifts 3 minutes slow (no NTP on a sleeping laptop); the price crashes.
    bot.clockOffsetMs = -3 * MINUTE;
    bot.sim.advanceTo(slot + 20 * MINUTE);
    bot.sim.setPrice("@107", "34");
    const pass = await once(bot);
    const cancels = pass.watch.report?.actions.filter((a) => a.action === "twapCancel") ?? [];
    // Before: the cancel was signed with expiresAfter = local time + 60 s, already past on the venue:
    // "Action already expired", and the sale ran on through the crash.
    expect(cancels.map((a) => a.outcome)).toEqual(["accepted"]);
    expect(bot.sim.twaps(bot.address).filter((t) => t.status === "activated")).toHaveLength(0);
  });
});

describe("cron user, cases that held", () => {
  it("after 3 days off, an hourly DCA buys once, not 72 times", async () => {
    const dca = HOURLY_DCA;
    bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "50000" } });
    bot.sim.setPrice("@107", "25");
    await once(bot);
    const slot = new CronSchedule(dca.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    await once(bot);
    bot.sim.advanceTo(slot + 72 * HOUR + 20 * MINUTE);
    const back = await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(2);
    expect(back.plan.missed.find((m) => m.strategy === "dca")?.count ?? 0).toBeGreaterThan(60);
  });

  it("a rebalancer removed from the config while its TWAP runs keeps its maxDeviation guard under once", async () => {
    const rebalance = GUARDED_REBALANCE;
    const other = {
      name: "dca",
      kind: "twap-accumulate",
      schedule: "30 8 * * *",
      params: {
        coin: "PURR",
        quote: "USDC",
        side: "buy",
        amountUsd: 150,
        twap: { minutes: 30, randomize: false },
      },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [rebalance, other],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    await once(bot);
    const slot = new CronSchedule(rebalance.schedule).next(bot.sim.now())!;
    bot.sim.advanceTo(slot);
    await once(bot);
    expect(twapsPlaced(bot)).toHaveLength(1);
    // The user removes the rebalancer from the bot file (only the DCA is left) between two cron runs.
    const cfgFile = join(bot.dir, "bot.yaml");
    const cfg = parse(readFileSync(cfgFile, "utf8"));
    cfg.strategies = [join(bot.dir, "strategy-1.yaml")];
    writeFileSync(cfgFile, stringify(cfg));
    const env = { TEST_BOT_KEY: bot.key };
    const config = await loadConfig(cfgFile, env);
    expect(config.strategies.map((s) => s.name)).toEqual(["dca"]);
    const sim = bot.sim;
    const rt = await openRuntime({
      config,
      env,
      mode: "live",
      logger: silentLogger(),
      clock: () => sim.now(),
      budget: null,
    });
    bot.sim.advanceTo(slot + 5 * MINUTE);
    bot.sim.setPrice("@107", "34");
    bot.sim.advanceTo(slot + 15 * MINUTE);
    let p: Awaited<ReturnType<typeof oncePass>>;
    try {
      p = await oncePass(rt.cycleDeps(await rt.facts()), scheduledStrategies(rt.config.strategies), {});
    } finally {
      await rt.close();
    }
    expect(p.watch.report?.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
  });
});
