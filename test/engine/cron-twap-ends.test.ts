// A cron user (`hlbot once` every 15 minutes) was never told that a TWAP the bot placed had ended: what
// it filled, at what price, or that a guard cancelled it (twap.finished and twap.cancelled came from the
// daemon only). Each pass now asks the venue about the bot's TWAPs that may have ended since the last
// pass that worked, says each end once (text, --json, notify) and remembers it in the journal.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
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

async function cron(rg: Rig, fromMin: number, toMin: number) {
  const out = [];
  for (let m = fromMin; m <= toMin; m += 15) out.push({ m, res: await rg.once(rg.start + m * MIN + 20_000) });
  return out;
}

type Ended = Array<{ twap: number; strategy: string; status: string; pair: string; executedSize: string }>;

it("a DCA's TWAP that finished between two passes is told once, with what it filled and its pair", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  const passes = await cron(r, 0, 3 * 60);
  const placed = r.twapsPlaced();
  expect(placed).toHaveLength(1);
  const ended = passes.flatMap(({ m, res }) =>
    ((res.summary.summary.ended ?? []) as Ended).map((e) => ({ m, ...e })),
  );
  expect(ended).toHaveLength(1);
  const e = ended[0]!;
  expect(e).toMatchObject({ strategy: "hype-dca", status: "finished", pair: "HYPE/USDC" });
  expect(Number((e as { averagePrice?: string }).averagePrice)).toBeGreaterThan(24);
  expect(Number(e.executedSize)).toBeGreaterThan(11.5); // about 300 USDC at about 25
  // Told at the first pass after its end (placed in the 01:00:20 pass, 30 minutes long: the 01:30:20
  // pass sees it ended or not by milliseconds, the 01:45 one does).
  expect([60 + 30, 60 + 45]).toContain(e.m);
  const hooks = passes.flatMap(({ res }) => res.hooks).filter((h) => h.type.startsWith("twap."));
  expect(hooks.map((h) => [h.type, h.title])).toEqual([
    [
      "twap.finished",
      expect.stringMatching(/^hype-dca: TWAP \d+ finished: bought 11\.\d+ of 11\.\d+ on HYPE\/USDC$/),
    ],
  ]);
  // The text output says it too (a later pass, run by hand, says nothing again).
  const text = await r.cli(["once"]);
  expect(text.stdout).not.toMatch(/finished/);
  const db = new Database(join(r.dir, "state", "hlbot.db"), { readonly: true });
  try {
    expect(db.prepare("SELECT status FROM twap_ends").all()).toEqual([{ status: "finished" }]);
  } finally {
    db.close();
  }
}, 120_000);

it("the text output of the pass that sees the end says it", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await cron(r, 0, 60 + 15);
  r.sim.advanceTo(r.start + 60 * MIN + 45 * MIN);
  const { vi } = await import("vitest");
  vi.setSystemTime(r.start + 105 * MIN);
  const text = await r.cli(["once"]);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(
    /hype-dca: TWAP \d+ finished: bought 11\.\d+ of 11\.\d+ on HYPE\/USDC; average price 25\.\d+; notional 30\d\.\d\d/,
  );
}, 120_000);

it("a TWAP the floor watch cancelled is told as ended, with what it filled", async () => {
  r = await rig({
    strategies: {
      "sell.yaml": {
        ...DCA,
        name: "hype-sell",
        params: { ...DCA.params, side: "sell", amountUsd: 500, twap: { minutes: 120, randomize: false } },
      },
    },
    keepShipped: false,
    fund: { USDC: "100", HYPE: "40" },
    configExtra: {
      limits: {
        maxOrderUsd: 5000,
        maxDailyNotionalUsd: 20000,
        maxStakeMovePerDay: 10000,
        keepOnSpot: { HYPE: 15 },
      },
    },
  });
  r.sim.setPrice("@107", "25");
  await cron(r, 0, 60 + 15);
  expect(r.twapsPlaced()).toHaveLength(1);
  // 20 HYPE leave the account by hand: the sale would now take it under its 15 HYPE floor.
  r.sim.fund(r.address, "HYPE", "-20");
  const passes = await cron(r, 60 + 30, 3 * 60);
  // Told by the pass whose watch cancelled it (01:30), not at its scheduled end (03:00).
  expect(passes.map(({ m, res }) => [m, ((res.summary.summary.ended ?? []) as Ended).length])).toContainEqual(
    [90, 1],
  );
  const ended = passes.flatMap(({ res }) => (res.summary.summary.ended ?? []) as Ended);
  expect(ended).toHaveLength(1);
  expect(ended[0]).toMatchObject({ strategy: "hype-sell", status: "terminated", pair: "HYPE/USDC" });
  // Named twapId as in status, webhooks and history (a scripter's parser found `twap` here only).
  expect(typeof (ended[0] as { twapId?: unknown }).twapId).toBe("number");
  const hooks = passes.flatMap(({ res }) => res.hooks).filter((h) => h.type.startsWith("twap."));
  expect(hooks.map((h) => h.type)).toEqual(["twap.cancelled"]);
  // Said as the owner knows it (the venue's word is "terminated"), on the pair's name.
  expect(hooks[0]!.title).toMatch(/^hype-sell: TWAP \d+ cancelled: sold [\d.]+ of [\d.]+ on HYPE\/USDC$/);
  const cancel = passes.flatMap(({ res }) => res.actions).find((a) => a.action === "twapCancel");
  expect(String(cancel?.reason)).toMatch(/^cancel TWAP #\d+ \(sell [\d.]+ on HYPE\/USDC\)/);
}, 120_000);

it("after an upgrade, only TWAPs that ended after the last pass that worked are told (no burst of old ones)", async () => {
  // An hourly strategy makes a cycle every hour (staking with nothing to stake), as a daemon or older
  // `once` did, beside the daily DCA.
  const staking = {
    name: "staking",
    kind: "validator-staking",
    schedule: "0 * * * *",
    enabled: true,
    params: { validators: 1, stakeIdleSpot: { enabled: false } },
  };
  r = await rig({
    strategies: { "dca.yaml": DCA, "staking.yaml": staking },
    keepShipped: false,
    fund: { USDC: "5000" },
  });
  r.sim.setPrice("@107", "25");
  await cron(r, 0, 60);
  // A journal from before twap_ends: its end (01:30) was never recorded as told, and hourly cycles ran
  // since (02:00, 03:00).
  r.sim.advanceTo(r.start + 3 * HOUR + 20_000);
  await r.once(r.start + 2 * HOUR + 20_000);
  await r.once(r.start + 3 * HOUR + 20_000);
  const db = new Database(join(r.dir, "state", "hlbot.db"));
  db.prepare("DELETE FROM twap_ends").run();
  db.close();
  const later = await cron(r, 3 * 60 + 15, 4 * 60);
  expect(later.flatMap(({ res }) => (res.summary.summary.ended ?? []) as Ended)).toEqual([]);
  expect(later.flatMap(({ res }) => res.hooks).filter((h) => h.type.startsWith("twap."))).toEqual([]);
}, 120_000);

// Reviews of the above: ends that were never told.
describe("an end is told at a later pass when this one could not tell it", () => {
  const STAKING = {
    name: "staking",
    kind: "validator-staking",
    schedule: "0 * * * *",
    enabled: true,
    params: { validators: 1, stakeIdleSpot: { enabled: false } },
  };
  let proxy: RewritingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  async function proxied(): Promise<{ rg: Rig; px: RewritingProxy }> {
    const rg = await rig({
      strategies: { "dca.yaml": DCA, "staking.yaml": STAKING },
      keepShipped: false,
      fund: { USDC: "5000" },
    });
    r = rg;
    const px = await startRewritingProxy(rg.sim.url);
    proxy = px;
    writeFileSync(rg.config, readFileSync(rg.config, "utf8").replace(rg.sim.url, px.url));
    rg.sim.setPrice("@107", "25");
    return { rg, px };
  }
  const told = (passes: Array<{ res: Awaited<ReturnType<Rig["once"]>> }>) =>
    passes.flatMap(({ res }) => ((res.summary.summary.ended ?? []) as Ended).map((e) => e.status));

  it("its twapHistory read failed (the pass's cycles worked)", async () => {
    const { rg, px } = await proxied();
    await cron(rg, 0, 60 + 15); // the TWAP placed at 01:00 runs until 01:30 (no call from 01:15 to 02:00)
    // 02:00: the hourly staking cycle works; the one twapHistory read for the ends is answered 500.
    // (The cycle's own read of it comes first and works; the ends' read, with its retries, is answered 500.)
    px.failInfo("twapHistory", 5, 1);
    const failing = await rg.once(rg.start + 2 * HOUR + 20_000);
    px.failInfo("twapHistory", 0);
    expect(failing.code).toBe(0);
    expect(failing.stderr).toMatch(/could not read which TWAPs ended/);
    expect(told([{ res: failing }])).toEqual([]);
    // It was never told: the failed pass's ok cycle moved the bound past its end.
    expect(told(await cron(rg, 2 * 60 + 15, 3 * 60))).toEqual(["finished"]);
  }, 120_000);

  it("`hlbot plan` (or a manual action) ran between two passes", async () => {
    const { rg } = await proxied();
    await cron(rg, 0, 60 + 15);
    // 01:35: the owner checks with `hlbot plan` (its cycle is journaled ok).
    rg.sim.advanceTo(rg.start + 95 * MIN);
    vi.setSystemTime(rg.start + 95 * MIN);
    expect((await rg.cli(["plan"])).code).toBe(0);
    expect(told(await cron(rg, 60 + 45, 3 * 60))).toEqual(["finished"]);
  }, 120_000);

  it("a status the venue gives that is not an end (an unknown one) is not told as an end", async () => {
    const { rg, px } = await proxied();
    await cron(rg, 0, 60 + 15);
    // The venue shows the TWAP in a status hlbot does not know: what is left may still execute.
    px.rewriteInfo("twapHistory", (answer) =>
      (answer as Array<{ status: { status: string } }>).map((h) => ({ ...h, status: { status: "paused" } })),
    );
    expect(told(await cron(rg, 60 + 30, 2 * 60))).toEqual([]);
    px.clear();
    expect(told(await cron(rg, 2 * 60 + 15, 3 * 60))).toEqual(["finished"]);
  }, 120_000);
});
