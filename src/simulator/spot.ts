// Spot balances of the simulated venue: per account and token, the total and the entry notional (cost
// basis in quote units). `hold` is not stored: it is derived from what reserves balance (running TWAPs)
// by the caller, so it can never drift from the orders that justify it.
import { type Decimal, truncateDecimals, ZERO } from "../lib/decimal.js";
import type { Token } from "./markets.js";

export interface SpotPosition {
  total: Decimal;
  entryNtl: Decimal;
}

export class SpotBalances {
  private readonly balances = new Map<string, Map<number, SpotPosition>>();

  /** Balances of a user by token index (tokens ever held, including zero ones). */
  of(user: string): ReadonlyMap<number, SpotPosition> {
    return this.balances.get(user) ?? new Map();
  }

  total(user: string, token: Token): Decimal {
    return this.balances.get(user)?.get(token.index)?.total ?? ZERO;
  }

  private position(user: string, token: Token): SpotPosition {
    let m = this.balances.get(user);
    if (!m) {
      m = new Map();
      this.balances.set(user, m);
    }
    let p = m.get(token.index);
    if (!p) {
      p = { total: ZERO, entryNtl: ZERO };
      m.set(token.index, p);
    }
    return p;
  }

  /** Adds `amount` (may be negative), optionally with its cost in quote units. Exact to weiDecimals. */
  add(user: string, token: Token, amount: Decimal, cost?: Decimal): void {
    const p = this.position(user, token);
    const before = p.total;
    p.total = truncateDecimals(p.total.plus(amount), token.weiDecimals);
    if (token.index === 0) return;
    if (amount.isPositive() && cost !== undefined) {
      p.entryNtl = p.entryNtl.plus(cost);
    } else if (amount.isNegative() && before.gt(0)) {
      // Selling or moving out reduces the cost basis pro rata.
      const remaining = p.total.isNegative() ? ZERO : p.total.div(before);
      p.entryNtl = truncateDecimals(p.entryNtl.times(remaining), 8);
    }
  }

  users(): string[] {
    return [...this.balances.keys()];
  }
}
