// A cron trial: a bot file without `state:` run from a shell and from cron, whose environments gave it two
// state folders ($HLBOT_STATE_DIR set in one only), bought twice in every slot: each journal knew only its
// own TWAP, and a DCA without a budget had nothing else to stop it. A DCA now holds in a slot where the
// venue shows a TWAP on its pair and side, placed since the slot began, that its journal does not have.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { stringify } from "yaml";
import { runCli } from "../helpers/cli.js";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";

let r: Rig | undefined;
let last = "";
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
    amountUsd: 300,
    twap: { minutes: 30, randomize: false },
  },
};

// Its market named by the token or by the pair's venue name (a limit tester's trial: `coin: "@107"` was
// compared with token names and bought again).
it.each(["HYPE", "@107"])(
  "a DCA does not buy again in a slot another state folder's hlbot bought in (coin %s)",
  async (coin) => {
    const dca = { ...DCA, params: { ...DCA.params, coin } };
    r = await rig({ strategies: { "dca.yaml": dca }, keepShipped: false, fund: { USDC: "5000" } });
    r.sim.setPrice("@107", "25");
    const rigged = r;
    // The same bot file with another state folder (the cron job's environment).
    const other = join(r.dir, "other.yaml");
    writeFileSync(other, readFileSync(r.config, "utf8").replace("state: ./state", "state: ./state-cron"));
    const onceOther = async (at: number) => {
      rigged.sim.advanceTo(at);
      vi.setSystemTime(at);
      const out = await runCli(["once", "--json", "--config", other], { env: rigged.env });
      last = out.stdout;
      return out.stdout
        .trim()
        .split("\n")
        .slice(0, -1)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    };

    // Both first see the strategy at 00:00 (a strategy's slots start at its first sight).
    await r.once(r.start + 20_000);
    await onceOther(r.start + 30_000);
    // 01:00: the shell's once buys; 01:45 (its 30-minute TWAP ended): cron's once, in its own folder.
    const first = await r.once(r.start + HOUR + 20_000);
    expect(first.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    const second = await onceOther(r.start + HOUR + 45 * MIN);
    expect(second.filter((a) => a.action === "twapOrder")).toEqual([]);
    expect(last).toMatch(
      /holding: the venue shows 1 TWAP\(s\) on this strategy's pair and side placed since its slot of 2025-01-01T01:00:00.000Z/,
    );
    expect(r.twapsPlaced()).toHaveLength(1);

    // The next day's slot: that TWAP is older than the slot, and cron's once buys (one TWAP in the slot).
    const next = await onceOther(r.start + 25 * HOUR + 20_000);
    expect(next.filter((a) => a.action === "twapOrder").map((a) => a.outcome)).toEqual(["accepted"]);
    expect(r.twapsPlaced()).toHaveLength(2);
  },
  120_000,
);

it("another instance's different DCA on the pair and side is waited for, not taken as this slot's run", async () => {
  // A review: an hourly 150-USD DCA of a second instance (its own state folder) placed its TWAP in the
  // daily 300-USD DCA's slot each day, and the daily one held its whole window every day, never buying.
  r = await rig({ strategies: { "dca.yaml": DCA }, keepShipped: false, fund: { USDC: "20000" } });
  r.sim.setPrice("@107", "25");
  const rigged = r;
  const hourly = {
    ...DCA,
    name: "hourly-hype",
    schedule: "0 * * * *",
    params: { ...DCA.params, amountUsd: 150, twap: { minutes: 20, randomize: false } },
  };
  mkdirSync(join(r.dir, "strategies-2"));
  writeFileSync(join(r.dir, "strategies-2", "hourly.yaml"), stringify(hourly));
  const other = join(r.dir, "other.yaml");
  writeFileSync(
    other,
    readFileSync(r.config, "utf8")
      .replace("state: ./state", "state: ./state-2")
      .replace("strategies: ./strategies", "strategies: ./strategies-2"),
  );
  const onceOther = async (at: number) => {
    rigged.sim.advanceTo(at);
    vi.setSystemTime(at);
    return runCli(["once", "--json", "--config", other], { env: rigged.env });
  };
  await onceOther(r.start + 10_000);
  await r.once(r.start + 20_000);
  await onceOther(r.start + HOUR + 10_000); // the other's hourly TWAP, 20 minutes
  const during = await r.once(r.start + HOUR + 20_000);
  expect(during.actions).toEqual([]);
  const after = await r.once(r.start + HOUR + 30 * MIN);
  expect(after.actions.map((a) => [a.strategy, a.outcome])).toEqual([["hype-dca", "accepted"]]);
}, 120_000);
