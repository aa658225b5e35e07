// A review of journal.keepDays: a rebalancer refused NOT PROCESSED (a proxy's 403) on the 1st, in band on
// the 11th, refused again on the 21st. With keepDays: 7 the 11th's cycle (nothing sent, its decision
// pruned) was gone, so the 21st read as the second refusal of one streak and went untold. Streaks are
// read only within what the journal keeps.
import { afterEach, expect, it } from "vitest";
import { DAY, HOUR, type Rig, rig } from "../helpers/cronRig.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let r: Rig | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await r?.close();
  await proxy?.close();
  r = undefined;
  proxy = undefined;
});

const REB = {
  name: "reb",
  kind: "twap-rebalance",
  schedule: "0 1 1,11,21 * *",
  params: {
    targets: { HYPE: 0.5, USDC: 0.5 },
    quote: "USDC",
    band: 0.05,
    twap: { minutes: 30, randomize: false },
    minOrderUsd: 100,
  },
};

it("a NOT PROCESSED refusal 20 days after another, in band between them, is told with keepDays: 7", async () => {
  proxy = await startRewritingProxy();
  r = await rig({
    strategies: { "reb.yaml": REB },
    keepShipped: false,
    fund: { USDC: "5000", HYPE: "100" },
    configExtra: { baseUrl: proxy.url, journal: { keepDays: 7 } },
  });
  proxy.target = r.sim.url;
  const refused = (hooks: Array<{ text: string; title: string }>) =>
    hooks.filter((h) => /NOT PROCESSED/.test(`${h.title} ${h.text}`));
  r.sim.setPrice("@107", "50");
  await r.once(r.start + 20_000);
  r.sim.setPrice("@107", "40");
  proxy.refuseExchange(403);
  expect(refused((await r.once(r.start + HOUR + 20_000)).hooks)).toHaveLength(1);
  proxy.refuseExchange(undefined);
  r.sim.setPrice("@107", "50");
  expect((await r.once(r.start + 10 * DAY + HOUR + 20_000)).actions).toEqual([]);
  r.sim.setPrice("@107", "40");
  proxy.refuseExchange(403);
  expect(refused((await r.once(r.start + 20 * DAY + HOUR + 20_000)).hooks)).toHaveLength(1);
}, 240_000);
