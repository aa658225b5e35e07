// Request weights of the venue's per-IP rate limit, in one table so the transport's
// budget, the info client and the simulator all count the same way.

/** Info queries that cost 2 instead of the default 20. */
const LIGHT_INFO_TYPES: ReadonlySet<string> = new Set([
  "l2Book",
  "allMids",
  "clearinghouseState",
  "orderStatus",
  "spotClearinghouseState",
  "exchangeStatus",
]);

export const DEFAULT_INFO_WEIGHT = 20;
export const LIGHT_INFO_WEIGHT = 2;
export const USER_ROLE_WEIGHT = 60;
export const EXPLORER_WEIGHT = 40;

/**
 * Surcharge per returned item on history queries. The venue says "extra weight per 20 items" without
 * the increment; +1 per 20 is the usual reading (unconfirmed), so the transport lets callers override
 * it (`HttpTransportOptions.perItemWeight`).
 */
export const DEFAULT_PER_ITEM_WEIGHT = 1 / 20;

/**
 * candleSnapshot's surcharge: the venue counts it "per 60 items" (the other history queries per 20);
 * the increment is not stated, +1 per 60 is read the same way as +1 per 20 (unconfirmed).
 */
export const CANDLE_PER_ITEM_WEIGHT = 1 / 60;

/** Base weight of one info or explorer request of `type`. */
export function infoRequestWeight(type: string, endpoint: "info" | "explorer" = "info"): number {
  if (endpoint === "explorer") return EXPLORER_WEIGHT;
  if (type === "userRole") return USER_ROLE_WEIGHT;
  return LIGHT_INFO_TYPES.has(type) ? LIGHT_INFO_WEIGHT : DEFAULT_INFO_WEIGHT;
}

/** Surcharge of a history query that returned `items` entries (whole units only: 19 items cost 0). */
export function historyExtraWeight(items: number, perItemWeight: number = DEFAULT_PER_ITEM_WEIGHT): number {
  if (!(perItemWeight > 0) || !Number.isFinite(perItemWeight)) return 0;
  // The epsilon keeps 60 × (1/20) from flooring to 2 through binary rounding.
  return Math.floor(items * perItemWeight + 1e-9);
}

/** Weight of one POST /exchange carrying `batchLength` orders or cancels (1 when not batched). */
export function exchangeWeight(batchLength = 1): number {
  return 1 + Math.floor(batchLength / 40);
}
