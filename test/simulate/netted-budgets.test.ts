// A portfolio trial: a daily DCA buying HYPE (budget 5,000 USD) and a daily take-profit selling HYPE
// (budget 2,000 USD) on the same pair were netted every day (no opposing TWAPs on one pair), but a
// netted trade counted in neither budget: the take-profit's budget never moved, the DCA's ran at half
// speed, and once the DCA's last run netted below the venue minimum neither TWAP went out, every day,
// forever. What a strategy trades by netting now counts in its budget.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { Decimal } from "../../src/lib/decimal.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-netted-budgets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const strategy = (name: string, side: string, amountUsd: number, budgetUsd: number) =>
  `name: ${name}\nkind: twap-accumulate\nschedule: "0 0 * * *"\nparams: { coin: HYPE, side: ${side}, amountUsd: ${amountUsd}, twap: { minutes: 60, randomize: false }, budgetUsd: ${budgetUsd} }\n`;

it("a DCA and a take-profit netted on one pair both spend their budgets, and then stop", async () => {
  mkdirSync(join(dir, "strategies"));
  writeFileSync(join(dir, "strategies", "dca.yaml"), strategy("hype-dca", "buy", 1000, 5000));
  writeFileSync(join(dir, "strategies", "tp.yaml"), strategy("hype-tp", "sell", 500, 2000));
  writeFileSync(
    join(dir, "bot.yaml"),
    "network: testnet\nmode: dry-run\nstrategies: ./strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 5000\n  maxDailyNotionalUsd: 20000\n  maxStakeMovePerDay: 5000\n",
  );
  const config = await loadConfig(join(dir, "bot.yaml"), {});
  const result = await runSimulation({ config, days: 40 });
  const s = buildSummary(result.record);
  const latest = (name: string) =>
    s.reasons.filter((r) => r.strategy === name).sort((a, b) => (a.latestAt < b.latestAt ? 1 : -1))[0]
      ?.latest ?? "";
  // Both end on "budget used up", each within one run of its budget.
  const used = (name: string) => {
    const m = /budget used up \(([\d.]+) of (\d+) USD/.exec(latest(name));
    expect(m, latest(name)).not.toBeNull();
    return new Decimal(m![1]!);
  };
  expect(used("hype-tp").gt(2000 - 100)).toBe(true);
  expect(used("hype-dca").gt(5000 - 100)).toBe(true);
  // The DCA's own TWAPs bought what its budget did not cover by netting: under 5,000 USD in all.
  const bought = s.twaps
    .filter((t) => t.strategy === "hype-dca")
    .reduce((a, t) => a.plus(t.executedNotional), new Decimal(0));
  expect(bought.lt(4000)).toBe(true);
  expect(s.twaps.filter((t) => t.strategy === "hype-tp")).toHaveLength(0);
}, 120_000);
