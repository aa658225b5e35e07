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
  // One TWAP, placed at the first pass after the reopening (01:15), and the slot then settled.
  expect(later.every((l) => l.code === 0)).toBe(true);
  expect(r.twapsPlaced()).toHaveLength(1);
  expect(r.twapsPlaced()[0]!.time).toBeGreaterThanOrEqual(r.start + 75 * MIN);
  expect(slots).toMatchObject([{ strategy: "hype-dca", last_outcome: "acted" }]);
}, 120_000);
