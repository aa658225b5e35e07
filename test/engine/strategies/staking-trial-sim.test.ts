// A staker's trial (validator-staking), end to end: the real simulator in virtual time, the real engine,
// journal in a temp folder. Each case failed before its fix.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/engine/config/loader.js";
import { runSimulation } from "../../../src/simulate/runner.js";

const USER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const V = (n: number) => `0xaaaa00000000000000000000000000000000000${n}`;
interface Val {
  n: number;
  name: string;
  apr: string;
  commission: string;
  stake?: string;
  jailed?: boolean;
}

async function trial(t: {
  validators: Val[];
  delegations: Record<number, string>;
  params: string;
  limit: string;
  days: number;
}) {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-trial-stake-"));
  try {
    const validators = t.validators
      .map(
        (v) =>
          `  - { address: "${V(v.n)}", name: ${v.name}, stake: "${v.stake ?? "20000000"}", commission: "${v.commission}", apr: "${v.apr}", uptime: "1.0", nRecentBlocks: 10${v.jailed ? ", isJailed: true, unjailableIn: 30d" : ""} }`,
      )
      .join("\n");
    const delegations = Object.entries(t.delegations)
      .map(([n, amount]) => `  - { user: "${USER}", validator: "${V(Number(n))}", amount: "${amount}" }`)
      .join("\n");
    writeFileSync(
      join(dir, "scenario.yaml"),
      `name: trial\nseed: 7\nsettings:\n  startTime: "2025-01-01T00:00:00Z"\n  delegationLock: 1d\n  withdrawalDelay: 7d\ntokens:\n  - { name: USDC, index: 0, szDecimals: 8, weiDecimals: 8, tokenId: "0x6d1e7cde53ba9467b783cb7c530ce054", isCanonical: true }\n  - { name: HYPE, index: 150, szDecimals: 2, weiDecimals: 8, tokenId: "0x0d01dc56dcaaca66ad901c959b4011ec" }\npairs:\n  - { index: 107, base: HYPE, quote: USDC }\nprices:\n  "@107": { start: "25.0", drift: 0.0, volatility: 0.5 }\nvalidators:\n${validators}\naccounts:\n  - { address: "${USER}", label: demo }\nbalances:\n  "${USER}": { USDC: "1000", HYPE: "0" }\ndelegations:\n${delegations}\n`,
    );
    writeFileSync(
      join(dir, "stake.yaml"),
      `name: stake\nkind: validator-staking\nschedule: "15 */6 * * *"\nparams:\n${t.params}`,
    );
    writeFileSync(
      join(dir, "bot.yaml"),
      `network: testnet\nmode: dry-run\nstrategies: [./stake.yaml]\nlimits: {maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: ${t.limit}}\n`,
    );
    const config = await loadConfig(join(dir, "bot.yaml"), {});
    const result = await runSimulation({ config, scenarioFile: join(dir, "scenario.yaml"), days: t.days });
    return result.record.ledger
      .filter((e) => e.kind === "delegate" || e.kind === "undelegate")
      .map((e) => ({
        hour: Math.floor((e.time - Date.UTC(2025, 0, 1)) / 3_600_000),
        kind: e.kind,
        validator: t.validators.find((v) => V(v.n) === e.data.validator)?.name,
        amount: Number(e.data.amount),
      }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("trial (simulated): validator-staking", () => {
  it("jailed stake (earning nothing) leaves before high-commission stake (still earning) under a daily cap", async () => {
    // 5,000 HYPE a day may move: 2,500 between validators. Jailed 5,000 pays 0; FeeHigh 5,100 pays 2.125%.
    const moves = await trial({
      validators: [
        { n: 1, name: "Good1", apr: "0.025", commission: "0.02" },
        { n: 2, name: "Good2", apr: "0.025", commission: "0.02" },
        { n: 3, name: "Jailed", apr: "0.024", commission: "0.03", jailed: true },
        { n: 4, name: "FeeHigh", apr: "0.025", commission: "0.15" },
      ],
      delegations: { 1: "5000", 2: "5000", 3: "5000", 4: "5100" },
      params: "  validators: 2\n  maxCommission: 0.05\n",
      limit: "5000",
      days: 2,
    });
    const out = moves.filter((m) => m.kind === "undelegate");
    // Before: day 0 and day 1 both moved FeeHigh (larger amount first); Jailed waited 2+ days at 0%.
    expect(out[0]?.validator).toBe("Jailed");
  }, 60_000);

  it("does not move stake between two validators of equal net APR (tie) when a larger incumbent keeps its place", async () => {
    const moves = await trial({
      validators: [
        { n: 1, name: "Hotel", apr: "0.026", commission: "0.01", stake: "9000" },
        { n: 2, name: "Alpha", apr: "0.024", commission: "0.03", stake: "30000000" },
        { n: 3, name: "Charlie", apr: "0.024", commission: "0.03", stake: "25000000" },
        { n: 4, name: "Juliet", apr: "0.0235", commission: "0.02", stake: "11000000" },
      ],
      delegations: { 1: "18000", 3: "13000", 4: "18000" },
      params: "  validators: 3\n  maxCommission: 0.05\n",
      limit: "100000",
      days: 2,
    });
    // Before: 13,000 HYPE undelegated from Charlie and delegated to Alpha (both 2.328% net).
    expect(moves.filter((m) => m.kind === "undelegate" && m.validator === "Charlie")).toEqual([]);
  }, 60_000);

  it("does not ping-pong stake in and out of a validator its own delegation takes above maxNetworkShare", async () => {
    const moves = await trial({
      validators: [
        { n: 1, name: "Flappy", apr: "0.0263", commission: "0.01", stake: "14990000" },
        { n: 2, name: "Steady", apr: "0.024", commission: "0.03", stake: "14000000" },
        { n: 3, name: "Third", apr: "0.0238", commission: "0.03", stake: "14000000" },
        { n: 5, name: "Fill5", apr: "0.024", commission: "0.10", stake: "8000000" },
        { n: 6, name: "Fill6", apr: "0.024", commission: "0.10", stake: "8000000" },
        { n: 7, name: "Fill7", apr: "0.024", commission: "0.10", stake: "8000000" },
        { n: 8, name: "Fill8", apr: "0.024", commission: "0.10", stake: "8000000" },
      ],
      delegations: { 1: "20000", 2: "20000" },
      params: "  validators: 2\n  maxCommission: 0.05\n  maxNetworkShare: 0.2\n",
      limit: "100000",
      days: 6,
    });
    // Before: 20,000 HYPE out of Flappy on day 0, back on day 1, out on day 2, ... (12 moves in 6 days).
    const intoFlappy = moves.filter((m) => m.kind === "delegate" && m.validator === "Flappy");
    expect(intoFlappy).toEqual([]);
  }, 60_000);
});
