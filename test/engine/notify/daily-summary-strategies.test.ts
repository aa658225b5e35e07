// A year-long trial: a DCA whose budget ran out, one out of USDC and a rebalancer that could not sell
// went silent for months; the daemon told it nowhere (skips are info logs, and the shipped demo logs at
// warn). The daily summary now says, per strategy, how many of its runs acted since the last one and,
// for one that never did, its latest reason.
import pino from "pino";
import { afterEach, expect, it } from "vitest";
import { runCycle } from "../../../src/engine/cycle.js";
import { DaemonNotices } from "../../../src/engine/notify/daemonNotices.js";
import type { NotifyEvent } from "../../../src/engine/notify/types.js";
import { startTestBot, type TestBot } from "../../helpers/bot.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

it("says per strategy how many runs acted since the last summary, and why one never did", async () => {
  bot = await startTestBot({
    mode: "live",
    strategies: [
      {
        name: "dca",
        kind: "twap-accumulate",
        params: { coin: "HYPE", side: "buy", amountUsd: 150, budgetUsd: 160, twap: { minutes: 5 } },
      },
    ],
    fund: { USDC: "5000" },
  });
  const b = bot;
  b.sim.setPrice("@107", "25");
  const told: NotifyEvent[] = [];
  const notices = new DaemonNotices({
    notifier: { wants: () => true, notify: (e: NotifyEvent) => void told.push(e) } as never,
    info: b.runtime.info,
    account: b.runtime.account,
    network: "testnet",
    clock: () => b.sim.now(),
    logger: pino({ level: "silent" }),
    journal: b.runtime.journal,
  });
  const run = async () => {
    const report = await runCycle(b.runtime.cycleDeps(await b.runtime.facts()), {
      trigger: "run",
      strategies: b.runtime.strategies(),
    });
    notices.afterCycle(report, ["dca"], 0);
    b.sim.advance(10 * 60_000);
  };
  const summary = async () => {
    notices.dailySummary();
    await notices.settled();
    const e = told.filter((x) => x.type === "daily.summary").at(-1)!;
    return { line: e.text.split("\n").find((l) => l.startsWith("dca:")), data: e.data.strategies };
  };
  // The first run buys; the next two find the budget used up.
  for (let i = 0; i < 3; i++) await run();
  expect(await summary()).toEqual({
    line: "dca: 1 of 3 runs acted",
    data: [{ name: "dca", runs: 3, acted: 1, latest: expect.stringMatching(/^budget used up/) }],
  });
  // The next day: nothing acted, and the summary says why.
  for (let i = 0; i < 2; i++) await run();
  const next = await summary();
  expect(next.line).toMatch(/^dca: 0 of 2 runs acted \(latest: budget used up \(1\d\d\.\d+ of 160 USD/);
});
