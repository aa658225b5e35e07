// After a clock that ran hours ahead (nonces still accepted by the venue) is corrected, the nonce store
// still hands out nonces ahead of the clock (max(now, last + 1)); the reconciler looked for an unknown
// submission's venue record only near its nonce, so a TWAP that landed was judged "absent" (it never
// happened) and its budget stopped counting it (a review). It is looked for from the venue's time when
// the row was written.
import { afterEach, expect, it } from "vitest";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

it("an unknown TWAP that landed after the clock was corrected is found, not judged absent", async () => {
  const hourly = {
    name: "hourly",
    kind: "twap-accumulate",
    schedule: "0 * * * *",
    params: {
      coin: "HYPE",
      quote: "USDC",
      side: "buy",
      amountUsd: 250,
      twap: { minutes: 5, randomize: false },
    },
  };
  // "later" runs once, two hours after the hourly DCA's first slot (set below once the start is known).
  bot = await startTestBot({
    mode: "live",
    // Sent while ahead, past the hold on a far clock (schedule.maxClockSkew, raised for it).
    configExtra: { schedule: { maxClockSkew: "2d" } },
    strategies: [
      hourly,
      {
        ...hourly,
        name: "later",
        schedule: "0 2 * * *",
        params: { ...hourly.params, coin: "UBTC", amountUsd: 300 },
      },
    ],
    fund: { USDC: "50000" },
  });
  const slot = new CronSchedule("0 * * * *").next(bot.sim.now())!;
  const laterHour = new Date(slot + 2 * HOUR).getUTCHours();
  const strategies = () =>
    scheduledStrategies(bot!.runtime.config.strategies).map((s) =>
      s.name === "later" ? ({ ...s, schedule: `0 ${laterHour} * * *` } as typeof s) : s,
    );
  const run = async () => {
    const deps = bot!.runtime.cycleDeps(await bot!.runtime.facts());
    return oncePass(deps, strategies(), {});
  };
  await run(); // registers both
  bot.sim.advanceTo(slot + 30 * MINUTE);
  // 12 hours ahead for a minute: the hourly DCA's slot then is due and its TWAP accepted (nonce 12 h ahead).
  bot.clockOffsetMs = 12 * HOUR;
  await run();
  expect(bot.sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
  bot.clockOffsetMs = 0;
  bot.sim.advanceTo(slot + 45 * MINUTE);
  await run(); // the next `once` of a 15-minute cron: slot states brought back
  // Corrected. Two hours later the other strategy's slot: its TWAP is applied but the answer is lost.
  bot.sim.advanceTo(slot + 2 * HOUR + MINUTE);
  bot.sim.setFaults({ exchange: { dropRate: 1 } });
  await run();
  bot.sim.setFaults({});
  // The venue applied it (the hourly DCA buys in this slot too: the clock's episode held nothing).
  expect(bot.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.data.coin === "@142")).toHaveLength(1);
  const row = bot.runtime.journal.lastTwapSubmission("later")!;
  expect(row.status).toBe("unknown");
  // Later: reconciled.
  bot.sim.advanceTo(slot + 2 * HOUR + 20 * MINUTE);
  await run();
  const after = bot.runtime.journal.lastTwapSubmission("later")!;
  expect(after.status).toBe("landed");
});
