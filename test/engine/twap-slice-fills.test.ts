// The running TWAPs' slice fills (read by every cycle while a TWAP runs, for what each may still take) never
// stop a cycle: an unreadable answer keeps each TWAP's whole size out of new orders instead, so the kill
// switch still cancels a running TWAP (a review: `hlbot stop --cancel-twaps` exited 1 and left the TWAP
// running when a fill lacked a field hlbot never uses); a field only shown may be missing; one cycle
// reads them once, also with the progress gauge (it read them twice, up to 240 of the 1200 a minute).
import { writeFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { BotMetrics } from "../../src/engine/metrics.js";
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

const dropClosedPnl = (answer: unknown) =>
  (answer as Array<{ fill: Record<string, unknown> }>).map((f) => {
    const { closedPnl: _drop, ...fill } = f.fill;
    return { ...f, fill };
  });
/** Not an answer anyone could read: the fills without the size hlbot acts on. */
const dropSize = (answer: unknown) =>
  (answer as Array<{ fill: Record<string, unknown> }>).map((f) => {
    const { sz: _drop, ...fill } = f.fill;
    return { ...f, fill };
  });
it("the kill switch still cancels a running TWAP when the slice fills cannot be read", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [REBALANCE],
    fund: { HYPE: "1000", USDC: "5000" },
    limits: { killSwitchCancelRunning: true },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "40");
  const deps = () => bot!.runtime.cycleDeps({ multiSig: null });
  const first = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
  expect(first.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
  bot.sim.advance(5 * 60_000); // some slices filled

  proxy.rewriteInfo("userTwapSliceFills", dropSize);
  writeFileSync(bot.runtime.config.limits.killSwitchFile, "emergency stop");
  const second = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() }).catch(
    (e: unknown) => e,
  );
  // The running TWAP is cancelled: slice fills are not needed to cancel.
  expect(second).not.toBeInstanceOf(Error);
  expect((second as Awaited<ReturnType<typeof runCycle>>).actions.map((a) => [a.action, a.outcome])).toEqual([
    ["twapCancel", "accepted"],
  ]);
});

it("a cycle is not stopped by a slice-fills answer missing a field only shown, nor by an unreadable one", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [REBALANCE],
    fund: { HYPE: "1000", USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "40");
  const deps = () => bot!.runtime.cycleDeps({ multiSig: null });
  await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
  bot.sim.advance(5 * 60_000);
  for (const rewrite of [dropClosedPnl, dropSize]) {
    proxy.rewriteInfo("userTwapSliceFills", rewrite);
    const r = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() }).catch(
      (e: unknown) => e,
    );
    expect(r).not.toBeInstanceOf(Error);
  }
});

it("one cycle reads userTwapSliceFills once", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [REBALANCE],
    fund: { HYPE: "1000", USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "40");
  const metrics = new BotMetrics();
  const deps = async () => ({ ...bot!.runtime.cycleDeps(await bot!.runtime.facts()), metrics });
  await runCycle(await deps(), { trigger: "once", strategies: bot.runtime.strategies() });
  bot.sim.advance(5 * 60_000);
  const before = proxy.requests.length;
  await runCycle(await deps(), { trigger: "once", strategies: bot.runtime.strategies() });
  const reads = proxy.requests
    .slice(before)
    .filter((r) => (r.json as { type?: string } | undefined)?.type === "userTwapSliceFills");
  expect(reads).toHaveLength(1);
});

it("one cycle of a budgeted DCA reads twapHistory once: its budget counts from the snapshot's answer", async () => {
  // twapHistory holds two records for every TWAP the account ever placed: a year of hourly TWAPs weighs
  // about 900 of the IP's 1,200 a minute per read, and a budgeted DCA's cycle read it twice (a long-run trial).
  proxy = await startRewritingProxy();
  const dca = {
    name: "dca",
    kind: "twap-accumulate",
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "buy",
      amountUsd: 150,
      budgetUsd: 1000,
      twap: { minutes: 5, randomize: false },
    },
  };
  bot = await startTestBot({
    mode: "live",
    strategies: [dca],
    fund: { USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = bot.sim.url;
  bot.sim.setPrice("@107", "25");
  const deps = async () => bot!.runtime.cycleDeps(await bot!.runtime.facts());
  await runCycle(await deps(), { trigger: "once", strategies: bot.runtime.strategies() });
  bot.sim.advance(10 * 60_000); // the TWAP ended: the budget counts what it filled
  const before = proxy.requests.length;
  const second = await runCycle(await deps(), { trigger: "once", strategies: bot.runtime.strategies() });
  expect(second.actions.map((a) => a.outcome)).toEqual(["accepted"]);
  const reads = proxy.requests
    .slice(before)
    .filter((r) => (r.json as { type?: string } | undefined)?.type === "twapHistory");
  expect(reads).toHaveLength(1);
});
