// A cron user's trial (`hlbot once` every 15 minutes, the shipped strategies, mode live) whose venue
// misbehaves: what the person whose money it is expects of the reports and notifications (each case
// failed on the code before its fix).
import { afterEach, expect, it, vi } from "vitest";
import { HOUR, type Hook, MIN, type Rig, rig } from "../helpers/cronRig.js";

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

/** Calls once every 15 minutes (20 s past the quarter) from `fromMin` to `toMin` minutes after the start. */
async function cron(rg: Rig, fromMin: number, toMin: number, faults?: (m: number) => unknown) {
  const out = [];
  for (let m = fromMin; m <= toMin; m += 15) {
    const f = faults?.(m);
    if (f) rg.sim.setFaults(f as never);
    out.push({ m, res: await rg.once(rg.start + m * MIN + 20_000) });
    if (f) rg.sim.setFaults({});
  }
  return out;
}

it("a guard cancel whose lost answer is reconciled as landed in the same pass is counted as cancelled", async () => {
  r = await rig({});
  await cron(r, 0, 8 * 60 + 45); // the 08:30 DCA places its 120-min TWAP
  r.sim.advanceTo(r.start + 8 * HOUR + 50 * MIN);
  r.sim.setPrice("PURR/USDC", "0.6"); // above the shipped DCA's limitPx 0.5
  // 09:00: the watch's cancel takes effect but its answer is lost; the hourly rebalancer's cycle in the
  // same pass reconciles it (twapHistory shows the TWAP terminated).
  const [pass] = await cron(r, 9 * 60, 9 * 60, () => ({ exchange: { dropRate: 1 } }));
  const res = pass!.res;
  // The venue did cancel it, and the pass's own notifications say so ("twapCancel #N LANDED").
  expect(r.sim.twaps(r.address).find((t) => String(t.status) === "terminated")).toBeDefined();
  expect(res.hooks.map((h) => h.type)).toContain("submission.reconciled");
  // It said {"checked":1,"cancelled":0} in the --json summary (and "0 cancelled" in the text).
  expect(res.summary.summary.watch.cancelled).toBe(1);
}, 120_000);

it("one outage is one cycle.failed and one cycle.recovered, told when the strategies work again", async () => {
  r = await rig({});
  await cron(r, 0, 8 * 60 + 15);
  // 08:30 to 08:45: every request rate limited (the pass cannot start)
  const runs = await cron(r, 8 * 60 + 30, 10 * 60, (m) =>
    m <= 8 * 60 + 45 ? { all: { rateLimitRate: 1 } } : undefined,
  );
  const told = runs.flatMap(({ m, res }) => res.hooks.map((h) => ({ m, type: h.type, title: h.title })));
  const failed = told.filter((t) => t.type === "cycle.failed");
  const recovered = told.filter((t) => t.type === "cycle.recovered");
  expect(failed).toHaveLength(1);
  // There were two: "cycles work again (hype-usdc-5050) after 2 failed" at 09:00 and
  // "cycles work again (purr-dca, hype-staking) after 2 failed" at 09:15.
  expect(recovered, JSON.stringify(recovered)).toHaveLength(1);
}, 120_000);

it("schedule.missed names the real cause when a strategy waited for a lost answer (not the cron cadence)", async () => {
  r = await rig({});
  await cron(r, 0, 0);
  // 00:15: the staking deposit is answered 500 (the venue did not apply it): unknown for 2 days.
  await cron(r, 15, 15, () => ({ exchange: { serverErrorRate: 1 } }));
  const runs = await cron(r, 30, 8 * 60 + 15);
  const missed = runs.flatMap(({ res }) => res.hooks).filter((h) => h.type === "schedule.missed");
  expect(missed.length).toBeGreaterThan(0);
  // once was called every 15 minutes; the 06:15 slot waited, each call, for the unreconciled cDeposit
  // (history: "waiting: an earlier submission of this strategy is not reconciled yet"). The text said
  // "nothing ran for them" and offered the cron cadence, the kill switch, a daily limit or a TWAP
  // running as the causes, never this one, every 6 hours until the 2-day grace ended.
  expect(`${missed[0]!.title}\n${missed[0]!.text}`).toMatch(
    /hype-staking: \d+ slots? \(latest [^)]+\): it waited for the outcome of its cDeposit #\d+ \(sent [^)]+\), still unknown/,
  );
}, 120_000);

// A review of the recovery notices.
/** Like cron(), with the local clock `aheadMs` ahead of the venue's. */
async function cronAhead(rg: Rig, fromMin: number, toMin: number, aheadMs: number) {
  const out = [];
  for (let m = fromMin; m <= toMin; m += 15) {
    const at = rg.start + m * MIN + 20_000;
    rg.sim.advanceTo(at);
    vi.setSystemTime(at + aheadMs);
    const before = rg.receiver.requests.length;
    const c = await rg.cli(["once", "--json"]);
    out.push({ m, code: c.code, hooks: rg.receiver.requests.slice(before).map((q) => q.json as Hook) });
  }
  return out;
}
const at = (m: number) => `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}`;

it("strategies held for the clock right after an outage: the hold is told, not a recovery", async () => {
  r = await rig({});
  await cron(r, 0, 8 * 60 + 15);
  const outage = await cron(r, 8 * 60 + 30, 8 * 60 + 45, () => ({ all: { rateLimitRate: 1 } }));
  const held = await cronAhead(r, 9 * 60, 11 * 60, 10 * MIN);
  const told = [
    ...outage.map(({ m, res }) => ({ m, hooks: res.hooks })),
    ...held.map(({ m, hooks }) => ({ m, hooks })),
  ].flatMap(({ m, hooks }) => hooks.map((h) => `${at(m)} ${h.type}: ${h.title}`));
  // purr-dca, held from 09:00 until its 08:30 slot left schedule.catchUp, is told failing; no "work
  // again" in the pass where the due strategies are held (both were wrong).
  expect(
    told.filter((t) => t.includes("cycle.failed") && !t.startsWith("8:") && t.includes("purr-dca")).length,
  ).toBeGreaterThan(0);
  expect(told.filter((t) => t.includes("cycle.recovered"))).toEqual([]);
}, 240_000);

it("a DCA whose every send is rate limited after an outage is not told recovered", async () => {
  r = await rig({});
  await cron(r, 0, 8 * 60 + 15);
  const placedBefore = r.twapsPlaced().length;
  // 08:30, 08:45: every request rate limited (the pass cannot start); 09:00 to 10:00: reads work,
  // every send answered 429 (NOT PROCESSED: nothing happened).
  const runs = await cron(r, 8 * 60 + 30, 10 * 60, (m) =>
    m <= 8 * 60 + 45 ? { all: { rateLimitRate: 1 } } : { exchange: { rateLimitRate: 1 } },
  );
  const told = runs.flatMap(({ m, res }) => res.hooks.map((h) => `${at(m)} ${h.type}: ${h.title}`));
  expect(r.twapsPlaced()).toHaveLength(placedBefore);
  expect(told.filter((t) => t.includes("cycle.recovered") && t.includes("purr-dca"))).toEqual([]);
}, 180_000);
