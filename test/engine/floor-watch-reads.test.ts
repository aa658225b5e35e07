// The floor watch (limits.keepOnSpot) runs every minute while a TWAP of ours spends a floored token. It
// read the account's slice fills (its latest 2,000) each time, though what a TWAP filled can only lower
// what it may still spend, which its time left already bounds: in a bear-market trial a simulation with
// keepOnSpot ran 10× slower than without, and a daemon read that answer every minute. The fills are now
// read only when the bound by time left crosses a floor.
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { watchRunningTwaps } from "../../src/engine/guards.js";
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

it("reads the slice fills only when what the TWAP may still spend by its time left crosses the floor", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "dca",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: { coin: "HYPE", side: "buy", amountUsd: 4000, twap: { minutes: 120, randomize: false } },
      },
    ],
    fund: { USDC: "13000" },
    limits: { keepOnSpot: { USDC: 4000 } },
    configExtra: { baseUrl: proxy.url },
  });
  const b = bot;
  const p = proxy;
  p.target = b.sim.url;
  b.sim.setPrice("@107", "25");
  const deps = () => b.runtime.cycleDeps({ multiSig: null });
  const placed = await runCycle(deps(), { trigger: "once", strategies: b.runtime.strategies() });
  expect(placed.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
  const watch = async () => {
    const before = p.requests.length;
    const result = await watchRunningTwaps(deps(), b.runtime.strategies());
    const types = p.requests.slice(before).map((r) => (r.json as { type?: string } | undefined)?.type);
    return {
      checked: result.checked,
      fillReads: types.filter((t) => t === "userTwapSliceFills").length,
      cancels: result.report?.actions.filter((a) => a.action === "twapCancel").length ?? 0,
    };
  };
  // 13,000 USDC less at most 4,000 still to spend stays above the floor of 4,000: nothing to refine.
  for (let minute = 1; minute <= 3; minute++) {
    b.sim.advance(60_000);
    expect(await watch()).toEqual({ checked: 1, fillReads: 0, cancels: 0 });
  }
  // 6,000 USDC withdrawn: about 6,800 left, the rest by time left (about 3,900) would cross it: the
  // watch reads the fills (and the cancel cycle, as every cycle while a TWAP runs, reads them once).
  b.sim.fund(b.address, "USDC", "-6000");
  b.sim.advance(60_000);
  expect(await watch()).toEqual({ checked: 1, fillReads: 2, cancels: 1 });
});
