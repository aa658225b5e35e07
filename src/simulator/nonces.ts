// Per-signer nonce sets, as the venue keeps them: the N highest nonces used so far. A new nonce must lie
// within the time window around the clock, must not be in the set, and, once the set is full, must be
// above its smallest member (which it then evicts). N, per the venue's "Nonces and API wallets" page:
// "the 20 highest nonces are stored per address. One additional nonce is stored per 1M USDC cumulative
// volume, up to a maximum of 100 nonces" (older versions of that page said 100 flat). Configurable.
import type { VenueMessages } from "./errors.js";

export interface NonceRules {
  /** Nonces stored per address before any volume bonus (20). */
  setSize: number;
  /** Most nonces stored per address, whatever the volume (default 100). */
  maxSetSize?: number;
  /** Cumulative volume in USDC that stores one more nonce (1,000,000); 0 or absent: no bonus. */
  volumePerExtraNonce?: number;
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
    /** Cumulative traded volume in USDC behind a signer (default: none). */
    private readonly volumeOf: (signer: string) => number = () => 0,
  ) {}

  /** How many nonces are stored for `signer` now. */
  setSizeFor(signer: string): number {
    const { setSize, maxSetSize = 100, volumePerExtraNonce = 0 } = this.rules;
    const bonus = volumePerExtraNonce > 0 ? Math.floor(this.volumeOf(signer) / volumePerExtraNonce) : 0;
    return Math.max(1, Math.min(Math.max(setSize, maxSetSize), setSize + bonus));
  }

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
    if (set.length >= this.setSizeFor(signer) && nonce < set[0]!)
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
    const size = this.setSizeFor(signer);
    while (set.length > size) set.shift();
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
