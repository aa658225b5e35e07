// `hlbot journal rebuild` (and a fork's carried TWAPs) import the account's TWAPs from twapHistory, which
// lists perp and spot TWAPs together; a perp TWAP names its perp ("HYPE"), a spot one its pair ("@107").
// A tokens trial: a finished perp HYPE TWAP of 3,000 USD placed by hand was imported as the spot DCA's,
// which then read "budget used up (3000 of 3000 USD)" and counted it in the daily limit.
import { afterEach, describe, expect, it } from "vitest";
import { newCycleId } from "../../src/engine/journal.js";
import { importVenueTwaps } from "../../src/engine/rebuildTwaps.js";
import type { TwapHistoryResponse } from "../../src/venue/info/methods/index.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const DCA = {
  name: "hype-dca",
  kind: "twap-accumulate",
  schedule: "0 * * * *",
  params: { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 30 }, budgetUsd: 3000 },
};

function finished(coin: string, twapId: number, at: number): TwapHistoryResponse[number] {
  return {
    timeMs: at,
    state: {
      coin,
      user: bot!.address as `0x${string}`,
      side: "B",
      sz: "120",
      executedSz: "120",
      executedNtl: "3000",
      minutes: 30,
      reduceOnly: false,
      randomize: false,
      timestamp: at,
    },
    status: { status: "finished" },
    twapId,
  };
}

describe("rebuilding TWAPs from the venue's history", () => {
  it("imports the spot TWAP on the DCA's pair and leaves out a perp TWAP on the token of the same name", async () => {
    bot = await startTestBot({ strategies: [DCA], fund: { USDC: "5000" } });
    const at = bot.sim.now() - 60 * 60_000;
    const runtime = bot.runtime;
    const cycleId = newCycleId(runtime.clock());
    runtime.journal.startCycle({
      id: cycleId,
      trigger: "rebuild",
      mode: "rebuild",
      account: bot.address,
      strategies: [],
    });
    const { added } = importVenueTwaps(runtime.journal, {
      cycleId,
      account: bot.address,
      strategies: runtime.config.strategies,
      twaps: [finished("HYPE", 4242, at), finished("@107", 4243, at + 1000)],
      meta: await runtime.info.spotMeta({}),
      mids: await runtime.info.allMids({}),
    });
    expect(added).toBe(1);
    const rows = runtime.db
      .prepare("SELECT strategy, twap_id AS twapId FROM submissions WHERE action_type = 'twapOrder'")
      .all() as Array<{ strategy: string; twapId: number }>;
    expect(rows).toEqual([{ strategy: "hype-dca", twapId: 4243 }]);
  });
});
