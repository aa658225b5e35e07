// HYPE staking: the staking balance (`undelegated`), delegations with a lock per
// validator, the withdrawal queue, validators, and daily rewards. Amounts are integer wei (HYPE × 1e8)
// so that nothing is lost to rounding.
//
// Rules and the choices made where the venue is silent:
// - cDeposit moves spot HYPE to `undelegated` at once; cWithdraw moves `undelegated` into a queue that
//   pays back to spot after `withdrawalDelay` (7 days), at most `maxPendingWithdrawals` (5) pending.
// - A delegation re-locks the whole stake with that validator for `delegationLock` (1 day);
//   undelegating (part or all) is refused before that and instant after.
// - Delegating to a jailed validator is refused; undelegating from it is allowed.
// - Rewards are paid at 00:00 UTC every day and compounded onto the same delegation. The base of a
//   delegation is the minimum it held since the previous payout (stake delegated mid-day starts earning
//   from the next full day). The venue takes the minimum per staking epoch (100,000 rounds, about 90
//   minutes: Hyperliquid docs, "Staking"), so here a move costs up to a day of rewards on what moved
//   where the venue's costs an epoch or two: pessimistic, not flattering. Rate: the validator's day
//   `predictedApr`/365 as the scenario gives it (before commission), of which the delegator gets
//   (1 − commission) and the validator's own account the commission (source "commission");
//   validatorSummaries states it after commission, as the venue does. Jailed or inactive validators pay
//   nothing.
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { Decimal, fromWei, parseDecimal, toWei, toWireDecimal, truncateDecimals } from "../lib/decimal.js";
import { ValidationError } from "../lib/errors.js";
import type { Accounts } from "./accounts.js";
import { type Clock, DAY } from "./clock.js";
import type { VenueMessages } from "./errors.js";
import { fmt } from "./format.js";
import type { Ledger } from "./ledger.js";
import type { Token } from "./markets.js";
import type { ScenarioSettings, ScenarioStakingEvent, ScenarioValidator } from "./scenario.js";
import type { SpotBalances } from "./spot.js";

export type Period = "day" | "week" | "month";
export const PERIODS: readonly Period[] = ["day", "week", "month"];
const SAMPLES: Record<Period, number> = { day: 1440, week: 10_080, month: 43_200 };

export interface PeriodStats {
  uptimeFraction: Decimal;
  predictedApr: Decimal;
  nSamples: number;
}

export interface Validator {
  address: string;
  signer: string;
  name: string;
  description: string;
  /** Stake from delegators outside the simulation, in wei. */
  baseStake: bigint;
  /** Stake delegated by simulated accounts, in wei. */
  delegated: bigint;
  commission: Decimal;
  isJailed: boolean;
  unjailableAfter: number | null;
  isActive: boolean;
  nRecentBlocks: number;
  stats: Record<Period, PeriodStats>;
  /**
   * When it was jailed (`to` unset while it still is): a jailed validator signs no blocks, so its uptime
   * over each period falls by the share of the period it spent jailed (uptimeAt), and recovers as the
   * period's window moves past. (A model: how the venue measures uptime is not documented.)
   */
  jailSpans: Array<{ from: number; to: number | undefined }>;
}

/**
 * A validator's uptime over period `p` ending at `now`: its stats' fraction less the share of the
 * period spent jailed. Without it a simulated validator was back at full uptime the moment it was
 * unjailed, so `minUptime` never kept stake away from a validator just out of jail.
 */
export function uptimeAt(v: Validator, p: Period, now: number): Decimal {
  const base = v.stats[p].uptimeFraction;
  if (v.jailSpans.length === 0) return base;
  const window = SAMPLES[p] * 60_000;
  let jailed = 0;
  for (const span of v.jailSpans) {
    const from = Math.max(span.from, now - window);
    const to = Math.min(span.to ?? now, now);
    if (to > from) jailed += to - from;
  }
  return jailed === 0
    ? base
    : base.times(1 - Math.min(1, jailed / window)).toDecimalPlaces(6, Decimal.ROUND_DOWN);
}

/** Whether any jail span of `v` lies within the longest period's window ending at `now`. */
export function recentlyJailed(v: Validator, now: number): boolean {
  const last = v.jailSpans[v.jailSpans.length - 1];
  return last !== undefined && (last.to === undefined || last.to > now - SAMPLES.month * 60_000);
}

export interface ValidatorPatch {
  name?: string;
  description?: string;
  commission?: Decimal | string | number;
  isJailed?: boolean;
  unjailableAfter?: number | null;
  isActive?: boolean;
  nRecentBlocks?: number;
  /** HYPE staked by outsiders. */
  stake?: Decimal | string | number;
  /** Sets predictedApr of all three periods. */
  apr?: Decimal | string | number;
  uptime?: Decimal | string | number;
  stats?: Partial<
    Record<
      Period,
      Partial<{
        uptimeFraction: Decimal | string | number;
        predictedApr: Decimal | string | number;
        nSamples: number;
      }>
    >
  >;
}

export interface DelegationState {
  validator: string;
  amount: bigint;
  lockedUntil: number;
  /** Minimum amount since the last payout: the base of the next reward. */
  minSincePayout: bigint;
}

export interface PendingWithdrawal {
  id: number;
  amount: bigint;
  initiatedAt: number;
  finalizesAt: number;
  hash: string;
}

export type HistoryDelta =
  | { delegate: { validator: string; amount: string; isUndelegate: boolean } }
  | { cDeposit: { amount: string } }
  | { withdrawal: { amount: string; phase: "initiated" | "finalized" } };

export interface HistoryEntry {
  time: number;
  hash: string;
  delta: HistoryDelta;
}

export interface RewardEntry {
  time: number;
  source: "delegation" | "commission";
  totalAmount: bigint;
}

export interface StakingAccount {
  undelegated: bigint;
  delegations: Map<string, DelegationState>;
  pending: PendingWithdrawal[];
  history: HistoryEntry[];
  rewards: RewardEntry[];
}

export type StakingResult = { ok: true } | { ok: false; error: string };

export interface StakingDeps {
  clock: Clock;
  settings: () => ScenarioSettings;
  messages: () => VenueMessages;
  ledger: Ledger;
  spot: SpotBalances;
  accounts: Accounts;
  hype: Token | undefined;
  /** Spot HYPE not reserved by running TWAPs. */
  availableHype: (user: string) => Decimal;
}

export class Staking {
  private readonly validators = new Map<string, Validator>();
  private readonly accounts = new Map<string, StakingAccount>();
  private nextWithdrawalId = 1;
  private rewardEvent: ReturnType<Clock["schedule"]> | undefined;
  // Rewards accrue while time passes and are paid once a day (Hyperliquid docs, staking: "accrued every
  // minute and distributed ... every day"), on the stake held all day (the minimum since the payout). A
  // change to a validator's terms (jailed, active, commission, APR) within a day ends a piece of the day
  // under the old terms; the payout pays each piece under its own terms. An unchanged day is one piece.
  /** Start of the day being accrued (the last payout; before the first, a day before it). */
  private accruingSince: number | undefined;
  /** Per validator changed today: the day's earlier pieces (terms, length) and when the current began. */
  private readonly pieces = new Map<string, TermsPieces>();
  constructor(
    private readonly d: StakingDeps,
    validators: ScenarioValidator[],
    start: number,
  ) {
    for (const v of validators) this.validators.set(v.address, fromScenario(v, start));
  }

  /** Starts the daily reward schedule (at the next 00:00 UTC). */
  startRewards(): void {
    if (this.rewardEvent) return;
    const now = this.d.clock.now();
    const next = (Math.floor(now / DAY) + 1) * DAY;
    this.accruingSince = next - DAY;
    this.rewardEvent = this.d.clock.schedule(next, "staking:rewards", () => {
      this.rewardEvent = undefined;
      this.payRewards();
      this.startRewards();
    });
  }

  validator(address: string): Validator | undefined {
    return this.validators.get(address);
  }

  allValidators(): Validator[] {
    return [...this.validators.values()];
  }

  /** Counts changes to validators' own fields (updateValidator), for answers kept between them. */
  get validatorChanges(): number {
    return this.validatorChangeCount;
  }

  private validatorChangeCount = 0;

  /** Total stake of a validator in wei (may exceed 2^53). */
  stakeOf(v: Validator): bigint {
    return v.baseStake + v.delegated;
  }

  account(user: string): StakingAccount | undefined {
    return this.accounts.get(user);
  }

  private ensure(user: string): StakingAccount {
    let a = this.accounts.get(user);
    if (!a) {
      a = { undelegated: 0n, delegations: new Map(), pending: [], history: [], rewards: [] };
      this.accounts.set(user, a);
    }
    return a;
  }

  totalDelegated(user: string): bigint {
    let sum = 0n;
    for (const d of this.accounts.get(user)?.delegations.values() ?? []) sum += d.amount;
    return sum;
  }

  // ---- scenario seeding ------------------------------------------------------------------------

  seedUndelegated(user: string, amount: Decimal): void {
    this.ensure(user).undelegated += this.wei(amount);
  }

  seedDelegation(user: string, validator: string, amount: Decimal, lockedUntil: number): void {
    const a = this.ensure(user);
    const wei = this.wei(amount);
    const d = a.delegations.get(validator) ?? { validator, amount: 0n, lockedUntil: 0, minSincePayout: 0n };
    d.amount += wei;
    d.minSincePayout = d.amount;
    d.lockedUntil = Math.max(d.lockedUntil, lockedUntil);
    a.delegations.set(validator, d);
    this.validators.get(validator)!.delegated += wei;
  }

  seedPendingWithdrawal(user: string, amount: Decimal, finalizesAt: number): void {
    const a = this.ensure(user);
    const now = this.d.clock.now();
    this.enqueueWithdrawal(
      a,
      user,
      this.wei(amount),
      now,
      finalizesAt,
      syntheticHash(`seed:${user}:${a.pending.length}`),
    );
  }

  /** Staking events from before the run (oldest first), ahead of everything the run adds. */
  seedHistory(user: string, events: ScenarioStakingEvent[]): void {
    const a = this.ensure(user);
    const past = [...events]
      .sort((x, y) => x.time - y.time)
      .map((e, i): HistoryEntry => {
        const d = e.delta;
        const delta: HistoryDelta =
          "delegate" in d
            ? { delegate: { ...d.delegate, amount: fmt(d.delegate.amount) } }
            : "cDeposit" in d
              ? { cDeposit: { amount: fmt(d.cDeposit.amount) } }
              : { withdrawal: { ...d.withdrawal, amount: fmt(d.withdrawal.amount) } };
        return { time: e.time, hash: e.hash ?? syntheticHash(`history:${user}:${i}`), delta };
      });
    a.history.unshift(...past);
  }

  private wei(amount: Decimal): bigint {
    return toWei(amount, this.hypeDecimals(), "amount");
  }

  private hypeDecimals(): number {
    return this.d.hype?.weiDecimals ?? 8;
  }

  private hype(wei: bigint): string {
    return toWireDecimal(fromWei(wei, this.hypeDecimals()));
  }

  /** Venue spelling of a HYPE amount in history entries ("3.0"). */
  private hypeOut(wei: bigint): string {
    return fmt(fromWei(wei, this.hypeDecimals()));
  }

  // ---- actions -----------------------------------------------------------------------------------

  deposit(user: string, wei: bigint, hash: string): StakingResult {
    const m = this.d.messages();
    if (wei <= 0n) return { ok: false, error: m.zeroAmount };
    const hype = this.d.hype;
    if (!hype) return { ok: false, error: m.insufficientSpotForDeposit };
    const amount = fromWei(wei, hype.weiDecimals);
    if (this.d.availableHype(user).lt(amount)) return { ok: false, error: m.insufficientSpotForDeposit };
    const now = this.d.clock.now();
    this.d.spot.add(user, hype, amount.neg());
    const a = this.ensure(user);
    a.undelegated += wei;
    a.history.push({ time: now, hash, delta: { cDeposit: { amount: this.hypeOut(wei) } } });
    this.d.ledger.record(now, "cDeposit", { amount: this.hype(wei), wei: wei.toString() }, { user, hash });
    return { ok: true };
  }

  delegate(user: string, validator: string, wei: bigint, isUndelegate: boolean, hash: string): StakingResult {
    const m = this.d.messages();
    const now = this.d.clock.now();
    if (wei <= 0n) return { ok: false, error: m.zeroAmount };
    const v = this.validators.get(validator);
    if (!v) return { ok: false, error: m.unknownValidator(validator) };
    const a = this.ensure(user);
    if (!isUndelegate) {
      if (v.isJailed) return { ok: false, error: m.validatorJailed(validator) };
      if (a.undelegated < wei) return { ok: false, error: m.insufficientStakingBalance };
      a.undelegated -= wei;
      const d = a.delegations.get(validator) ?? { validator, amount: 0n, lockedUntil: 0, minSincePayout: 0n };
      d.amount += wei;
      // The whole stake with this validator is locked again (one timestamp per validator).
      d.lockedUntil = now + this.d.settings().delegationLock;
      a.delegations.set(validator, d);
      v.delegated += wei;
    } else {
      const d = a.delegations.get(validator);
      if (!d || d.amount < wei) return { ok: false, error: m.insufficientDelegation };
      if (now < d.lockedUntil) return { ok: false, error: m.delegationLocked(d.lockedUntil) };
      d.amount -= wei;
      if (d.amount < d.minSincePayout) d.minSincePayout = d.amount;
      if (d.amount === 0n) a.delegations.delete(validator);
      a.undelegated += wei;
      v.delegated -= wei;
    }
    a.history.push({
      time: now,
      hash,
      delta: { delegate: { validator, amount: this.hypeOut(wei), isUndelegate } },
    });
    this.d.ledger.record(
      now,
      isUndelegate ? "undelegate" : "delegate",
      { validator, amount: this.hype(wei), wei: wei.toString() },
      { user, hash },
    );
    return { ok: true };
  }

  withdraw(user: string, wei: bigint, hash: string): StakingResult {
    const m = this.d.messages();
    const s = this.d.settings();
    if (wei <= 0n) return { ok: false, error: m.zeroAmount };
    const a = this.ensure(user);
    if (a.undelegated < wei) return { ok: false, error: m.insufficientStakingBalance };
    if (a.pending.length >= s.maxPendingWithdrawals)
      return { ok: false, error: m.tooManyPendingWithdrawals(s.maxPendingWithdrawals) };
    const now = this.d.clock.now();
    a.undelegated -= wei;
    a.history.push({
      time: now,
      hash,
      delta: { withdrawal: { amount: this.hypeOut(wei), phase: "initiated" } },
    });
    this.enqueueWithdrawal(a, user, wei, now, now + s.withdrawalDelay, hash);
    this.d.ledger.record(
      now,
      "withdrawalInitiated",
      { amount: this.hype(wei), wei: wei.toString() },
      { user, hash },
    );
    return { ok: true };
  }

  private enqueueWithdrawal(
    a: StakingAccount,
    user: string,
    wei: bigint,
    now: number,
    finalizesAt: number,
    hash: string,
  ): void {
    const w: PendingWithdrawal = {
      id: this.nextWithdrawalId++,
      amount: wei,
      initiatedAt: now,
      finalizesAt,
      hash,
    };
    a.pending.push(w);
    this.d.clock.schedule(finalizesAt, `staking:withdrawal:${w.id}`, () => this.finalize(user, w));
  }

  private finalize(user: string, w: PendingWithdrawal): void {
    const a = this.ensure(user);
    a.pending = a.pending.filter((p) => p.id !== w.id);
    const now = this.d.clock.now();
    if (this.d.hype) this.d.spot.add(user, this.d.hype, fromWei(w.amount, this.d.hype.weiDecimals));
    const hash = syntheticHash(`withdrawal-finalized:${w.id}:${w.hash}`);
    a.history.push({
      time: now,
      hash,
      delta: { withdrawal: { amount: this.hypeOut(w.amount), phase: "finalized" } },
    });
    this.d.ledger.record(
      now,
      "withdrawalFinalized",
      { amount: this.hype(w.amount), wei: w.amount.toString(), initiatedHash: w.hash },
      { user, hash },
    );
  }

  /**
   * What a delegation earns under `terms` over `ms` of a day on the base `base`: its own part and the
   * operator's commission, in wei, rounded down.
   */
  private earned(terms: RewardTerms, base: bigint, ms: number): { own: bigint; commission: bigint } {
    if (!terms.paying || base === 0n || ms <= 0) return { own: 0n, commission: 0n };
    let gross = new Decimal(base.toString()).times(terms.apr).div(365);
    if (ms !== DAY) gross = gross.times(ms).div(DAY);
    return {
      own: BigInt(gross.times(new Decimal(1).minus(terms.commission)).floor().toFixed(0)),
      commission: BigInt(gross.times(terms.commission).floor().toFixed(0)),
    };
  }

  /** Ends the piece of today under `v`'s current terms (they are about to change). */
  private endTermsPiece(v: Validator): void {
    const now = this.d.clock.now();
    const since = this.accruingSince ?? now - DAY;
    const p = this.pieces.get(v.address) ?? { done: [], since };
    const start = Math.max(p.since, since);
    if (now > start) p.done.push({ terms: rewardTerms(v), ms: now - start });
    p.since = now;
    this.pieces.set(v.address, p);
  }

  private payRewards(): void {
    const now = this.d.clock.now();
    const dayStart = this.accruingSince ?? now - DAY;
    const pieces = new Map(this.pieces);
    this.pieces.clear();
    this.accruingSince = now;
    if (!this.d.settings().rewards) return;
    const commissions = new Map<string, bigint>();
    for (const [user, a] of [...this.accounts.entries()].sort(([x], [y]) => (x < y ? -1 : 1))) {
      let total = 0n;
      for (const d of a.delegations.values()) {
        const v = this.validators.get(d.validator);
        const base = d.minSincePayout;
        d.minSincePayout = d.amount;
        if (!v || base === 0n) continue;
        const p = pieces.get(v.address);
        const parts = p
          ? [...p.done, { terms: rewardTerms(v), ms: now - Math.max(p.since, dayStart) }]
          : [{ terms: rewardTerms(v), ms: DAY }];
        let own = 0n;
        let commission = 0n;
        for (const part of parts) {
          const e = this.earned(part.terms, base, part.ms);
          own += e.own;
          commission += e.commission;
        }
        if (own > 0n) {
          d.amount += own;
          d.minSincePayout = d.amount;
          v.delegated += own;
          total += own;
        }
        if (commission > 0n) commissions.set(v.address, (commissions.get(v.address) ?? 0n) + commission);
      }
      if (total > 0n) this.recordReward(user, a, "delegation", total, now);
    }
    for (const [validator, amount] of commissions) {
      // The operator's commission is compounded onto its self-delegation.
      const a = this.ensure(validator);
      const d = a.delegations.get(validator) ?? { validator, amount: 0n, lockedUntil: 0, minSincePayout: 0n };
      d.amount += amount;
      a.delegations.set(validator, d);
      this.validators.get(validator)!.delegated += amount;
      this.d.accounts.touch(validator);
      this.recordReward(validator, a, "commission", amount, now);
    }
  }

  private recordReward(
    user: string,
    a: StakingAccount,
    source: RewardEntry["source"],
    wei: bigint,
    now: number,
  ): void {
    a.rewards.push({ time: now, source, totalAmount: wei });
    this.d.ledger.record(now, "reward", { source, amount: this.hype(wei), wei: wei.toString() }, { user });
  }

  // ---- validators --------------------------------------------------------------------------------

  updateValidator(address: string, patch: ValidatorPatch): Validator {
    const v = this.validators.get(address);
    if (!v) throw new ValidationError([{ path: "validator", message: `unknown validator ${address}` }]);
    this.validatorChangeCount++;
    if (patch.name !== undefined) v.name = patch.name;
    if (patch.description !== undefined) v.description = patch.description;
    const terms =
      patch.commission !== undefined ||
      patch.isJailed !== undefined ||
      patch.isActive !== undefined ||
      patch.apr !== undefined ||
      patch.stats?.day?.predictedApr !== undefined;
    if (terms) this.endTermsPiece(v);
    if (patch.commission !== undefined) v.commission = parseDecimal(patch.commission, "commission");
    if (patch.isJailed !== undefined && patch.isJailed !== v.isJailed) {
      const now = this.d.clock.now();
      if (patch.isJailed) v.jailSpans.push({ from: now, to: undefined });
      else {
        const open = v.jailSpans[v.jailSpans.length - 1];
        if (open !== undefined && open.to === undefined) open.to = now;
      }
    }
    if (patch.isJailed !== undefined) v.isJailed = patch.isJailed;
    if (patch.unjailableAfter !== undefined) v.unjailableAfter = patch.unjailableAfter;
    if (patch.isActive !== undefined) v.isActive = patch.isActive;
    if (patch.nRecentBlocks !== undefined) v.nRecentBlocks = patch.nRecentBlocks;
    if (patch.stake !== undefined)
      v.baseStake = toWei(parseDecimal(patch.stake, "stake"), this.hypeDecimals(), "stake");
    for (const p of PERIODS) {
      if (patch.apr !== undefined) v.stats[p].predictedApr = parseDecimal(patch.apr, "apr");
      if (patch.uptime !== undefined) v.stats[p].uptimeFraction = parseDecimal(patch.uptime, "uptime");
      const sp = patch.stats?.[p];
      if (sp?.predictedApr !== undefined)
        v.stats[p].predictedApr = parseDecimal(sp.predictedApr, `stats.${p}.predictedApr`);
      if (sp?.uptimeFraction !== undefined)
        v.stats[p].uptimeFraction = parseDecimal(sp.uptimeFraction, `stats.${p}.uptimeFraction`);
      if (sp?.nSamples !== undefined) v.stats[p].nSamples = sp.nSamples;
    }
    this.d.ledger.record(this.d.clock.now(), "validatorChanged", {
      validator: address,
      isJailed: v.isJailed,
      isActive: v.isActive,
      commission: toWireDecimal(v.commission),
    });
    return v;
  }
}

interface TermsPieces {
  done: Array<{ terms: RewardTerms; ms: number }>;
  since: number;
}

/** What a validator's delegations earn by: paid at all, the APR, the commission. */
interface RewardTerms {
  paying: boolean;
  apr: Decimal;
  commission: Decimal;
}

function rewardTerms(v: Validator): RewardTerms {
  return { paying: !v.isJailed && v.isActive, apr: v.stats.day.predictedApr, commission: v.commission };
}

function fromScenario(v: ScenarioValidator, start: number): Validator {
  const stats = {} as Record<Period, PeriodStats>;
  for (const p of PERIODS) {
    const s = v.stats[p];
    stats[p] = {
      uptimeFraction: s?.uptimeFraction ?? v.uptime,
      predictedApr: s?.predictedApr ?? v.apr,
      nSamples: s?.nSamples ?? SAMPLES[p],
    };
  }
  return {
    address: v.address,
    signer: v.signer ?? v.address,
    name: v.name,
    description: v.description,
    baseStake: toWei(truncateDecimals(v.stake, 8), 8, "stake"),
    delegated: 0n,
    commission: v.commission,
    isJailed: v.isJailed,
    jailSpans: v.isJailed ? [{ from: start, to: undefined }] : [],
    unjailableAfter: v.unjailableIn !== undefined ? start + v.unjailableIn : v.unjailableAfter,
    isActive: v.isActive,
    nRecentBlocks: v.nRecentBlocks,
    stats,
  };
}

/** A deterministic 32-byte hash for effects that have no action of their own. */
export function syntheticHash(text: string): string {
  return `0x${bytesToHex(keccak_256(utf8ToBytes(text)))}`;
}
