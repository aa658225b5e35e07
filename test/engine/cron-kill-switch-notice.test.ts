// A cron trial: with `notify.webhook` set (all events), `hlbot stop`, passes blocked by the kill switch,
// and `hlbot resume` sent no killswitch.engaged or killswitch.released: only the daemon told them. `once`
// now tells each change at its next pass, once.
import { afterEach, expect, it } from "vitest";
import { MIN, type Rig, rig } from "../helpers/cronRig.js";

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

it("once tells the kill switch engaged and released at its next pass, each once", async () => {
  r = await rig({ fund: { USDC: "5000", HYPE: "100" } });
  const kinds = (hooks: Array<{ type: string }>) =>
    hooks.map((h) => h.type).filter((t) => t.startsWith("killswitch"));
  expect(kinds((await r.once(r.start + 20_000)).hooks)).toEqual([]);
  expect((await r.cli(["stop", "--reason", "maintenance"])).code).toBe(0);
  const first = await r.once(r.start + 15 * MIN);
  expect(kinds(first.hooks)).toEqual(["killswitch.engaged"]);
  expect(kinds((await r.once(r.start + 30 * MIN)).hooks)).toEqual([]);
  expect((await r.cli(["resume"])).code).toBe(0);
  expect(kinds((await r.once(r.start + 45 * MIN)).hooks)).toEqual(["killswitch.released"]);
  expect(kinds((await r.once(r.start + 60 * MIN)).hooks)).toEqual([]);
}, 120_000);
