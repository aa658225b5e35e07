// A refused TWAP holds the identical order back only when the venue judged it. HTTP 422 (the same bytes
// refused every time) and other 4xx come back without the venue's body; journaled as no result, they
// were taken for requests the venue never judged, and the identical order was resent at every retry
// (a review). executor.ts journals the rejection's code when there is no body. Another 4xx (a 408, a
// proxy's 403 or 404: submit.ts's "http", not processed) held a DCA 6 hours (a later review).
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { lastRefusedTwaps } from "../../src/engine/budget.js";
import type { Intent } from "../../src/engine/intents.js";
import { Journal } from "../../src/engine/journal.js";
import { Decimal } from "../../src/lib/decimal.js";

const ACCOUNT = "0x1111111111111111111111111111111111111111";
const INTENT = { kind: "twapOrder", strategy: "dca" } as Intent;

/** A journal whose one TWAP submission of "dca" is pending (resolve it as each case needs). */
function journalWithPendingTwap(): { journal: Journal; id: number } {
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
  return { journal, id };
}

it("an order the venue refused with HTTP 422 holds the identical order back", () => {
  const { journal, id } = journalWithPendingTwap();
  // What executor.ts writes for submit.ts's { status: "rejected", code: "unprocessable" } (no response).
  journal.resolve(id, {
    status: "rejected",
    reason:
      "venue rejected the request body (HTTP 422): Failed to deserialize the JSON body into the target type",
    result: { rejection: "unprocessable" },
  });
  expect([...lastRefusedTwaps(journal, [INTENT]).keys()]).toEqual(["dca"]);
  // Every attempt rate limited: the venue judged nothing, nothing is held.
  journal.resolve(id, {
    status: "rejected",
    reason: "rate limited by the venue (HTTP 429)",
    result: { rejection: "rate-limited" },
  });
  expect([...lastRefusedTwaps(journal, [INTENT]).keys()]).toEqual([]);
});

it("an HTTP 408 (request not processed) does not hold the identical order back", () => {
  const { journal, id } = journalWithPendingTwap();
  // What executor.ts writes for submit.ts's { status: "rejected", code: "http" } (no response body).
  journal.resolve(id, {
    status: "rejected",
    reason: "HTTP 408 from https://api.hyperliquid.xyz/exchange: Request Timeout",
    result: { rejection: "http" },
  });
  expect([...lastRefusedTwaps(journal, [INTENT]).keys()]).toEqual([]);
});

it("the venue's per-address request limit (a refusal of the request) does not hold the identical order back", () => {
  // Out of its request budget, an address is answered HTTP 200 {"status":"err"} with this text (as quoted
  // by ccxt's error map and by user reports, e.g. freqtrade#10960); the order itself was never judged, and
  // the venue lets one request per 10 s through. It held an hourly DCA 6 hours (a review).
  const { journal, id } = journalWithPendingTwap();
  const text =
    "Too many cumulative requests sent (10001 > 10000) for cumulative volume traded $0.00. Place taker orders to free up 1 request per USDC traded.";
  // What executor.ts writes for submit.ts's { status: "rejected", code: "venue", response }.
  journal.resolve(id, { status: "rejected", reason: text, result: { status: "err", response: text } });
  expect([...lastRefusedTwaps(journal, [INTENT]).keys()]).toEqual([]);
});
