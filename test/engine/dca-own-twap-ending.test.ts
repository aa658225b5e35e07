// A cron trial: an hourly DCA of 60-minute TWAPs under a 15-minute cron bought every 75 minutes (9 buys in
// 11 slots): each slot's pass read the venue a moment before the TWAP placed a moment after the last
// slot had ended, waited for it ("a TWAP of hourly-60 is already running"), and acted a call later. A
// DCA no longer waits for its own TWAP within two minutes of its scheduled end.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { stringify } from "yaml";
import { runCycle } from "../../src/engine/cycle.js";
import { startTestBot } from "../helpers/bot.js";
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

it("a DCA renamed while its TWAP runs waits for it, as it did under its old name", async () => {
  // A review: renamed, it took its own running TWAP for another strategy's and bought beside it (two
  // TWAPs on the pair, double its pace).
  r = await rig({ strategies: { "dca.yaml": dca(180) }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 5_000);
  await r.once(r.start + HOUR + 20_000);
  writeFileSync(join(r.dir, "strategies", "dca.yaml"), stringify({ ...dca(180), name: "hourly-hype" }));
  await r.once(r.start + HOUR + 30 * MIN); // the new name's first sight
  const next = await r.once(r.start + 2 * HOUR + 20_000);
  expect(next.actions).toEqual([]);
  expect(JSON.stringify(next.summary)).toMatch(/a TWAP #\d+ of hourly is already running on HYPE\/USDC/);
  expect(r.twapsPlaced()).toHaveLength(1);
}, 120_000);

it("with the local clock minutes ahead, how long its own TWAP still runs is read on the venue's clock", async () => {
  // A review: 4 minutes ahead (within maxClockSkew), a 65-minute TWAP with 5 minutes left on the venue
  // looked 1 minute from its end on the local clock, and an hourly DCA bought beside it.
  const bot = await startTestBot({
    mode: "live",
    strategies: [dca(65)],
    fund: { USDC: "5000" },
  });
  try {
    bot.sim.setPrice("@107", "25");
    bot.clockOffsetMs = 4 * MIN;
    const cycle = () =>
      runCycle(bot.runtime.cycleDeps({ multiSig: null }), {
        trigger: "once",
        strategies: bot.runtime.strategies(),
      });
    expect((await cycle()).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(60 * MIN);
    const next = await cycle();
    expect(next.actions).toEqual([]);
    expect(next.decisions.map((d) => d.decision.reason).join("\n")).toMatch(/already running on HYPE\/USDC/);
  } finally {
    await bot.close();
  }
}, 120_000);

it("renamed while its old name is given to a DCA of another pair, it still waits for its TWAP (an owner's edit)", async () => {
  // A trial of an owner editing the bot file while TWAPs run: a PURR DCA renamed, its old name given to a
  // new HYPE DCA in the same edit. The old TWAP counted as the new HYPE DCA's (an enabled strategy's, so
  // not waited for), and the renamed DCA placed a second TWAP beside it on the pair, doubling its pace.
  r = await rig({ strategies: { "dca.yaml": dca(180) }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 5_000);
  await r.once(r.start + HOUR + 20_000);
  writeFileSync(join(r.dir, "strategies", "dca.yaml"), stringify({ ...dca(180), name: "hourly-hype" }));
  const other = dca(30);
  writeFileSync(
    join(r.dir, "strategies", "other.yaml"),
    stringify({ ...other, schedule: "0 9 * * *", params: { ...other.params, coin: "PURR" } }),
  );
  await r.once(r.start + HOUR + 30 * MIN); // the new names' first sight
  const next = await r.once(r.start + 2 * HOUR + 20_000);
  expect(next.actions).toEqual([]);
  expect(JSON.stringify(next.summary)).toMatch(/a TWAP #\d+ of hourly is already running on HYPE\/USDC/);
  expect(r.twapsPlaced()).toHaveLength(1);
}, 120_000);
