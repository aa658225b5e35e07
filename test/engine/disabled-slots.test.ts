// A cron trial: a daily DCA disabled for three days (`enabled: false`), then enabled again, was reported
// "missed 3 slots … nothing ran for it; call `hlbot once` within schedule.catchUp" with a schedule.missed
// notice, for a pause the owner chose. The slots of a disabled strategy now pass quietly.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { runCli } from "../helpers/cli.js";
import { DAY, HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const DCA = {
  name: "hype-dca",
  kind: "twap-accumulate",
  schedule: "0 1 * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 150,
    twap: { minutes: 30, randomize: false },
  },
};

it("a strategy disabled for days and enabled again reports no missed slot for its time off", async () => {
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  const file = join(r.dir, "strategies", "dca.yaml");
  await r.once(r.start + 20_000);
  expect((await r.once(r.start + HOUR + 20_000)).actions.map((a) => a.outcome)).toEqual(["accepted"]);

  // Off for days 2 and 3: cron keeps calling (the file's other strategies would run).
  writeFileSync(file, stringify({ ...DCA, enabled: false }));
  for (const day of [1, 2]) for (const h of [1, 3]) await r.once(r.start + day * DAY + h * HOUR + 30 * MIN);

  // On again before day 4's slot: nothing was missed; the slot then buys.
  writeFileSync(file, stringify(DCA));
  const back = await r.once(r.start + 3 * DAY + 30 * MIN);
  expect(back.summary.summary.missed ?? []).toEqual([]);
  expect(back.hooks.filter((h) => h.type === "schedule.missed")).toEqual([]);
  const slot = await r.once(r.start + 3 * DAY + HOUR + 20_000);
  expect(slot.actions.map((a) => a.outcome)).toEqual(["accepted"]);
  expect(r.twapsPlaced()).toHaveLength(2);
}, 120_000);

it("a second bot file on the state folder with the strategy disabled leaves the first file's slot due", async () => {
  // A review: `once --config bot-b.yaml` (hype-dca disabled there) at 01:02 settled the 01:00 slot, and
  // the first file's 01:15 pass found it "not due" (no buy that day, nothing said).
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "5000" } });
  r.sim.setPrice("@107", "25");
  const rigged = r;
  mkdirSync(join(r.dir, "strategies-b"));
  writeFileSync(join(r.dir, "strategies-b", "dca.yaml"), stringify({ ...DCA, enabled: false }));
  writeFileSync(
    join(r.dir, "strategies-b", "other.yaml"),
    stringify({ ...DCA, name: "other", schedule: "0 5 * * *" }),
  );
  const b = join(r.dir, "bot-b.yaml");
  writeFileSync(
    b,
    readFileSync(r.config, "utf8").replace("strategies: ./strategies", "strategies: ./strategies-b"),
  );
  await r.once(r.start + 20_000);
  rigged.sim.advanceTo(r.start + HOUR + 2 * MIN);
  vi.setSystemTime(r.start + HOUR + 2 * MIN);
  await runCli(["once", "--config", b], { env: rigged.env });
  const pass = await r.once(r.start + HOUR + 15 * MIN);
  expect(pass.actions.map((a) => [a.strategy, a.outcome])).toEqual([["hype-dca", "accepted"]]);
}, 120_000);
