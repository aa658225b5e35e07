// A cron trial: an hourly DCA of 60-minute TWAPs under a 15-minute cron bought every 75 minutes (9 buys in
// 11 slots): each slot's pass read the venue a moment before the TWAP placed a moment after the last
// slot had ended, waited for it ("a TWAP of hourly-60 is already running"), and acted a call later. A
// DCA no longer waits for its own TWAP within two minutes of its scheduled end.
import { afterEach, expect, it } from "vitest";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const dca = (minutes: number) => ({
  name: "hourly",
  kind: "twap-accumulate",
  schedule: "0 * * * *",
  params: { coin: "HYPE", quote: "USDC", side: "buy", amountUsd: 150, twap: { minutes, randomize: false } },
});

it("an hourly DCA of 60-minute TWAPs buys in every slot, though its last TWAP has seconds left", async () => {
  r = await rig({ strategies: { "dca.yaml": dca(60) }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 5_000);
  const first = await r.once(r.start + HOUR + 20_000);
  expect(first.actions.map((a) => a.outcome)).toEqual(["accepted"]);
  // 02:00:10: the 01:00:20 TWAP has 10 seconds to run.
  const second = await r.once(r.start + 2 * HOUR + 10_000);
  expect(second.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
  expect(r.twapsPlaced()).toHaveLength(2);
}, 120_000);

it("it still waits for its own TWAP with minutes to run (a 90-minute TWAP of an hourly DCA)", async () => {
  r = await rig({ strategies: { "dca.yaml": dca(90) }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 5_000);
  await r.once(r.start + HOUR + 20_000);
  const second = await r.once(r.start + 2 * HOUR + 10_000);
  expect(second.actions).toEqual([]);
  expect(JSON.stringify(second.summary)).toMatch(/already running on HYPE\/USDC/);
  // Its 90 minutes over (02:30:20), the next call within the slot's catch-up window buys.
  const later = await r.once(r.start + 2 * HOUR + 45 * MIN);
  expect(later.actions.map((a) => a.outcome)).toEqual(["accepted"]);
}, 120_000);
