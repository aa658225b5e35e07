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
import { USER_FILLS_MAX } from "../../../src/venue/constants.js";

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

it("a day of more slice fills than the venue answers tells its fees as a lower bound (an accountant's trial)", async () => {
  // One 24-hour sale: a slice every 30 s, 0.01 USDC of fees each, 28.8 USDC that day; the venue answers
  // the latest 2,000 (most recent first). The summary said "trading fees: 20 USDC" as if complete.
  const summary = async (slices: number) => {
    const all = Array.from({ length: slices }, (_, i) => ({
      fill: {
        coin: "@142",
        px: "100",
        sz: "1",
        side: "A",
        time: T0 - DAY + 100 + i * 30_000,
        startPosition: "0",
        dir: "Sell",
        closedPnl: "0",
        hash: "0x",
        oid: i,
        crossed: true,
        fee: "0.01",
        tid: i,
        feeToken: "USDC",
      },
      twapId: 7,
    }));
    const info = {
      delegatorRewards: async () => [],
      userTwapSliceFills: async () => [...all].reverse().slice(0, USER_FILLS_MAX),
    };
    const told: NotifyEvent[] = [];
    const notices = new DaemonNotices({
      notifier: { wants: () => true, notify: (e: NotifyEvent) => void told.push(e) } as never,
      info: info as never,
      account: "0x1111111111111111111111111111111111111111",
      network: "testnet",
      clock: () => T0 + 50,
      logger: pino({ level: "silent" }),
    });
    notices.dailySummary();
    await notices.settled();
    const e = told[0]!;
    return { line: e.text.split("\n").find((l) => l.startsWith("trading fees")), data: e.data.feesAtLeast };
  };
  expect(await summary(2880)).toEqual({
    line: "trading fees: at least 20 USDC (the venue answers an account's latest 2000 fills)",
    data: true,
  });
  expect(await summary(1500)).toEqual({ line: "trading fees: 15 USDC", data: undefined });
});
