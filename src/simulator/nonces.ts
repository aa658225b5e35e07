// Per-signer nonce sets, as the venue keeps them (reference §6.1): the N highest nonces used so far. A
// new nonce must lie within the time window around the clock, must not be in the set, and, once the
// set is full, must be above its smallest member (which it then evicts).
import type { VenueMessages } from "./errors.js";

export interface NonceRules {
  setSize: number;
  windowPast: number;
  windowFuture: number;
}

export type NonceCheck = { ok: true } | { ok: false; error: string };

export class NonceTracker {
  /** Ascending arrays; small (≤ setSize), so insertion by splice is cheap. */
  private readonly sets = new Map<string, number[]>();

  constructor(
    private rules: NonceRules,
    private readonly messages: () => VenueMessages,
  ) {}

  setRules(rules: Partial<NonceRules>): void {
    this.rules = { ...this.rules, ...rules };
  }

  /** Checks `nonce` for `signer` at time `now` without recording it. */
  check(signer: string, nonce: number, now: number): NonceCheck {
    const m = this.messages();
    if (nonce <= now - this.rules.windowPast || nonce >= now + this.rules.windowFuture)
      return { ok: false, error: m.nonceOutOfWindow(nonce, now) };
    const set = this.sets.get(signer);
    if (set === undefined) return { ok: true };
    if (binarySearch(set, nonce) >= 0) return { ok: false, error: m.duplicateNonce(nonce) };
    if (set.length >= this.rules.setSize && nonce < set[0]!)
      return { ok: false, error: m.nonceTooLow(nonce, set[0]!) };
    return { ok: true };
  }

  /** Records a nonce that passed `check`. */
  use(signer: string, nonce: number): void {
    let set = this.sets.get(signer);
    if (set === undefined) {
      set = [];
      this.sets.set(signer, set);
    }
    const i = binarySearch(set, nonce);
    if (i >= 0) return;
    set.splice(-i - 1, 0, nonce);
    while (set.length > this.rules.setSize) set.shift();
  }

  /** The stored set for a signer (ascending), for inspection. */
  stored(signer: string): readonly number[] {
    return this.sets.get(signer) ?? [];
  }

  /** Forgets a signer's set (an agent pruned by the venue). */
  drop(signer: string): void {
    this.sets.delete(signer);
  }
}

/** Index of `x` in ascending `a`, or −(insertion point) − 1. */
function binarySearch(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = a[mid]!;
    if (v < x) lo = mid + 1;
    else if (v > x) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}
