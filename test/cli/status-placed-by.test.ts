// A trial of an owner editing the bot file while TWAPs run: after a strategy was removed, `status` listed
// its running TWAP with nothing saying whose it was. It now names the strategy from the bot's journal,
// "(no longer configured)" when the bot file has it no more, and "by hand" for a manual TWAP.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { HOUR, type Rig, rig } from "../helpers/cronRig.js";

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

it("status names who placed each running TWAP: a strategy, one no longer configured, or by hand", async () => {
  const dca = {
    name: "hourly",
    kind: "twap-accumulate",
    schedule: "0 * * * *",
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "buy",
      amountUsd: 150,
      twap: { minutes: 180, randomize: false },
    },
  };
  r = await rig({ strategies: { "dca.yaml": dca }, keepShipped: false, fund: { USDC: "5000", HYPE: "100" } });
  r.sim.setPrice("@107", "25");
  await r.once(r.start + 5_000);
  const placed = await r.once(r.start + HOUR + 20_000);
  expect(placed.actions.map((a) => a.outcome)).toEqual(["accepted"]);
  const manual = await r.cli(["twap", "sell", "--coin", "HYPE", "--size", "10", "--minutes", "60", "--live"]);
  expect(manual.code, manual.stderr).toBe(0);
  const lines = async () => (await r!.cli(["status"])).stdout.split("\n").filter((l) => /^ {2}#\d+ /.test(l));
  expect(await lines()).toEqual([
    expect.stringMatching(/^ {2}#\d+ buy [\d.]+ HYPE\/USDC \(@107\) over 180 min, placed by hourly: /),
    expect.stringMatching(/^ {2}#\d+ sell 10(\.0)? HYPE\/USDC \(@107\) over 60 min, placed by hand: /),
  ]);
  rmSync(join(r.dir, "strategies", "dca.yaml"));
  expect((await lines())[0]).toMatch(/over 180 min, placed by hourly \(no longer configured\): /);
  const json = JSON.parse((await r.cli(["status", "--json"])).stdout) as {
    twaps: Array<{ placedBy: string | null }>;
  };
  expect(json.twaps.map((t) => t.placedBy)).toEqual(["hourly (no longer configured)", "by hand"]);
}, 120_000);
