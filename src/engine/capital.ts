// Optional per-strategy capital (issue #12): `capital: {USDC: 5000}` in a strategy file. Before such a
// strategy decides, it sees the account through `capitalView`: each listed token's spot balance capped at
// its capital; the allocator then never reserves more of a listed token for it than that capital, so
// strategies with disjoint capital do not crowd each other out. Tokens not listed are seen and spent as
// without capital (hiding them would make a rebalancer see a zero holding and buy it again every run): to
// bound a strategy on both sides of a pair, list both tokens. This caps what a strategy sees and spends in
// each cycle; it is not per-strategy accounting (no P&L or holdings are tracked across cycles). Pure.
import { Decimal } from "../lib/decimal.js";
import type { Snapshot, SpotBalance } from "./snapshot.js";

/** Token name → the most of it a strategy may see and spend in one cycle. */
export type Capital = ReadonlyMap<string, Decimal>;

/**
 * The snapshot as a strategy with `capital` sees it: for each listed token, total and available are
 * capped at its capital (the part on hold is what remains of the capped total); other tokens, staking,
 * prices and rules are the real ones. The real snapshot is not changed.
 */
export function capitalView(snapshot: Snapshot, capital: Capital | undefined): Snapshot {
  if (capital === undefined || capital.size === 0) return snapshot;
  const balances = new Map<string, SpotBalance>(snapshot.balances);
  for (const [token, amount] of capital) {
    const b = snapshot.balances.get(token);
    if (b === undefined) continue;
    const total = Decimal.min(b.total, amount);
    const available = Decimal.min(b.available, amount);
    balances.set(token, {
      ...b,
      total,
      available,
      // What running orders hold, within the capped total (total − available alone would also count a
      // floor that floorView took out of available as "on hold": "200 on hold, 200 kept by the floor"
      // of a spot balance of 200 with no order running).
      hold: Decimal.min(b.hold, Decimal.max(total.minus(available), 0)),
      // The capital caps what is above the account's floor, not the floor itself: with a 40,000 USDC floor
      // and 5,000 of capital, a rebalancer holds 5,000 (it counted max(5,000 − 40,000, 0) = 0 and sold).
      ...(b.aboveFloor === undefined ? {} : { aboveFloor: Decimal.min(b.aboveFloor, amount) }),
    });
  }
  return { ...snapshot, balances };
}

/**
 * The snapshot with the account's floors (`limits.keepOnSpot`) taken out of what is available: each
 * strategy plans within them (a staking deposit of what is above the floor, not one the allocator would
 * then refuse), and the allocator keeps them again as the last word. The floor is named on the
 * balance, for the strategies' reasons.
 */
export function floorView(snapshot: Snapshot, floors: ReadonlyMap<string, Decimal> | undefined): Snapshot {
  if (floors === undefined || floors.size === 0) return snapshot;
  const balances = new Map<string, SpotBalance>(snapshot.balances);
  for (const [token, floor] of floors) {
    const b = snapshot.balances.get(token);
    if (b === undefined) continue;
    balances.set(token, {
      ...b,
      available: Decimal.max(b.available.minus(floor), 0),
      floor,
      aboveFloor: b.total.minus(floor),
      floorShortfall: Decimal.max(floor.minus(b.total), 0),
    });
  }
  return { ...snapshot, balances };
}
