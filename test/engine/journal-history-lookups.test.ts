// The journal lookups a cycle makes that grow with the account's history: each answers from what it needs
// (an index, the newest rows), so a year of hourly TWAPs does not make every cycle read them all (a
// long-run trial: an hourly DCA's 60 simulated days took 40 s, its cycles growing with its history).
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { budgetMemory, lastEndedTwap } from "../../src/engine/budget.js";
import { Journal, type TwapFill } from "../../src/engine/journal.js";
import type { Snapshot } from "../../src/engine/snapshot.js";
import { Decimal } from "../../src/lib/decimal.js";
import { scratchDir } from "../helpers/scratch.js";

const ACCOUNT = "0x1111111111111111111111111111111111111111";
const TWAPS = 1000;

describe("journal lookups over a long history", () => {
  let db: Database.Database;
  let journal: Journal;
  const now = 1_700_000_000_000;

  beforeEach(() => {
    db = new Database(`${scratchDir("hlbot-lookups-")}/state.db`);
    journal = new Journal(db, () => now);
    journal.startCycle({ id: "c1", trigger: "once", mode: "live", account: ACCOUNT, strategies: ["dca"] });
    journal.batch(() => {
      for (let i = 0; i < TWAPS; i++) {
        const id = journal.recordPending({
          cycleId: "c1",
          decisionId: null,
          strategy: "dca",
          account: ACCOUNT,
          signer: ACCOUNT,
          actionType: "twapOrder",
          nonce: now + i,
          expiresAfter: now + i + 60_000,
          vault: null,
          request: '{"action":{}}',
          notionalUsd: new Decimal(110),
        });
        journal.resolve(id, { status: "accepted", twapId: 1000 + i });
      }
    });
  });
  afterEach(() => db.close());

  it("finds a venue TWAP by its id or by the key a rebuild imported it under, through indexes", () => {
    expect(
      journal.hasVenueTwap(ACCOUNT, { twapId: 1000 + TWAPS - 1, state: { timestamp: 1, coin: "@107" } }),
    ).toBe(true);
    expect(journal.hasVenueTwap(ACCOUNT, { twapId: 99, state: { timestamp: 1, coin: "@107" } })).toBe(false);
    const record = { twapId: undefined, state: { timestamp: 5, coin: "@107" } };
    expect(journal.hasVenueTwap(ACCOUNT, record)).toBe(false);
    journal.importVenueRecord({
      cycleId: "c1",
      strategy: "venue",
      account: ACCOUNT,
      actionType: "twapOrder",
      at: now,
      key: "t5:@107",
      record,
    });
    // Same account only.
    expect(
      journal.hasVenueTwap("0x2222222222222222222222222222222222222222", {
        twapId: 1000,
        state: record.state,
      }),
    ).toBe(false);
    const plans = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(ACCOUNT, 1) as Array<{ detail: string }>).map(
        (r) => r.detail,
      );
    // The two lookups hasVenueTwap makes, as SQLite plans them: by index, not a scan of the account's rows.
    expect(plans("SELECT 1 FROM submissions WHERE account = ? AND twap_id = ?").join()).toMatch(
      /submissions_twap_id/,
    );
    expect(plans("SELECT 1 FROM submissions WHERE account = ? AND reason = ?").join()).toMatch(
      /submissions_reason/,
    );
  });

  it("a DCA without a budget counts nothing; the latest ended TWAP is the newest row's", () => {
    const dca = {
      name: "dca",
      kind: "twap-accumulate",
      params: { coin: "HYPE", quote: "USDC", side: "buy" },
    };
    const snapshot = { pairs: new Map() } as unknown as Snapshot;
    expect(
      budgetMemory({ journal, account: ACCOUNT }, dca, new Map([["dca", dca]]), snapshot, undefined),
    ).toEqual({});
    const fills = new Map<number, TwapFill>([
      [1000, { ended: true, executedNtl: new Decimal(110), quoteUsdNow: new Decimal(1) }],
      [1000 + TWAPS - 2, { ended: true, executedNtl: new Decimal(0), quoteUsdNow: new Decimal(1) }],
    ]);
    // The newest row (TWAPS − 1) is not in the venue's answer: the one before it is the latest ended.
    expect(lastEndedTwap(journal, "dca", fills).lastEndedTwap).toMatchObject({ twapId: 1000 + TWAPS - 2 });
    expect(lastEndedTwap(journal, "dca", fills).lastEndedTwap?.executedUsd.toFixed()).toBe("0");
  });
});
