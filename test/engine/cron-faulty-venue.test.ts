// A cron user's trial (`hlbot once` every 15 minutes, the shipped strategies, mode live) whose venue
// misbehaves: what the person whose money it is expects of the reports and notifications (each case
// failed on the code before its fix).
import { afterEach, expect, it } from "vitest";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";

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
