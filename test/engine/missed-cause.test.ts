// What a lost slot's notice says of its cause (missedCauses). A review found "it ran after the slot and
// was held each time" told from any decision since the slot: a `once --dry-run` preview's (same journal,
// mode dry-run), or the live bot's own decisions to act whose sends were NOT PROCESSED.
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
  name: "hype-dca",
  kind: "twap-accumulate",
  schedule: "0 1 * * *",
  enabled: true,
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 300,
    twap: { minutes: 30, randomize: false },
  },
};

it("a slot the live bot never ran (only a --dry-run preview did) is not told as 'ran and was held each time'", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 20_000);
  await r.once(r.start + 30_000, ["--dry-run"]); // the preview's own slot memory sees the strategy
  // 01:30: the user previews with --dry-run; the live cron call is broken until 04:00.
  await r.once(r.start + HOUR + 30 * MIN, ["--dry-run"]);
  const live = await r.once(r.start + 4 * HOUR + 20_000);
  const missed = live.summary.summary.missed as Array<Record<string, unknown>>;
  const notice = live.hooks.find((h) => h.type === "schedule.missed");
  expect(missed).toEqual([expect.objectContaining({ strategy: "hype-dca", nothingRan: true })]);
  expect(missed[0]?.cause).toBeUndefined();
  expect(`${notice?.title}\n${notice?.text}`).not.toMatch(/it ran after the slot/);
}, 120_000);

it("a slot lost to NOT PROCESSED sends (a proxy's 403) is not told as 'held each time'", async () => {
  proxy = await startRewritingProxy();
  r = await rig({
    strategies: { "dca.yaml": DCA },
    keepShipped: false,
    fund: { USDC: "5000" },
    configExtra: { baseUrl: proxy.url },
  });
  proxy.target = r.sim.url;
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 20_000);
  proxy.refuseExchange(403);
  const passes: Array<Awaited<ReturnType<Rig["once"]>>> = [];
  for (let m = 60; m <= 195; m += 15) passes.push(await r.once(r.start + m * MIN + 20_000));
  const missed = passes.flatMap((p) => p.summary.summary.missed as Array<Record<string, unknown>>);
  const notice = passes.flatMap((p) => p.hooks).find((h) => h.type === "schedule.missed");
  expect(String(missed[0]?.cause ?? "")).toMatch(
    /^it ran after the slot, but what it sent was not accepted before the slot was too old \(latest: buy /,
  );
  expect(`${notice?.text}`).toMatch(/what it sent was not accepted/);
}, 120_000);

it("a slot lost to the kill switch is told with the kill switch, not the intent alone", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 20_000);
  expect((await r.cli(["stop", "--reason", "investigating"])).code).toBe(0);
  const passes: Array<Awaited<ReturnType<Rig["once"]>>> = [];
  for (let m = 60; m <= 195; m += 15) passes.push(await r.once(r.start + m * MIN + 20_000));
  const missed = passes.flatMap((p) => p.summary.summary.missed as Array<Record<string, unknown>>);
  const notice = passes.flatMap((p) => p.hooks).find((h) => h.type === "schedule.missed");
  expect(String(missed[0]?.cause ?? "")).toMatch(/held each time .*kill switch/);
  expect(`${notice?.text}`).toMatch(/kill switch/);
}, 120_000);
