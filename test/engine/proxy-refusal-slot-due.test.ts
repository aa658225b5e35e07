// A request a proxy in front of the venue refused (a WAF's 403, a wrong path's 404, a 408) never
// reached the venue: nothing happened. It settled a DCA's slot as acted, and that day's buy was lost
// although the slot was still within schedule.catchUp (only 429 and unreachable kept it due).
import { afterEach, expect, it } from "vitest";
import { actionLines, formatCycle } from "../../src/cli/report.js";
import { deferralReason } from "../../src/engine/cycle.js";
import { scheduledStrategies } from "../../src/engine/daemon.js";
import { submissionEvents } from "../../src/engine/notify/events.js";
import { CronSchedule } from "../../src/engine/schedule.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

const MINUTE = 60_000;
let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
});

const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "30 8 * * *",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 250,
    twap: { minutes: 30, randomize: false },
  },
};

for (const status of [403, 404, 408]) {
  it(`a daily DCA buys in its slot after a proxy answered HTTP ${status} to its send`, async () => {
    proxy = await startRewritingProxy();
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA],
      fund: { USDC: "20000" },
      configExtra: { baseUrl: proxy.url },
    });
    const b = bot;
    proxy.target = b.sim.url;
    b.sim.setPrice("@107", "25");
    const once = async () => {
      const deps = b.runtime.cycleDeps(await b.runtime.facts());
      return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {});
    };
    const actions = (p: Awaited<ReturnType<typeof once>>) => p.runs.flatMap((r) => r.report?.actions ?? []);
    await once();
    const slot = new CronSchedule(DCA.schedule).next(b.sim.now())!;
    b.sim.advanceTo(slot + 1_000);
    proxy.refuseExchange(status);
    const first = await once();
    proxy.refuseExchange(undefined);
    const sent = actions(first);
    expect(sent.map((a) => `${a.action}:${a.outcome}`)).toEqual(["twapOrder:rejected"]);
    expect(sent[0]!.unprocessed).toBe(true);
    // once's text and --json say so too (they said "sent, REJECTED", with no detail: a cron user's trial).
    const report = first.runs[0]!.report!;
    expect(formatCycle(report, "once")).toMatch(
      /sent, NOT PROCESSED: nothing happened, tried again while its slot is due/,
    );
    expect(JSON.parse(actionLines(report).trim())).toMatchObject({
      outcome: "rejected",
      processed: false,
      detail: expect.stringContaining(`HTTP ${status}`),
    });
    // once --json's deferredReasons says why the slot stays due.
    expect(deferralReason(report, "dca")).toMatch(
      new RegExp(`^nothing it sent was processed \\(.*HTTP ${status}`),
    );
    // The owner is told nothing happened and the slot is tried again (not "REJECTED by the venue").
    const titles = first.runs.flatMap((r) =>
      r.report
        ? submissionEvents({ network: "testnet", account: b.address, now: b.sim.now() }, r.report).map(
            (e) => e.title,
          )
        : [],
    );
    expect(titles.join("\n")).toMatch(/NOT PROCESSED .*tried again while its slot is due/);
    expect(b.sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(0);
    // 15 minutes later (cron), within schedule.catchUp: the slot's buy is placed, once.
    b.sim.advanceTo(slot + 15 * MINUTE);
    expect(actions(await once()).map((a) => `${a.action}:${a.outcome}`)).toEqual(["twapOrder:accepted"]);
    b.sim.advanceTo(slot + 30 * MINUTE);
    expect(actions(await once())).toEqual([]);
    expect(b.sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
  });
}

it("a 422 (the venue could not read these bytes) still settles the slot: sending them again cannot help", async () => {
  proxy = await startRewritingProxy();
  bot = await startTestBot({
    mode: "live",
    strategies: [DCA],
    fund: { USDC: "20000" },
    configExtra: { baseUrl: proxy.url },
  });
  const b = bot;
  proxy.target = b.sim.url;
  b.sim.setPrice("@107", "25");
  const once = async () => {
    const deps = b.runtime.cycleDeps(await b.runtime.facts());
    return oncePass(deps, scheduledStrategies(b.runtime.config.strategies), {});
  };
  await once();
  const slot = new CronSchedule(DCA.schedule).next(b.sim.now())!;
  b.sim.advanceTo(slot + 1_000);
  proxy.refuseExchange(422);
  const first = await once();
  proxy.refuseExchange(undefined);
  const sent = first.runs.flatMap((r) => r.report?.actions ?? []);
  expect(sent.map((a) => `${a.action}:${a.outcome}`)).toEqual(["twapOrder:rejected"]);
  expect(sent[0]!.unprocessed).toBeUndefined();
  // The executor journals the rejection's code where the venue sent no body: what holds the identical
  // order back (a test audit: journaling null instead passed every test, and the order was resent).
  const [row] = b.runtime.journal.recentSubmissions(1);
  expect([row?.status, row?.result]).toEqual(["rejected", JSON.stringify({ rejection: "unprocessable" })]);
  b.sim.advanceTo(slot + 15 * MINUTE);
  expect((await once()).runs.flatMap((r) => r.report?.actions ?? [])).toEqual([]);
});
