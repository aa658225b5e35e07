// A review of netted budgets: a DCA and a take-profit netted to nothing had their `netted` rows journaled
// before the sends. When the cycle then failed (another strategy's send threw), the slot stayed due for
// both (they sent nothing) and the retry netted them again: the day counted twice in both budgets. Only
// cycles that finished ok count.
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const twap = { minutes: 5, randomize: false };
const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  params: { coin: "HYPE", quote: "USDC", side: "buy", amountUsd: 150, budgetUsd: 3000, twap },
};
const TP = {
  name: "tp",
  kind: "twap-accumulate",
  params: { coin: "HYPE", quote: "USDC", side: "sell", amountUsd: 150, budgetUsd: 3000, twap },
};
const PURR = {
  name: "purr",
  kind: "twap-accumulate",
  params: { coin: "PURR", quote: "USDC", side: "buy", amountUsd: 150, twap },
};

describe("netted to nothing, then the cycle fails, then the slot is retried", () => {
  it("counts the netted day once", async () => {
    const b = await startTestBot({
      mode: "live",
      fund: { USDC: "10000", HYPE: "1000" },
      strategies: [DCA, TP, PURR],
    });
    bot = b;
    b.sim.setPrice("@107", "25");
    const deps = b.runtime.cycleDeps(await b.runtime.facts());
    const submit = deps.exchange!.submit.bind(deps.exchange);
    let boom = true;
    (deps.exchange as { submit: typeof submit }).submit = async (...args) => {
      if (boom) {
        boom = false;
        throw new Error("socket hang up (simulated failure of the cycle)");
      }
      return submit(...args);
    };
    await expect(runCycle(deps, { trigger: "once", strategies: b.runtime.strategies() })).rejects.toThrow(
      /socket/,
    );
    const market = { assetId: 10107, side: "buy" as const };
    const first = deps.journal.nettedUsd(b.address, "dca", market).toString();
    // The retry the scheduler makes of a failed cycle's slot (the DCA and TP sent nothing: still due).
    await runCycle(deps, { trigger: "once", strategies: b.runtime.strategies() });
    const second = deps.journal.nettedUsd(b.address, "dca", market).toString();
    expect(first).toBe("0");
    expect(second).toBe("150");
  });
});
