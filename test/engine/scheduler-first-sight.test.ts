// A strategy's slots count from the plan that first sees it, also when `runDueSlots` first asks whether a
// slot state is ahead of the clock (aheadOfClock). That check registered a new strategy at its own time,
// so a slot between it and the plan was due at the first sighting: in a CI run, `once` on a 2-second
// schedule acted at its very first call, whose job is only to register the schedule.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { Journal } from "../../src/engine/journal.js";
import { Scheduler } from "../../src/engine/scheduler.js";
import type { Strategy } from "../../src/engine/strategies/registry.js";

const ACCOUNT = "0x00000000000000000000000000000000000000aa";
const EVERY_MINUTE = {
  name: "dca",
  kind: "twap-accumulate",
  schedule: "* * * * *",
  enabled: true,
  params: {},
} as unknown as Strategy;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function journalFile(): { journal: Journal; db: Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-first-sight-"));
  dirs.push(dir);
  const db = new Database(join(dir, "hlbot.db"));
  return { journal: new Journal(db), db };
}

describe("a strategy first seen by a pass", () => {
  it("is not registered by the clock check before the plan: a slot between the two is not due", () => {
    const { journal, db } = journalFile();
    try {
      const scheduler = new Scheduler({
        journal,
        account: ACCOUNT,
        mode: "live",
        strategies: [EVERY_MINUTE],
      });
      const beforeSlot = Date.parse("2026-11-29T12:00:59.990Z");
      const afterSlot = Date.parse("2026-11-29T12:01:00.010Z");
      expect(scheduler.aheadOfClock(beforeSlot)).toBe(false);
      const plan = scheduler.plan(afterSlot);
      expect(plan.groups).toEqual([]);
      expect(plan.notDue.map((n) => n.reason)).toEqual(["not due: next slot 2026-11-29T12:02:00.000Z"]);
      // The next minute's slot is due as usual.
      const next = scheduler.plan(Date.parse("2026-11-29T12:02:00.500Z"));
      expect(next.groups.map((g) => g.strategies.map((s) => s.name))).toEqual([["dca"]]);
    } finally {
      db.close();
    }
  });
});
