import { existsSync, writeFileSync } from "node:fs";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { actionLines, formatCycle } from "../../src/cli/report.js";
import { runCycle } from "../../src/engine/cycle.js";
import { watchRunningTwaps } from "../../src/engine/guards.js";
import { validatorStaking, validatorStakingParams } from "../../src/engine/strategies/validatorStaking.js";
import { ConfigError } from "../../src/lib/errors.js";
import { parseJson } from "../../src/lib/json.js";
import { recoverActionSigner } from "../../src/venue/signing/index.js";
import {
  JAILED_VALIDATOR,
  REBALANCE,
  stakeWithJailedValidator,
  startTestBot,
  type TestBot,
} from "../helpers/bot.js";
import { captureLogger } from "../helpers/logs.js";

let bot: TestBot | undefined;
const STAKING = {
  name: "staking",
  kind: "validator-staking",
  params: { validators: 2, maxCommission: 0.05, maxMovePerRun: 10000 },
};
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function cycle(b: TestBot, trigger: "plan" | "once" = "once") {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger, strategies: b.runtime.strategies() });
}

function twapLedger(b: TestBot) {
  return b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
}

describe("engine cycle against the simulator", () => {
  it("plans one TWAP selling 437.5 HYPE for 1000 HYPE at 40 USDC and 5000 USDC (50/50), signed by the account", async () => {
    bot = await startTestBot({ strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot, "plan");
    expect(report.actions).toHaveLength(1);
    const [action] = report.actions;
    expect(action?.action).toBe("twapOrder");
    expect(action?.outcome).toBe("dry-run");
    const body = action?.request as {
      action: { twap: Record<string, unknown> };
      nonce: number;
      expiresAfter: number;
      signature: never;
    };
    expect(body.action.twap).toEqual({ a: 10107, b: false, s: "437.5", r: false, m: 60, t: false });
    const signer = recoverActionSigner({
      action: body.action,
      nonce: body.nonce,
      expiresAfter: body.expiresAfter,
      network: "testnet",
      signature: body.signature,
    });
    expect(signer).toBe(bot.address);
    expect(twapLedger(bot)).toHaveLength(0); // plan sends nothing
  });

  it("tells validator-staking which staking moves in the venue's history were its own (journal)", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [STAKING],
      fund: { HYPE: "1000" },
    });
    const jailed = JAILED_VALIDATOR;
    await stakeWithJailedValidator(bot);
    const first = await cycle(bot);
    expect(first.actions.filter((a) => a.outcome === "accepted").length).toBeGreaterThanOrEqual(2);
    bot.sim.advance(60_000);
    const second = await cycle(bot);
    // Every move of the first cycle is in the venue's history and in the journal's own moves, alike.
    const own = second.snapshot.ownStakingMoves ?? [];
    const history = (second.snapshot.stakingHistory ?? []).filter((e) => e.time >= first.startedAt);
    expect(own.length).toBe(first.actions.filter((a) => a.action === "tokenDelegate").length);
    for (const m of own)
      expect(
        history.some(
          (e) =>
            e.kind === (m.isUndelegate ? "undelegate" : "delegate") &&
            e.validator === m.validator &&
            e.amount.eq(m.amount),
        ),
      ).toBe(true);
    const left = own.filter((m) => m.isUndelegate && m.validator === jailed);
    expect(left.reduce((a, m) => a + m.amount.toNumber(), 0)).toBe(1000);
  });

  it("tells validator-staking which withdrawals landing on spot were its own, across the unstaking queue", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          ...STAKING,
          params: { ...STAKING.params, maxStaked: 600, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
        },
      ],
      fund: { HYPE: "1000" },
    });
    await stakeWithJailedValidator(bot);
    const first = await cycle(bot);
    const withdrawn = first.actions.filter((a) => a.action === "cWithdraw" && a.outcome === "accepted");
    expect(withdrawn).toHaveLength(1);
    // Through the queue (7 days on mainnet, as the simulator): the HYPE is back on spot.
    bot.sim.advance(7 * 24 * 60 * 60_000 + 60 * 60_000);
    const later = await cycle(bot);
    const landed = (later.snapshot.stakingHistory ?? []).filter((e) => e.kind === "withdrawalFinalized");
    expect(landed.map((e) => e.amount.toFixed())).toEqual(["400"]);
    expect((later.snapshot.ownWithdrawals ?? []).map((w) => w.amount.toFixed())).toEqual(["400"]);
    expect(later.snapshot.balances.get("HYPE")?.available.toFixed()).toBe("400");
    // Not taken for a withdrawal the user made: without maxStaked, staking puts it back at once.
    const decide = (snapshot: typeof later.snapshot) =>
      validatorStaking.decide(
        snapshot,
        validatorStakingParams.parse({ ...STAKING.params, stakeIdleSpot: { enabled: true, keepSpot: 0 } }),
        bot!.sim.now(),
        {},
        "staking",
      );
    expect(decide(later.snapshot).find((d) => d.kind === "cDeposit")).toMatchObject({ kind: "cDeposit" });
    const theirs = decide({ ...later.snapshot, ownWithdrawals: [] });
    expect(theirs.some((d) => d.kind === "cDeposit")).toBe(false);
    expect(theirs.map((d) => d.reason).join(" ")).toContain(
      "400 HYPE back on spot from a withdrawal not made by hlbot",
    );
  });

  it("dates the journal's own staking moves on the venue's clock: a local clock 20 minutes ahead, corrected since, still matches them", async () => {
    bot = await startTestBot({
      mode: "live",
      clockOffsetMs: 20 * 60_000,
      // What is matched here was sent while 20 minutes ahead: the hold on a far clock raised for it.
      configExtra: { schedule: { maxClockSkew: "1h" } },
      strategies: [STAKING],
      fund: { HYPE: "1000" },
    });
    await stakeWithJailedValidator(bot);
    const first = await cycle(bot);
    expect(first.actions.filter((a) => a.outcome === "accepted").length).toBeGreaterThanOrEqual(2);
    bot.sim.advance(60_000);
    // The local clock is corrected (NTP) after the moves were sent: they were journaled with the
    // venue's time, so the skew measured now does not matter.
    bot.clockOffsetMs = 0;
    const second = await cycle(bot);
    const own = second.snapshot.ownStakingMoves ?? [];
    expect(own.length).toBe(first.actions.filter((a) => a.action === "tokenDelegate").length);
    const history = second.snapshot.stakingHistory ?? [];
    for (const m of own) {
      const event = history.find(
        (e) =>
          e.kind === (m.isUndelegate ? "undelegate" : "delegate") &&
          e.validator === m.validator &&
          e.amount.eq(m.amount) &&
          e.time >= bot!.sim.now() - 2 * 60_000,
      );
      expect(event).toBeDefined();
      // Sent within a second of the venue's event, on the venue's clock (20 minutes apart on the local one).
      expect(Math.abs(event!.time - m.time)).toBeLessThan(2_000);
    }
  });

  it("limits count what the venue shows besides the journal: another instance's moves and TWAPs of the last 24 h", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          params: { validators: 2, maxCommission: 0.05, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
        },
        {
          name: "dca",
          kind: "twap-accumulate",
          params: { coin: "HYPE", side: "buy", amountUsd: 500, twap: { minutes: 30, randomize: false } },
        },
      ],
      limits: { maxStakeMovePerDay: 300, maxDailyNotionalUsd: 1000 },
      fund: { HYPE: "1000", USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    // Sent by another instance of the bot (its own state folder): this journal has none of it.
    const other = bot.runtime.exchange!;
    expect((await other.cDeposit({ amount: "300" })).status).toBe("accepted");
    expect(
      (await other.tokenDelegate({ validator: JAILED_VALIDATOR, amount: "300", isUndelegate: false })).status,
    ).toBe("accepted");
    const twap = { asset: 10107, isBuy: true, size: "20", szDecimals: 2, minutes: 30, randomize: false };
    expect((await other.twapOrder(twap)).status).toBe("accepted"); // 800 USD
    bot.sim.advance(31 * 60_000);
    const report = await cycle(bot);
    // 300 HYPE moved and 800 USD of TWAPs in the last 24 h by the venue's history: no stake move fits,
    // and the DCA's 500 USD is reduced to the day's rest, about 200.
    const reasons = report.decisions.map((d) => d.guardReason ?? "");
    expect(reasons).toContainEqual(expect.stringMatching(/above maxStakeMovePerDay 300 \(300 used; /));
    expect(report.actions.filter((a) => a.outcome === "accepted").map((a) => a.action)).toEqual([
      "twapOrder",
    ]);
    expect(report.decisions.find((d) => d.decision.kind === "twapOrder")?.decision.reason).toMatch(
      /reduced from 12\.\d+ to \d\.\d+ \(≈1\d\d\.\d+ USD\) by maxDailyNotionalUsd 1000 \(8\d\d\.\d+ USD used in the last 24 h, as the venue shows it: 0 USD by this bot's journal, 8\d\d\.\d+ USD of it TWAPs this bot did not place/,
    );
  });

  it("a TWAP the watch cancelled counts against the daily limit at what it executed, not its full notional", async () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      params: {
        coin: "HYPE",
        side: "buy",
        amountUsd: 800,
        twap: { minutes: 30, randomize: false, maxDeviation: 0.01 },
      },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [dca],
      limits: { maxDailyNotionalUsd: 1000 },
      fund: { USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    bot.sim.advance(2 * 60_000); // a few slices fill
    bot.sim.setPrice("@107", "40.8"); // 2% against the buy: the watch cancels it
    const watch = await watchRunningTwaps(
      bot.runtime.cycleDeps(await bot.runtime.facts()),
      bot.runtime.strategies(),
    );
    expect(watch.report?.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
    bot.sim.advance(60_000);
    const executed = bot.sim.twaps(bot.address).at(-1)!.executedNtl;
    expect(Number(executed)).toBeGreaterThan(0);
    expect(Number(executed)).toBeLessThan(200);
    // The next order fits in full: the day has used what the cancelled TWAP executed (counted in full,
    // 800 of 1000 were used and the order was cut to 200).
    const next = await cycle(bot);
    expect(next.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    const decision = next.decisions.find((d) => d.decision.kind === "twapOrder");
    expect(decision?.guard).toBe("allowed");
    expect(decision?.decision.reason).not.toMatch(/reduced/);
  });

  it("a staking deposit keeps on spot what a rebalancer of the account would sell now, due or not", async () => {
    const staking = {
      name: "staking",
      kind: "validator-staking",
      params: { validators: 2, maxCommission: 0.05, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
    };
    const rebalance = { ...REBALANCE, params: { ...REBALANCE.params, countStaked: true } };
    bot = await startTestBot({
      mode: "live",
      strategies: [staking, rebalance],
      fund: { HYPE: "2000", USDC: "20000" },
      limits: { maxStakeMovePerDay: 100_000 },
    });
    bot.sim.setPrice("@107", "40");
    // HYPE 80,000 against 20,000 USDC at 50/50: the rebalancer would sell 750 HYPE. Its slot is later
    // (only staking runs): staked, that HYPE could not be sold when it runs (a trial's 2,800-HYPE deposit
    // left the rebalancer 5 points over target for days).
    const only = bot.runtime.strategies().filter((s) => s.name === "staking");
    const report = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: only,
    });
    const deposit = report.decisions.find((d) => d.decision.kind === "cDeposit")?.decision;
    expect(deposit?.kind === "cDeposit" ? deposit.amount.toFixed() : undefined).toBe("1150");
    expect(deposit?.reason).toMatch(
      /750 idle spot HYPE stays on spot for the sale rebalance would make now \(750 HYPE\): staked, it could not be sold when that sale goes out/,
    );
    expect(bot.sim.balance(bot.address, "HYPE").total.toFixed()).toBe("850");
  });

  it("a sale its sell floor holds keeps its HYPE on spot too: staked, it could not be sold once the price is back", async () => {
    const staking = {
      name: "staking",
      kind: "validator-staking",
      params: { validators: 2, maxCommission: 0.05, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
    };
    const rebalance = {
      ...REBALANCE,
      params: { ...REBALANCE.params, countStaked: true, priceLimits: { HYPE: { sellFloor: 45 } } },
    };
    bot = await startTestBot({
      mode: "live",
      strategies: [staking, rebalance],
      fund: { HYPE: "2000", USDC: "20000" },
      limits: { maxStakeMovePerDay: 100_000 },
    });
    // Below the floor of 45: the rebalancer holds its 750-HYPE sale (a trader's floor at 18 with HYPE at
    // 17.9 let 5,762 HYPE be staked, and the rebalancer stayed 20 points over target once it recovered).
    bot.sim.setPrice("@107", "40");
    const only = bot.runtime.strategies().filter((s) => s.name === "staking");
    const report = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: only,
    });
    const deposit = report.decisions.find((d) => d.decision.kind === "cDeposit")?.decision;
    expect(deposit?.kind === "cDeposit" ? deposit.amount.toFixed() : undefined).toBe("1150");
    expect(deposit?.reason).toMatch(
      /750 idle spot HYPE stays on spot for the sale rebalance would make \(750 HYPE, held now by its sell floor\)/,
    );
  });

  it("what a waiting rebalancer is over target by stays on spot: a TWAP running on its pair holds its sale, not the HYPE", async () => {
    // A trader's case: a 200-USD DCA TWAP on HYPE/USDC held the rebalancer; staking deposited all 1,523
    // spot HYPE at :15, and the rebalancer ended at 75.9% HYPE against a 40% target.
    const staking = {
      name: "staking",
      kind: "validator-staking",
      params: { validators: 2, maxCommission: 0.05, stakeIdleSpot: { enabled: true, keepSpot: 100 } },
    };
    const rebalance = { ...REBALANCE, params: { ...REBALANCE.params, countStaked: true } };
    bot = await startTestBot({
      mode: "live",
      strategies: [staking, rebalance],
      fund: { HYPE: "2000", USDC: "20000" },
      limits: { maxStakeMovePerDay: 100_000 },
    });
    bot.sim.setPrice("@107", "40");
    // A TWAP of the account buys on HYPE/USDC (a DCA's), so the rebalancer's sale waits behind it.
    const dca = await bot.runtime.exchange!.twapOrder({
      asset: 10107,
      isBuy: true,
      size: "5",
      szDecimals: 2,
      minutes: 60,
    });
    expect(dca.status).toBe("accepted");
    const only = bot.runtime.strategies().filter((s) => s.name === "staking");
    const report = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: only,
    });
    const deposit = report.decisions.find((d) => d.decision.kind === "cDeposit")?.decision;
    // 2,000 HYPE (80,000) against 20,000 USDC at 50/50: 750 over target, kept; 1,150 above keepSpot staked.
    expect(deposit?.kind === "cDeposit" ? deposit.amount.toFixed() : undefined).toBe("1150");
    expect(deposit?.reason).toMatch(
      /750 idle spot HYPE stays on spot for the sale rebalance would make \(750 HYPE, held now by a TWAP running on its pair\)/,
    );
  });

  it("a new journal says once that the venue shows activity it does not have (budgets start from zero)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    // An earlier state folder's TWAP (lost since): the venue has it, this journal does not.
    const twap = { asset: 10107, isBuy: false, size: "10", szDecimals: 2, minutes: 30, randomize: false };
    expect((await bot.runtime.exchange!.twapOrder(twap)).status).toBe("accepted");
    bot.sim.advance(31 * 60_000);
    const lines: Array<{ msg: string }> = [];
    const logger = pino({ level: "warn" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const deps = { ...bot.runtime.cycleDeps(await bot.runtime.facts()), logger };
    await runCycle(deps, { trigger: "once", strategies: bot.runtime.strategies() });
    const notice = (l: { msg: string }) =>
      /^this state folder's journal was empty, but the venue shows 1 TWAP/.test(l.msg);
    expect(lines.filter(notice)).toHaveLength(1);
    expect(lines.find(notice)?.msg).toMatch(
      /this journal does not have it .*budgetUsd holds .* `hlbot journal rebuild` imports/,
    );
    // A rebalancer alone reads no staking history: it says nothing of staking moves it did not look at
    // (it said "and 0 staking move(s)" beside 13 on the venue).
    expect(lines.find(notice)?.msg).toMatch(/shows 1 TWAP\(s\) of 0x[0-9a-f]+ in the last 24 h: /);
    // Said once: the next cycle sees this journal's own TWAP, and nothing is said.
    bot.sim.advance(60_000);
    await runCycle(deps, { trigger: "once", strategies: bot.runtime.strategies() });
    expect(lines.filter(notice)).toHaveLength(1);
  });

  it("a day-long 200-USD DCA buy is shortened to one-lot slices, and the venue fills all of it", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          params: { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 1440, randomize: false } },
        },
      ],
      fund: { USDC: "5000" },
    });
    bot.sim.setPrice("@107", "35");
    const report = await cycle(bot);
    const [action] = report.actions;
    expect(action?.outcome).toBe("accepted");
    const twap = (action!.request as { action: { twap: { s: string; m: number } } }).action.twap;
    expect(twap).toMatchObject({ s: "5.71", m: 285 });
    bot.sim.advance(24 * 60 * 60_000);
    const ended = bot.sim.ledger().filter((e) => e.kind === "twapFinished" && e.user === bot!.address);
    expect(ended.map((e) => e.data.executedSz)).toEqual(["5.71"]);
  });

  it("undelegates from a jailed validator and splits the stake between the two best eligible ones", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          params: {
            validators: 2,
            rankBy: "predictedApr",
            maxCommission: 0.05,
            rebalanceThreshold: 0.05,
            maxMovePerRun: 10000,
          },
        },
      ],
      fund: { HYPE: "1000" },
    });
    const jailed = JAILED_VALIDATOR;
    await stakeWithJailedValidator(bot);
    await bot.reopen("dry-run");
    const report = await cycle(bot, "plan");
    const moves = report.actions.map((a) => (a.request as { action: Record<string, unknown> }).action);
    // Each undelegation goes out right before the delegation it funds (issue #13).
    for (const i of [0, 2])
      expect(moves[i]).toMatchObject({
        type: "tokenDelegate",
        validator: jailed,
        isUndelegate: true,
        wei: 50_000_000_000,
      });
    const delegations = [moves[1], moves[3]] as Array<Record<string, unknown>>;
    expect(delegations).toHaveLength(2);
    for (const d of delegations)
      expect(d).toMatchObject({ type: "tokenDelegate", isUndelegate: false, wei: 50_000_000_000 });
    expect(new Set(delegations.map((d) => d.validator)).size).toBe(2);
    expect(delegations.map((d) => d.validator)).not.toContain(jailed);
  });

  it("submits live, journals before sending, and does not act again while its TWAP runs", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const first = await cycle(bot);
    expect(first.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    const [submission] = bot.runtime.journal.recentSubmissions(5);
    expect(submission?.status).toBe("accepted");
    expect(submission?.twapId).toBe(first.actions[0]?.twapId);
    // `once --json` and `plan --json` lines carry it (a scripter could not link what was placed to
    // status, metrics or a later twap-cancel).
    expect(typeof submission?.twapId).toBe("number");
    expect(JSON.parse(actionLines(first).trim())).toMatchObject({ twapId: submission?.twapId });
    expect(parseJson(submission!.request)).toEqual(first.actions[0]?.request);
    const attempts = bot.runtime.db
      .prepare("SELECT outcome FROM attempts WHERE submission_id = ?")
      .all(submission!.id);
    expect(attempts).toEqual([{ outcome: "accepted" }]);

    const second = await cycle(bot);
    expect(second.actions).toHaveLength(0);
    expect(second.decisions[0]?.decision.reason).toMatch(/already running/);
    expect(twapLedger(bot)).toHaveLength(1);
  });

  it("reconciles a submission whose answer was lost, with no second action", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    bot.sim.setFaults({ exchange: { dropRate: 1 } }); // the venue applies the request, the answer is lost
    const first = await cycle(bot);
    expect(first.actions.map((a) => a.outcome)).toEqual(["unknown"]);
    expect(twapLedger(bot)).toHaveLength(1);
    expect(bot.runtime.journal.unresolved(bot.address)).toHaveLength(1);

    bot.sim.setFaults({});
    bot.sim.advance(60_000);
    const second = await cycle(bot);
    expect(second.reconciled.map((r) => r.verdict)).toEqual(["landed"]);
    expect(second.actions).toHaveLength(0); // the landed TWAP is running: nothing new
    expect(twapLedger(bot)).toHaveLength(1);
    expect(bot.runtime.journal.recentSubmissions(1)[0]?.status).toBe("landed");
  });

  it("a TWAP whose answer was lost and that reconciliation found is still guarded (maxDeviation cancels it)", async () => {
    const guarded = {
      ...REBALANCE,
      params: { ...REBALANCE.params, twap: { minutes: 60, randomize: false, maxDeviation: 0.01 } },
    };
    bot = await startTestBot({ mode: "live", strategies: [guarded], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    bot.sim.setFaults({ exchange: { dropRate: 1 } });
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["unknown"]);
    bot.sim.setFaults({});
    bot.sim.advance(60_000);
    expect((await cycle(bot)).reconciled.map((r) => r.verdict)).toEqual(["landed"]);
    // It ends about an hour after it started, on the local clock: the watch keys on it.
    const running = bot.runtime.journal.runningTwaps(bot.address, bot.sim.now());
    expect(running).toHaveLength(1);
    expect(Math.abs(running[0]!.expectedEnd - (bot.sim.now() - 60_000 + 60 * 60_000))).toBeLessThan(2_000);
    // The sell's price falls 5% (beyond its 1%): the watch cancels it.
    bot.sim.setPrice("@107", "38");
    const watch = await watchRunningTwaps(
      bot.runtime.cycleDeps(await bot.runtime.facts()),
      bot.runtime.strategies(),
    );
    expect(watch.report?.actions.map((a) => [a.action, a.outcome])).toEqual([["twapCancel", "accepted"]]);
  });

  it("a rebalancer's sale with a sell floor is cancelled by the watch when the mid falls below it", async () => {
    const floored = {
      ...REBALANCE,
      params: {
        ...REBALANCE.params,
        twap: { minutes: 60, randomize: false },
        priceLimits: { HYPE: { sellFloor: 39 } },
      },
    };
    bot = await startTestBot({ mode: "live", strategies: [floored], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    const watch = async () =>
      (await watchRunningTwaps(bot!.runtime.cycleDeps(await bot!.runtime.facts()), bot!.runtime.strategies()))
        .report;
    bot.sim.advance(60_000);
    bot.sim.setPrice("@107", "39.5"); // above the floor: it runs on
    expect(await watch()).toBeUndefined();
    bot.sim.setPrice("@107", "38.9");
    expect((await watch())?.actions.map((a) => [a.action, a.outcome, a.detail ?? a.reason])).toEqual([
      [
        "twapCancel",
        "accepted",
        expect.stringMatching(/mid 38\.9 fell below the sell floor priceLimits\.HYPE\.sellFloor 39/),
      ],
    ]);
  });

  it("the watch measures maxDeviation from the mid decided at, not from the higher price the limits valued it at", async () => {
    const guarded = {
      ...REBALANCE,
      params: { ...REBALANCE.params, twap: { minutes: 60, randomize: false, maxDeviation: 0.01 } },
    };
    bot = await startTestBot({ mode: "live", strategies: [guarded], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "44");
    bot.sim.advance(25 * 60 * 60_000);
    bot.sim.setPrice("@107", "40"); // the previous-day price is 44: the sell is valued at 44 for limits
    const report = await cycle(bot);
    expect(report.decisions[0]?.decision.reason).toMatch(/valued at 44/);
    const watch = async () =>
      (await watchRunningTwaps(bot!.runtime.cycleDeps(await bot!.runtime.facts()), bot!.runtime.strategies()))
        .report;
    bot.sim.setPrice("@107", "39.8"); // 0.5% below the mid decided at (9.5% below 44)
    expect(await watch()).toBeUndefined();
    bot.sim.setPrice("@107", "39.2"); // 2% below it
    expect((await watch())?.actions.map((a) => a.detail ?? a.reason)).toEqual([
      expect.stringMatching(/moved 2% against the sell from 40 at decision time/),
    ]);
  });

  it("after a crash between the journal write and the send, waits for expiry, then acts once", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const journal = bot.runtime.journal;
    const original = journal.recordPending.bind(journal);
    journal.recordPending = (s) => {
      original(s);
      throw new Error("simulated crash after the pending row was written");
    };
    await expect(cycle(bot)).rejects.toThrow(/simulated crash/);
    journal.recordPending = original;
    expect(twapLedger(bot)).toHaveLength(0);
    expect(journal.unresolved(bot.address).map((r) => r.status)).toEqual(["pending"]);

    const blocked = await cycle(bot); // not expired yet: could still land, so the strategy waits
    expect(blocked.reconciled.map((r) => r.verdict)).toEqual(["unresolved"]);
    expect(blocked.actions).toHaveLength(0);
    expect(blocked.decisions[0]?.decision.reason).toMatch(/not reconciled yet/);

    bot.sim.advance(2 * 60_000);
    const after = await cycle(bot);
    expect(after.reconciled.map((r) => r.verdict)).toEqual(["absent"]);
    expect(after.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    expect(twapLedger(bot)).toHaveLength(1);
  });

  it("sends nothing while the kill switch file exists", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const stop = bot.runtime.config.limits.killSwitchFile;
    writeFileSync(stop, "");
    expect(existsSync(stop)).toBe(true);
    const report = await cycle(bot);
    expect(report.actions).toHaveLength(0);
    expect(report.decisions.map((d) => d.guard)).toEqual(["blocked"]);
    expect(report.decisions[0]?.decision.reason).toMatch(/kill switch/);
    expect(twapLedger(bot)).toHaveLength(0);
  });

  it("refuses to act for a multi-sig account, before reading or sending anything else", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    const deps = bot.runtime.cycleDeps({
      multiSig: { threshold: 2, authorizedUsers: [bot.address, bot.address] },
    });
    const err = await runCycle(deps, { trigger: "once", strategies: bot.runtime.strategies() }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/multi-sig/);
    expect(bot.runtime.journal.recentCycles(1)[0]?.status).toBe("failed");
    expect(twapLedger(bot)).toHaveLength(0);
  });

  it("plans unsigned actions without a key", async () => {
    bot = await startTestBot({
      mode: "unsigned",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot, "plan");
    expect(report.actions.map((a) => a.outcome)).toEqual(["unsigned"]);
    expect(report.actions[0]?.request).not.toHaveProperty("signature");
    expect(twapLedger(bot)).toHaveLength(0);
  });
});

describe("an API-wallet key with no account named (a multi-account trial: every run skipped, exit 0)", () => {
  it("is refused with its master named at the first read of the venue, not when the bot opens", async () => {
    const master = "0x2222222222222222222222222222222222222222";
    bot = await startTestBot({
      mode: "live",
      beforeOpen: (sim, address) => {
        sim.core.accounts.addAgent({
          address,
          master,
          name: "bot",
          validUntil: sim.now() + 86_400_000,
          approvedAt: sim.now(),
        });
      },
      strategies: [REBALANCE],
    });
    await expect(bot.runtime.facts()).rejects.toThrow(
      `the key is an API wallet of ${master}; set \`account: ${master}\``,
    );
  });
});

describe("an intent the client refuses before signing", () => {
  it("fails only its own strategy (an API-wallet key cannot sign staking actions); the others still run", async () => {
    const account = "0x2222222222222222222222222222222222222222";
    const { logger, warnings } = captureLogger();
    bot = await startTestBot({
      mode: "live",
      logger,
      configExtra: { account },
      // The key must be an API wallet of the account: any other key is refused before the first cycle.
      beforeOpen: (sim, address) => {
        sim.fund(account, "HYPE", "1000");
        // The rebalancer buys HYPE (a HYPE sale in the same cycle would hold the deposit back).
        sim.fund(account, "USDC", "100000");
        sim.core.accounts.addAgent({
          address,
          master: account,
          name: "bot",
          validUntil: sim.now() + 86_400_000,
          approvedAt: sim.now(),
        });
      },
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          // Keeps 500 HYPE on spot: the deposit is of the other 500.
          params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 500 } },
        },
        REBALANCE,
      ],
    });
    // Said once when the bot opens (a multi-account trial saw only each run refused).
    expect(
      warnings()
        .map((l) => l.msg)
        .filter((m) => m.includes("own key")),
    ).toEqual([
      expect.stringMatching(
        /^staking: staking actions \(tokenDelegate, cDeposit, cWithdraw, linking\) are signed by an account's own key only; with API wallet 0x[0-9a-f]{40} of 0x2{40} each of their runs is refused before signing/,
      ),
    ]);
    bot.sim.setPrice("@107", "40");
    const report = await cycle(bot);
    const byStrategy = Object.fromEntries(report.actions.map((a) => [a.strategy, a]));
    expect(byStrategy.staking?.action).toBe("cDeposit");
    expect(byStrategy.staking?.outcome).toBe("rejected");
    expect(byStrategy.staking?.detail).toMatch(/^not sent: /);
    // Shown as refused before sending, not "sent, REJECTED" (plan and once print it; plan never sends).
    expect(byStrategy.staking?.notSent).toBe(true);
    expect(byStrategy.rebalance?.notSent).toBeUndefined();
    const shown = formatCycle(report, "plan");
    expect(shown).toMatch(/staking: cDeposit \(allowed; not sent, REFUSED\)/);
    expect(shown).not.toMatch(/sent, REJECTED/);
    expect(actionLines(report)).toMatch(/"action":"cDeposit".*"outcome":"rejected","sent":false/);
    // The TWAP strategy still ran, and its L1 action, which an API wallet may sign, was accepted.
    expect(byStrategy.rebalance?.action).toBe("twapOrder");
    expect(byStrategy.rebalance?.outcome).toBe("accepted");
    expect(bot.sim.ledger({ user: account, kind: "action" }).map((e) => e.data.type)).toEqual(["twapOrder"]);
    expect(bot.runtime.journal.recentCycles(1)[0]?.status).toBe("ok");
  });
});
