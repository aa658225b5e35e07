// Hand-made Snapshots for strategy, risk and executor tests. Every field has a sensible default (an
// empty testnet account with USDC and HYPE listed, HYPE/USDC as pair "@107" at asset 10107), and a
// spec overrides only what a test is about. Numbers may be written as numbers or decimal strings.

import {
  DEFAULT_VENUE_RULES,
  type Delegation,
  type OwnStakingMove,
  type OwnWithdrawal,
  type RunningTwap,
  type Snapshot,
  type SpotBalance,
  type SpotPair,
  type SpotToken,
  type StakingEvent,
  type StakingLink,
  type ValidatorInfo,
  type ValidatorPeriod,
  type VenueRules,
} from "../../src/engine/snapshot.js";
import { Decimal, parseDecimal, ZERO } from "../../src/lib/decimal.js";
import { delegatorApr } from "../../src/venue/constants.js";

type Num = number | string;

export const ACCOUNT = "0x1111111111111111111111111111111111111111";
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
export const DAY_MS = 86_400_000;

/** A deterministic, readable address: addr(1) = 0xaaaaaaaa000…0001. */
export function addr(n: number): string {
  return `0x${"a".repeat(8)}${n.toString(16).padStart(32, "0")}`;
}

export interface TokenSpec {
  name: string;
  index: number;
  szDecimals?: number;
  weiDecimals?: number;
}

export interface PairSpec {
  base: string;
  quote?: string;
  /** Pair index; the asset id is 10000 + index. */
  index: number;
  /** Defaults to "@index" ("BASE/QUOTE" when canonical). */
  name?: string;
  canonical?: boolean;
  mid?: Num | null;
}

export interface ValidatorSpec {
  address: string;
  name?: string;
  /** HYPE (converted to stake × 1e8). */
  stake?: Num;
  isJailed?: boolean;
  isActive?: boolean;
  commission?: Num;
  unjailableAfter?: number | null;
  /** Same value for every period unless `stats` overrides one. */
  apr?: Num;
  uptime?: Num;
  stats?: Partial<Record<ValidatorPeriod, { uptimeFraction?: Num; predictedApr?: Num }>>;
}

export interface SnapshotSpec {
  takenAt?: number;
  account?: string;
  network?: "mainnet" | "testnet";
  /** Replaces the default token list (USDC index 0 szDecimals 8, HYPE index 150 szDecimals 2). */
  tokens?: TokenSpec[];
  /** Replaces the default pair list (HYPE/USDC "@107"). */
  pairs?: PairSpec[];
  /** Mid of HYPE/USDC when the default pairs are used (default 40). */
  hypeMid?: Num | null;
  /** Balances by token name: a total, or total and hold. */
  balances?: Record<string, Num | { total: Num; hold?: Num }>;
  undelegated?: Num;
  totalPendingWithdrawal?: Num;
  nPendingWithdrawals?: number;
  /** Delegations; `lockedUntil` defaults to a day before takenAt (unlocked). */
  delegations?: Array<{ validator: string; amount: Num; lockedUntil?: number }>;
  validators?: ValidatorSpec[];
  twaps?: Array<Partial<Omit<RunningTwap, "size">> & { coin: string; size?: Num }>;
  stakingLink?: StakingLink;
  spotTakerFee?: Num;
  rules?: Partial<VenueRules>;
  stakingHistory?: StakingEvent[];
  ownStakingMoves?: OwnStakingMove[];
  ownWithdrawals?: OwnWithdrawal[];
  validatorAllowlist?: string[];
}

const DEFAULT_TOKENS: TokenSpec[] = [
  { name: "USDC", index: 0, szDecimals: 8, weiDecimals: 8 },
  { name: "HYPE", index: 150, szDecimals: 2, weiDecimals: 8 },
];

const d = (v: Num) => parseDecimal(v);

/**
 * A validator as the snapshot holds it. `apr` (and `stats.*.predictedApr`) is the validator's rate
 * before commission, as scenarios write it; the venue states predictedApr after commission
 * (src/venue/constants.ts), so that is what the snapshot gets, read as the delegator's rate.
 */
export function validator(spec: ValidatorSpec): ValidatorInfo {
  const stats = {} as Record<ValidatorPeriod, ValidatorInfo["stats"][ValidatorPeriod]>;
  const commission = d(spec.commission ?? "0.05");
  for (const p of ["day", "week", "month"] as const) {
    const stated = d(spec.stats?.[p]?.predictedApr ?? spec.apr ?? "0.02").times(d(1).minus(commission));
    stats[p] = {
      uptimeFraction: d(spec.stats?.[p]?.uptimeFraction ?? spec.uptime ?? "1"),
      predictedApr: stated,
      delegatorApr: delegatorApr(stated, commission, true),
      nSamples: p === "day" ? 1440 : p === "week" ? 10080 : 43200,
    };
  }
  return {
    address: spec.address.toLowerCase(),
    name: spec.name ?? `validator-${spec.address.slice(-4)}`,
    stake: BigInt(
      d(spec.stake ?? "1000000")
        .times(1e8)
        .toFixed(0),
    ),
    isJailed: spec.isJailed ?? false,
    isActive: spec.isActive ?? true,
    commission,
    unjailableAfter: spec.unjailableAfter ?? null,
    stats,
  };
}

export function buildSnapshot(spec: SnapshotSpec = {}): Snapshot {
  const takenAt = spec.takenAt ?? T0;
  const tokens = new Map<string, SpotToken>();
  for (const t of spec.tokens ?? DEFAULT_TOKENS) {
    tokens.set(t.name, {
      name: t.name,
      index: t.index,
      tokenId: `0x${t.index.toString(16).padStart(32, "0")}`,
      szDecimals: t.szDecimals ?? 2,
      weiDecimals: t.weiDecimals ?? 8,
    });
  }
  const pairSpecs = spec.pairs ?? [
    { base: "HYPE", quote: "USDC", index: 107, mid: spec.hypeMid === undefined ? 40 : spec.hypeMid },
  ];
  const pairs = new Map<string, SpotPair>();
  for (const p of pairSpecs) {
    const base = tokens.get(p.base);
    const quote = tokens.get(p.quote ?? "USDC");
    if (!base || !quote)
      throw new Error(`pair ${p.base}/${p.quote ?? "USDC"}: token not in the snapshot's token list`);
    const name = p.name ?? (p.canonical ? `${base.name}/${quote.name}` : `@${p.index}`);
    pairs.set(name, {
      name,
      index: p.index,
      assetId: 10_000 + p.index,
      base,
      quote,
      mid: p.mid === undefined || p.mid === null ? undefined : d(p.mid),
    });
  }
  const balances = new Map<string, SpotBalance>();
  for (const [coin, b] of Object.entries(spec.balances ?? {})) {
    const total = d(typeof b === "object" ? b.total : b);
    const hold = typeof b === "object" && b.hold !== undefined ? d(b.hold) : ZERO;
    const available = Decimal.max(total.minus(hold), ZERO);
    balances.set(coin, { coin, token: tokens.get(coin)?.index ?? -1, total, hold, available });
  }
  const delegations: Delegation[] = (spec.delegations ?? []).map((x) => ({
    validator: x.validator.toLowerCase(),
    amount: d(x.amount),
    lockedUntil: x.lockedUntil ?? takenAt - DAY_MS,
  }));
  const delegated = delegations.reduce((s, x) => s.plus(x.amount), ZERO);
  const twaps: RunningTwap[] = (spec.twaps ?? []).map((t, i) => ({
    twapId: t.twapId ?? 1000 + i,
    coin: t.coin,
    assetId: t.assetId ?? [...pairs.values()].find((p) => p.name === t.coin)?.assetId,
    side: t.side ?? "buy",
    size: d(t.size ?? "1"),
    executedSize: t.executedSize ?? ZERO,
    executedNotional: t.executedNotional ?? ZERO,
    minutes: t.minutes ?? 30,
    startedAt: t.startedAt ?? takenAt - 60_000,
  }));
  return {
    takenAt,
    network: spec.network ?? "testnet",
    account: spec.account ?? ACCOUNT,
    tokens,
    pairs,
    balances,
    staking: {
      delegated,
      undelegated: d(spec.undelegated ?? 0),
      totalPendingWithdrawal: d(spec.totalPendingWithdrawal ?? 0),
      nPendingWithdrawals: spec.nPendingWithdrawals ?? 0,
    },
    delegations,
    validators: (spec.validators ?? []).map(validator),
    twaps,
    stakingLink: spec.stakingLink ?? null,
    spotTakerFee: d(spec.spotTakerFee ?? "0.0007"),
    multiSig: null,
    rules: { ...DEFAULT_VENUE_RULES, ...spec.rules },
    ...(spec.stakingHistory ? { stakingHistory: spec.stakingHistory } : {}),
    ...(spec.ownStakingMoves ? { ownStakingMoves: spec.ownStakingMoves } : {}),
    ...(spec.ownWithdrawals ? { ownWithdrawals: spec.ownWithdrawals } : {}),
    ...(spec.validatorAllowlist
      ? { validatorAllowlist: spec.validatorAllowlist.map((a) => a.toLowerCase()) }
      : {}),
  };
}
