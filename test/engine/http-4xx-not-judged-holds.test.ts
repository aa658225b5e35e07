// A review: submit.ts documents RejectionCode "http" as "another non-2xx status that means the request was not
// processed (404, 405, ...)": the venue never judged the order. budget.ts judgedByVenue treats only
// rate-limited/unreachable/not-sent as unjudged, so a 408 (request timeout), a 403 from a CDN/WAF or a
// 404/405 from a proxy holds the identical DCA order back for REFUSED_ORDER_HOLD_MS (6 h).
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { lastRefusedTwaps } from "../../src/engine/budget.js";
import type { Intent } from "../../src/engine/intents.js";
import { Journal } from "../../src/engine/journal.js";
import { Decimal } from "../../src/lib/decimal.js";

const ACCOUNT = "0x1111111111111111111111111111111111111111";

it("an HTTP 408 (request not processed) does not hold the identical order back", () => {
  const now = Date.UTC(2026, 0, 15);
  const journal = new Journal(new Database(":memory:"), () => now);
  journal.startCycle({ id: "c1", trigger: "run", mode: "live", account: ACCOUNT, strategies: ["dca"] });
  const id = journal.recordPending({
    cycleId: "c1",
    decisionId: null,
    strategy: "dca",
    account: ACCOUNT,
    signer: ACCOUNT,
    actionType: "twapOrder",
    nonce: now,
    expiresAfter: now + 60_000,
    vault: null,
    request: JSON.stringify({
      action: { type: "twapOrder", twap: { a: 10107, b: true, s: "12.5", r: false, m: 30, t: false } },
    }),
    notionalUsd: new Decimal(300),
    asset: 10107,
  });
  // What executor.ts writes for submit.ts's { status: "rejected", code: "http" } (no response body).
  journal.resolve(id, {
    status: "rejected",
    reason: "HTTP 408 from https://api.hyperliquid.xyz/exchange: Request Timeout",
    result: { rejection: "http" },
  });
  const intent = { kind: "twapOrder", strategy: "dca" } as Intent;
  expect([...lastRefusedTwaps(journal, [intent]).keys()]).toEqual([]);
});
