// The simulated venue without HTTP: state (markets, spot balances, TWAPs, staking, accounts, nonces,
// transactions), the clock that drives it, and the ledger of every effect. The HTTP server is a thin
// layer over `handleInfo` / `handleExchange`; `hlbot simulate` can call them in-process for speed.
import { Decimal, fromWei, parseDecimal, toWireDecimal, ZERO } from "../lib/decimal.js";
import { ConfigError, ValidationError } from "../lib/errors.js";
import { ADDRESS_PATTERN, HYPE_WEI_DECIMALS } from "../venue/constants.js";
import type { NetworkName } from "../venue/networks.js";
import { Accounts } from "./accounts.js";
import { type Clock, DEFAULT_VIRTUAL_START, RealClock, VirtualClock } from "./clock.js";
import { type MessageOverrides, type VenueMessages, withOverrides } from "./errors.js";
import { scheduleScenarioEvents } from "./events.js";
import { FaultInjector } from "./faults.js";
import { fmt } from "./format.js";
import { Ledger } from "./ledger.js";
import { Markets, type Pair, type Token } from "./markets.js";
import { NonceTracker } from "./nonces.js";
import { type RateLimitConfig, RateLimiter } from "./ratelimit.js";
import {
  type FaultsInput,
  resolveScenario,
  type Scenario,
  type ScenarioInput,
  type ScenarioSettings,
  settingsSchema,
} from "./scenario.js";
import { SpotBalances } from "./spot.js";
import { Staking, type ValidatorPatch } from "./staking.js";
import { TwapEngine } from "./twap.js";

/** Settings as they may be written in code (same keys and units as the scenario's `settings`). */
export type SettingsInput = Partial<Record<keyof ScenarioSettings, unknown>>;

export interface VenueOptions {
  /** A scenario file path, a scenario object, or nothing for the bundled demo. */
  scenario?: string | ScenarioInput | Scenario;
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Which chain's signatures are accepted (default testnet). */
  network?: NetworkName;
  /** "real" (wall clock), "virtual" (default for programmatic use) or a clock instance to share. */
  clock?: "real" | "virtual" | Clock;
  /** Start of a virtual clock created here (default: scenario `settings.startTime` or 2025-01-01). */
  startTime?: number;
  /** Overrides of any scenario setting. */
  settings?: SettingsInput;
  nonceSetSize?: number;
  /** Symmetric nonce window (ms) around the clock. */
  nonceWindowMs?: number;
  twapMaxMinutes?: number;
  twapMinSliceValue?: string | number;
  rateLimit?: RateLimitConfig | false;
  faults?: FaultsInput;
  messages?: MessageOverrides;
}

export interface TxRecord {
  hash: string;
  action: Record<string, unknown>;
  block: number;
  error: string | null;
  time: number;
  user: string;
}

export interface BalanceView {
  coin: string;
  token: number;
  total: Decimal;
  hold: Decimal;
  available: Decimal;
  entryNtl: Decimal;
}

/** HYPE staked above which the taker fee is discounted. */
/** A user's fee rates after discounts (Simulator.fees). */
export interface FeeRates {
  readonly cross: Decimal;
  readonly add: Decimal;
  readonly spotCross: Decimal;
  readonly spotAdd: Decimal;
  readonly stakingDiscount: Decimal;
  readonly referralDiscount: Decimal;
}

const STAKING_DISCOUNTS: ReadonlyArray<[number, string]> = [
  [500_000, "0.4"],
  [100_000, "0.3"],
  [10_000, "0.2"],
  [1_000, "0.15"],
  [100, "0.1"],
  [10, "0.05"],
];

const ONE = new Decimal(1);

export class VenueCore {
  readonly scenario: Scenario;
  readonly seed: number;
  readonly network: NetworkName;
  readonly clock: Clock;
  readonly startTime: number;
  readonly ledger = new Ledger();
  readonly markets: Markets;
  readonly spot = new SpotBalances();
  readonly accounts: Accounts;
  readonly twaps: TwapEngine;
  readonly staking: Staking;
  readonly nonces: NonceTracker;
  readonly rateLimiter: RateLimiter;
  readonly faults: FaultInjector;
  private settingsValue: ScenarioSettings;
  private messagesValue: VenueMessages;
  private readonly txs = new Map<string, TxRecord>();
  readonly hype: Token | undefined;

  constructor(options: VenueOptions = {}) {
    this.scenario = resolveScenario(options.scenario);
    this.seed = options.seed ?? this.scenario.seed;
    this.network = options.network ?? "testnet";
    this.settingsValue = applySettings(this.scenario.settings, options);
    this.messagesValue = withOverrides({ ...this.scenario.settings.messages, ...options.messages });

    const c = options.clock ?? "virtual";
    if (c === "real") this.clock = new RealClock();
    else if (c === "virtual")
      this.clock = new VirtualClock(
        options.startTime ?? this.settingsValue.startTime ?? DEFAULT_VIRTUAL_START,
      );
    else this.clock = c;
    this.startTime = this.clock.now();

    const now = () => this.clock.now();
    const settings = () => this.settingsValue;
    const messages = () => this.messagesValue;
    this.markets = new Markets(this.scenario, this.startTime, this.seed, now);
    this.hype = this.markets.token("HYPE");
    this.accounts = new Accounts(this.scenario, this.startTime, this.settingsValue.agentValidity);
    this.twaps = new TwapEngine({
      clock: this.clock,
      settings,
      messages,
      ledger: this.ledger,
      markets: this.markets,
      spot: this.spot,
      accounts: this.accounts,
      seed: this.seed,
      takerRate: (user) => this.fees(user).spotCross,
    });
    this.staking = new Staking(
      {
        clock: this.clock,
        settings,
        messages,
        ledger: this.ledger,
        spot: this.spot,
        accounts: this.accounts,
        hype: this.hype,
        availableHype: (user) => (this.hype ? this.twaps.available(user, this.hype.index) : ZERO),
      },
      this.scenario.validators,
      this.startTime,
    );
    this.nonces = new NonceTracker(this.nonceRules(), messages, (signer) => this.volumeBehind(signer));
    const rl = this.settingsValue.rateLimit;
    this.rateLimiter = new RateLimiter(rl === false ? false : { capacity: rl.capacity, windowMs: rl.window });
    this.faults = new FaultInjector(this.seed, { ...this.settingsValue.faults, ...options.faults });
    this.seedState();
    this.staking.startRewards();
    scheduleScenarioEvents(this);
  }

  get settings(): ScenarioSettings {
    return this.settingsValue;
  }

  get messages(): VenueMessages {
    return this.messagesValue;
  }

  now(): number {
    return this.clock.now();
  }

  /** Changes settings at run time (same keys as the scenario's `settings`). */
  configure(settings: SettingsInput): void {
    this.settingsValue = applySettings(this.settingsValue, { settings });
    this.nonces.setRules(this.nonceRules());
  }

  private nonceRules() {
    const s = this.settingsValue;
    return {
      setSize: s.nonceSetSize,
      maxSetSize: s.nonceSetMax,
      volumePerExtraNonce: s.nonceVolumePerExtra,
      windowPast: s.nonceWindowPast,
      windowFuture: s.nonceWindowFuture,
    };
  }

  /** Cumulative USDC volume of the account a signer acts for (its master, for an API wallet). */
  private volumeBehind(signer: string): number {
    const user = this.accounts.agent(signer, this.now())?.master ?? signer;
    const referral = this.accounts.profiles.get(user)?.referral?.cumVlm;
    const filled = this.twaps.filledVolumeOf(user);
    return (referral === undefined ? filled : referral.plus(filled)).toNumber();
  }

  setMessages(overrides: MessageOverrides): void {
    this.messagesValue = withOverrides({ ...this.scenario.settings.messages, ...overrides });
  }

  private seedState(): void {
    const t = this.startTime;
    for (const [user, coins] of Object.entries(this.scenario.balances)) {
      for (const [coin, amount] of Object.entries(coins)) {
        const token = this.markets.requireToken(coin);
        const pair = this.markets.pairForBase(token);
        const cost = pair ? amount.times(this.markets.mid(pair, t)) : undefined;
        this.spot.add(user.toLowerCase(), token, amount, cost);
      }
    }
    for (const [user, s] of Object.entries(this.scenario.staking)) {
      const u = user.toLowerCase();
      this.staking.seedUndelegated(u, s.undelegated);
      this.staking.seedHistory(u, s.history);
      for (const w of s.pendingWithdrawals)
        this.staking.seedPendingWithdrawal(u, w.amount, t + w.finalizesIn);
    }
    for (const d of this.scenario.delegations)
      this.staking.seedDelegation(d.user, d.validator, d.amount, t + d.lockedFor);
    // TWAPs with their venue id first, so one without takes an id none of them has.
    const twaps = [...this.scenario.twaps].sort(
      (a, b) => Number(a.id === undefined) - Number(b.id === undefined),
    );
    for (const tw of twaps) {
      this.twaps.seedRunning(tw.user, tw);
      this.accounts.touch(tw.user);
    }
  }

  // ---- time ----------------------------------------------------------------------------------------

  /** Advances a virtual clock by `ms`, running every event due on the way. */
  advance(ms: number): void {
    if (!(this.clock instanceof VirtualClock))
      throw new ConfigError("advance() needs a virtual clock; this venue runs in real time");
    this.clock.advance(ms);
  }

  /** Runs events that fell due (real time: catches up before serving a request). */
  catchUp(): void {
    this.clock.runDue();
  }

  block(t = this.now()): number {
    return (
      this.settingsValue.firstBlock +
      Math.floor((t - this.startTime) / Math.max(1, this.settingsValue.blockTime))
    );
  }

  // ---- spot ----------------------------------------------------------------------------------------

  /**
   * Credits (or debits, when negative) spot `coin` to `address`; creates the account. `source` "event"
   * marks money moved by a scenario event during a run (a deposit or withdrawal the summary must not
   * count as performance); the entry carries its value in the first token at the mid of the moment.
   */
  fund(address: string, coin: string, amount: Decimal | string | number, source?: "event"): void {
    const user = normalizeAddress(address);
    const token = this.markets.requireToken(coin);
    const value = parseDecimal(amount, "amount");
    const pair = this.markets.pairForBase(token);
    const cost = pair && value.isPositive() ? value.times(this.markets.mid(pair)) : undefined;
    this.spot.add(user, token, value, cost);
    this.accounts.touch(user);
    const quoteValue =
      token.index === 0 ? value : pair?.quote.index === 0 ? value.times(this.markets.mid(pair)) : undefined;
    this.ledger.record(
      this.now(),
      "fund",
      {
        coin,
        amount: toWireDecimal(value),
        ...(source === undefined ? {} : { source }),
        ...(source === undefined || quoteValue === undefined ? {} : { value: toWireDecimal(quoteValue) }),
      },
      { user },
    );
  }

  balances(address: string): BalanceView[] {
    const user = normalizeAddress(address);
    const out: BalanceView[] = [];
    const held = this.spot.of(user);
    const indexes = new Set<number>(held.keys());
    for (const t of this.twaps.running(user)) {
      indexes.add(t.pair.base.index);
      indexes.add(t.pair.quote.index);
    }
    for (const token of this.markets.tokens) {
      if (!indexes.has(token.index)) continue;
      const pos = held.get(token.index);
      const total = pos?.total ?? ZERO;
      const hold = this.twaps.hold(user, token.index);
      out.push({
        coin: token.name,
        token: token.index,
        total,
        hold,
        available: hold.isZero() && !total.isNegative() ? total : Decimal.max(total.minus(hold), ZERO),
        entryNtl: pos?.entryNtl ?? ZERO,
      });
    }
    return out;
  }

  balance(address: string, coin: string): BalanceView {
    const token = this.markets.requireToken(coin);
    return (
      this.balances(address).find((b) => b.token === token.index) ?? {
        coin: token.name,
        token: token.index,
        total: ZERO,
        hold: ZERO,
        available: ZERO,
        entryNtl: ZERO,
      }
    );
  }

  /** Mid prices keyed by pair name (allMids). */
  mids(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of this.markets.pairs) out[p.name] = fmt(this.markets.mid(p));
    return out;
  }

  price(pair: string | number): Decimal {
    return this.markets.mid(this.markets.requirePair(pair));
  }

  setPrice(pair: string | number, px: Decimal | string | number): Decimal {
    const p = this.markets.requirePair(pair);
    const mid = this.markets.setPrice(p, px);
    this.ledger.record(this.now(), "priceSet", { coin: p.name, px: toWireDecimal(mid) });
    return mid;
  }

  /** Halts (or resumes) a pair: TWAP suborders on a halted pair do not fill. */
  setPairHalted(pair: string | number, halted: boolean): void {
    const p: Pair = this.markets.requirePair(pair);
    p.halted = halted;
    this.ledger.record(this.now(), "pairChanged", { coin: p.name, halted });
  }

  // ---- staking -------------------------------------------------------------------------------------

  setValidator(address: string, patch: ValidatorPatch): void {
    this.staking.updateValidator(normalizeAddress(address), patch);
  }

  /** Fee rates of a user after staking and referral discounts. */
  fees(address: string): FeeRates {
    const user = normalizeAddress(address);
    const f = this.settingsValue.fees;
    // Asked at every slice of every TWAP and every userFees read; the rates change only with the HYPE
    // counted for the discount, the referral and the settings, so they are kept per user until one moves.
    const wei = f.stakingDiscount ? this.stakedWeiForFees(user) : 0n;
    const referred = this.accounts.profiles.get(user)?.referral?.referredBy;
    const kept = this.feesKept.get(user);
    if (kept !== undefined && kept.wei === wei && kept.referred === referred && kept.settings === f)
      return kept.rates;
    const stakingDiscount = f.stakingDiscount ? this.stakingDiscount(wei) : ZERO;
    const referralDiscount = referred ? f.referralDiscount : ZERO;
    const factor = ONE.minus(stakingDiscount).times(ONE.minus(referralDiscount));
    const apply = (rate: Decimal) => (rate.isNegative() ? rate : rate.times(factor));
    const rates: FeeRates = Object.freeze({
      cross: apply(f.cross),
      add: apply(f.add),
      spotCross: apply(f.spotCross),
      spotAdd: apply(f.spotAdd),
      stakingDiscount,
      referralDiscount,
    });
    this.feesKept.set(user, { wei, referred, settings: f, rates });
    return rates;
  }

  private readonly feesKept = new Map<
    string,
    { wei: bigint; referred: unknown; settings: object; rates: FeeRates }
  >();

  /** HYPE counted for the fee tier: own delegations, or the linked staking user's. */
  stakedForFees(user: string): Decimal {
    return fromWei(this.stakedWeiForFees(user), this.hype?.weiDecimals ?? HYPE_WEI_DECIMALS);
  }

  private stakedWeiForFees(user: string): bigint {
    const link = this.accounts.link(user);
    // A staking user that linked to a trading user loses its own discount.
    if (this.accounts.linkByStaking(user)) return 0n;
    let wei = this.staking.totalDelegated(user);
    if (link?.status === "linked") wei += this.staking.totalDelegated(link.staking);
    return wei;
  }

  private stakingDiscount(wei: bigint): Decimal {
    const staked = fromWei(wei, this.hype?.weiDecimals ?? HYPE_WEI_DECIMALS);
    for (const [threshold, discount] of STAKING_DISCOUNTS)
      if (staked.gt(threshold)) return new Decimal(discount);
    return ZERO;
  }

  // ---- transactions --------------------------------------------------------------------------------

  recordTx(tx: TxRecord): void {
    this.txs.set(tx.hash, tx);
  }

  tx(hash: string): TxRecord | undefined {
    return this.txs.get(hash.toLowerCase());
  }

  close(): void {
    this.clock.close();
  }
}

function applySettings(base: ScenarioSettings, options: VenueOptions): ScenarioSettings {
  const raw: SettingsInput = { ...options.settings };
  if (options.nonceSetSize !== undefined) raw.nonceSetSize = options.nonceSetSize;
  if (options.nonceWindowMs !== undefined) {
    raw.nonceWindowPast = options.nonceWindowMs;
    raw.nonceWindowFuture = options.nonceWindowMs;
  }
  if (options.twapMaxMinutes !== undefined) raw.twapMaxMinutes = options.twapMaxMinutes;
  if (options.twapMinSliceValue !== undefined) raw.twapMinSliceValue = options.twapMinSliceValue;
  if (options.rateLimit !== undefined)
    raw.rateLimit =
      options.rateLimit === false
        ? false
        : { capacity: options.rateLimit.capacity, window: options.rateLimit.windowMs };
  const out: Record<string, unknown> = { ...base };
  const shape = settingsSchema.shape as Record<
    string,
    { safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: { message: string }[] } } }
  >;
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const field = shape[key];
    if (!field) throw new ValidationError([{ path: `settings.${key}`, message: "unknown setting" }]);
    const parsed = field.safeParse(value);
    if (!parsed.success)
      throw new ValidationError([
        { path: `settings.${key}`, message: parsed.error?.issues[0]?.message ?? "invalid" },
      ]);
    out[key] = parsed.data;
  }
  return out as ScenarioSettings;
}

export function normalizeAddress(address: string, field = "address"): string {
  if (typeof address !== "string" || !ADDRESS_PATTERN.test(address))
    throw new ValidationError([
      { path: field, message: `expected a 0x address, got ${JSON.stringify(address)}` },
    ]);
  return address.toLowerCase();
}
