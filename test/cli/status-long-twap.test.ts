// A bookkeeper's trial: a running TWAP's progress is summed from userTwapSliceFills, which the venue caps
// at its 2000 most recent fills. A TWAP with more than 2000 slices (any TWAP over 1000 minutes; the
// default maxParticipation stretch goes to 1440) was shown as having filled far less than it had, as if
// exact. The count is still what the answer holds; status now says it is a lower bound.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { parseJson } from "../../src/lib/json.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { runCli } from "../helpers/cli.js";

describe("running TWAP progress beyond 2000 slices", () => {
  let bot: TestBot;
  let config: string;
  beforeAll(async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "idle",
          kind: "link-staking",
          enabled: false,
          params: { counterparty: "0x3333333333333333333333333333333333333333", finalize: false },
        },
      ],
      fund: { USDC: "100000" },
    });
    const placed = await bot.runtime.exchange!.twapOrder({
      asset: 10107,
      isBuy: true,
      size: "100",
      szDecimals: 2,
      minutes: 1440,
      randomize: false,
    });
    expect(placed.status).toBe("accepted");
    // 20 of its 24 hours: 2400 slices of 30 s.
    for (let i = 0; i < 20 * 60; i++) bot.sim.advance(60_000);
    config = join(bot.dir, "status.yaml");
    writeFileSync(
      config,
      stringify({
        network: "testnet",
        baseUrl: bot.sim.url,
        account: bot.address,
        strategies: [join(bot.dir, "strategy-0.yaml")],
        limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await bot?.close();
  });

  it("status says the count of a TWAP past the venue's 2000 fills is a lower bound", async () => {
    const spot = bot.sim.request("info", { type: "spotClearinghouseState", user: bot.address }).body as {
      balances: Array<{ coin: string; total: string }>;
    };
    const hypeHeld = Number(spot.balances.find((b) => b.coin === "HYPE")?.total ?? "0");
    // HYPE received is the fills less their fee (paid in HYPE): the TWAP filled at least this much.
    expect(hypeHeld).toBeGreaterThan(80);
    const r = await runCli(["status", "--config", config, "--json"]);
    expect(r.code).toBe(0);
    const status = parseJson(r.stdout) as {
      twaps: Array<{ executed: string; progress: string; atLeast: boolean }>;
    };
    expect(status.twaps).toHaveLength(1);
    // Counted ≈ 69.45 (2000 slices × 0.03472…), while the account already holds ≈ 83.3 HYPE from it.
    expect(Number(status.twaps[0]!.executed)).toBeLessThan(hypeHeld);
    expect(status.twaps[0]!.atLeast).toBe(true);
    const text = await runCli(["status", "--config", config]);
    expect(text.stdout).toMatch(
      /over 1440 min: at least [\d.]+ done \([\d.]+% or more: the venue answers an account's latest 2000 fills\)/,
    );
  });
});
