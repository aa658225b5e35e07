// An operator's trial: a daily 08:30 DCA held by the kill switch, released inside its 2-h catch-up window.
// README: "A slot the kill switch blocks stays due: resumed within schedule.catchUp, the strategy acts in
// it". The deferral's back-off (1, 2, 4 … 30 min, capped only at the next slot) retried at 10:01 and next
// at 10:31: released at 10:05 the slot was missed, and released at 09:32 it bought only at 10:01. The last
// retry now comes a minute before the window closes, and the daemon tries held slots as soon as it sees
// the switch released (Scheduler.retryDeferredNow, called from daemon.ts's minute watch).
import { rmSync, writeFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { runDueSlots, Scheduler } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});
const DAY = 86_400_000;
const MIN = 60_000;

it.each([
  // released, told at once (as the daemon's watch does), and the minute the TWAP goes out
  [95, false, 119],
  [62, true, 62],
])(
  "a slot held by the kill switch, released %i min after it (told at once: %s), is acted in at minute %i",
  async (releasedAfter, told, placedAfter) => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          schedule: "30 8 * * *",
          params: {
            coin: "HYPE",
            quote: "USDC",
            side: "buy",
            amountUsd: 250,
            budgetUsd: 10000,
            twap: { minutes: 30, randomize: false },
          },
        },
      ],
      fund: { USDC: "20000" },
    });
    const b = bot;
    b.sim.setPrice("@107", "25");
    const scheduler = new Scheduler({
      journal: b.runtime.journal,
      account: b.address,
      mode: "live",
      strategies: b.runtime.strategies(),
    });
    scheduler.register(b.sim.now());
    const slot = Math.ceil((b.sim.now() + 1) / DAY) * DAY + 8.5 * 3_600_000;
    const stop = b.runtime.config.limits.killSwitchFile!;
    writeFileSync(stop, "ops trial\n");
    b.sim.advanceTo(slot);
    const release = slot + releasedAfter * MIN;
    let released = false;
    for (let i = 0; i < 40; i++) {
      await runDueSlots(scheduler, b.runtime.cycleDeps(await b.runtime.facts()), { trigger: "run" });
      const placed = b.sim.ledger().filter((e) => e.kind === "twapPlaced" && e.user === b.address);
      if (placed.length > 0) {
        expect(placed.map((e) => Math.round((e.time - slot) / MIN))).toEqual([placedAfter]);
        return;
      }
      const retry = scheduler.nextRetry(b.sim.now());
      if (!released && (retry === undefined || retry >= release)) {
        // `hlbot resume` between two retries.
        b.sim.advanceTo(release);
        rmSync(stop, { force: true });
        released = true;
        if (told) scheduler.retryDeferredNow(release);
        if (told) continue;
      }
      const at = scheduler.nextRetry(b.sim.now());
      if (at === undefined || at > slot + 3 * 3_600_000) break;
      b.sim.advanceTo(Math.max(at, b.sim.now() + 1));
    }
    throw new Error("the slot was never acted in");
  },
);
