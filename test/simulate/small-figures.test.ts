// A numbers audit: the simulation summary cut sizes to 4 decimals and prices and fees to 6, so a UBTC
// DCA's 0.00157 UBTC showed as 0.0015 (4.5% less), its fee of 0.0000009 UBTC as 0, and a price under
// 0.0001 kept one or two digits. A value under 1 now keeps its first 4 significant digits.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { Decimal } from "../../src/lib/decimal.js";
import { formatSummary } from "../../src/simulate/format.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-small-figures-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a UBTC DCA's sizes and fees are shown with their significant digits, as the JSON has them", async () => {
  mkdirSync(join(dir, "strategies"));
  writeFileSync(
    join(dir, "strategies", "ubtc.yaml"),
    'name: ubtc-dca\nkind: twap-accumulate\nschedule: "0 */6 * * *"\nparams:\n  coin: UBTC\n  side: buy\n  amountUsd: 150\n  twap: { minutes: 30 }\n',
  );
  writeFileSync(
    join(dir, "bot.yaml"),
    "network: testnet\nmode: dry-run\nstrategies: ./strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 5000\n  maxDailyNotionalUsd: 20000\n  maxStakeMovePerDay: 2000\n",
  );
  const config = await loadConfig(join(dir, "bot.yaml"), {});
  const result = await runSimulation({ config, days: 1 });
  const s = buildSummary(result.record);
  const text = formatSummary(s);
  expect(s.twaps.length).toBeGreaterThan(0);
  for (const t of s.twaps) {
    const size = new Decimal(t.size);
    expect(size.lt(1)).toBe(true);
    // The size as sent, to 4 significant digits (the JSON has them all).
    expect(text).toContain(`buy ${size.toSignificantDigits(4, Decimal.ROUND_DOWN).toFixed()} UBTC`);
    // A fee under a millionth of a UBTC is not shown as 0.
    expect(new Decimal(t.fee).gt(0)).toBe(true);
    expect(text).toContain(
      `fee ${new Decimal(t.fee).toSignificantDigits(4, Decimal.ROUND_DOWN).toFixed()} UBTC`,
    );
  }
  expect(text).not.toMatch(/fee 0 UBTC/);
}, 60_000);
