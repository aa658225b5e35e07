// A review of the daily summary's per-strategy lines and the notifier's request timer: a reason holding a
// line feed (venue text: a validator's name) forged a line; on Discord (2,000 characters) the last
// strategies that never acted were cut off; a channel whose send threw before returning a promise left
// the request's timer running.
import pino from "pino";
import { expect, it } from "vitest";
import { plainText } from "../../../src/engine/notify/channels.js";
import { DaemonNotices } from "../../../src/engine/notify/daemonNotices.js";
import { Notifier } from "../../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../../src/engine/notify/types.js";

function notices(told: NotifyEvent[]) {
  return new DaemonNotices({
    notifier: { wants: () => true, notify: (e: NotifyEvent) => void told.push(e) } as never,
    info: { delegatorRewards: async () => [], userTwapSliceFills: async () => [] } as never,
    account: `0x${"ab".repeat(20)}`,
    network: "testnet",
    clock: () => Date.UTC(2026, 0, 2),
    logger: pino({ level: "silent" }),
  });
}

function report(decisions: Array<{ strategy: string; reason: string; outcome?: string }>) {
  return {
    cycleId: "c1",
    trigger: "run",
    startedAt: 0,
    reconciled: [],
    snapshot: { twaps: [], staking: undefined, parts: new Set(["spot"]), balances: new Map() },
    decisions: decisions.map((d) => ({
      decision: { kind: d.outcome ? "twapOrder" : "skip", strategy: d.strategy, reason: d.reason },
      guard: d.outcome ? "allowed" : "skipped",
      ...(d.outcome ? { action: { outcome: d.outcome, strategy: d.strategy } } : {}),
    })),
    actions: [],
  } as never;
}

it("keeps a reason holding a line feed (a validator's name is venue text) on its one line", async () => {
  const told: NotifyEvent[] = [];
  const n = notices(told);
  n.afterCycle(
    report([
      {
        strategy: "stake",
        reason: "Evil (0x1234…abcd) holds 10 HYPE, target 5\nsell-all: 5 of 5 runs acted",
      },
    ]),
    ["stake"],
    0,
  );
  n.dailySummary();
  await n.settled();
  const text = told.find((e) => e.type === "daily.summary")!.text;
  // Expected: the reason kept on its one line (LF escaped, as src/lib/text.ts oneLine does).
  expect(text.split("\n")).not.toContain("sell-all: 5 of 5 runs acted)");
});

it("names every strategy that never acted within Discord's 2,000 characters, 20 of them too", async () => {
  const told: NotifyEvent[] = [];
  const n = notices(told);
  const names = Array.from({ length: 20 }, (_, i) => `strategy-${i}`);
  n.afterCycle(
    report(names.map((s) => ({ strategy: s, reason: `budget used up (${"x".repeat(220)})` }))),
    names,
    0,
  );
  n.dailySummary();
  await n.settled();
  const e = told.find((x) => x.type === "daily.summary")!;
  const discord = plainText(e, 2000);
  const shown = names.filter((s) => discord.includes(`${s}: 0 of 1 run acted`));
  // Expected: every strategy named (reasons shortened to fit), not the last ones silently dropped.
  expect(shown).toEqual(names);
});

it("clears the request timer of a channel whose send throws before returning a promise", async () => {
  const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const before = timeouts();
  const notifier = new Notifier({
    channels: [
      {
        name: "webhook",
        events: new Set(["daily.summary", "test"]) as never,
        send: () => {
          throw new Error("boom");
        },
      },
    ],
    logger: pino({ level: "silent" }),
    retries: 0,
    timeoutMs: 60_000,
  });
  notifier.notify({ type: "test", title: "t", text: "", data: {} } as never);
  await notifier.flush(1000);
  notifier.close();
  expect(timeouts() - before).toBe(0);
});

it("counts a dry run's built and signed action as acted (a review: every strategy read '0 of N acted (…: dry-run)')", async () => {
  const told: NotifyEvent[] = [];
  const n = notices(told);
  n.afterCycle(report([{ strategy: "dca", reason: "buy 5 HYPE", outcome: "dry-run" }]), ["dca"], 0);
  n.dailySummary();
  await n.settled();
  const text = told.find((e) => e.type === "daily.summary")!.text;
  expect(text.split("\n")).toContain("dca: 1 of 1 run acted");
});
