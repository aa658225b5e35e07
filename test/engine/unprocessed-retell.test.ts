// A cron user's trial: a proxy in front of the venue answered 403 to every send for a day, and each
// `hlbot once` pass (every 15 minutes, an hourly rebalancer's slot due each time) told "NOT PROCESSED":
// a notice per pass, not rate limited like cycle.failed. A block is now told at its first cycle and every
// tenth, with its count; a send that works in between starts the count again.
import { afterEach, expect, it } from "vitest";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let r: Rig | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await r?.close();
  await proxy?.close();
  r = undefined;
  proxy = undefined;
});

const DCA = {
  name: "hourly-dca",
  kind: "twap-accumulate",
  schedule: "0 * * * *",
  enabled: true,
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 200,
    twap: { minutes: 5, randomize: false },
  },
};

it("a proxy refusing every send for hours is told at the first cycle and every tenth, with the count", async () => {
  proxy = await startRewritingProxy();
  r = await rig({
    strategies: { "dca.yaml": DCA },
    keepShipped: false,
    fund: { USDC: "50000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = r.sim.url;
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 20_000);
  proxy.refuseExchange(403);
  const notices: string[] = [];
  // 12 passes, every 15 minutes over 3 hours: the due slot is tried again at each (back-off of a pass).
  for (let m = 60; m < 60 + 12 * 15; m += 15) {
    const p = await r.once(r.start + m * MIN + 20_000);
    notices.push(...p.hooks.filter((h) => /NOT PROCESSED/.test(String(h.title))).map((h) => String(h.title)));
  }
  const unprocessedCycles = r.subs().filter((s) => s.status === "rejected").length;
  expect(unprocessedCycles).toBeGreaterThanOrEqual(10);
  expect(notices).toHaveLength(1 + Math.floor(unprocessedCycles / 10));
  expect(notices[0]).not.toMatch(/in a row/);
  expect(notices[1]).toMatch(/NOT PROCESSED .*\(10 cycles in a row; told every 10th\)$/);
  // The proxy lets sends through again: the next send is told, and a later block starts at 1 again.
  proxy.refuseExchange(undefined);
  const ok = await r.once(r.start + 5 * HOUR + 20_000);
  expect(ok.hooks.map((h) => String(h.title))).toEqual(
    expect.arrayContaining([expect.stringMatching(/twapOrder .* accepted$/)]),
  );
  proxy.refuseExchange(403);
  const again = await r.once(r.start + 6 * HOUR + 20_000);
  expect(again.hooks.filter((h) => /NOT PROCESSED/.test(String(h.title)))).toHaveLength(1);
}, 180_000);
