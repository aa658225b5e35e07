// Timed scenario events seen through a whole simulation of the demo bot: a validator the staking
// strategy uses is jailed while the account's stake on it is locked, and the strategy leaves it at its
// first run after the lock ends (not before: the venue refuses to undelegate locked stake, and not much
// later); a deposit during the run shows as money in, not as performance, and the buy-and-hold
// benchmark receives it too.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { formatSummary, groupDigits } from "../../src/simulate/format.js";
import { leadOverTime, renderReport } from "../../src/simulate/report.js";
import { runSimulation, type SimulationResult } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

const VALIDAO = "0xb8f45222a3246a2b0104696a1df26842007c5bc5";
const DEMO = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const START = Date.parse("2025-01-01T00:00:00Z");
const HOUR = 3_600_000;
const JAILED_AT = START + 7 * HOUR;
const DEPOSIT_AT = START + 30 * HOUR;

/** The demo scenario with `events` (each a YAML flow mapping) added, written to a temporary file. */
function demoWithEvents(events: string[]): string {
  const file = join(scratchDir("hlbot-events-"), "scenario.yaml");
  writeFileSync(
    file,
    `${readFileSync(DEMO_SCENARIO_PATH, "utf8")}\nevents:\n${events.map((e) => `  - ${e}\n`).join("")}`,
  );
  return file;
}

let config: LoadedConfig;
let result: SimulationResult;
let lockEnds: number;
let leftOnValidao: unknown[] | undefined;

beforeAll(async () => {
  const file = demoWithEvents([
    `{ at: 7h, type: validator, validator: "${VALIDAO}", jailed: true, unjailableIn: 3d }`,
    `{ at: 30h, type: deposit, account: "${DEMO}", coin: USDC, amount: "10000" }`,
  ]);
  config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
  result = await runSimulation({
    config,
    scenarioFile: file,
    days: 3,
    onFinished: (sim, account) => {
      leftOnValidao = sim.staking(account).delegations.filter((d) => d.validator === VALIDAO);
    },
  });
  // Read at the end of the run (asserted here: an assertion inside the callback passed if it never ran).
  expect(leftOnValidao).toEqual([]);
  // The account's last delegation to ValiDAO before the jailing locks its stake there for one day.
  const before = result.record.ledger.filter(
    (e) => e.kind === "delegate" && e.data.validator === VALIDAO && e.time < JAILED_AT,
  );
  expect(before.length).toBeGreaterThan(0);
  lockEnds = before[before.length - 1]!.time + 24 * HOUR;
}, 120_000);

describe("a validator jailed during the run", () => {
  it("is left at the staking strategy's first run after the lock ends, not before", () => {
    const leaves = result.record.ledger.filter(
      (e) => e.kind === "undelegate" && e.data.validator === VALIDAO,
    );
    expect(leaves.length).toBeGreaterThan(0);
    expect(leaves.every((e) => e.time >= lockEnds)).toBe(true);
    // The strategy runs every 6 hours: it leaves at the first run once the lock allows.
    expect(leaves[0]!.time - lockEnds).toBeLessThanOrEqual(6 * HOUR);
    // Nothing new goes to it while it is jailed.
    const after = result.record.ledger.filter(
      (e) => e.kind === "delegate" && e.data.validator === VALIDAO && e.time >= JAILED_AT,
    );
    expect(after).toEqual([]);
  });

  it("lists the scenario's events applied, with their times, in the summary and the report", () => {
    const s = buildSummary(result.record);
    expect(s.eventsApplied.map((e) => [e.at, e.type])).toEqual([
      [new Date(JAILED_AT).toISOString(), "validator"],
      [new Date(DEPOSIT_AT).toISOString(), "deposit"],
    ]);
    expect(formatSummary(s)).toMatch(/ {2}event 2025-01-01 07:00: validator ValiDAO \(0xb8f4…5bc5\) jailed/);
    expect(renderReport({ summary: s, record: result.record })).toMatch(/Scenario events: 2025-01-01 07:00 /);
  });

  it("explains in the meantime why the stake stays put", () => {
    const waiting = result.record.cycles
      .filter((c) => c.at > JAILED_AT && c.at < lockEnds)
      .flatMap((c) => c.decisions)
      .filter((d) => d.strategy === "hype-staking");
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.some((d) => /jailed/.test(d.reason) && /lock/.test(d.reason))).toBe(true);
  });
});

describe("a deposit during the run", () => {
  it("is money in, kept apart from performance, and the benchmark receives it too", () => {
    const s = buildSummary(result.record);
    expect(s.portfolio.flows).toEqual([
      { at: new Date(DEPOSIT_AT).toISOString(), coin: "USDC", amount: "10000", value: "10000" },
    ]);
    expect(Number(s.portfolio.netFlows)).toBe(10_000);
    expect(Number(s.portfolio.changeExFlows)).toBeCloseTo(Number(s.portfolio.change) - 10_000, 2);
    const usdc = s.benchmark.holdings.find((h) => h.coin === "USDC")!;
    expect(Number(usdc.amount)).toBeGreaterThan(10_000);
    // Without the deposit in the benchmark, the bot would look 10,000 USDC better than buy and hold.
    expect(Math.abs(Number(s.benchmark.botMinusBenchmark))).toBeLessThan(2_000);
    expect(formatSummary(s)).toMatch(/of which deposits and withdrawals \(scenario events\): \+10,000/);
  });

  it("starts buy and hold from the starting holdings, and compares changes without the deposit on both sides", () => {
    const s = buildSummary(result.record);
    // Buy and hold starts where the bot starts; the deposit joins it on day 2, not at the start.
    expect(s.benchmark.start).toBe(s.portfolio.start.value);
    const benchChangeExFlows = Number(s.benchmark.end) - Number(s.benchmark.start) - 10_000;
    expect(Number(s.benchmark.change)).toBeCloseTo(benchChangeExFlows, 1);
    // Both changes leave the deposit out, so their difference is the bot's lead over buy and hold.
    expect(Number(s.portfolio.changeExFlows) - Number(s.benchmark.change)).toBeCloseTo(
      Number(s.benchmark.botMinusBenchmark),
      1,
    );
    const text = formatSummary(s);
    const bot = text.split("\n").find((l) => /^\s+bot\s/.test(l))!;
    expect(bot).toContain(groupDigits(s.portfolio.changeExFlows));
    expect(text).toMatch(/change without deposits and withdrawals/);
    const html = renderReport({ summary: s, record: result.record });
    expect(html).toContain("of which deposits and withdrawals");
    expect(html).toContain(`<td class="num">${s.benchmark.start}</td>`);
  });
});

describe("events the summary must not misname (a scenario author's trial)", () => {
  it("names whose money a flow moved when it is not the simulated account's, an outage's length and faults, and the watch's failed reads apart from its cancels", async () => {
    const other = "0x00000000000000000000000000000000000abcde";
    const file = demoWithEvents([
      `{ at: 2h, type: deposit, account: "${other}", coin: USDC, amount: "10000" }`,
      `{ at: 3h, type: withdrawal, account: "${other}", coin: USDC, amount: "5" }`,
      "{ at: 1h, type: outage, for: 20h, endpoint: info, faults: { badSchemaRate: 0.5 } }",
    ]);
    const r = await runSimulation({ config, scenarioFile: file, days: 1 });
    const s = buildSummary(r.record);
    expect(s.eventsApplied.map((e) => e.what)).toEqual([
      "outage of info for 20 h (badSchemaRate 0.5)",
      `deposit of 10000 USDC to ${other}, not the simulated account (the bot sees nothing of it)`,
      `withdrawal of 5 USDC from ${other}, not the simulated account (the bot sees nothing of it)`,
    ]);
    // Watch checks whose reads failed are failures, not cancels (27 "cancels" were read with none).
    expect(s.cycles.watchFailed).toBeGreaterThan(0);
    expect(s.cycles.watch).toBe(0);
    const text = formatSummary(s);
    expect(text).toMatch(
      new RegExp(
        `Cycles: \\d+, ${s.cycles.failed} failed \\(${s.cycles.watchFailed} of them the TWAP watch's checks, whose reads failed\\)`,
      ),
    );
    expect(text).not.toMatch(/TWAP watch's cancels/);
  }, 120_000);
});

describe("a venue outage during the run", () => {
  it("retries in virtual time: the run stays fast, reads fail during the outage and succeed after it", async () => {
    const file = demoWithEvents([`{ at: 6h, type: outage, for: 2h, endpoint: info }`]);
    const wallStart = performance.now();
    const r = await runSimulation({ config, scenarioFile: file, days: 1 });
    // Each failed read used to wait its retries in real time (seconds each) while the venue's clock
    // stood still; now the waits move the virtual clock and cost nothing.
    expect(performance.now() - wallStart).toBeLessThan(15_000);
    const during = r.record.cycles.filter((c) => c.at >= START + 6 * HOUR && c.at < START + 8 * HOUR);
    const after = r.record.cycles.filter((c) => c.at >= START + 9 * HOUR);
    expect(during.some((c) => c.error !== undefined)).toBe(true);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((c) => c.error === undefined)).toBe(true);
    // Failed cycles (retried later) are counted apart from the runs that completed.
    const s = buildSummary(r.record);
    expect(s.strategies.some((x) => x.failedRuns > 0)).toBe(true);
    for (const x of s.strategies) {
      const own = r.record.cycles.filter((c) => c.strategies.includes(x.name));
      expect(x.runs).toBe(own.filter((c) => c.error === undefined).length);
      expect(x.failedRuns).toBe(own.length - x.runs);
    }
    expect(formatSummary(s)).toMatch(/\d+ runs, \d+ failed[,)]/);
  });
});

describe("a withdrawal the bot can pay only in part", () => {
  it("compares the changes without what each side paid out, so the unpaid rest is no gain of the bot", async () => {
    // By day 2 the demo bot has spent USDC on PURR and HYPE: a withdrawal of 24,000 USDC takes less from
    // it than from buy and hold, which still holds its 25,000.
    const file = demoWithEvents([
      `{ at: 2d, type: withdrawal, account: "${DEMO}", coin: USDC, amount: "24000" }`,
    ]);
    const r = await runSimulation({ config, scenarioFile: file, days: 3 });
    const s = buildSummary(r.record);
    const paid = -Number(s.portfolio.netFlows);
    const benchPaid = -s.benchmark.flows.reduce((a, f) => a + Number(f.value), 0);
    expect(benchPaid).toBeCloseTo(24_000, 2);
    expect(paid).toBeGreaterThan(0);
    expect(24_000 - paid).toBeGreaterThan(1_000);
    // The lead is the difference of the two changes without flows, not of the end values (which
    // would count the 1,000+ USDC the bot could not pay as its gain).
    const lead = Number(s.benchmark.botMinusBenchmark);
    expect(lead).toBeCloseTo(Number(s.portfolio.changeExFlows) - Number(s.benchmark.change), 1);
    const endGap = Number(s.portfolio.end.value) - Number(s.benchmark.end);
    expect(endGap - lead).toBeCloseTo(24_000 - paid, 0);
    const k = s.benchmark.breakdown;
    const parts =
      Number(k.stakingRewards) + Number(k.fees) + Number(k.spreadAndImpact) + Number(k.timingAndOther);
    expect(Math.round(parts * 100)).toBe(Math.round(lead * 100)); // to the cent
    // The sweep report's "bot − buy and hold over time" ends at the same lead, with no step at the
    // withdrawal for what the bot could not pay.
    const samples = r.record.samples;
    const times = samples.map((x) => x.t);
    const holdExFlows = samples.map(
      (x) =>
        x.benchmark! -
        s.benchmark.flows.filter((f) => Date.parse(f.at) <= x.t).reduce((a, f) => a + Number(f.value), 0),
    );
    const line = leadOverTime(times, holdExFlows, samples, s.portfolio.flows);
    expect(line[0]).toBeCloseTo(0, 6);
    expect(line[line.length - 1]!).toBeCloseTo(lead, 1);
    const at = times.findIndex((t) => t >= START + 48 * HOUR);
    expect(Math.abs(line[at]! - line[at - 1]!)).toBeLessThan(500);
  }, 60_000);
});

describe("a withdrawal of a coin whose price moves, paid differently to the bot and to buy and hold", () => {
  it("leaves the move since of what one side kept out of the lead, and says so", async () => {
    // The demo bot stakes its HYPE: a withdrawal of 5,000 HYPE on day 2 pays what is on spot, less than
    // buy and hold pays. The same run with a withdrawal of 1 HYPE (both pay it) is the control: the bot's
    // lead must not depend on what it could not pay.
    const run = async (amount: string) =>
      buildSummary(
        (
          await runSimulation({
            config,
            scenarioFile: demoWithEvents([
              `{ at: 2d, type: withdrawal, account: "${DEMO}", coin: HYPE, amount: "${amount}" }`,
            ]),
            days: 4,
          })
        ).record,
      );
    const big = await run("5000");
    const small = await run("1");
    const asked = big.portfolio.flows.find((f) => f.coin === "HYPE")!;
    const benchPaid = big.benchmark.flows.find((f) => f.coin === "HYPE")!;
    expect(asked.requested).toBe("-5000");
    expect(Number(asked.amount)).toBeGreaterThan(Number(benchPaid.amount)); // the bot paid less
    expect(Number(big.benchmark.unequalWithdrawals)).not.toBe(0);
    // The kept HYPE times its move from the withdrawal's price to the end price.
    const kept = Number(asked.amount) - Number(benchPaid.amount);
    const atWithdrawal = Number(benchPaid.value) / Number(benchPaid.amount);
    const end = Number(big.portfolio.end.assets.find((a) => a.asset === "HYPE")!.price);
    expect(end).not.toBeCloseTo(atWithdrawal, 2);
    expect(Number(big.benchmark.unequalWithdrawals)).toBeCloseTo(kept * (end - atWithdrawal), 1);
    expect(Number(small.benchmark.unequalWithdrawals)).toBe(0);
    // The parts still add up to the lead, and the lead and what is left out of it to the difference of
    // the two changes without flows.
    const k = big.benchmark.breakdown;
    const parts =
      Number(k.stakingRewards) + Number(k.fees) + Number(k.spreadAndImpact) + Number(k.timingAndOther);
    expect(Math.round(parts * 100)).toBe(Math.round(Number(big.benchmark.botMinusBenchmark) * 100)); // to the cent
    expect(Number(big.benchmark.botMinusBenchmark) + Number(big.benchmark.unequalWithdrawals)).toBeCloseTo(
      Number(big.portfolio.changeExFlows) - Number(big.benchmark.change),
      1,
    );
    // Returns over the capital the run had: the start plus each flow weighted by its time in the account.
    const from = Date.parse(big.period.from);
    const to = Date.parse(big.period.to);
    const capital = (start: string, flows: typeof big.portfolio.flows) =>
      flows.reduce((c, f) => c + Number(f.value) * ((to - Date.parse(f.at)) / (to - from)), Number(start));
    expect(Number(big.portfolio.changeExFlowsRatio)).toBeCloseTo(
      Number(big.portfolio.changeExFlows) / capital(big.portfolio.start.value, big.portfolio.flows),
      4,
    );
    expect(Number(big.benchmark.changeRatio)).toBeCloseTo(
      Number(big.benchmark.change) / capital(big.benchmark.start, big.benchmark.flows),
      4,
    );
    expect(capital(big.portfolio.start.value, big.portfolio.flows)).toBeLessThan(
      Number(big.portfolio.start.value),
    );
    const text = formatSummary(big);
    // What the account did not hold on spot (here, staked HYPE): not "on hold" when nothing was held.
    expect(text).toMatch(/-[\d,.]+ HYPE \(withdrawal of 5,000 asked: no more was on spot\)/);
    expect(text).toMatch(
      /left out of it: [+-][\d,.]+, the move since of what a withdrawal paid the bot and buy and hold differently \(2025-01-03 00:00 HYPE: bot paid [\d,.]+, buy and hold [\d,.]+\)/,
    );
  }, 60_000);
});

describe("an outage longer than the catch-up", () => {
  it("shows the slots it cost as missed, per strategy, in the summary and the report", async () => {
    // hype-dca's 12:30 slot falls in the outage and is older than the 2 h catch-up when it ends.
    const file = demoWithEvents([`{ at: 12h, type: outage, for: 3h, endpoint: info }`]);
    const r = await runSimulation({ config, scenarioFile: file, days: 1 });
    const s = buildSummary(r.record);
    const dca = s.strategies.find((x) => x.name === "hype-dca")!;
    expect(dca.missedSlots).toBe(1);
    expect(dca.lastMissed).toBe(new Date(START + 12.5 * HOUR).toISOString());
    // Every slot counted once, though each failed retry planned again (the due one is superseded).
    const staking = s.strategies.find((x) => x.name === "hype-staking")!;
    expect([staking.missedSlots, staking.lastMissed]).toEqual([
      1,
      new Date(START + 12.25 * HOUR).toISOString(),
    ]);
    const hourly = s.strategies.find((x) => x.name === "purr-allocation")!;
    expect(hourly.missedSlots).toBeGreaterThanOrEqual(2);
    expect(hourly.missedSlots).toBeLessThanOrEqual(3);
    const text = formatSummary(s);
    expect(text).toContain(`hype-dca (twap-accumulate, "30 0,12 * * *", 1 runs, `);
    expect(text).toMatch(/hype-dca \(twap-accumulate, "30 0,12 \* \* \*", 1 runs, \d+ failed, 1 missed\)/);
    expect(text).toContain(
      "  hype-dca: 1 slot(s) missed, not acted in (left until older than schedule.catchUp, e.g. deferred behind another TWAP on its pair, by a daily limit (maxDailyNotionalUsd, maxStakeMovePerDay) or by failed runs, or superseded by a later slot), the latest 2025-01-01 12:30 UTC",
    );
    expect(renderReport({ summary: s, record: r.record })).toMatch(/hype-dca<\/b> \([^)]*, 1 missed\)/);
  }, 60_000);
});

describe("a TWAP resent after an exchange outage", () => {
  it("measures its slippage from the mid the strategy decided at, not from the later placement's mid", async () => {
    const file = demoWithEvents([
      `{ at: "2025-01-01T00:30:00Z", type: outage, for: 3s, endpoint: exchange }`,
    ]);
    const run = await runSimulation({ config, scenarioFile: file, days: 1 });
    const s = buildSummary(run.record);
    const outage = Date.parse("2025-01-01T00:30:00Z");
    const placed = run.record.ledger.find(
      (e) => e.kind === "twapPlaced" && e.time >= outage && e.time < outage + 60_000,
    )!;
    const decided = run.record.cycles
      .flatMap((c) => c.decisions)
      .find((d) => d.twapId === Number(placed.data.twapId))!;
    const twap = s.twaps.find((t) => t.twapId === decided.twapId)!;
    // The resend placed it seconds later, at another mid; the summary keeps the decision's.
    expect(placed.time).toBeGreaterThan(Date.parse("2025-01-01T00:30:03Z"));
    expect(String(placed.data.mid)).not.toBe(decided.decisionMid);
    expect(twap.decisionMid).toBe(decided.decisionMid);
  }, 60_000);
});
