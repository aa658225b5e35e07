// Strategies sharing an account that will fight (issue #12): `hlbot config validate` warns, naming the
// fix; and twap-rebalance's countStaked default is resolved from the strategies that share the account.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../../src/engine/config/loader.js";
import { strategyConflicts } from "../../../src/engine/strategies/shared.js";
import { buildOnce, REPO_ROOT } from "../../helpers/build.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-conflicts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => buildOnce(), 120_000);

const REBALANCE = {
  name: "hype-5050",
  kind: "twap-rebalance",
  schedule: "0 * * * *",
  params: { targets: { HYPE: 0.5, USDC: 0.5 }, twap: { minutes: 60 } },
};
const DCA = (name: string, side: string, coin = "HYPE") => ({
  name,
  kind: "twap-accumulate",
  schedule: "30 8 * * *",
  params: { coin, side, amountUsd: 250, twap: { minutes: 60 } },
});
const STAKING = {
  name: "staking",
  kind: "validator-staking",
  schedule: "15 */6 * * *",
  params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 10 } },
};

function writeBot(name: string, strategies: Array<Record<string, unknown>>): string {
  const files = strategies.map((s, i) => {
    const f = join(dir, `${name}-${i}.yaml`);
    writeFileSync(f, stringify(s));
    return f;
  });
  const bot = join(dir, `${name}.yaml`);
  writeFileSync(
    bot,
    stringify({
      network: "testnet",
      strategies: files,
      limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 },
    }),
  );
  return bot;
}

describe("strategies that will fight", () => {
  it("warns about a DCA of a rebalanced token, opposing DCAs, and staking under a spot-only rebalancer", async () => {
    const c = await loadConfig(
      writeBot("fight", [
        { ...REBALANCE, params: { ...REBALANCE.params, countStaked: false } },
        DCA("dca-buy", "buy"),
        DCA("dca-sell", "sell"),
        STAKING,
      ]),
      {},
    );
    const w = strategyConflicts(c.strategies);
    expect(w).toHaveLength(5);
    expect(w[0]).toMatch(
      /dca-buy buys HYPE, which hype-5050 holds at 0.5 .* once dca-buy's runs take HYPE out of hype-5050's band, hype-5050 trades them back/,
    );
    expect(w[1]).toMatch(/dca-sell sells HYPE/);
    expect(w[2]).toMatch(/staking moves spot HYPE above 10 into staking.*Set countStaked: true in hype-5050/);
    expect(w[3]).toMatch(/dca-sell sells HYPE, and staking moves spot HYPE above keepSpot 10 into staking/);
    expect(w[4]).toMatch(/dca-buy buys and dca-sell sells HYPE\/USDC: opposing sides on one pair/);
  });

  it("warns when staking sweeps the spot HYPE a selling DCA needs (a trial's DCA sold 100 HYPE, then nothing)", async () => {
    const c = await loadConfig(writeBot("sell-and-stake", [DCA("hype-sell", "sell"), STAKING]), {});
    expect(strategyConflicts(c.strategies)).toEqual([
      "hype-sell sells HYPE, and staking moves spot HYPE above keepSpot 10 into staking between its runs: " +
        "staked HYPE takes the unstaking queue (7 days on mainnet) to come back, so hype-sell can sell only what " +
        "is kept on spot. Check that keepSpot (or limits.keepOnSpot.HYPE) covers what hype-sell sells in a week, or disable stakeIdleSpot.",
    ]);
    // Buying HYPE, or staking that leaves spot HYPE alone: nothing to say.
    const buy = await loadConfig(writeBot("buy-and-stake", [DCA("hype-buy", "buy"), STAKING]), {});
    expect(strategyConflicts(buy.strategies)).toEqual([]);
    const noSweep = { ...STAKING, params: { validators: 2 } };
    const alone = await loadConfig(writeBot("sell-no-sweep", [DCA("hype-sell", "sell"), noSweep]), {});
    expect(strategyConflicts(alone.strategies)).toEqual([]);
  });

  it("knows a DCA's coin written as its pair: 'PURR/USDC' offline, '@107' once the metadata names it", async () => {
    const c = await loadConfig(
      writeBot("pair-names", [
        REBALANCE,
        DCA("dca-pair", "buy", "HYPE/USDC"),
        DCA("dca-venue-name", "sell", "@107"),
      ]),
      {},
    );
    // Offline, "@107" is not known to be HYPE: only the BASE/QUOTE name is compared.
    const offline = strategyConflicts(c.strategies);
    expect(offline).toHaveLength(1);
    expect(offline[0]).toMatch(/^dca-pair buys HYPE \(HYPE\/USDC\), which hype-5050 holds at 0.5 /);
    // With the metadata: the venue name's DCA fights the rebalancer and the other DCA too.
    const known = strategyConflicts(c.strategies, (coin) =>
      coin === "@107" ? { base: "HYPE", quote: "USDC" } : undefined,
    );
    expect(known).toEqual([
      offline[0],
      expect.stringMatching(/^dca-venue-name sells HYPE \(@107\), which hype-5050 holds at 0.5 /),
      expect.stringMatching(/^dca-pair buys and dca-venue-name sells HYPE\/USDC: opposing sides on one pair/),
    ]);
  });

  it("does not call a buy below a ceiling and a sell above a higher floor a fight (they never trade at one mid)", async () => {
    const withLimit = (d: ReturnType<typeof DCA>, limitPx: number) => ({
      ...d,
      params: { ...d.params, limitPx },
    });
    const apart = await loadConfig(
      writeBot("buy-low-sell-high", [
        withLimit(DCA("buy-low", "buy"), 19),
        withLimit(DCA("sell-high", "sell"), 22),
      ]),
      {},
    );
    expect(strategyConflicts(apart.strategies)).toEqual([]);
    // Ranges that overlap (a ceiling above the floor) trade against each other between them: warned.
    const overlap = await loadConfig(
      writeBot("overlapping", [
        withLimit(DCA("buy-low", "buy"), 23),
        withLimit(DCA("sell-high", "sell"), 22),
      ]),
      {},
    );
    expect(strategyConflicts(overlap.strategies)).toEqual([
      expect.stringMatching(/^buy-low buys and sell-high sells HYPE\/USDC: opposing sides on one pair/),
    ]);
  });

  it("warns when staking keeps no HYPE on spot for a rebalancer that holds HYPE (it could never sell)", async () => {
    const c = await loadConfig(
      writeBot("nothing-to-sell", [
        REBALANCE,
        { ...STAKING, params: { ...STAKING.params, stakeIdleSpot: { enabled: true, keepSpot: 0 } } },
      ]),
      {},
    );
    expect(strategyConflicts(c.strategies)).toEqual([
      expect.stringMatching(
        /^staking moves all spot HYPE into staking \(keepSpot: 0\), and hype-5050 can sell only spot HYPE: .* Keep some HYPE on spot/,
      ),
    ]);
    // Some kept: the rebalancer can sell those, and then no more (stake is never withdrawn for it).
    const kept = await loadConfig(writeBot("some-kept", [REBALANCE, STAKING]), {});
    expect(strategyConflicts(kept.strategies)).toEqual([
      expect.stringMatching(
        /^staking stakes spot HYPE above keepSpot \d+ and never withdraws stake for hype-5050's sales.*Set withdrawForSales: true in staking/,
      ),
    ]);
    // With maxStaked set, it is not advised again (a docs trial: "cap the stake (maxStaked)" to one who had).
    const capped = await loadConfig(
      writeBot("capped", [REBALANCE, { ...STAKING, params: { ...STAKING.params, maxStaked: 1000 } }]),
      {},
    );
    const [cappedWarning] = strategyConflicts(capped.strategies);
    expect(cappedWarning).toMatch(
      /\(its maxStaked 1000 withdraws only the stake above it\)\. Set withdrawForSales: true/,
    );
    expect(cappedWarning).not.toMatch(/cap the stake|by staking's maxStaked/);
    // withdrawForSales: what a sale lacks beyond keepSpot is withdrawn for it, nothing to warn of.
    const withdraws = { ...STAKING, params: { ...STAKING.params, withdrawForSales: true } };
    const served = await loadConfig(writeBot("served", [REBALANCE, withdraws]), {});
    expect(strategyConflicts(served.strategies)).toEqual([]);
    // Unless nothing is kept on spot: then every sale waits the queue.
    const slow = await loadConfig(
      writeBot("slow", [
        REBALANCE,
        { ...withdraws, params: { ...withdraws.params, stakeIdleSpot: { enabled: true, keepSpot: 0 } } },
      ]),
      {},
    );
    expect(strategyConflicts(slow.strategies)).toEqual([
      expect.stringMatching(
        /\(unstaking takes 7 days on mainnet: withdrawForSales withdraws what a sale lacks, and the sale waits that long\)/,
      ),
    ]);
  });

  it("countStaked defaults to true when a staking strategy shares the account, false otherwise", async () => {
    const shared = await loadConfig(writeBot("shared", [REBALANCE, STAKING]), {});
    const alone = await loadConfig(writeBot("alone", [REBALANCE]), {});
    const countStaked = (c: typeof shared) =>
      c.strategies.find((s) => s.kind === "twap-rebalance")?.params as { countStaked?: boolean };
    expect(countStaked(shared).countStaked).toBe(true);
    expect(countStaked(alone).countStaked).toBe(false);
    // Staking paused (enabled: false) leaves the stake where it is: still counted (a newcomer's pause had
    // the rebalancer buy 13,660 USDC of HYPE in 3 hours, the stake no longer in HYPE's weight).
    const paused = await loadConfig(writeBot("paused", [REBALANCE, { ...STAKING, enabled: false }]), {});
    expect(countStaked(paused).countStaked).toBe(true);
    // And says so: a stake meant to stay apart would be sold against (a review).
    expect(strategyConflicts(paused.strategies)).toEqual([
      expect.stringMatching(
        /^hype-5050 counts staked HYPE in its weight \(countStaked, true by default while staking is configured, even disabled/,
      ),
    ]);
    expect(strategyConflicts(shared.strategies).some((w) => /even disabled/.test(w))).toBe(false);
    // Only the one thing staking beside a rebalancer always says without withdrawForSales (stake is never withdrawn for its sales).
    expect(strategyConflicts(shared.strategies)).toEqual([
      expect.stringMatching(/never withdraws stake for/),
    ]);
  });

  it("`hlbot config validate` prints the warnings and still exits 0", () => {
    const bot = writeBot("cli", [REBALANCE, DCA("dca-buy", "buy")]);
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "bin/hlbot.js"), "config", "validate", "--config", bot],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? "", HLBOT_PRIVATE_KEY: "set" },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^warning: dca-buy buys HYPE, which hype-5050 holds/m);
  });
});
