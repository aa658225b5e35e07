// A DCA trial: a TWAP the allocator cut (netting against an opposing TWAP, or what another strategy
// left of the quote) was journaled "allowed", not "reduced", whenever the price checks then valued it
// at a higher price (the previous day's, on a falling day): `plan`, `history` and the simulation's
// summary said nothing of the cut.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-revalued-reduced-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const strategy = (name: string, side: string, amountUsd: number) =>
  `name: ${name}\nkind: twap-accumulate\nschedule: "0 9 * * *"\nparams: { coin: HYPE, side: ${side}, amountUsd: ${amountUsd}, twap: { minutes: 60, randomize: false } }\n`;

it("a netted TWAP is journaled reduced, also when the price checks valued it at a higher price", async () => {
  mkdirSync(join(dir, "strategies"));
  writeFileSync(join(dir, "strategies", "a-buy.yaml"), strategy("b-buy", "buy", 500));
  writeFileSync(join(dir, "strategies", "b-sell.yaml"), strategy("b-sell", "sell", 300));
  writeFileSync(
    join(dir, "bot.yaml"),
    "network: testnet\nmode: dry-run\nstrategies: ./strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 5000\n  maxDailyNotionalUsd: 20000\n  maxStakeMovePerDay: 5000\n",
  );
  const config = await loadConfig(join(dir, "bot.yaml"), {});
  const result = await runSimulation({ config, days: 12 });
  const netted = result.record.cycles.flatMap((c) =>
    c.decisions.filter((d) => d.kind === "twapOrder" && d.strategy === "b-buy" && /netted/.test(d.reason)),
  );
  expect(netted.length).toBeGreaterThanOrEqual(10);
  // The case that went wrong is among them: netted, then valued at a higher price.
  expect(netted.filter((d) => /valued at .*the highest price seen/.test(d.reason)).length).toBeGreaterThan(0);
  expect(netted.map((d) => d.guard)).toEqual(netted.map(() => "reduced"));
}, 120_000);
