// A review: price sanity holds a TWAP on a pair whose market context shows midPx null ("no TWAP is
// placed on it until it has one"). The hold was a plain blocked skip, so the scheduler settled the slot
// as acted: a daily DCA whose 01:00 slot met a pair halted for a few minutes (or one side of a thin book
// empty at that moment) lost the day's buy, though the pair reopened well within schedule.catchUp. The
// hold now defers: the slot stays due.
import { afterEach, expect, it } from "vitest";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";

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

it("a DCA held at its slot because the pair had no book buys once the book is back, within catch-up", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 20_000);
  r.sim.setPairHalted("@107", true);
  const held = await r.once(r.start + HOUR + 20_000); // 01:00 slot: halted
  r.sim.setPairHalted("@107", false); // reopened 01:05
  const later: Array<Awaited<ReturnType<Rig["once"]>>> = [];
  for (let m = 75; m <= 180; m += 15) later.push(await r.once(r.start + m * MIN + 20_000));
  const Database = (await import("better-sqlite3")).default;
  const db = new Database(`${r.dir}/state/hlbot.db`, { readonly: true });
  const decisions = db.prepare("SELECT * FROM decisions ORDER BY rowid").all();
  const slots = db.prepare("SELECT * FROM schedule_slots").all();
  db.close();
  // The 01:00 pass: held "HYPE/USDC has no book", the slot left due (deferred), not settled.
  expect(JSON.stringify(decisions)).toMatch(/HYPE\/USDC has no book/);
  expect(held.summary.summary.ran).toMatchObject([{ deferred: ["hype-dca"] }]);
  // The summary names the network (a go-live trial: it had mode but no network).
  expect(held.summary.summary).toMatchObject({ network: "testnet", mode: "live" });
  // --json says why (it gave the name alone: a cron user's trial).
  expect(held.summary.summary.ran).toMatchObject([
    { deferredReasons: [{ strategy: "hype-dca", reason: expect.stringMatching(/HYPE\/USDC has no book/) }] },
  ]);
  // One TWAP, placed at the first pass after the reopening (01:15), and the slot then settled.
  expect(later.every((l) => l.code === 0)).toBe(true);
  expect(r.twapsPlaced()).toHaveLength(1);
  expect(r.twapsPlaced()[0]!.time).toBeGreaterThanOrEqual(r.start + 75 * MIN);
  expect(slots).toMatchObject([{ strategy: "hype-dca", last_outcome: "acted" }]);
}, 120_000);

it("a DCA held at every pass until its slot aged out is told as held (its reason), not as 'nothing ran'", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 20_000);
  r.sim.setPairHalted("@107", true); // no book from 01:00 until after the 2-hour catch-up window
  const passes: Array<Awaited<ReturnType<Rig["once"]>>> = [];
  for (let m = 60; m <= 195; m += 15) passes.push(await r.once(r.start + m * MIN + 20_000));
  expect(r.twapsPlaced()).toHaveLength(0);
  const told = passes.flatMap((p) => p.summary.summary.missed as Array<Record<string, unknown>>);
  expect(told).toEqual([
    expect.objectContaining({
      strategy: "hype-dca",
      nothingRan: true,
      cause: expect.stringMatching(/^it ran after the slot and was held each time .*HYPE\/USDC has no book/),
    }),
  ]);
  const notices = passes.flatMap((p) => p.hooks).filter((h) => h.type === "schedule.missed");
  expect(notices).toHaveLength(1);
  expect(`${notices[0]!.title}\n${notices[0]!.text}`).toMatch(
    /nothing was done for it\n.*hype-dca: 1 slot \(latest [^)]+\): it ran after the slot and was held each time/,
  );
}, 120_000);
