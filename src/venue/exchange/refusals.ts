// Which of the venue's refusal texts refuse the request rather than the order: the same order, signed
// again, may pass. The venue answers these with HTTP 200 {"status":"err","response":TEXT} (or a
// per-order {"error":TEXT}); the wordings are not documented and may change, so anything not matched here
// is taken as a refusal of the order (the cautious reading: the identical order is held back a while).
// - an expired action ("… expired"), a nonce outside the window or used twice ("… nonce …"): a clock off;
// - a signer the venue does not know ("User or API Wallet 0x… does not exist."), a bad signature;
// - the per-address request budget spent: "Too many cumulative requests sent (10001 > 10000) for
//   cumulative volume traded $0.00. …" (as quoted by ccxt's error map and user reports, e.g.
//   freqtrade#10960; Hyperliquid docs, "Rate limits and user limits": 10,000 requests plus one per USDC
//   traded, then one request per 10 s).
import type { AttemptResult } from "./submit.js";

const REQUEST_REFUSAL = /expired|nonce|does not exist|signature|too many cumulative requests|rate limit/i;

/** Whether the venue's refusal text refuses the request (signer, nonce, expiry, request budget), not the order. */
export function refusesRequestNotOrder(text: string): boolean {
  return REQUEST_REFUSAL.test(text);
}

/**
 * The attempt results of a request the venue never looked at (journaled per attempt): a status saying it
 * was not processed, a 429, no connection. A submission whose every attempt is one of these was not
 * processed (submit.ts NEVER_PROCESSED, counted from the journal; here, not there, so the journal need not load the signing code).
 */
export const NEVER_PROCESSED_ATTEMPTS: ReadonlySet<AttemptResult> = new Set<AttemptResult>([
  "http-status",
  "rate-limited",
  "connection",
]);
