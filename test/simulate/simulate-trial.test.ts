// Defects a user found trying `hlbot simulate` as a trader (issue #15), each shown on a real run of the
// demo bot: a lost answer is shown with what reconciliation later concluded; buy and hold earns what
// its starting delegations earn (a venue run without the bot), rewards side by side; events outside
// the run are refused (before it) or listed (after it); TWAPs that filled nothing are counted apart and
// unfilled sizes carry their unit; the net APR is rounded, not cut; a fork names the forked account.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { ConfigError } from "../../src/lib/errors.js";
import { formatSummary, netAprText, unknownsText } from "../../src/simulate/format.js";
import { renderReport } from "../../src/simulate/report.js";
import { runSimulation, type SimulationResult } from "../../src/simulate/runner.js";
import { buildSummary, type SimulationSummary } from "../../src/simulate/summary.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2025-01-01T00:00:00Z");
const DEMO = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

let config: LoadedConfig;
const dir = scratchDir("hlbot-trial-");

/** The demo scenario with `events` appended (YAML lines), written to a file; returns its path. */
function scenarioWith(name: string, events: string[]): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `${readFileSync(DEMO_SCENARIO_PATH, "utf8")}\nevents:\n${events.join("\n")}\n`);
  return file;
}

beforeAll(async () => {
  config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
});

describe("a submission whose answer was lost at send", () => {
  let result: SimulationResult;
  let s: SimulationSummary;
  beforeAll(async () => {
    // The exchange takes every request for the first 50 minutes but the answers never arrive.
    const file = scenarioWith("lost", [
      "  - { at: 0s, type: outage, for: 50m, endpoint: exchange, faults: { dropRate: 1 } }",
    ]);
    result = await runSimulation({ config, scenarioFile: file, days: 1 });
    s = buildSummary(result.record);
  }, 60_000);

  it("shows what the engine's reconciliation later concluded, in JSON, console and HTML", () => {
    const sentUnknown = result.record.cycles
      .flatMap((c) => c.decisions.map((d) => ({ ...d, at: c.at })))
      .filter((d) => d.outcome === "unknown");
    expect(sentUnknown.length).toBeGreaterThan(0);
    expect(s.unknowns.total).toBe(sentUnknown.length);
    // The requests took effect (the answer only was lost): a later cycle finds every one landed.
    expect(s.unknowns).toMatchObject({ landed: sentUnknown.length, absent: 0, unresolved: 0 });
    for (const u of s.unknowns.submissions) {
      expect(u.status).toBe("landed");
      expect(Date.parse(u.settledAt!)).toBeGreaterThan(Date.parse(u.at));
    }
    // The venue agrees: each lost TWAP order was placed at the time it was sent.
    const lostTwaps = s.unknowns.submissions.filter((u) => u.action === "twapOrder");
    expect(lostTwaps.length).toBeGreaterThan(0);
    for (const u of lostTwaps) {
      const placed = result.record.ledger.find((e) => e.kind === "twapPlaced" && e.time === Date.parse(u.at));
      expect(placed).toBeDefined();
      // The TWAP is credited to the strategy that sent it, though its answer never came.
      expect(s.twaps.find((t) => t.twapId === Number(placed!.data.twapId))?.strategy).toBe(u.strategy);
    }
    const n = sentUnknown.length;
    const text = formatSummary(s);
    expect(text).toContain(
      n === 1
        ? "1 submission unknown at send, later found landed (reconciled against the venue)"
        : `${n} submissions unknown at send; reconciled against the venue later: ${n} found landed`,
    );
    const html = renderReport({ summary: s, record: result.record });
    expect(html).toContain(`${n} submission${n === 1 ? "" : "s"} unknown at send`);
    expect(html).toMatch(/<td>landed<\/td>/);
  });
});

describe("what reconciliation concluded, in words", () => {
  const u = (landed: number, absent: number, unresolved: number) => ({
    total: landed + absent + unresolved,
    landed,
    absent,
    unresolved,
    submissions: [],
  });
  it("says landed, absent or still unknown, and nothing when every answer came", () => {
    expect(unknownsText(u(0, 0, 0))).toBeUndefined();
    expect(unknownsText(u(0, 1, 0))).toBe(
      "1 submission unknown at send, later found absent (never took effect) (reconciled against the venue)",
    );
    expect(unknownsText(u(0, 0, 2))).toBe(
      "2 submissions unknown at send, still unknown at the end of the run (no later cycle reconciled them)",
    );
    expect(unknownsText(u(1, 2, 1))).toBe(
      "4 submissions unknown at send; reconciled against the venue later: 1 found landed, 2 found absent (never took effect), 1 still unknown at the end of the run",
    );
  });
});

describe("buy and hold", () => {
  let result: SimulationResult;
  let s: SimulationSummary;
  beforeAll(async () => {
    result = await runSimulation({ config, days: 3 });
    s = buildSummary(result.record);
  }, 60_000);

  it("is the venue left alone: valued at the very same mids, the bot's trades never moved them", () => {
    const bench = result.record.benchmark!;
    expect(bench.start.value.toString()).toBe(result.record.start.value.toString());
    const mids = (p: Record<string, { toString(): string }>) =>
      Object.fromEntries(Object.entries(p).map(([c, v]) => [c, v.toString()]));
    expect(mids(bench.end.prices)).toEqual(mids(result.record.end.prices));
    // Its value at every sample, for the report's chart; at the end, the benchmark's end value.
    expect(result.record.samples.every((x) => x.benchmark !== undefined)).toBe(true);
    expect(result.record.samples.at(-1)!.benchmark).toBeCloseTo(bench.end.value.toNumber(), 6);
  });

  it("earns what its starting delegations earn, shown beside the bot's rewards", () => {
    // 400 HYPE with Hypurr Labs (APR 2.35 %, 4 % commission), 150 with ValiDAO (2.41 %, 2 %); the 50
    // idle HYPE earn nothing. One payout a day at 00:00 UTC.
    const daily = 400 * (0.0235 / 365) * 0.96 + 150 * (0.0241 / 365) * 0.98;
    const payouts = result.record.benchmark!.ledger.filter((e) => e.kind === "reward").length;
    expect(payouts).toBeGreaterThanOrEqual(2);
    const earned = Number(s.benchmark.rewards.benchmark.amount);
    expect(earned / (daily * payouts)).toBeCloseTo(1, 3);
    expect(s.benchmark.rewards.bot.amount).toBe(s.staking.rewards.amount);
    const hype = Number(result.record.endPrices.HYPE);
    // Only the rewards beyond buy and hold's are the bot's merit.
    expect(Number(s.benchmark.breakdown.stakingRewards)).toBeCloseTo(
      (Number(s.staking.rewards.amount) - earned) * hype,
      1,
    );
    const k = s.benchmark.breakdown;
    const parts =
      Number(k.stakingRewards) + Number(k.fees) + Number(k.spreadAndImpact) + Number(k.timingAndOther);
    expect(Math.round(parts * 100)).toBe(Math.round(Number(s.benchmark.botMinusBenchmark) * 100)); // to the cent
    // Its end holds the starting HYPE (spot and staked) plus those rewards.
    const startHype = result.record.start.assets
      .filter((a) => a.asset === "HYPE" || a.asset === "HYPE (staked)")
      .reduce((a, x) => a + Number(x.amount), 0);
    const endHype = Number(s.benchmark.holdings.find((h) => h.coin === "HYPE")!.amount);
    expect(endHype - startHype).toBeCloseTo(earned, 8);

    const text = formatSummary(s);
    expect(text).toMatch(
      /staking rewards: bot [\d.]+ HYPE \(≈ [\d,.]+ USDC\), buy and hold [\d.]+ HYPE \(≈ [\d,.]+ USDC\)/,
    );
    expect(text).toContain("staking rewards beyond buy and hold's");
    const html = renderReport({ summary: s, record: result.record });
    expect(html).toContain("<h3>Staking rewards</h3>");
    expect(html).toContain(`<td class="num">${s.benchmark.rewards.benchmark.amount}</td>`);
  });
});

describe("scenario events outside the run", () => {
  it("refuses an event dated before the start, naming the file, line and key", async () => {
    const file = scenarioWith("before", [
      `  - { at: 6h, type: deposit, account: "${DEMO}", coin: USDC, amount: "1" }`,
      `  - { at: "2024-12-31T12:00:00Z", type: deposit, account: "${DEMO}", coin: USDC, amount: "1" }`,
    ]);
    const line =
      readFileSync(file, "utf8")
        .split("\n")
        .indexOf(
          `  - { at: "2024-12-31T12:00:00Z", type: deposit, account: "${DEMO}", coin: USDC, amount: "1" }`,
        ) + 1;
    const err = await runSimulation({ config, scenarioFile: file, days: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${line}: events\\[1\\]\\.at: the deposit event at 2024-12-31T12:00:00.000Z is before the start of the run`,
      ),
    );
    // The same event is fine in a run that starts before it.
    const earlier = await runSimulation({
      config: { ...config, strategies: [] },
      scenarioFile: file,
      from: Date.parse("2024-12-31T00:00:00Z"),
      days: 1,
    });
    expect(earlier.record.ledger.filter((e) => e.kind === "fund" && e.data.source === "event")).toHaveLength(
      2,
    );
  });

  it("lists events dated after the end in one line: they were not applied", async () => {
    const file = scenarioWith("after", [
      `  - { at: 12h, type: deposit, account: "${DEMO}", coin: USDC, amount: "100" }`,
      `  - { at: 3d, type: price, pair: "@107", change: -0.25 }`,
      `  - { at: 5d, type: validator, validator: "0xb8f45222a3246a2b0104696a1df26842007c5bc5", commission: "0.05", jailed: true }`,
      `  - { at: "2025-02-01T00:00:00Z", type: deposit, account: "${DEMO}", coin: USDC, amount: "5" }`,
    ]);
    const r = await runSimulation({ config: { ...config, strategies: [] }, scenarioFile: file, days: 1 });
    const s = buildSummary(r.record);
    expect(s.portfolio.flows.map((f) => f.amount)).toEqual(["100"]);
    expect(s.eventsNotApplied).toEqual([
      { at: new Date(START + 3 * DAY).toISOString(), type: "price", what: "price of @107 -25%" },
      {
        at: new Date(START + 5 * DAY).toISOString(),
        type: "validator",
        what: "validator ValiDAO (0xb8f4…5bc5) jailed, commission 0.05",
      },
      { at: "2025-02-01T00:00:00.000Z", type: "deposit", what: "deposit of 5 USDC" },
    ]);
    expect(formatSummary(s)).toContain(
      "3 scenario events after the end of the run were not applied: price of @107 -25% at 2025-01-04 00:00; validator ValiDAO (0xb8f4…5bc5) jailed, commission 0.05 at 2025-01-06 00:00; deposit of 5 USDC at 2025-02-01 00:00",
    );
    expect(renderReport({ summary: s, record: r.record })).toContain(
      "3 scenario events after the end of the run were not applied",
    );
  });
});

describe("trades and execution", () => {
  let s: SimulationSummary;
  let r: SimulationResult;
  beforeAll(async () => {
    // PURR is halted a second after the start, for the rest of the day: the rebalancer's first TWAP
    // (placed at the start) runs its course and fills nothing; no other is placed while the venue shows
    // no book.
    const file = scenarioWith("halted", ['  - { at: 1s, type: pair, pair: "PURR/USDC", halted: true }']);
    r = await runSimulation({ config, scenarioFile: file, days: 1 });
    s = buildSummary(r.record);
  }, 60_000);

  it("counts TWAPs that filled nothing apart from those that traded", () => {
    const purr = s.trades.filter((t) => t.label === "PURR/USDC");
    expect(purr.length).toBeGreaterThan(0);
    for (const t of purr) {
      const own = s.twaps.filter((x) => x.label === t.label && x.side === t.side);
      expect(t.twaps).toBe(own.length);
      expect(t.filledNothing).toBe(
        own.filter((x) => x.status !== "running" && Number(x.executedSize) === 0).length,
      );
    }
    const nothing = purr.find((t) => t.filledNothing > 0)!;
    expect(nothing).toBeDefined();
    const hype = s.trades.find((t) => t.label === "HYPE/USDC")!;
    expect(hype.filledNothing).toBe(0);
    const text = formatSummary(s);
    const total = s.trades.reduce((a, t) => a + t.filledNothing, 0);
    expect(text).toContain(`TWAPs (${s.twaps.length}, ${total} filled nothing, from the venue's ledger)`);
    expect(text).toContain(`PURR/USDC ${nothing.side}`);
    const html = renderReport({ summary: s, record: r.record });
    expect(html).toContain('<th class="num">filled nothing</th>');
    expect(html).toContain(`<b>${s.twaps.length} (${total} filled nothing)</b>`);
    expect(text).toMatch(
      new RegExp(
        `PURR/USDC ${nothing.side} +${nothing.twaps} TWAP\\(s\\), ${nothing.filledNothing} filled nothing, ${nothing.slices} slices`,
      ),
    );
  });

  it("gives the unfilled size in base units, under a heading that says so", () => {
    const text = formatSummary(s);
    const lines = text.split("\n");
    const head = lines.findIndex((l) => /decision mid/.test(l));
    expect(lines[head]).toMatch(/unfilled \(base\)$/);
    const unfilled = s.twaps.find((t) => t.label === "PURR/USDC" && t.unfilledSize !== "0")!;
    const row = lines.slice(head).find((l) => l.trimStart().startsWith(`#${unfilled.twapId} `))!;
    expect(row).toMatch(/ PURR$/);
  });
});

describe("net APR", () => {
  it("is rounded half away from zero to 3 decimals of a percent, not cut", () => {
    expect(netAprText("0.023618")).toBe("2.362%");
    expect(netAprText("0.0236149")).toBe("2.361%");
    expect(netAprText("0.0236150")).toBe("2.362%");
    expect(netAprText("0.0219")).toBe("2.19%");
    expect(netAprText(null)).toBe("?");
  });
});

describe("a fork's summary", () => {
  it("names the forked account, not a scenario demo account", async () => {
    const forked = "0x1234567890abcdef1234567890abcdef12345678";
    const r = await runSimulation({ config: { ...config, strategies: [] }, days: 0.1, forkOf: forked });
    const s = buildSummary(r.record);
    expect(s.forkedFrom).toBe(forked);
    const text = formatSummary(s);
    expect(text).toContain("with the holdings of the forked account 0x1234…5678");
    expect(text).not.toContain("demo account");
    expect(renderReport({ summary: s, record: r.record })).toContain(
      `holding what the forked account <code>${forked}</code> held`,
    );
  });
});

describe("a TWAP the limits reduced and the watch cancelled", () => {
  it("says so in its row: what reduced it, and what cancelled it (JSON, console, HTML)", async () => {
    const botDir = scratchDir("hlbot-notes-");
    writeFileSync(
      join(botDir, "dca.yaml"),
      'name: dca\nkind: twap-accumulate\nschedule: "0 0 * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 3000\n  limitPx: 27\n  twap: {minutes: 60, randomize: false}\n',
    );
    writeFileSync(
      join(botDir, "bot.yaml"),
      "network: testnet\nmode: dry-run\nstrategies: [./dca.yaml]\nstate: ./state\nlimits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 100 }\nlog: { level: warn }\n",
    );
    const own = await loadConfig(join(botDir, "bot.yaml"), {});
    // 20 minutes in, HYPE jumps above the buy's 27 ceiling (from about 25).
    const file = scenarioWith("notes", ['  - { at: 20m, type: price, pair: "HYPE/USDC", px: "29" }']);
    const r = await runSimulation({ config: own, scenarioFile: file, days: 1 });
    const s = buildSummary(r.record);
    const first = s.twaps[0]!;
    expect(first.strategy).toBe("dca");
    expect(first.status).toBe("terminated");
    expect(first.note).toMatch(
      /^reduced from [\d.]+ to [\d.]+ \(≈1000 USD\) by maxOrderUsd 1000; cancelled: mid 29 rose above the buy ceiling limitPx 27$/,
    );
    expect(formatSummary(s)).toContain(`  #${first.twapId} ${first.note}`);
    expect(renderReport({ summary: s, record: r.record })).toContain("rose above the buy ceiling limitPx 27");
    // The watch's cancel is a cycle, not a run of the daily DCA: one slot in the day, one run.
    expect(s.strategies.find((x) => x.name === "dca")?.runs).toBe(1);
    expect(s.cycles.watch).toBe(1);
    expect(formatSummary(s)).toMatch(/Cycles: 2, 1 of them the TWAP watch's cancels, 0 failed\. /);
  }, 60_000);
});

describe("a daily schedule under a daily limit", () => {
  it("acts every day: yesterday's run of the same slot is outside the limits' window", async () => {
    // A trial's daily 250-USD DCA under maxDailyNotionalUsd 300 bought every other day: the run of the
    // day before, at the same slot, still counted against the "rolling 24 h".
    const botDir = scratchDir("hlbot-daily-");
    writeFileSync(
      join(botDir, "dca.yaml"),
      'name: dca\nkind: twap-accumulate\nschedule: "30 8 * * *"\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 250\n  twap: {minutes: 60, randomize: false}\n',
    );
    writeFileSync(
      join(botDir, "bot.yaml"),
      "network: testnet\nmode: dry-run\nstrategies: [./dca.yaml]\nstate: ./state\nlimits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 300, maxStakeMovePerDay: 100 }\nlog: { level: warn }\n",
    );
    const own = await loadConfig(join(botDir, "bot.yaml"), {});
    const r = await runSimulation({ config: own, scenarioFile: DEMO_SCENARIO_PATH, days: 4 });
    const s = buildSummary(r.record);
    expect(s.twaps.map((t) => t.placedAt.slice(0, 16))).toEqual([
      "2025-01-01T08:30",
      "2025-01-02T08:30",
      "2025-01-03T08:30",
      "2025-01-04T08:30",
    ]);
  }, 60_000);
});
