// A trader's trial: two DCAs buying HYPE, one at 08:00 over 3 hours, one at 09:00 over 30 minutes. The
// second never bought while the first's TWAP ran (10 slots missed of 10, "a TWAP of dca-a is already
// running on HYPE/USDC"), though both go out side by side when their slots share a cycle. A DCA now waits
// for its own TWAP on the pair, an opposing one, or one the bot did not place, not for another of this
// bot's strategies' on its side (what that one still takes is held from the balances).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { formatSummary } from "../../src/simulate/format.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { scratchDir } from "../helpers/scratch.js";

const dca = (name: string, schedule: string, amountUsd: number, minutes: number, side = "buy") => ({
  name,
  kind: "twap-accumulate",
  schedule,
  params: { coin: "HYPE", quote: "USDC", side, amountUsd, twap: { minutes, randomize: false } },
});

async function run(strategies: Array<Record<string, unknown>>) {
  const dir = scratchDir("hlbot-two-dcas-");
  const files = strategies.map((s, i) => {
    const file = join(dir, `s${i}.yaml`);
    writeFileSync(file, stringify(s));
    return file;
  });
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    stringify({
      network: "testnet",
      mode: "dry-run",
      strategies: files,
      limits: { maxOrderUsd: 3000, maxDailyNotionalUsd: 10000, maxStakeMovePerDay: 3000 },
      log: { level: "silent" },
    }),
  );
  const { record } = await runSimulation({ config: await loadConfig(bot, {}), days: 3 });
  const s = buildSummary(record);
  const placed = (name: string) => s.twaps.filter((t) => t.strategy === name).length;
  const reasons = (name: string) =>
    record.cycles.flatMap((c) => c.decisions.filter((d) => d.strategy === name).map((d) => String(d.reason)));
  return { s, placed, reasons };
}

it("a DCA buys in its slot while another DCA's TWAP buys on the same pair", async () => {
  const { placed } = await run([dca("dca-a", "0 8 * * *", 300, 180), dca("dca-b", "0 9 * * *", 200, 30)]);
  expect(placed("dca-a")).toBe(3);
  expect(placed("dca-b")).toBe(3);
}, 60_000);

it("a DCA still waits while another strategy's TWAP sells on its pair", async () => {
  const { placed, reasons } = await run([
    dca("dca-sell", "0 8 * * *", 300, 180, "sell"),
    dca("dca-b", "0 9 * * *", 200, 30),
  ]);
  expect(placed("dca-sell")).toBe(3);
  expect(placed("dca-b")).toBe(0);
  expect(reasons("dca-b")).toContainEqual(
    expect.stringMatching(/^a TWAP #\d+ of dca-sell is already running on HYPE\/USDC/),
  );
}, 60_000);

it("the summary gives each DCA's netted runs and their USD (its budget counts them, Trades do not)", async () => {
  // A trader read "budget: 993.26 of 1200 USD spent" beside one 120-USDC TWAP in Trades.
  const { s, placed } = await run([
    dca("buyer", "0 9 * * *", 200, 30),
    dca("seller", "0 9 * * *", 150, 30, "sell"),
  ]);
  const of = (name: string) => s.strategies.find((x) => x.name === name);
  expect(of("seller")?.netted?.runs).toBe(3);
  expect(of("buyer")?.netted?.runs).toBe(3);
  // The seller's whole sale is covered by the buyer's TWAP each day: about 150 USD a run.
  expect(Number(of("seller")?.netted?.usd)).toBeGreaterThan(400);
  expect(Number(of("seller")?.netted?.usd)).toBeLessThan(500);
  expect(placed("seller")).toBe(0);
  expect(formatSummary(s)).toMatch(
    /seller \(twap-accumulate, "0 9 \* \* \*", 3 runs, 3 netted against opposing TWAPs for [\d.,]+ USD \(traded without a TWAP of its own/,
  );
}, 60_000);
