import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Journal, newCycleId } from "../../src/engine/journal.js";
import { Decimal } from "../../src/lib/decimal.js";
import { clearSecretsForTests, registerSecret } from "../../src/lib/secrets.js";

const ACCOUNT = "0x1111111111111111111111111111111111111111";

describe("journal", () => {
  let dir: string;
  let db: Database.Database;
  const now = 1_700_000_000_000;
  let journal: Journal;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "hlbot-journal-"));
    db = new Database(join(dir, "state.db"));
    journal = new Journal(db, () => now);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    clearSecretsForTests();
  });

  function pending(strategy: string, extra: Partial<Parameters<Journal["recordPending"]>[0]> = {}): number {
    return journal.recordPending({
      cycleId: "c1",
      decisionId: null,
      strategy,
      account: ACCOUNT,
      signer: ACCOUNT,
      actionType: "twapOrder",
      nonce: now,
      expiresAfter: now + 60_000,
      vault: null,
      request: '{"action":{}}',
      ...extra,
    });
  }

  it("recentSubmissions: newest first by when each was made, not by row (a rebuild imports in its own order)", () => {
    // A newcomer's `history` after `journal rebuild`: the staking moves it imported last came first, and
    // the newest TWAPs fell past --limit.
    let t = now + 1000;
    const clocked = new Journal(db, () => t);
    clocked.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["dca"] });
    const later = clocked.recordPending({
      cycleId: "c1",
      decisionId: null,
      strategy: "later",
      account: ACCOUNT,
      signer: ACCOUNT,
      actionType: "twapOrder",
      nonce: t,
      expiresAfter: t + 60_000,
      vault: null,
      request: '{"action":{}}',
    });
    t = now;
    const earlier = clocked.recordPending({
      cycleId: "c1",
      decisionId: null,
      strategy: "earlier",
      account: ACCOUNT,
      signer: ACCOUNT,
      actionType: "cDeposit",
      nonce: t,
      expiresAfter: null,
      vault: null,
      request: '{"action":{}}',
    });
    expect(earlier).toBeGreaterThan(later);
    expect(clocked.recentSubmissions(2).map((r) => r.strategy)).toEqual(["later", "earlier"]);
    expect(clocked.recentSubmissions(1).map((r) => r.strategy)).toEqual(["later"]);
  });

  it("recentRefusedTwaps: sees a refusal written here or by another process sharing the folder", () => {
    expect(journal.recentRefusedTwaps(500)).toEqual([]);
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["dca"] });
    const id = pending("dca");
    journal.resolve(id, { status: "rejected", reason: "TWAP order value too small. Min is $1200" });
    expect(journal.recentRefusedTwaps(500).map((r) => r.reason)).toEqual([
      "TWAP order value too small. Min is $1200",
    ]);
    // A manual command in another process, on the same file: its own connection.
    const other = new Database(join(dir, "state.db"));
    try {
      const elsewhere = new Journal(other, () => now);
      elsewhere.startCycle({ id: "c2", trigger: "manual", mode: "live", account: ACCOUNT, strategies: [] });
      const id2 = elsewhere.recordPending({
        cycleId: "c2",
        decisionId: null,
        strategy: "manual",
        account: ACCOUNT,
        signer: ACCOUNT,
        actionType: "twapOrder",
        nonce: now + 1,
        expiresAfter: now + 60_000,
        vault: null,
        request: '{"action":{}}',
      });
      elsewhere.resolve(id2, { status: "rejected", reason: "Min is $1200, which is $10 per minute" });
    } finally {
      other.close();
    }
    expect(journal.recentRefusedTwaps(500).map((r) => r.reason)).toEqual([
      "Min is $1200, which is $10 per minute",
      "TWAP order value too small. Min is $1200",
    ]);
    // Beyond the window: only the latest submission counts.
    expect(journal.recentRefusedTwaps(1)).toHaveLength(1);
  });

  it("ownStakingMoves: the strategies' delegations not refused, never a manual command's (the user's own)", () => {
    journal.startCycle({
      id: "c1",
      trigger: "once",
      mode: "live",
      account: ACCOUNT,
      strategies: ["staking"],
    });
    const V = "0xb8f45222a3246a2b0104696a1df26842007c5bc5";
    const move = (strategy: string, wei: number, isUndelegate: boolean) =>
      pending(strategy, {
        actionType: "tokenDelegate",
        expiresAfter: null,
        request: JSON.stringify({ action: { type: "tokenDelegate", validator: V, wei, isUndelegate } }),
      });
    move("staking", 30_000_000_000, true); // 300 HYPE left by the strategy
    const refused = move("staking", 10_000_000_000, false);
    journal.resolve(refused, { status: "rejected", reason: "Delegation is locked" });
    move("manual", 5_000_000_000, true); // hlbot delegate --undelegate: the user's own
    expect(
      journal.ownStakingMoves(ACCOUNT, now - 1).map((m) => [m.validator, m.amount.toFixed(), m.isUndelegate]),
    ).toEqual([[V, "300", true]]);
  });

  it("ownWithdrawals: the strategies' cWithdraws not refused, never a manual command's or a delegation", () => {
    journal.startCycle({
      id: "c1",
      trigger: "once",
      mode: "live",
      account: ACCOUNT,
      strategies: ["staking"],
    });
    const send = (strategy: string, type: "cWithdraw" | "tokenDelegate", wei: number) =>
      pending(strategy, {
        actionType: type,
        expiresAfter: null,
        request: JSON.stringify({
          action:
            type === "cWithdraw"
              ? { type, wei, nonce: 1 }
              : { type, validator: "0xb8f45222a3246a2b0104696a1df26842007c5bc5", wei, isUndelegate: true },
        }),
      });
    send("staking", "cWithdraw", 75_463_000_000); // 754.63 HYPE withdrawn for a sale
    const refused = send("staking", "cWithdraw", 10_000_000_000);
    journal.resolve(refused, { status: "rejected", reason: "Insufficient staking balance" });
    send("manual", "cWithdraw", 5_000_000_000); // hlbot unstake by hand: the user's own
    send("staking", "tokenDelegate", 75_463_000_000);
    expect(journal.ownWithdrawals(ACCOUNT, now - 1).map((w) => w.amount.toFixed())).toEqual(["754.63"]);
    expect(journal.ownWithdrawals(ACCOUNT, now + 1)).toEqual([]);
  });

  it("marks a submission in hlbot.mark only once its row is committed (a disaster trial: a full disk)", () => {
    // A commit refused (here a deferred foreign key, as SQLITE_FULL refused the trial's) after the row
    // was written in the transaction: the mark said #1 of a journal ending at #0, and every live command
    // after called the journal's latest writes lost.
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a"] });
    const mark = join(dir, "hlbot.mark");
    const capped = {
      notionalUsd: new Decimal(100),
      dayCap: {
        sinceMs: now - 86_400_000,
        maxNotionalUsd: new Decimal(1_000),
        maxStakeMove: new Decimal(1_000),
      },
    };
    db.pragma("foreign_keys = ON");
    db.pragma("defer_foreign_keys = ON");
    expect(() => pending("a", { ...capped, cycleId: "no-such-cycle" })).toThrow(
      /FOREIGN KEY constraint failed/,
    );
    expect(db.prepare("SELECT COUNT(*) AS n FROM submissions").get()).toEqual({ n: 0 });
    expect(existsSync(mark)).toBe(false);
    // Committed: marked.
    const id = pending("a", capped);
    expect(readFileSync(mark, "utf8").trim()).toBe(String(id));
  });

  it("batch commits its rows together, takes none of them when it throws, and nests", () => {
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a"] });
    const rows = () => journal.unresolved(ACCOUNT).length;
    expect(journal.batch(() => [pending("a"), pending("a")])).toHaveLength(2);
    expect(rows()).toBe(2);
    /** A batch that writes a row, then fails. */
    const failing = (message: string) => () =>
      journal.batch(() => {
        pending("a");
        throw new Error(message);
      });
    expect(failing("mid-batch")).toThrow("mid-batch");
    expect(rows()).toBe(2);
    // Inside a batch, a failed inner batch takes back only its own rows.
    journal.batch(() => {
      pending("a");
      expect(failing("inner")).toThrow("inner");
    });
    expect(rows()).toBe(3);
    expect(db.inTransaction).toBe(false);
  });

  it("remembers pairs in chunks, a label given twice keeping its last values", () => {
    const pair = (i: number, mid: string) => ({
      label: `T${i}/USDC`,
      coin: `@${i}`,
      assetId: 10_000 + i,
      baseTokenId: `0x${i.toString(16).padStart(32, "0")}`,
      quoteTokenId: `0x${"0".repeat(32)}`,
      mid,
      midAt: now,
    });
    const many = Array.from({ length: 70 }, (_, i) => pair(i, "1.5"));
    journal.rememberPairs([...many, pair(3, "2.5")]);
    expect(journal.pairMemory("T69/USDC")).toEqual(pair(69, "1.5"));
    expect(journal.pairMemory("T3/USDC")?.mid).toBe("2.5");
    journal.rememberPairs([pair(69, "9")]);
    expect(journal.pairMemory("T69/USDC")?.mid).toBe("9");
    expect(journal.pairMemory("T70/USDC")).toBeUndefined();
    const all = journal.pairMemories();
    expect(all.size).toBe(70);
    expect(all.get("T69/USDC")).toEqual(pair(69, "9"));
    expect(all.get("T3/USDC")?.mid).toBe("2.5");
  });

  it("counts failed cycles in a row by trigger, and by the strategies they ran", () => {
    let t = 0;
    const row = (trigger: string, strategies: string[], status: "ok" | "failed") => {
      const id = `c${++t}`;
      db.prepare(
        "INSERT INTO cycles (id, trigger, mode, account, strategies, started_at, status) VALUES (?, ?, 'live', ?, ?, ?, ?)",
      ).run(id, trigger, ACCOUNT, JSON.stringify(strategies), now - 100 + t, status);
    };
    row("once", ["a", "b"], "ok");
    row("once", ["a"], "failed");
    row("once", ["b"], "ok"); // b works while a keeps failing: a's failures still count
    row("watch", ["a"], "ok"); // another trigger
    row("once", ["a"], "failed");
    expect(journal.failedInARow("once", "a")).toBe(2);
    expect(journal.failedInARow("once", "b")).toBe(0);
    expect(journal.failedInARow("once")).toBe(1);
    expect(journal.failedInARow("run")).toBe(0);
    // A failed pass that could not start names every strategy; an ok one after it ends the run.
    journal.recordUnstartedCycle(
      { id: "c99", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a", "b"] },
      "venue down",
    );
    expect([journal.failedInARow("once", "a"), journal.failedInARow("once", "b")]).toEqual([3, 1]);
  });

  it("counts a strategy that failed its run (threw, or was held) in a cycle that ran as failed; others' runs not", () => {
    let t = 0;
    const cycle = (failedSkip: string | undefined) => {
      const id = `h${++t}`;
      journal.startCycle({ id, trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a", "b"] });
      for (const strategy of ["a", "b"]) {
        const failed = strategy === failedSkip;
        const decision = {
          kind: "skip",
          strategy,
          reason: failed ? "strategy failed: boom" : "within band",
          ...(failed ? { failed: true } : {}),
        };
        journal.recordDecision(id, {
          strategy,
          kind: "skip",
          reason: decision.reason,
          guard: "skipped",
          intent: JSON.stringify(decision),
        });
      }
      journal.finishCycle(id, "ok");
      return id;
    };
    cycle(undefined);
    cycle("a");
    const last = cycle("a");
    expect(journal.failedInARow("once", "a")).toBe(2);
    expect(journal.failedInARow("once", "b")).toBe(0);
    // The cycle itself ran: by trigger alone it is not a failed one.
    expect(journal.failedInARow("once")).toBe(0);
    expect(journal.decisionsOfCycle(last).map((d) => [d.strategy, d.failed])).toEqual([
      ["a", true],
      ["b", false],
    ]);
    cycle(undefined);
    expect(journal.failedInARow("once", "a")).toBe(0);
  });

  it("reads the slot state of several strategies at once, registering the ones it has not seen", () => {
    journal.slotState(ACCOUNT, "a", now - 5_000);
    journal.settleSlot(ACCOUNT, "a", now - 1_000, "acted");
    const states = journal.slotStates(ACCOUNT, ["a", "b"], now);
    expect(Object.fromEntries(states)).toEqual({
      a: { firstSeen: now - 5_000, lastSlot: now - 1_000, lastActed: true },
      b: { firstSeen: now, lastSlot: undefined },
    });
    // A slot reported missed was not acted in.
    journal.settleSlot(ACCOUNT, "a", now - 500, "missed");
    expect(journal.slotStates(ACCOUNT, ["a"], now).get("a")).toEqual({
      firstSeen: now - 5_000,
      lastSlot: now - 500,
    });
    // Registered: the same answer one by one, and later sightings keep the first one.
    expect(journal.slotState(ACCOUNT, "b", now + 60_000)).toEqual({ firstSeen: now, lastSlot: undefined });
    expect(journal.slotStates("0x2222222222222222222222222222222222222222", ["a"], now).get("a")).toEqual({
      firstSeen: now,
      lastSlot: undefined,
    });
  });

  it("keeps pending and unknown submissions unresolved and blocks their strategy", () => {
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a", "b"] });
    const a = pending("a");
    const b = pending("b");
    journal.resolve(b, { status: "unknown", reason: "timeout" });
    expect(journal.unresolved(ACCOUNT).map((r) => r.id)).toEqual([a, b]);
    expect(journal.unresolved(ACCOUNT).map((r) => r.strategy)).toEqual(["a", "b"]);
    journal.resolve(a, { status: "accepted", twapId: 7 });
    journal.resolve(b, { status: "absent", reason: "not on the venue after expiry" });
    expect(journal.unresolved(ACCOUNT)).toEqual([]);
    expect(journal.recentSubmissions(5)[1]?.twapId).toBe(7);
  });

  it("counts unknown and pending submissions against the rolling limits (fail closed), not rejected ones", () => {
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a"] });
    journal.resolve(pending("a", { notionalUsd: new Decimal("100.5") }), { status: "unknown" });
    journal.resolve(pending("a", { notionalUsd: new Decimal("50") }), { status: "rejected" });
    pending("a", { notionalUsd: new Decimal("25"), actionType: "twapOrder" });
    journal.resolve(pending("s", { actionType: "tokenDelegate", stakeMove: new Decimal("10.25") }), {
      status: "accepted",
    });
    const usage = journal.usage(ACCOUNT, now - 86_400_000);
    expect(usage.notionalUsd.toFixed()).toBe("125.5");
    expect(usage.stakeMoved.toFixed()).toBe("10.25");
    expect(journal.spentUsd("a").toFixed()).toBe("125.5");
    expect(journal.usage(ACCOUNT, now + 1).notionalUsd.toFixed()).toBe("0");
  });

  it("never stores a registered secret, even if one reaches a field", () => {
    const key = "ab".repeat(32);
    registerSecret(key);
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a"] });
    const id = pending("a", { request: `{"oops":"${key}"}` });
    journal.resolve(id, { status: "rejected", reason: `bad ${key.toUpperCase()}` });
    journal.finishCycle("c1", "failed", `0x${key}`);
    const dump =
      JSON.stringify(db.prepare("SELECT * FROM submissions").all()) +
      JSON.stringify(db.prepare("SELECT * FROM cycles").all());
    expect(dump.toLowerCase()).not.toContain(key);
    expect(dump).toContain("[REDACTED]");
  });

  it("keeps a signed request whole when a keystore password is a word it holds, and still drops the key", () => {
    // A security audit: with the password "hyperliquid" (or "testnet") a staking request's row read
    // `"[REDACTED]Chain":"Testnet"`, and reconciling it after a lost answer failed every cycle.
    registerSecret("hyperliquid");
    registerSecret("testnet");
    const key = "cd".repeat(32);
    registerSecret(key);
    const request = JSON.stringify({
      action: {
        type: "cDeposit",
        signatureChainId: "0x66eee",
        hyperliquidChain: "Testnet",
        wei: 100000000,
        nonce: 1,
      },
      nonce: 1,
      signature: { r: "0x1", s: "0x2", v: 27 },
    });
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["a"] });
    const id = pending("a", { request, actionType: "cDeposit" });
    expect(journal.unresolved(ACCOUNT).find((r) => r.id === id)?.request).toBe(request);
    // Free text still loses the password; structured data still loses the key.
    journal.resolve(id, { status: "unknown", reason: "hyperliquid answered nothing", result: { oops: key } });
    const row = db.prepare("SELECT reason, result FROM submissions WHERE id = ?").get(id) as Record<
      string,
      string
    >;
    expect(row.reason).toBe("[REDACTED] answered nothing");
    expect(row.result).toBe('{"oops":"[REDACTED]"}');
  });

  it("makes time-sortable cycle ids", () => {
    expect(newCycleId(1000) < newCycleId(2_000_000)).toBe(true);
  });
});
