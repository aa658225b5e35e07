// A pair quoted in a token that is not a USD stablecoin (UBTC/HYPE) is sized and limited through the
// quote's USD price (the HYPE/USDC mid): that price passes the same cross-checks as the pair's own, so
// one glitching HYPE/USDC mid cannot size a 500-USD DCA at 50,000 USD that maxOrderUsd values at 500
// (review of 2026-11-27). Against the simulator, through a proxy rewriting one answer.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runCycle } from "../../src/engine/cycle.js";
import type { TwapOrderIntent } from "../../src/engine/intents.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
});

async function hypeQuotedDca(amountUsd = 500): Promise<{ bot: TestBot; proxy: RewritingProxy }> {
  const scenario = parse(readFileSync(DEMO_SCENARIO_PATH, "utf8")) as {
    pairs: Array<Record<string, unknown>>;
    prices: Record<string, unknown>;
  };
  const withPair = {
    ...scenario,
    pairs: [...scenario.pairs, { index: 180, base: "UBTC", quote: "HYPE" }],
    prices: { ...scenario.prices, "@180": { start: "4000", drift: 0, volatility: 0 } },
  };
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    sim: { scenario: withPair as never },
    limits: { maxOrderUsd: 5000 },
    configExtra: { baseUrl: proxy.url },
    strategies: [
      {
        name: "btc-in-hype",
        kind: "twap-accumulate",
        params: {
          coin: "UBTC",
          quote: "HYPE",
          side: "buy",
          amountUsd,
          twap: { minutes: 10, randomize: false },
        },
      },
    ],
    fund: { HYPE: "10000" },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "25");
  bot.sim.setPrice("@180", "4000");
  return { bot, proxy };
}

async function cycle(b: TestBot) {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger: "once", strategies: b.runtime.strategies() });
}

describe("the USD price of a TWAP's quote token", () => {
  it("is cross-checked: a wrong HYPE/USDC mid blocks a HYPE-quoted order, nothing is placed", async () => {
    const { bot: b, proxy: p } = await hypeQuotedDca();
    // HYPE/USDC at 0.25 in allMids; its mark, context mid and previous-day price still say 25.
    p.rewriteInfo("allMids", (mids) => ({ ...(mids as object), "@107": "0.25" }));
    const report = await cycle(b);
    expect(b.sim.ledger({ kind: "twapPlaced", user: b.address })).toHaveLength(0);
    const reasons = report.decisions.map((d) => d.decision.reason).join("\n");
    expect(reasons).toMatch(
      /HYPE\/USDC mid 0\.25 is .* the mark 25.*\(the USD price of HYPE values this order\)/,
    );
    // Held, not settled: the slot stays due, as for the pair's own prices (a review).
    const held = report.decisions.find((d) =>
      /the USD price of HYPE values this order/.test(d.decision.reason),
    );
    expect(held?.decision.kind === "skip" && held.decision.defer === true).toBe(true);
  });

  it("values the order in USD when it agrees: sized at its amount, within maxOrderUsd", async () => {
    // 3,000 USD: 120 HYPE, above the TWAP minimum of 100 (counted in the quote token).
    const { bot: b } = await hypeQuotedDca(3000);
    const report = await cycle(b);
    const sent = report.decisions.find((d) => d.action)?.decision as TwapOrderIntent | undefined;
    expect(sent?.kind).toBe("twapOrder");
    // At 25 USD per HYPE and 4000 HYPE per UBTC: 0.03 UBTC, about 3,000 USD.
    const realUsd = sent!.size.times(4000).times(25).toNumber();
    expect(realUsd).toBeLessThanOrEqual(3000);
    expect(realUsd).toBeGreaterThan(2900);
    expect(sent!.quoteUsd?.toNumber()).toBe(25);
    expect(sent!.notionalUsd.toNumber()).toBeCloseTo(realUsd, 6);
    expect(b.sim.ledger({ kind: "twapPlaced", user: b.address })).toHaveLength(1);
  });
});
