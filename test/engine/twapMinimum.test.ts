// The venue's TWAP minimum: 100 in all by default (so the shipped 250-USDC, 120-minute DCA keeps its
// 120 minutes), and a minimum the venue states when it refuses a TWAP is learnt from the journal, so
// the next attempt is sized by it instead of repeating the refused order. Against the simulator.
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig, loadStrategyFile } from "../../src/engine/config/loader.js";
import { runCycle } from "../../src/engine/cycle.js";
import type { TwapOrderIntent } from "../../src/engine/intents.js";
import type { SubmissionStatus } from "../../src/engine/journal.js";
import { DEFAULT_VENUE_RULES } from "../../src/engine/snapshot.js";
import { fitTwapDuration } from "../../src/engine/strategies/common.js";
import { runStrategy } from "../../src/engine/strategies/registry.js";
import { rulesWithVenueMinimum } from "../../src/engine/twapMinimum.js";
import { parseDecimal } from "../../src/lib/decimal.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { buildSnapshot, T0 } from "../helpers/snapshots.js";

const ROOT = resolve(import.meta.dirname, "../..");
let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

describe("the TWAP minimum", () => {
  it("plans the shipped 120-minute DCA (150 USD a day) as 120 minutes under the shipped configuration", async () => {
    const config = await loadConfig(join(ROOT, "config/default.yaml"), {});
    expect(config.venue.rules.twapMinOrderValue.toFixed()).toBe("100");
    expect(config.venue.rules.twapMinSliceValue.toFixed()).toBe("0");
    const shipped = await loadStrategyFile(join(ROOT, "strategies/twap-accumulate.yaml"), {});
    expect(shipped.params).toMatchObject({ coin: "PURR", twap: { minutes: 120 } });
    // The test snapshot lists HYPE/USDC only: the same order on HYPE (without PURR's price ceiling).
    const { limitPx: _ceiling, ...params } = shipped.params as Record<string, unknown>;
    const dca = { ...shipped, params: { ...params, coin: "HYPE" } } as typeof shipped;
    const snapshot = buildSnapshot({ balances: { USDC: 5000 }, hypeMid: 40, rules: config.venue.rules });
    const [decision] = runStrategy(dca, snapshot, T0, { spentUsd: parseDecimal("0") });
    expect(decision?.kind).toBe("twapOrder");
    const order = decision as TwapOrderIntent;
    expect(order.minutes).toBe(120);
    expect(order.notionalUsd.toFixed()).toBe("150");
  });

  it("refuses under 100 in all; the per-slice rule, when configured, shortens", () => {
    const rules = DEFAULT_VENUE_RULES;
    expect(fitTwapDuration(parseDecimal("99.99"), 60, rules, "USDC")).toEqual({
      ok: false,
      reason: "99.99 USDC is below the venue minimum for a TWAP: at least 100 USDC in all",
    });
    expect(fitTwapDuration(parseDecimal("100"), 10_080, rules, "USDC")).toMatchObject({
      ok: true,
      minutes: 10_080,
    });
    const perSlice = { ...rules, twapMinSliceValue: parseDecimal("5") };
    expect(fitTwapDuration(parseDecimal("250"), 120, perSlice, "USDC")).toMatchObject({
      ok: true,
      minutes: 25,
    });
  });

  it("learns the latest refusal of the account only, and never loosens the configured rules", () => {
    const row = (reason: string, account = "0xa", status: SubmissionStatus = "rejected") => ({
      account,
      actionType: "twapOrder",
      status,
      reason,
    });
    const perMinute = "TWAP order value too small. Min is $1200, which is $10 per minute";
    const learnt = rulesWithVenueMinimum(DEFAULT_VENUE_RULES, [row("other"), row(perMinute)], "0xa");
    expect(learnt.rules.twapMinSliceValue.toFixed()).toBe("5");
    expect(learnt.note).toMatch(/10 per minute/);
    expect(rulesWithVenueMinimum(DEFAULT_VENUE_RULES, [row(perMinute, "0xb")], "0xa").note).toBeUndefined();
    expect(
      rulesWithVenueMinimum(DEFAULT_VENUE_RULES, [row(perMinute, "0xa", "accepted")], "0xa").note,
    ).toBeUndefined();
    const total = rulesWithVenueMinimum(
      DEFAULT_VENUE_RULES,
      [row("TWAP order value too small. Min is $300")],
      "0xa",
    );
    expect(total.rules.twapMinOrderValue.toFixed()).toBe("300");
    expect(
      rulesWithVenueMinimum(DEFAULT_VENUE_RULES, [row("TWAP order value too small. Min is $50")], "0xa").note,
    ).toBeUndefined();
  });

  it("a venue refusal 'Min is $1200, which is $10 per minute' is journaled, and the next TWAP is sized by it", async () => {
    bot = await startTestBot({
      mode: "live",
      // The venue enforcing the older per-minute rule.
      sim: { settings: { twapMinValuePerMinute: "10" } },
      fund: { USDC: "5000" },
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          params: { coin: "HYPE", side: "buy", amountUsd: 250, twap: { minutes: 120, randomize: false } },
        },
      ],
    });
    bot.sim.setPrice("@107", "40");
    const cycle = async () =>
      runCycle(bot!.runtime.cycleDeps(await bot!.runtime.facts()), {
        trigger: "once",
        strategies: bot!.runtime.strategies(),
      });

    const first = await cycle();
    expect(first.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "rejected"]]);
    const refused = bot.runtime.journal.recentSubmissions(1)[0];
    expect(refused?.status).toBe("rejected");
    expect(refused?.reason).toBe("TWAP order value too small. Min is $1200, which is $10 per minute.");

    const second = await cycle();
    expect(second.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    const placed = bot.sim.twaps(bot.address);
    expect(placed).toHaveLength(1);
    // 250 USDC at 10 per minute: 25 minutes, not the refused 120.
    expect(placed[0]?.minutes).toBe(25);
  });
});
