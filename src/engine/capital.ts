// Optional per-strategy capital (issue #12): `capital: {USDC: 5000}` in a strategy file. Before such a
// strategy decides, it sees the account through `capitalView`: each listed token's spot balance capped at
// its capital; the allocator then never reserves more of a listed token for it than that capital, so
// strategies with disjoint capital do not crowd each other out. Tokens not listed are seen and spent as
// without capital (hiding them would make a rebalancer see a zero holding and buy it again every run): to
// bound a strategy on both sides of a pair, list both tokens. This caps what a strategy sees and spends in
// each cycle; it is not per-strategy accounting (no P&L or holdings are tracked across cycles), so a trade
// it could not see (both tokens above their capital) is not made (unseenByCapital). Pure.
import { Decimal, ZERO } from "../lib/decimal.js";
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
 * Why a rebalancer's TWAP would change nothing the rebalancer (with `capital`) sees, or undefined when it
 * changes something. The capped view cannot show a trade whose two tokens both stay at or above their
 * capital (what it spends leaves the spent token above its cap, what it gets lands on a token already
 * above its own): the strategy would make it again at every run. A trader's trial: with capital on both
 * tokens of a 50/50 rebalancer (as README advised), a 20% fall had it buy 500 USDC of HYPE every hour,
 * 9,500 USDC in a day on 5,000 of capital. `snapshot` is the real one (floors taken out, not capped).
 */
export function unseenByCapital(
  intent: { side: "buy" | "sell"; label: string; size: Decimal; midPx: Decimal },
  snapshot: Snapshot,
  capital: Capital | undefined,
): string | undefined {
  if (capital === undefined || capital.size === 0) return undefined;
  const [base, quote] = intent.label.split("/");
  if (base === undefined || quote === undefined) return undefined;
  const [spent, got] = intent.side === "buy" ? [quote, base] : [base, quote];
  const spentAmount = intent.side === "buy" ? intent.size.times(intent.midPx) : intent.size;
  const capSpent = capital.get(spent);
  const capGot = capital.get(got);
  if (capSpent === undefined || capGot === undefined) return undefined;
  const held = (token: string) => {
    const b = snapshot.balances.get(token);
    return b === undefined ? new Decimal(0) : (b.aboveFloor ?? b.total);
  };
  const spentAfter = held(spent).minus(spentAmount);
  if (spentAfter.lt(capSpent) || held(got).lt(capGot)) return undefined;
  const f = (d: Decimal) => d.toDecimalPlaces(6, Decimal.ROUND_DOWN).toFixed();
  return (
    `it would change nothing this strategy sees: its capital caps both tokens (${got}: ${f(held(got))} held, capital ${f(capGot)}; ` +
    `${spent}: ${f(held(spent))} held, capital ${f(capSpent)}, ${f(spentAfter)} after it), so it would trade again at every run. ` +
    "capital caps what a strategy sees, it does not keep an account of what it bought: raise it, or trade by hand"
  );
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
    // A token the venue lists no balance of (never held) holds none: below its floor too (an audit: a
    // rebalancer bought it as if there were no floor).
    const known = snapshot.tokens.get(token);
    const b =
      snapshot.balances.get(token) ??
      (known === undefined
        ? undefined
        : { coin: token, token: known.index, total: ZERO, hold: ZERO, available: ZERO });
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
