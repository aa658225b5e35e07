// A request the venue answered "ok" with a response hlbot cannot read was processed: the journal says
// "probably landed" with its unknown outcome, so `history` tells the owner to expect it and the
// reconciliation that follows finds it (a test audit: removing the journal's "probably landed: " passed
// every test). The answer is rewritten by a proxy in front of the simulator.
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
});

it("an 'ok' answer of another shape is journaled as probably landed, and reconciled as landed", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [REBALANCE],
    fund: { HYPE: "1000", USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  const b = bot;
  proxy.target = b.sim.url;
  b.sim.setPrice("@107", "40");
  proxy.rewriteExchange(() => ({
    status: "ok",
    response: { type: "twapOrder", data: { status: { odd: 1 } } },
  }));
  const cycle = async () =>
    runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
      trigger: "once",
      strategies: b.runtime.strategies(),
    });
  const first = await cycle();
  expect(first.actions.map((a) => a.outcome)).toEqual(["unknown"]);
  const [row] = b.runtime.journal.recentSubmissions(1);
  expect(row?.status).toBe("unknown");
  expect(row?.reason).toMatch(/^probably landed: /);
  // It did land, once, and the next cycle finds it.
  proxy.clear();
  b.sim.advance(60_000);
  const second = await cycle();
  expect(second.reconciled.map((r) => r.verdict)).toEqual(["landed"]);
  expect(b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address)).toHaveLength(1);
});
