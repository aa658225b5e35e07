// journal.keepDays: a per-minute strategy wrote about 500 MB of cycles and decisions a year into a journal
// never pruned. Pruning must take only what nothing reads any more: limits, budgets, netting, the
// journal's start and reconciliation must read the same after it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Journal } from "../../src/engine/journal.js";
import { Decimal } from "../../src/lib/decimal.js";

const ACCOUNT = "0x1111111111111111111111111111111111111111";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;

let dir: string;
let db: Database.Database;
let now: number;
let journal: Journal;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-prune-"));
  db = new Database(join(dir, "hlbot.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  now = T0;
  journal = new Journal(db, () => now);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

/** An hourly cycle of `dca` that read the account and held (one skip decision). */
function heldCycle(id: string): void {
  journal.startCycle({ id, trigger: "run", mode: "live", account: ACCOUNT, strategies: ["dca"] });
  journal.recordSnapshot(id, { balances: { USDC: "1000" } });
  journal.recordDecision(id, {
    strategy: "dca",
    kind: "skip",
    reason: "not due",
    guard: "skipped",
    intent: {},
  });
}

/** 40 days of hourly cycles: on day 1 a TWAP bought (submission), on day 2 a buy was netted. */
function fortyDays(): { twapCycle: string } {
  let twapCycle = "";
  for (let h = 0; h < 40 * 24; h++) {
    now = T0 + h * HOUR;
    const id = `c${h}`;
    heldCycle(id);
    if (h === 24) {
      twapCycle = id;
      const decision = journal.recordDecision(id, {
        strategy: "dca",
        kind: "twap",
        reason: "buy 500 USD of HYPE",
        guard: "allowed",
        intent: {},
      });
      const sub = journal.recordPending({
        cycleId: id,
        decisionId: decision,
        strategy: "dca",
        account: ACCOUNT,
        signer: ACCOUNT,
        actionType: "twapOrder",
        nonce: now,
        expiresAfter: now + 60_000,
        vault: null,
        request: '{"action":{}}',
        notionalUsd: new Decimal(500),
      });
      journal.resolve(sub, { status: "accepted", twapId: 7 });
    }
    if (h === 48)
      journal.recordDecision(id, {
        strategy: "dca",
        kind: "skip",
        reason: "netted against rebalance's sell",
        guard: "skipped",
        intent: { netted: { usd: "300", assetId: 10107, side: "buy" } },
      });
    journal.recordNotification({
      time: now,
      channel: "webhook",
      event: "cycle.failed",
      title: "x",
      attempt: 1,
      outcome: "sent",
    });
    journal.finishCycle(id, "ok");
  }
  return { twapCycle };
}

it("without keepDays, nothing is ever deleted", () => {
  fortyDays();
  expect(count("cycles")).toBe(960);
  expect(count("decisions")).toBe(962);
  expect(count("notifications")).toBe(960);
});

it("keepDays deletes old cycles, decisions and notifications, and keeps what limits, budgets and the journal's start read", () => {
  const market = { assetId: 10107, side: "buy" as const };
  fortyDays();
  const before = {
    began: journal.began(ACCOUNT),
    spent: journal.spentUsd("dca").toFixed(),
    netted: journal.nettedUsd(ACCOUNT, "dca", market).toFixed(),
  };
  expect(before.netted).toBe("300");
  expect(before.spent).toBe("500");

  journal.keepMs = 10 * DAY;
  now += HOUR;
  heldCycle("last");
  journal.finishCycle("last", "ok");

  // Kept: the last 10 days (240 hourly cycles and the new one), the first cycle (the journal's start), the
  // TWAP's cycle and decision, the netted decision and its cycle.
  const cutoff = now - 10 * DAY;
  const recent = (
    db.prepare("SELECT COUNT(*) AS n FROM cycles WHERE started_at >= ?").get(cutoff) as { n: number }
  ).n;
  expect(recent).toBe(241);
  expect(count("cycles")).toBe(recent + 3);
  expect(count("decisions")).toBe(recent + 2);
  expect(count("notifications")).toBe(
    (db.prepare("SELECT COUNT(*) AS n FROM notifications WHERE time >= ?").get(cutoff) as { n: number }).n,
  );
  expect(count("notifications")).toBeLessThan(250);
  expect(journal.began(ACCOUNT)).toBe(before.began);
  expect(new Journal(db, () => now).began(ACCOUNT)).toBe(T0);
  expect(journal.spentUsd("dca").toFixed()).toBe(before.spent);
  expect(new Journal(db, () => now).nettedUsd(ACCOUNT, "dca", market).toFixed()).toBe(before.netted);
  expect(count("submissions")).toBe(1);
  expect(db.prepare("SELECT 1 FROM cycles WHERE id = 'c24'").get()).toBeDefined();
  expect(db.prepare("SELECT 1 FROM cycles WHERE id = 'c25'").get()).toBeUndefined();
});

it("prunes at most once an hour, as cycles finish", () => {
  fortyDays();
  journal.keepMs = 10 * DAY;
  now += HOUR;
  heldCycle("a");
  journal.finishCycle("a", "ok");
  const after = count("cycles");
  // 59 minutes on, one more hour of history is older than 10 days, but no prune is due yet.
  now += 59 * 60_000;
  heldCycle("b");
  journal.finishCycle("b", "ok");
  expect(count("cycles")).toBe(after + 1);
  now += 60_000;
  heldCycle("c");
  journal.finishCycle("c", "ok");
  expect(count("cycles")).toBe(after + 1);
});
