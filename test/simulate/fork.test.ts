// `hlbot simulate --fork`: a simulator on 127.0.0.1 stands in for the network, holding an account with
// spot balances, idle stake, a locked delegation and a pending withdrawal. The fork reads it once through
// the info client and the simulation starts from exactly that state: the same spot totals, the same
// stake per validator with the same lock, the same idle and pending HYPE, the validators as the network
// lists them (a jailed one stays jailed); books are modelled from each pair's volume, never cost-free.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { forkAccount } from "../../src/simulate/fork.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { parseScenarioObject, type Simulator, startSimulator } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";
import { ADDR, testScenario, VALIDATORS } from "../simulator/fixtures.js";

const HOUR = 3_600_000;
let network: Simulator & { url: string };
let transport: HttpTransport;

beforeAll(async () => {
  network = (await startSimulator({
    scenario: testScenario({
      // The demo strategies' markets (HYPE and PURR against USDC), as the real venue lists them.
      tokens: [
        { name: "USDC", index: 0, szDecimals: 8, weiDecimals: 8 },
        { name: "PURR", index: 1, szDecimals: 0, weiDecimals: 5 },
        { name: "HYPE", index: 150, szDecimals: 2, weiDecimals: 8 },
      ],
      pairs: [
        { index: 0, base: "PURR", quote: "USDC" },
        { index: 107, base: "HYPE", quote: "USDC", dayNtlVlm: "50000000" },
      ],
      prices: { "@107": { start: "25", volatility: 0 }, "PURR/USDC": { start: "0.2", volatility: 0 } },
      accounts: [{ address: ADDR.trader, label: "someone" }],
      balances: { [ADDR.trader]: { USDC: "1234.5", HYPE: "42.25" } },
      staking: {
        [ADDR.trader]: { undelegated: "7", pendingWithdrawals: [{ amount: "3", finalizesIn: "2d" }] },
      },
      delegations: [
        { user: ADDR.trader, validator: VALIDATORS.a, amount: "100", lockedFor: "10h" },
        { user: ADDR.trader, validator: VALIDATORS.b, amount: "50" },
      ],
    }),
    rateLimit: false,
  })) as Simulator & { url: string };
  network.advance(2 * HOUR);
  transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", network.url), budget: null });
});
afterAll(async () => {
  await transport.close();
  await network.stop();
});

describe("a fork of a real account", () => {
  it("is a valid scenario holding exactly what the network says the account holds", async () => {
    const fork = await forkAccount(new InfoClient(transport), ADDR.trader, {
      network: "testnet",
      now: Date.now,
    });
    // The venue's clock, from the Date header (second resolution).
    expect(Math.abs(fork.at - network.now())).toBeLessThan(1000);
    const scenario = parseScenarioObject(fork.scenario);
    expect(scenario.accounts).toEqual([expect.objectContaining({ address: ADDR.trader, label: "demo" })]);
    expect(
      Object.fromEntries(Object.entries(scenario.balances[ADDR.trader]!).map(([c, a]) => [c, a.toString()])),
    ).toEqual({
      USDC: "1234.5",
      HYPE: "42.25",
    });
    expect(scenario.staking[ADDR.trader]!.undelegated.toString()).toBe("7");
    expect(scenario.staking[ADDR.trader]!.pendingWithdrawals.map((w) => w.amount.toString())).toEqual(["3"]);
    const byValidator: Record<string, [string, number]> = Object.fromEntries(
      scenario.delegations.map((d) => [d.validator, [d.amount.toString(), d.lockedFor] as [string, number]]),
    );
    expect(byValidator).toEqual({ [VALIDATORS.a]: ["100", expect.any(Number)], [VALIDATORS.b]: ["50", 0] });
    expect(Math.abs((byValidator[VALIDATORS.a]?.[1] ?? 0) - 8 * HOUR)).toBeLessThan(1000);
    const jailed = scenario.validators.find((v) => v.address === VALIDATORS.jailed)!;
    expect(jailed.isJailed).toBe(true);
    // The network's 95,000,050 includes the account's own 50, which the fork seeds as its delegation.
    expect(scenario.validators.find((v) => v.address === VALIDATORS.b)!.stake.toString()).toBe("95000000");
    expect(scenario.pairs.find((p) => p.base === "HYPE")).toMatchObject({
      name: "@107",
      base: "HYPE",
      book: { class: "deep" },
    });
    // Seeded by the scenario, not by a cWithdraw: its start is not in the history.
    expect(fork.notes.join("\n")).toMatch(/pending withdrawal .* not dated .* full queue/);
    // The account's own fee rates (this network charges 0.1% spot taker, not the default 0.07% less a
    // staking discount), carried into the fork and named in its notes.
    const own = await new InfoClient(transport).userFees({ user: ADDR.trader });
    expect(own.userSpotCrossRate).toBe("0.001");
    const charged = scenario.settings.fees;
    expect([charged.spotCross.toString(), charged.spotAdd.toString()]).toEqual([
      own.userSpotCrossRate,
      own.userSpotAddRate,
    ]);
    // Already discounted: no discount applied again on top.
    expect([charged.stakingDiscount, charged.referralDiscount.toString()]).toEqual([false, "0"]);
    expect(fork.notes).toContain(
      "fees are the account's own rates from userFees, spot taker 0.1% and maker 0.04% (staking discount 0%, referral discount 0% included), held for the whole run: staking more during it does not lower them",
    );
  });

  it("starts the simulation from that state, adopted by the demo key", async () => {
    const fork = await forkAccount(new InfoClient(transport), ADDR.trader, {
      network: "testnet",
      now: Date.now,
    });
    const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    const result = await runSimulation({
      config: { ...config, strategies: [] },
      scenario: fork.scenario,
      scenarioFile: "fork",
      days: 0.01,
    });
    const start = result.record.start;
    const started = {
      spot: Object.fromEntries(
        start.assets.filter((a) => !a.asset.includes("staked")).map((a) => [a.asset, a.amount.toString()]),
      ),
      stake: Object.fromEntries(Object.entries(start.stake).map(([v, a]) => [v, a.toString()])),
      idle: start.staking.idle.toString(),
    };
    expect(started).toEqual({
      spot: { USDC: "1234.5", HYPE: "42.25" },
      stake: { [VALIDATORS.a]: "100", [VALIDATORS.b]: "50" },
      idle: "7",
    });
    expect(start.staking.pendingWithdrawal.toString()).toBe("3");
    expect(result.record.account).not.toBe(ADDR.trader);
  });

  it("hlbot simulate --fork reads the account and runs; a fork with --scenario is refused", async () => {
    ensureBuilt(["cli/commands/simulate.js", "simulate/fork.js"]);
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, "simulate", ...args], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? "", NO_COLOR: "1" },
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c: Buffer) => (stdout += c));
        child.stderr.on("data", (c: Buffer) => (stderr += c));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
    const reportDir = mkdtempSync(join(tmpdir(), "hlbot-fork-report-"));
    onTestFinished(() => rmSync(reportDir, { recursive: true, force: true }));
    const reportFile = join(reportDir, "fork.html");
    const ok = await run([
      "--fork",
      "--account",
      ADDR.trader,
      "--base-url",
      network.url,
      "--days",
      "1",
      "--json",
      "--report",
      reportFile,
    ]);
    expect(ok.stderr).toMatch(
      new RegExp(
        `forked ${ADDR.trader} on testnet at .*: spot 1234.5 USDC, 42.25 HYPE; staking 150(\\.0)? HYPE delegated`,
      ),
    );
    expect(ok.code).toBe(0);
    const summary = JSON.parse(ok.stdout) as {
      scenario: { name: string };
      forkedFrom: string | null;
      notes?: string[];
      portfolio: { start: { assets: Array<{ asset: string; amount: string }> } };
    };
    expect(summary.portfolio.start.assets.find((a) => a.asset === "USDC")?.amount).toBe("1234.5");
    // The summary names the forked account (the text says "the forked account 0x…"), not a demo account.
    expect(summary.forkedFrom).toBe(ADDR.trader.toLowerCase());
    // What the fork approximated travels with the saved result, not only on stderr.
    expect(summary.notes).toContainEqual(expect.stringMatching(/pending withdrawal .* not dated/));
    expect(summary.notes).toContainEqual(expect.stringMatching(/^fees are the account's own rates/));
    // And with a saved report (a fork trial: its notes, "prices hold the fork's mids (flat)", were not).
    expect(readFileSync(reportFile, "utf8")).toContain("The fork: ");
    expect(readFileSync(reportFile, "utf8")).toContain(
      "prices hold the fork&#39;s mids (flat) unless replaced",
    );
    const refused = await run(["--fork", "--scenario", "x.yaml", "--account", ADDR.trader]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--scenario: a fork is its own scenario/);
    const noAccount = await run(["--fork", "--base-url", network.url]);
    expect(noAccount.code).toBe(2);
    expect(noAccount.stderr).toMatch(/--fork needs the account to copy/);
  }, 60_000);
});
