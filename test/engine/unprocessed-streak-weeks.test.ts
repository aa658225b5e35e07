// A review of the NOT PROCESSED retell: the streak counted only cycles in which the strategy sent
// something, so cycles in which it ran and sent nothing (a rebalancer inside its band) did not break it:
// one refused pass three weeks earlier made a new block's first refusal the second of a streak, untold.
import { afterEach, expect, it } from "vitest";
import { DAY, HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";
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
  schedule: "0 * * * *",
  enabled: true,
  params: {
    targets: { HYPE: 0.5, USDC: 0.5 },
    quote: "USDC",
    band: 0.05,
    twap: { minutes: 30, randomize: false },
    minOrderUsd: 100,
  },
};

it("a first NOT PROCESSED send weeks after an earlier one-pass block is told", async () => {
  proxy = await startRewritingProxy();
  r = await rig({
    strategies: { "reb.yaml": REB },
    keepShipped: false,
    fund: { USDC: "5000", HYPE: "100" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = r.sim.url;
  r.sim.setPrice("@107", "50"); // 5000/5000: in band
  await r.once(r.start + 20_000);
  // 01:00: out of band, a 429/403 for one pass: told.
  r.sim.setPrice("@107", "40");
  proxy.refuseExchange(403);
  const first = await r.once(r.start + HOUR + 20_000);
  const t1 = first.hooks.filter((h) => /NOT PROCESSED/.test(String(h.title)));
  expect(t1).toHaveLength(1);
  // 01:15: the proxy is fixed, the price is back: inside the band, nothing to send. Hourly passes for 3 weeks.
  proxy.refuseExchange(undefined);
  r.sim.setPrice("@107", "50");
  await r.once(r.start + HOUR + 15 * MIN + 20_000);
  for (let h = 2; h < 24 * 21; h += 24) {
    r.sim.setPrice("@107", "50");
    await r.once(r.start + h * HOUR + 20_000);
  }
  // 3 weeks later: out of band again and a NEW block (a proxy change): the first NOT PROCESSED should be told.
  r.sim.setPrice("@107", "40");
  proxy.refuseExchange(403);
  const later = await r.once(r.start + 21 * DAY + HOUR + 20_000);
  const titles = later.hooks.map((h) => String(h.title));
  // and the block goes on, hourly passes: every notice sent over the next 7 hours
  const more: string[] = [];
  for (let h = 2; h <= 8; h++) {
    r.sim.setPrice("@107", "40");
    const p = await r.once(r.start + 21 * DAY + h * HOUR + 20_000);
    more.push(...p.hooks.map((x) => `${x.type}: ${x.title}`));
  }
  expect(titles.filter((t) => /NOT PROCESSED/.test(t))).toEqual([expect.not.stringMatching(/in a row/)]);
  // The block goes on: not told again before its tenth cycle.
  expect(more.filter((t) => /NOT PROCESSED/.test(t))).toEqual([]);
}, 240_000);
