// The shipped configurations work together (issue #12): config/default.yaml with strategies/ (the
// Docker image ships the same strategies) and config/demo.yaml with config/demo-strategies/, simulated
// on the demo scenario, end with every rebalancer target within its band, no rejected action, and USDC
// still a material share of the portfolio. `config validate` finds no fight among them and no setting that undoes a protection. (The CLI runs
// them for 30 days; 7 keep this test short.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { configWarnings } from "../../src/engine/config/warnings.js";
import { Decimal, ZERO } from "../../src/lib/decimal.js";
import { runSimulation, STAKED_HYPE } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

const DAYS = 7;

describe.each(["config/default.yaml", "config/demo.yaml"])("%s", (file) => {
  it(`over ${DAYS} simulated days: targets within their bands, nothing rejected, USDC kept`, async () => {
    const config = await loadConfig(`${REPO_ROOT}/${file}`, {});
    // No setting that undoes a protection. The default set says one thing: its PURR DCA pays in the USDC
    // its rebalancer holds at 50% (half of each purchase paid by selling HYPE); its staking withdraws
    // what the rebalancer's sales lack (withdrawForSales), so nothing about that. The demo says nothing.
    expect(configWarnings(config)).toEqual(
      file === "config/default.yaml"
        ? [expect.stringMatching(/^purr-dca pays for its buys in USDC, which hype-usdc-5050 holds at 0\.5/)]
        : [],
    );
    const { record } = await runSimulation({ config, days: DAYS });
    const summary = buildSummary(record);

    expect(summary.cycles.failed).toBe(0);
    expect(summary.rejections).toEqual([]);
    const value = (asset: string) =>
      new Decimal(summary.portfolio.end.assets.find((a) => a.asset === asset)?.value ?? "0");
    const total = new Decimal(summary.portfolio.end.value);
    expect(value("USDC").div(total).toNumber()).toBeGreaterThan(0.15);

    const rebalancers = config.strategies.filter((s) => s.enabled && s.kind === "twap-rebalance");
    expect(rebalancers.length).toBeGreaterThan(0);
    for (const r of rebalancers) {
      if (r.kind !== "twap-rebalance") continue;
      const worth = (token: string) =>
        value(token).plus(r.params.countStaked === true && token === "HYPE" ? value(STAKED_HYPE) : ZERO);
      const portfolio = Object.keys(r.params.targets).reduce((a, t) => a.plus(worth(t)), ZERO);
      for (const [token, target] of Object.entries(r.params.targets)) {
        const weight = worth(token).div(portfolio);
        expect(
          weight.minus(target).abs().lte(r.params.band),
          `${r.name}: ${token} at ${weight.toFixed(4)}, target ${target} ± ${r.params.band}`,
        ).toBe(true);
      }
    }
  }, 60_000);
});

describe("a rebalancer and a staking sweep on one account (issue #12, case 2)", () => {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-case2-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The strategies config/default.yaml shipped before: 50/50 HYPE/USDC hourly, staking all spot HYPE above 10. */
  async function simulate(countStaked: boolean | undefined) {
    const rebalance = {
      name: "hype-usdc-5050",
      kind: "twap-rebalance",
      schedule: "0 * * * *",
      params: {
        targets: { HYPE: 0.5, USDC: 0.5 },
        band: 0.05,
        twap: { minutes: 60 },
        minOrderUsd: 100,
        ...(countStaked === undefined ? {} : { countStaked }),
      },
    };
    const staking = {
      name: "hype-staking",
      kind: "validator-staking",
      schedule: "15 */6 * * *",
      params: { validators: 3, stakeIdleSpot: { enabled: true, keepSpot: 10 } },
    };
    const tag = String(countStaked);
    writeFileSync(join(dir, `r-${tag}.yaml`), stringify(rebalance));
    writeFileSync(join(dir, `s-${tag}.yaml`), stringify(staking));
    writeFileSync(
      join(dir, `bot-${tag}.yaml`),
      stringify({
        network: "testnet",
        strategies: [`r-${tag}.yaml`, `s-${tag}.yaml`],
        limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 10000 },
      }),
    );
    const config = await loadConfig(join(dir, `bot-${tag}.yaml`), {});
    const { record } = await runSimulation({ config, days: 2 });
    const end = buildSummary(record).portfolio.end;
    return new Decimal(end.assets.find((a) => a.asset === "USDC")?.amount ?? "0");
  }

  it("counting spot HYPE only, the rebalancer buys what staking stakes and drains USDC; counting staked, it does not", async () => {
    // Spot only: 25,000 USDC fall to about 650 in two days (the shipped files of before: 261 after seven).
    expect((await simulate(false)).toNumber()).toBeLessThan(2_000);
    // countStaked unset: resolved to true because a staking strategy shares the account.
    expect((await simulate(undefined)).toNumber()).toBeGreaterThan(30_000);
  }, 60_000);
});

describe("strategies/link-staking.yaml", () => {
  it("enabled without STAKING_ACCOUNT: config validate warns and the strategy sends nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-link-"));
    const text = readFileSync(`${REPO_ROOT}/strategies/link-staking.yaml`, "utf8").replace(
      /^enabled: false$/m,
      "enabled: true",
    );
    expect(text).toMatch(/^enabled: true$/m);
    writeFileSync(join(dir, "link-staking.yaml"), text);
    writeFileSync(
      join(dir, "hlbot.yaml"),
      stringify({
        network: "testnet",
        mode: "dry-run",
        strategies: ["./link-staking.yaml"],
        limits: { maxOrderUsd: 500, maxDailyNotionalUsd: 2000, maxStakeMovePerDay: 100 },
      }),
    );
    const config = await loadConfig(join(dir, "hlbot.yaml"), {});
    expect(configWarnings(config)).toEqual([
      expect.stringMatching(
        /^strategy staking-link: counterparty 0x0+1 is a placeholder, not an account \(is STAKING_ACCOUNT set/,
      ),
    ]);
    const withAccount = await loadConfig(join(dir, "hlbot.yaml"), {
      STAKING_ACCOUNT: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    });
    expect(configWarnings(withAccount)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
