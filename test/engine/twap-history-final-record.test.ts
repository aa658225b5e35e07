// A twapHistory answer without a TWAP's final record (read before the venue wrote it, or a long history
// the venue cut: whether it caps the answer is not published) leaves only its "activated" record. A
// review: hlbot took that as running for ever, so a week-old 30-minute TWAP blocked its pair ("a TWAP
// already running on its pair") and kept its quote held. It now runs no longer than its scheduled end
// and a margin (TWAP_END_MARGIN_MS).
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { TWAP_END_MARGIN_MS } from "../../src/venue/info/methods/twapHistory.js";
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

/** The answer without any record after a TWAP's "activated" one. */
const onlyActivated = (answer: unknown) =>
  (answer as Array<{ status: { status: string } }>).filter((r) => r.status.status === "activated");

it("a TWAP whose final record is missing stops counting as running after its scheduled end and the margin", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [{ ...REBALANCE, params: { ...REBALANCE.params, twap: { minutes: 30, randomize: false } } }],
    fund: { HYPE: "1000", USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "40");
  proxy.rewriteInfo("twapHistory", onlyActivated);
  const deps = () => bot!.runtime.cycleDeps({ multiSig: null });
  const cycle = () => runCycle(deps(), { trigger: "once", strategies: bot!.runtime.strategies() });
  expect((await cycle()).actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);

  // Within the run and the margin, with the price moved out of band: the rebalancer waits for it.
  bot.sim.advance(30 * 60_000 + TWAP_END_MARGIN_MS - 60_000);
  bot.sim.setPrice("@107", "60");
  const during = await cycle();
  expect(during.actions).toEqual([]);
  expect(during.decisions.map((d) => d.decision.reason).join("\n")).toMatch(/running/i);

  // A week later: the venue's answer still shows the TWAP "activated" only, and the rebalancer trades
  // again instead of waiting for it for ever.
  bot.sim.advance(7 * 24 * 3_600_000);
  const later = await cycle();
  expect(later.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
});
