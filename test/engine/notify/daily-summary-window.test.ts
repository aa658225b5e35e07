// A bookkeeper's trial: the daily summary (00:00 UTC, daemon) counted the staking rewards "credited in
// the last 24 h" as those with time >= now - 24 h. The venue pays once a day at 00:00 (the simulator; the
// summary runs at the same instant): when a payout is not yet visible at the summary's read (the venue
// a moment late, the local clock a moment ahead: maxClockSkew allows 5 minutes), the next day's window
// starts just after it, so that payout is in no summary at all. Seen with `hlbot run` against a
// virtual-clock `hlbot venue` 20 s behind: "staking rewards: 0 HYPE" while the venue paid 0.05172914.
import pino from "pino";
import { expect, it } from "vitest";
import { DaemonNotices } from "../../../src/engine/notify/daemonNotices.js";
import type { NotifyEvent } from "../../../src/engine/notify/types.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 0, 2); // a payout day, 00:00 UTC

it("over three daily summaries every payout of the venue is told once", async () => {
  const payouts = [
    { time: T0, source: "delegation", totalAmount: "0.01" },
    { time: T0 + DAY, source: "delegation", totalAmount: "0.02" },
    { time: T0 + 2 * DAY, source: "delegation", totalAmount: "0.04" },
  ];
  // The venue's answer at each read: the payout of day 2 is booked 1 s after 00:00 (late), the others on time.
  let visibleUntil = 0;
  const info = {
    delegatorRewards: async () => payouts.filter((p) => p.time <= visibleUntil).reverse(),
    userTwapSliceFills: async () => [],
  };
  const told: NotifyEvent[] = [];
  const notifier = { wants: () => true, notify: (e: NotifyEvent) => void told.push(e) };
  let now = 0;
  const notices = new DaemonNotices({
    notifier: notifier as never,
    info: info as never,
    account: "0x1111111111111111111111111111111111111111",
    network: "testnet",
    clock: () => now,
    logger: pino({ level: "silent" }),
  });
  for (let day = 0; day < 3; day++) {
    now = T0 + day * DAY + 50; // the summary job fires 50 ms after midnight
    visibleUntil = day === 1 ? T0 + DAY - 1 : now; // day 2's payout is not booked yet
    notices.dailySummary();
    await notices.settled();
  }
  const told3 = told.map((e) => String((e.data as { rewardsHype?: string }).rewardsHype ?? "0"));
  // It was [0.01, 0, 0.04]: the 0.02 HYPE paid on day 2 was in no summary. Now it is told late, once.
  expect(told3).toEqual(["0.01", "0", "0.06"]);
});
