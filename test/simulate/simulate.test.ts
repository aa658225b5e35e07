// The virtual-time simulation behind `hlbot simulate`, run on the bundled demo configuration and
// scenario: the same seed gives the identical summary; the summary's trades, fees, deposits,
// delegations and rewards are the simulator's ledger and agree with its final state; the HTML report
// is self-contained; the demo key is derived from the seed and never shows up in any output.

import { join } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { computeAddress } from "ethers";
import { beforeAll, describe, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { Decimal } from "../../src/lib/decimal.js";
import { ValidationError } from "../../src/lib/errors.js";
import { adoptDemoAccount, DEFAULT_DEMO_HOLDINGS, demoSigner } from "../../src/simulate/demoAccount.js";
import { formatSummary, signedPct } from "../../src/simulate/format.js";
import { renderReport } from "../../src/simulate/report.js";
import {
  resolvePeriod,
  runSimulation,
  type SimulationResult,
  STAKED_HYPE,
} from "../../src/simulate/runner.js";
import { buildSummary, type SimulationSummary } from "../../src/simulate/summary.js";
import {
  DEMO_SCENARIO_PATH,
  type LedgerEntry,
  loadScenarioFile,
  parseScenarioYaml,
} from "../../src/simulator/index.js";
import { REPO_ROOT } from "../helpers/build.js";

const DAY = 86_400_000;
const START = Date.parse("2025-01-01T00:00:00Z");

/** The demo key as the documentation describes it, derived here independently of the code under test. */
function expectedDemoKey(seed: number): string {
  return bytesToHex(keccak_256(utf8ToBytes(`hlbot simulate demo account\nseed ${seed}\nattempt 0`)));
}

let config: LoadedConfig;
let first: SimulationResult;
let second: SimulationResult;
let finalState: {
  twaps: Array<{ id: number; status: string }>;
  ledger: readonly LedgerEntry[];
  balances: Map<string, Decimal>;
};

beforeAll(async () => {
  config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
  first = await runSimulation({
    config,
    days: 2,
    onFinished: (sim, account) => {
      finalState = {
        twaps: sim.twaps(account).map((t) => ({ id: t.id, status: t.status })),
        ledger: [...sim.ledger({ user: account })],
        balances: new Map(sim.balances(account).map((b) => [b.coin, b.total])),
      };
    },
  });
  // The second run goes over HTTP on 127.0.0.1: the in-process wire must change nothing but speed.
  second = await runSimulation({ config, days: 2, transport: "http" });
}, 60_000);

describe("runSimulation on the demo configuration", () => {
  it("is deterministic, in-process or over HTTP: the same scenario and seed give the identical summary and samples", () => {
    const a = buildSummary(first.record);
    const b = buildSummary(second.record);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(second.record.samples).toEqual(first.record.samples);
    // Something happened: otherwise determinism would prove little.
    expect(a.twaps.length).toBeGreaterThan(0);
    expect(a.staking.changes.length).toBeGreaterThan(0);
    expect(Number(a.staking.rewards.amount)).toBeGreaterThan(0);
    expect(a.cycles).toMatchObject({ failed: 0 });
    // Cycles ran on the strategies' cron schedules: hourly, every 6 hours and twice a day over 2 days.
    expect(Object.fromEntries(a.strategies.map((s) => [s.name, s.runs]))).toEqual({
      "hype-dca": 4,
      "hype-staking": 8,
      "purr-allocation": 48,
    });
    expect(a.period).toEqual({
      from: "2025-01-01T00:00:00.000Z",
      to: "2025-01-03T00:00:00.000Z",
      days: 2,
      interrupted: false,
    });
  });

  it("acts for the account of a key derived from the seed, holding the scenario's demo account", () => {
    const s = buildSummary(first.record);
    expect(s.account).toBe(computeAddress(`0x${expectedDemoKey(42)}`).toLowerCase());
    expect(s.holdingsFrom).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    const start = Object.fromEntries(s.portfolio.start.assets.map((a) => [a.asset, a.amount]));
    expect(start).toEqual({ USDC: "25000", PURR: "5000", HYPE: "1200", [STAKED_HYPE]: "600" });
  });

  it("reports the ledger's TWAPs, slices and fees, which add up to the account's final balances", () => {
    const s = buildSummary(first.record);
    const ledger = finalState.ledger;
    const placed = ledger.filter((e) => e.kind === "twapPlaced");
    const slices = ledger.filter((e) => e.kind === "twapSlice");
    expect(s.twaps.map((t) => t.twapId)).toEqual(placed.map((e) => Number(e.data.twapId)));
    const accepted = (action: string) =>
      s.actions
        .filter((a) => a.action === action && a.outcome === "accepted")
        .reduce((n, a) => n + a.count, 0);
    expect(accepted("twapOrder")).toBe(placed.length);
    for (const t of s.twaps) {
      const mine = slices.filter((e) => Number(e.data.twapId) === t.twapId);
      const sz = mine.reduce((a, e) => a.plus(String(e.data.sz)), new Decimal(0));
      const ntl = mine.reduce((a, e) => a.plus(String(e.data.ntl)), new Decimal(0));
      expect(t.slices).toBe(mine.length);
      expect(new Decimal(t.executedSize).eq(sz)).toBe(true);
      expect(new Decimal(t.executedNotional).eq(ntl)).toBe(true);
      expect(Math.abs(Number(t.averagePrice) - ntl.div(sz).toNumber())).toBeLessThan(1e-8);
      expect(t.status).toBe(
        finalState.twaps.find((x) => x.id === t.twapId)?.status === "activated" ? "running" : "finished",
      );
    }
    for (const f of s.fees.byToken) {
      const total = slices
        .filter((e) => e.data.feeToken === f.token)
        .reduce((a, e) => a.plus(String(e.data.fee)), new Decimal(0));
      expect(new Decimal(f.amount).eq(total)).toBe(true);
    }

    // Start + trades − fees − deposits = what the simulator holds at the end, coin by coin.
    const expected = new Map<string, Decimal>();
    const add = (coin: string, d: Decimal) =>
      expected.set(coin, (expected.get(coin) ?? new Decimal(0)).plus(d));
    for (const a of s.portfolio.start.assets)
      if (a.asset !== STAKED_HYPE) add(a.asset, new Decimal(a.amount));
    for (const t of s.twaps) {
      const [base = "", quote = ""] = t.label.split("/");
      const sign = t.side === "buy" ? 1 : -1;
      add(base, new Decimal(t.executedSize).times(sign));
      add(quote, new Decimal(t.executedNotional).times(-sign));
      add(t.feeToken ?? base, new Decimal(t.fee).neg());
    }
    add("HYPE", new Decimal(s.staking.deposited).neg());
    for (const [coin, amount] of expected) {
      expect(`${coin} ${(finalState.balances.get(coin) ?? new Decimal(0)).toFixed()}`).toBe(
        `${coin} ${amount.toFixed()}`,
      );
    }
  });

  it("reports the ledger's deposits, delegations and rewards, which add up to the final stake", () => {
    const s = buildSummary(first.record);
    const ledger = finalState.ledger;
    const moves = ledger.filter((e) => e.kind === "delegate" || e.kind === "undelegate");
    expect(s.staking.changes.map((c) => [c.action, c.validator, c.amount])).toEqual(
      moves.map((e) => [e.kind, e.data.validator, e.data.amount]),
    );
    const deposits = ledger.filter((e) => e.kind === "cDeposit");
    expect(s.staking.deposits).toBe(deposits.length);
    expect(
      new Decimal(s.staking.deposited).eq(
        deposits.reduce((a, e) => a.plus(String(e.data.amount)), new Decimal(0)),
      ),
    ).toBe(true);
    const rewards = ledger.filter((e) => e.kind === "reward");
    expect(s.staking.rewards.payouts).toBe(rewards.length);
    const rewarded = rewards.reduce((a, e) => a.plus(String(e.data.amount)), new Decimal(0));
    expect(new Decimal(s.staking.rewards.amount).eq(rewarded)).toBe(true);
    // Per validator, rewards are derived from the stake itself; they must add up to the ledger's.
    const perValidator = s.staking.validators.reduce((a, v) => a.plus(v.rewards), new Decimal(0));
    expect(perValidator.eq(rewarded)).toBe(true);
    // The staked HYPE at the end is the start, plus deposits, plus rewards (nothing withdrawn).
    const staked = (v: SimulationSummary["portfolio"]["start"]) =>
      new Decimal(v.assets.find((a) => a.asset === STAKED_HYPE)?.amount ?? 0);
    expect(
      staked(s.portfolio.end).eq(staked(s.portfolio.start).plus(s.staking.deposited).plus(rewarded)),
    ).toBe(true);
    expect(accepted(s, "tokenDelegate")).toBe(moves.length);
    expect(accepted(s, "cDeposit")).toBe(deposits.length);
  });

  it("lists every skipped decision, identical reasons grouped with their count", () => {
    const s = buildSummary(first.record);
    const skips = first.record.cycles.flatMap((c) => c.decisions.filter((d) => d.guard === "skipped"));
    expect(s.skipped.reduce((n, g) => n + g.count, 0)).toBe(skips.length);
    expect(new Set(s.skipped.map((g) => g.reason)).size).toBe(s.skipped.length);
    for (const g of s.skipped)
      expect(skips.filter((d) => d.reason === g.reason && d.strategy === g.strategy)).toHaveLength(g.count);
    const text = formatSummary(s);
    expect(text).toMatch(/^Skipped and blocked \(\d+ decisions/m);
    expect(text).toContain("within band");
    // Each kind says since when as well as the latest (a year-long trial read "345×" for a DCA stopped
    // since its 21st day).
    const many = s.reasons.find((g) => g.count > 1)!;
    expect(text).toContain(`${many.count}×`);
    expect(text).toMatch(
      new RegExp(
        `  \\(${many.first.slice(0, 16).replace("T", " ")} to ${many.latestAt.slice(0, 16).replace("T", " ")}\\)`,
      ),
    );
    const html = renderReport({ summary: s, record: first.record });
    expect(html).toContain("<th>first</th><th>latest</th><th>latest reason</th>");
  });

  it("never shows the demo key, in the summary, its text or the report", () => {
    const key = expectedDemoKey(42);
    const s = buildSummary(first.record);
    for (const out of [
      JSON.stringify(s),
      formatSummary(s),
      renderReport({ summary: s, record: first.record }),
    ]) {
      expect(out.toLowerCase()).not.toContain(key);
    }
  });
});

describe("the HTML report", () => {
  it("is self-contained: no external reference, three inline SVG charts, the samples embedded", () => {
    const s = buildSummary(first.record);
    const html = renderReport({ summary: s, record: first.record });
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/\b(src|href)\s*=|url\(|@import/i);
    expect(html.match(/<svg /g)).toHaveLength(3);
    for (const title of ["Portfolio value", "Portfolio weights", "Stake per validator"])
      expect(html).toContain(title);
    // The value line has one point per sample.
    const line = /<polyline [^>]*points="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(line.split(" ")).toHaveLength(first.record.samples.length);
    const json = /<script type="application\/json" id="hlbot-simulation">([^<]*)<\/script>/.exec(html)?.[1];
    const data = JSON.parse(json ?? "null") as { samples: unknown[]; summary: SimulationSummary };
    expect(data.samples).toEqual(first.record.samples);
    expect(data.summary.twaps).toEqual(s.twaps);
  });
});

describe("periods, seeds and holdings", () => {
  it("resolves --days and --from/--to, refusing empty or inverted periods", () => {
    expect(resolvePeriod({}, START)).toEqual({ from: START, to: START + 3 * DAY });
    expect(resolvePeriod({ days: 0.5, from: START + DAY }, START)).toEqual({
      from: START + DAY,
      to: START + 1.5 * DAY,
    });
    expect(resolvePeriod({ to: START + DAY }, START)).toEqual({ from: START, to: START + DAY });
    for (const bad of [
      { days: -1 },
      { days: 0 },
      { from: START, to: START },
      { to: START - DAY },
      { days: 1, to: START + DAY },
    ])
      expect(() => resolvePeriod(bad, START)).toThrow(ValidationError);
  });

  it("derives a different account from another seed, and stops early when asked", async () => {
    expect(demoSigner(7).address).toBe(computeAddress(`0x${expectedDemoKey(7)}`).toLowerCase());
    expect(demoSigner(7).address).not.toBe(demoSigner(42).address);
    const controller = new AbortController();
    const r = await runSimulation({
      config,
      seed: 7,
      days: 2,
      signal: controller.signal,
      onProgress: ({ doneMs }) => {
        if (doneMs >= 6 * 3_600_000) controller.abort();
      },
    });
    expect(r.record.account).toBe(demoSigner(7).address);
    expect(r.record.interrupted).toBe(true);
    expect(r.record.to).toBe(START + 6 * 3_600_000);
    expect(buildSummary(r.record).period.interrupted).toBe(true);
  });

  it("stops early on an abort from a timer (Ctrl-C in the CLI): the in-process run gives the event loop turns", async () => {
    const controller = new AbortController();
    const wallStart = performance.now();
    // A real timer, as a signal handler is: it can only fire if the run yields to the event loop.
    const timer = setTimeout(() => controller.abort(), 300);
    try {
      const r = await runSimulation({ config, days: 365, signal: controller.signal });
      expect(r.record.interrupted).toBe(true);
      expect(r.record.to).toBeLessThan(START + 365 * 86_400_000);
      // Well short of a whole year (about half a minute here).
      expect(performance.now() - wallStart).toBeLessThan(10_000);
    } finally {
      clearTimeout(timer);
    }
  });

  it("moves the scenario's demo account to the simulated address, or gives the default holdings", () => {
    const scenario = loadScenarioFile(DEMO_SCENARIO_PATH);
    const to = "0x00000000000000000000000000000000000000aa";
    const moved = adoptDemoAccount(scenario, to);
    expect(moved.from).toBe("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    expect(Object.keys(scenario.balances)).not.toContain(moved.from);
    expect(scenario.balances[to]?.HYPE?.toFixed()).toBe("1200");
    expect(scenario.staking[to]?.undelegated.toFixed()).toBe("50");
    expect(scenario.delegations.filter((d) => d.user === to)).toHaveLength(2);

    const bare = parseScenarioYaml(
      "tokens:\n  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8 }\n  - { name: PURR, index: 1, szDecimals: 0, weiDecimals: 5 }\n",
    );
    const defaults = adoptDemoAccount(bare, to);
    expect(defaults.from).toBeUndefined();
    expect(defaults.spot).toEqual({ USDC: DEFAULT_DEMO_HOLDINGS.USDC });
    expect(bare.balances[to]?.USDC?.toFixed()).toBe("10000");
  });
});

function accepted(s: SimulationSummary, action: string): number {
  return s.actions
    .filter((a) => a.action === action && a.outcome === "accepted")
    .reduce((n, a) => n + a.count, 0);
}

describe("a change as a percentage", () => {
  it("takes its sign from the change and says when it is too small to show", () => {
    expect(signedPct("0.1763", "12516.31")).toBe("+17.63%");
    expect(signedPct("-0.0055", "-390.5")).toBe("-0.55%");
    // A loss of 76,510 on a start of billions rounds to a ratio of 0: not "+0.00%".
    expect(signedPct("0", "-76510.83")).toBe("-<0.01%");
    expect(signedPct("-0", "0.55")).toBe("+<0.01%");
    expect(signedPct("0", "0")).toBe("0.00%");
  });
});

describe("a run that ends while a TWAP runs", () => {
  it("shows the size still to fill as running, not as unfilled by the book", async () => {
    // purr-allocation places a 20-minute TWAP at 00:00; the run stops 10 minutes in.
    const r = await runSimulation({ config, days: 10 / 1440 });
    const s = buildSummary(r.record);
    const running = s.twaps.filter((t) => t.status === "running");
    expect(running.length).toBeGreaterThan(0);
    expect(Number(running[0]!.unfilledSize)).toBeGreaterThan(0);
    const row = formatSummary(s)
      .split("\n")
      .find((l) => l.startsWith(`  #${running[0]!.twapId} `) && l.includes("bps"));
    expect(row).toMatch(/ PURR \(still running\)$/);
  }, 60_000);
});

describe("the simulator states predictedApr after commission, as the venue does", () => {
  it("a bot file's venue.predictedAprNet (for the real venue) does not change a simulation", async () => {
    const config = await loadConfig(join(REPO_ROOT, "config/demo.yaml"), {});
    const before = {
      ...config,
      venue: { ...config.venue, rules: { ...config.venue.rules, predictedAprNet: false } },
    };
    const [a, b] = [
      await runSimulation({ config, days: 1 }),
      await runSimulation({ config: before, days: 1 }),
    ];
    const reasons = (r: Awaited<ReturnType<typeof runSimulation>>) =>
      r.record.cycles.flatMap((c) =>
        c.decisions.filter((d) => d.strategy === "hype-staking").map((d) => d.reason),
      );
    expect(reasons(a).length).toBeGreaterThan(0);
    expect(reasons(b)).toEqual(reasons(a));
    expect(reasons(a).join(" ")).toMatch(/net APR 2\.362% \(after its 2% commission\)/);
  }, 60_000);
});
