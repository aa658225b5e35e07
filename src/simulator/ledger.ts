// The simulator's ledger: every effect it applied, in order, with the virtual time it happened at. It is
// the ground truth that reliability tests compare with the bot's own journal (did each action take
// effect exactly once, with the amounts the bot believes?). Amounts are canonical decimal strings.

export type LedgerKind =
  | "action"
  | "fund"
  | "twapPlaced"
  | "twapSlice"
  | "twapSliceSkipped"
  | "twapFinished"
  | "twapTerminated"
  | "cDeposit"
  | "delegate"
  | "undelegate"
  | "withdrawalInitiated"
  | "withdrawalFinalized"
  | "reward"
  | "agentApproved"
  | "stakingLinkRequested"
  | "stakingLinkFinalized"
  | "priceSet"
  | "validatorChanged"
  | "pairChanged"
  | "withdrawalShort"
  | "outage";

export type LedgerValue = string | number | boolean | null;

export interface LedgerEntry {
  /** 1-based, gap-free. */
  seq: number;
  time: number;
  kind: LedgerKind;
  /** The account the effect applies to, when there is one. */
  user?: string;
  /** Hash of the action that caused it, when there is one. */
  hash?: string;
  data: Record<string, LedgerValue>;
}

export class Ledger {
  private readonly entries: LedgerEntry[] = [];
  private readonly listeners = new Set<(e: LedgerEntry) => void>();

  record(
    time: number,
    kind: LedgerKind,
    data: Record<string, LedgerValue>,
    meta: { user?: string; hash?: string } = {},
  ): LedgerEntry {
    const entry: LedgerEntry = { seq: this.entries.length + 1, time, kind, ...meta, data };
    this.entries.push(entry);
    for (const l of this.listeners) l(entry);
    return entry;
  }

  /** All entries, or those matching a filter. */
  list(filter?: { kind?: LedgerKind | LedgerKind[]; user?: string; since?: number }): readonly LedgerEntry[] {
    if (!filter) return this.entries;
    const kinds = filter.kind === undefined ? undefined : new Set([filter.kind].flat());
    return this.entries.filter(
      (e) =>
        (kinds === undefined || kinds.has(e.kind)) &&
        (filter.user === undefined || e.user === filter.user) &&
        (filter.since === undefined || e.seq > filter.since),
    );
  }

  get length(): number {
    return this.entries.length;
  }

  /** Calls `fn` for each new entry; returns an unsubscribe function. */
  subscribe(fn: (e: LedgerEntry) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
