// A cron trial: every 15-minute pass of the shipped strategies printed five lines (no strategy is due, a
// "skipped, not due" per strategy, the TWAP watch) and the configuration's warning on stderr: a mail
// every 15 minutes. `once --quiet` prints nothing for a pass with nothing to tell.
import { afterEach, expect, it, vi } from "vitest";
import { HOUR, MIN, type Rig, rig } from "../helpers/cronRig.js";
import { ADDR, KEYS, testScenario } from "../simulator/fixtures.js";

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

it("once --quiet is silent when nothing happens and says everything when something does", async () => {
  // The shipped strategies (their PURR DCA pays with the rebalancer's USDC: a configuration warning).
  r = await rig({ strategies: { "zz-dca.yaml": DCA }, fund: { USDC: "20000", HYPE: "100" } });
  r.sim.setPrice("@107", "25");
  const rigged = r;
  const text = async (at: number, extra: string[] = []) => {
    rigged.sim.advanceTo(at);
    vi.setSystemTime(at);
    return rigged.cli(["once", ...extra]);
  };
  const plain = await text(r.start + 20_000);
  expect(plain.stdout).toMatch(/skipped, not due/);
  expect(plain.stderr).toMatch(/pays for its buys in USDC/);
  // 00:30: staking's 00:15 slot runs and keeps its 100 HYPE on spot (nothing sent): nothing to tell.
  const idle = await text(r.start + 30 * MIN, ["--quiet"]);
  expect(idle.code).toBe(0);
  expect(idle.stdout).toBe("");
  expect(idle.stderr).not.toMatch(/pays for its buys in USDC/);
  // 01:00: the DCA's slot acts: the pass is told whole.
  const acted = await text(r.start + HOUR + 20_000, ["--quiet"]);
  expect(acted.stdout).toMatch(/hype-dca: twapOrder/);
  expect(acted.stdout).toMatch(/skipped, not due/);
}, 120_000);

it("once --quiet does not print an API wallet's authority line at every pass (an operator's cron mail)", async () => {
  // The bot's key is an API wallet of the trading account: a plain pass says so (info), a quiet one not.
  r = await rig({
    privateKey: KEYS.agent,
    keepShipped: false,
    strategies: { "zz-dca.yaml": DCA },
    fund: {},
    sim: {
      scenario: testScenario({
        agents: [{ user: ADDR.trader, address: ADDR.agent, name: "bot" }],
        balances: { [ADDR.trader]: { USDC: "20000" } },
      }),
    },
    configExtra: { account: ADDR.trader, log: { level: "info", format: "json" } },
  });
  const rigged = r;
  const pass = async (at: number, extra: string[] = []) => {
    rigged.sim.advanceTo(at);
    vi.setSystemTime(at);
    return rigged.cli(["once", ...extra]);
  };
  const plain = await pass(r.start + 20_000);
  expect(plain.code, plain.stderr).toBe(0);
  expect(plain.stderr).toContain(`API wallet ${ADDR.agent} of ${ADDR.trader}`);
  const quiet = await pass(r.start + 30 * MIN, ["--quiet"]);
  expect(quiet.code, quiet.stderr).toBe(0);
  expect(quiet.stdout).toBe("");
  expect(quiet.stderr).not.toContain("API wallet");
}, 120_000);
