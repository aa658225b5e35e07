// validator-staking: keep the account's stake delegated to the N best validators by net yield, without
// churn, without stranding stake, and without undoing what the user did by hand.
//
// - Ranking: by net APR, what the delegator earns (the venue's predictedApr, after commission), optionally
//   weighted by uptime and penalised for a recent jailing; or by stake or uptime.
// - Candidates are only validators the strategy's own rules AND the risk limits (validatorAllowlist)
//   allow, and not above maxNetworkShare of the network's stake (others' stake alone for one this
//   account holds; a delegation stops at the limit, so the bot's own stake never flips a validator).
// - Idle stake (the undelegated staking balance) is always delegated, to the validators most under
//   target. Delegated stake moves only when it must (jailed, inactive, excluded by a rule: once its lock
//   allows) or when it pays: a better validator must earn at least minImprovement more (net) and the gain
//   over horizonDays must beat the cost of moving (one day of rewards), and the stake must have been held
//   minHoldDays; a validator it moved stake away from for yield ranks last for horizonDays. Balance
//   between the chosen validators is kept within rebalanceThreshold.
// - An undelegation is planned only with the delegation (or withdrawal) it funds (`fundsNext`): a move as
//   a pair, a withdrawal as the undelegations followed by one cWithdraw of their sum (one queue place), so
//   the risk limits reduce or block them together.
// - The user's intent wins: HYPE the user undelegated by hand, or that came back to spot from a
//   withdrawal the user made (not one of hlbot's own: journaled), is left alone for respectManualDays;
//   maxStaked caps the stake and withdraws the excess.
// - No dust: nothing below minMove is deposited, delegated, undelegated or withdrawn.
// Amounts are truncated to whole wei.
import * as z from "zod";
import { Decimal, fromWei, truncateDecimals, ZERO } from "../../lib/decimal.js";
import { shortAddress } from "../../lib/text.js";
import { DELEGATION_LOCK_MS, HYPE_WEI_DECIMALS, LONGEST_UNSTAKING_QUEUE_MS } from "../../venue/constants.js";
import { address, decimal, fraction, hypeAmount, integer } from "../config/fields.js";
import type { CDepositIntent, CWithdrawIntent, Decision, TokenDelegateIntent } from "../intents.js";
import { stakeUnitMismatch } from "../priceSanity.js";
import {
  type PlannedSale,
  type Snapshot,
  type StakingEvent,
  spotSellsOf,
  type ValidatorInfo,
  type ValidatorPeriod,
} from "../snapshot.js";
import { floorText, fmt, isoTime, ONE, pct, skip } from "./common.js";
import { defineStrategy } from "./types.js";

/** Staking amounts travel as `wei` = HYPE × 1e8. */
export const STAKE_DECIMALS = HYPE_WEI_DECIMALS;
const STAKING_TOKEN = "HYPE";
const DAY_MS = 86_400_000;
/** The unstaking queue (the longest known: mainnet's 7 days; src/venue/constants.ts), in minutes, as a horizon for sales. */
const UNSTAKING_QUEUE_MINUTES = LONGEST_UNSTAKING_QUEUE_MS / 60_000;
const UNSTAKING_QUEUE_DAYS = LONGEST_UNSTAKING_QUEUE_MS / 86_400_000;
/**
 * withdrawForSales on a paced sale: another withdrawal goes while one is pending only when it is worth
 * this many days of sales (7 ÷ 2 = 3.5 withdrawals pending at once, within the venue's 5), and what is
 * on spot and on its way back covers the queue, that gap and PACE_MARGIN_DAYS more: the coverage never
 * falls under the queue's 7 days plus the margin, when the next withdrawal starts. (Without the margin, a
 * run of a falling market found nothing on spot: the pace, measured at the mid, grows as the price falls.)
 */
const PACE_GAP_DAYS = 2;
const PACE_MARGIN_DAYS = 1;
/** The days of a sale a withdrawal is sized for (cycle.ts paceOf averages the sale's pace over them). */
export const SALE_PACE_HORIZON_DAYS = UNSTAKING_QUEUE_DAYS + PACE_GAP_DAYS + PACE_MARGIN_DAYS;
/**
 * Cost of moving delegated stake, in days of rewards on the stake moved. A pessimistic bound: the venue
 * pays daily on the minimum stake held per staking epoch (about 90 minutes, Hyperliquid docs "Staking";
 * a docs trial found the README stating a day as the venue's rule), so a move costs an epoch or two.
 * The simulator counts a day too (src/simulator/staking.ts), so simulations do not flatter moves.
 */
export const MOVE_COST_DAYS = 1;
/**
 * An undelegation followed within this time by a delegation or a withdrawal of the same amount was one
 * of this strategy's paired moves (or the user's own move), not a manual exit.
 */
export const PAIRED_WITHIN_MS = 10 * 60_000;
const period = z.enum(["day", "week", "month"]);

export const validatorStakingParams = z
  .strictObject({
    validators: integer({ min: 1, max: 100 }).describe("How many validators to spread the stake over"),
    rankBy: z
      .enum(["predictedApr", "stake", "uptime"])
      .default("predictedApr")
      .describe(
        "Ranking of eligible validators (best first); predictedApr ranks by net APR, the delegators' rate (the venue's predictedApr is after commission; see venue.predictedAprNet)",
      ),
    statsPeriod: period.default("week").describe("Period of the stats used by rankBy (predictedApr, uptime)"),
    maxCommission: fraction().optional().describe("Exclude validators charging more (0.05 = 5%)"),
    minUptime: z
      .strictObject({ period, fraction: fraction() })
      .optional()
      .describe(
        "Exclude validators whose uptime over the period is lower; one already holding this account's stake is left only below half its allowed downtime more (0.99: below 0.985)",
      ),
    allow: z.array(address()).default([]).describe("When not empty, only these validators are eligible"),
    deny: z.array(address()).default([]).describe("Validators never delegated to"),
    allocation: z
      .enum(["equal", "score"])
      .default("equal")
      .describe("equal: same stake each; score: stake proportional to the rankBy value"),
    penalties: z
      .strictObject({
        uptime: z
          .boolean()
          .default(false)
          .describe("Multiply the net APR by the uptime fraction of statsPeriod"),
        jailed: z
          .enum(["exclude", "penalise", "ignore"])
          .default("exclude")
          .describe(
            "A validator jailed recently (unjailableAfter set): exclude it, penalise its net APR, or ignore it",
          ),
        jailedFactor: fraction()
          .prefault(0.5)
          .describe("With jailed: penalise, the net APR is multiplied by this"),
      })
      .prefault({})
      .describe("Penalties applied to the net APR before ranking"),
    maxNetworkShare: fraction()
      .optional()
      .describe(
        "Skip validators holding more than this share of the network's stake (0.2 = 20%); for one this account holds, others' stake alone counts, and no delegation takes one above it",
      ),
    maxShare: decimal({ gt: 0, max: 1 })
      .optional()
      .describe(
        "Most of this account's stake on one validator (0.5 = 50%); more validators are used if needed, and when too few are eligible each takes an even share",
      ),
    rebalanceThreshold: fraction()
      .prefault(0.1)
      .describe(
        "Rebalance delegated stake between the chosen validators only where one is off its target by more than this fraction of the target (idle stake is always delegated)",
      ),
    minImprovement: fraction()
      .prefault(0.001)
      .describe(
        "Move delegated stake to a better validator only when it earns at least this much more net APR (0.001 = 0.1 point)",
      ),
    horizonDays: decimal({ gt: 0, max: 3650 })
      .prefault(30)
      .describe(
        "The net APR gained over this many days must beat the cost of a move (one day of rewards); a validator this strategy moved stake away from for yield ranks after every other for this many days",
      ),
    minHoldDays: decimal({ min: 1, max: 3650 })
      .prefault(1)
      .describe(
        "Keep stake at least this many days after delegating it before moving it for yield or balance (the venue locks 1 day)",
      ),
    minMove: hypeAmount({ gt: 0 })
      .prefault(1)
      .describe("Smallest delegation, undelegation, deposit or withdrawal in HYPE; smaller amounts wait"),
    maxMovePerRun: hypeAmount({ gt: 0 })
      .optional()
      .describe(
        "Cap on HYPE moved per run, summing delegations and undelegations for yield, balance and idle stake; withdrawals (maxStaked, withdrawForSales) are capped by limits.maxStakeMovePerDay only",
      ),
    stakeIdleSpot: z
      .strictObject({
        enabled: z.boolean().default(false),
        keepSpot: hypeAmount({ min: 0 })
          .prefault(0)
          .describe("Spot HYPE to keep; the rest is moved into staking"),
      })
      .optional()
      .describe("Move spot HYPE above keepSpot into staking (cDeposit) before delegating"),
    maxStaked: hypeAmount({ min: 0 })
      .optional()
      .describe(
        "Most HYPE to keep staked (delegated + undelegated): deposits stop there and the excess is withdrawn (cWithdraw, through the unstaking queue: 7 days on mainnet), one withdrawal at a time unless the excess reaches rebalanceThreshold of it",
      ),
    withdrawForSales: z
      .boolean()
      .default(false)
      .describe(
        "Withdraw stake (undelegate, then cWithdraw through the unstaking queue, 7 days on mainnet) that a twap-rebalance strategy of the account will need for its HYPE sales: what it would sell (in pieces of limits.maxOrderUsd, until back within its band, and no more than it sells at its pace by the time the withdrawal is back and 3 days more) beyond the spot HYPE it can sell and the withdrawals already pending",
      ),
    respectManualDays: decimal({ min: 0, max: 3650 })
      .prefault(7)
      .describe(
        "For this many days, HYPE undelegated by hand stays undelegated and HYPE back on spot from a withdrawal (not one hlbot sent) is not staked again (0: off)",
      ),
    maxPendingWithdrawals: integer({ min: 1, max: 100 })
      .default(5)
      .describe("Withdrawals the venue lets wait in the unstaking queue at once (5)"),
  })
  .superRefine((p, ctx) => {
    const deny = new Set(p.deny);
    p.allow.forEach((a, i) => {
      if (deny.has(a)) ctx.addIssue({ code: "custom", path: ["allow", i], message: `${a} is also in deny` });
    });
  });

export type ValidatorStakingParams = z.output<typeof validatorStakingParams>;

function label(address: string, info: ValidatorInfo | undefined): string {
  return info ? `${info.name} (${shortAddress(address)})` : shortAddress(address);
}

/** The delegator's APR, after commission (read from predictedApr once, by delegatorApr in the snapshot). */
export function netApr(v: ValidatorInfo, p: ValidatorPeriod): Decimal {
  return v.stats[p].delegatorApr;
}

/**
 * How the net APR was read: the venue's predictedApr is after commission (by default), or before it
 * (venue.predictedAprNet: false), said either way with the commission.
 */
function netAprBasis(v: ValidatorInfo, p: ValidatorPeriod): string {
  const st = v.stats[p];
  if (v.commission.isZero()) return "no commission";
  return st.delegatorApr.eq(st.predictedApr)
    ? `after its ${pct(v.commission)} commission`
    : `${aprPct(st.predictedApr)} less ${pct(v.commission)} commission`;
}

/**
 * Why a delegation to `v` earns nothing now, if it does not: the venue pays jailed and inactive
 * validators' delegators nothing (reference: "Jailed validators earn no rewards for their delegators";
 * the simulator pays the same). What is shown (status, metrics, summaries) says so instead of the rate.
 */
export function notEarning(
  v: Pick<ValidatorInfo, "isJailed" | "isActive">,
): "jailed" | "inactive" | undefined {
  return v.isJailed ? "jailed" : v.isActive ? undefined : "inactive";
}

/** What a delegation to `v` earns now: its net APR, or 0 while it is jailed or inactive (notEarning). */
export function earningApr(v: ValidatorInfo, p: ValidatorPeriod): Decimal {
  return notEarning(v) === undefined ? netApr(v, p) : ZERO;
}

/** Net APR with the configured uptime and jailing penalties. */
function adjustedApr(v: ValidatorInfo, params: ValidatorStakingParams): Decimal {
  let apr = netApr(v, params.statsPeriod);
  if (params.penalties.uptime) apr = apr.times(v.stats[params.statsPeriod].uptimeFraction);
  if (params.penalties.jailed === "penalise" && v.unjailableAfter !== null)
    apr = apr.times(params.penalties.jailedFactor);
  return apr;
}

function scoreOf(v: ValidatorInfo, params: ValidatorStakingParams): Decimal {
  switch (params.rankBy) {
    case "predictedApr":
      return adjustedApr(v, params);
    case "uptime":
      return v.stats[params.statsPeriod].uptimeFraction;
    case "stake":
      return new Decimal(v.stake.toString());
  }
}

const trunc = (d: Decimal) => truncateDecimals(d, STAKE_DECIMALS);
/** A difference of APRs in percentage points, rounded as the APRs are shown (0.0867 points is 0.087). */
const points = (d: Decimal) => d.times(100).toDecimalPlaces(3, Decimal.ROUND_HALF_UP).toFixed();
// Rounded half away from zero (2.3618% is 2.362%), as `hlbot status` and the simulation summary show it.
const aprPct = (d: Decimal) => `${d.times(100).toDecimalPlaces(3, Decimal.ROUND_HALF_UP).toFixed()}%`;

interface Candidate {
  v: ValidatorInfo;
  address: string;
  score: Decimal;
  net: Decimal;
}

interface Held {
  amount: Decimal;
  lockedUntil: number;
}

/** A planned move of stake: from a validator (undelegate first) or from the idle pool, to a validator. */
interface Transfer {
  from?: string;
  to: string;
  amount: Decimal;
  why: string;
  /** A move for yield (intents.ts forYield). */
  forYield?: true;
}

export const validatorStaking = defineStrategy({
  description: "Delegate the stake to the N best validators by net APR, moving it only when it pays",
  paramsSchema: validatorStakingParams,
  // Running TWAPs: idle spot HYPE is not staked while a TWAP sells HYPE (see stakeIdleSpot).
  reads: ["staking", "validators", "stakingHistory", "twaps"],
  decide(snapshot, params, now, _memory, name) {
    // Staking amounts are signed as HYPE × 10^8 (HYPE_WEI_DECIMALS): should the venue state another wei
    // unit for HYPE, which one its staking uses is unknown, and nothing is moved (fail closed; an audit:
    // a scenario with 6 had every deposit refused, unexplained).
    const unit = stakeUnitMismatch(snapshot.tokens.get(STAKING_TOKEN)?.weiDecimals);
    if (unit !== undefined) return [skip(name, unit)];
    const allow = new Set(params.allow);
    const deny = new Set(params.deny);
    const limitAllow = snapshot.validatorAllowlist ? new Set(snapshot.validatorAllowlist) : undefined;
    const networkStake = snapshot.validators.reduce((s, v) => s + v.stake, 0n);
    const current = new Map<string, Held>();
    for (const d of snapshot.delegations) {
      const a = d.validator.toLowerCase();
      const prev = current.get(a);
      current.set(a, {
        amount: (prev?.amount ?? ZERO).plus(d.amount),
        lockedUntil: Math.max(prev?.lockedUntil ?? 0, d.lockedUntil),
      });
    }
    const heldAmount = (a: string) => current.get(a)?.amount ?? ZERO;
    /** This account's stake on each validator, in wei (as the venue counts a validator's stake). */
    const ownWei = new Map<string, bigint>();
    for (const [a, c] of current) ownWei.set(a, BigInt(c.amount.times(10 ** STAKE_DECIMALS).toFixed(0)));
    /**
     * A validator's share of the network's stake: others' stake alone for one this account holds (its
     * own stake does not push it out, or delegating to a validator just under maxNetworkShare took it
     * over, the next run moved the stake back, and so on: a trial's 20,000 HYPE moved every day).
     */
    const networkShare = (v: ValidatorInfo): Decimal => {
      const others = v.stake - (ownWei.get(v.address.toLowerCase()) ?? 0n);
      return new Decimal((others > 0n ? others : 0n).toString()).div(networkStake.toString());
    };
    /**
     * The network's stake once this run's delegations are made: what the account delegates from idle
     * stake or a deposit adds to it (set once that pool is known). Counted without it, a whale's first
     * run gave a validator only the room it had before the account's own 150,000 HYPE, and the next run,
     * finding the network larger, moved 30,000 HYPE onto it (a trial's case). The targets are the end
     * state: while maxMovePerRun or the daily limit spread the pool over several runs, a validator
     * filled first may stand above the share by the part of the pool not delegated yet.
     */
    let networkAfter = networkStake;
    /** HYPE this account may add to `v` before it holds more than maxNetworkShare (undefined: no limit). */
    const networkRoom = (v: ValidatorInfo): Decimal | undefined => {
      if (params.maxNetworkShare === undefined || networkStake <= 0n) return undefined;
      const wei = new Decimal(networkAfter.toString())
        .times(params.maxNetworkShare)
        .minus(v.stake.toString());
      return trunc(Decimal.max(ZERO, wei.div(10 ** STAKE_DECIMALS)));
    };
    const minMove = params.minMove;
    const netText = (v: ValidatorInfo) =>
      `net APR ${aprPct(netApr(v, params.statsPeriod))} (${netAprBasis(v, params.statsPeriod)})`;

    /** Validators holding the account's stake under minUptime but above its lower bar: no new stake. */
    const keepOnly = new Set<string>();
    /** Why a validator may not hold this account's stake at all (it is left once its lock allows). */
    const exclusion = (v: ValidatorInfo): string | undefined => {
      const a = v.address.toLowerCase();
      if (v.isJailed) return "is jailed";
      if (!v.isActive) return "is inactive";
      if (deny.has(a)) return "is on the deny list";
      if (allow.size > 0 && !allow.has(a)) return "is not on the allow list";
      if (limitAllow && !limitAllow.has(a)) return "is not in limits.validatorAllowlist";
      if (params.maxCommission !== undefined && v.commission.gt(params.maxCommission)) {
        return `charges ${pct(v.commission)} commission, above maxCommission ${pct(params.maxCommission)}`;
      }
      // Whatever the rules: a validator that pays its delegators nothing (100% commission, no predicted
      // APR) is left like a jailed one (a trial's stake sat on a 100%-commission validator for two days
      // behind a yield move, as no maxCommission was set).
      if (!netApr(v, params.statsPeriod).gt(0))
        return `pays its delegators nothing (net APR 0%: ${netAprBasis(v, params.statsPeriod)})`;
      if (params.minUptime !== undefined) {
        const up = v.stats[params.minUptime.period].uptimeFraction;
        // A validator holding this account's stake is left only below a lower bar: half its allowed
        // downtime more (99% → 98.5%). Uptime is a noisy statistic and a move costs a day of rewards;
        // a trial's validator swinging between 98.5% and 99.5% had 20,000 HYPE moved 9 times in 20 days.
        // It keeps what it holds but takes no more (keepOnly): new stake needs minUptime.
        const held = ownWei.has(a);
        const bar = held
          ? params.minUptime.fraction.minus(ONE.minus(params.minUptime.fraction).div(2))
          : params.minUptime.fraction;
        if (held && up.lt(params.minUptime.fraction) && !up.lt(bar)) keepOnly.add(a);
        if (up.lt(bar)) {
          return held
            ? `has ${params.minUptime.period} uptime ${pct(up)}, below ${pct(bar)} (minUptime ${pct(params.minUptime.fraction)} less half its allowed downtime, for a validator already holding this account's stake)`
            : `has ${params.minUptime.period} uptime ${pct(up)}, below ${pct(params.minUptime.fraction)}`;
        }
      }
      if (params.penalties.jailed === "exclude" && v.unjailableAfter !== null) {
        return "was jailed recently (unjailableAfter is set)";
      }
      if (params.maxNetworkShare !== undefined && networkStake > 0n) {
        const share = networkShare(v);
        if (share.gt(params.maxNetworkShare)) {
          const shown = `${share.times(100).toDecimalPlaces(3, Decimal.ROUND_DOWN).toFixed()}%`;
          const own = ownWei.has(v.address.toLowerCase()) ? " without this account's stake" : "";
          return `holds ${shown} of the network's stake${own}, above maxNetworkShare ${pct(params.maxNetworkShare)}`;
        }
      }
      return undefined;
    };

    const infos = new Map(snapshot.validators.map((v) => [v.address.toLowerCase(), v]));
    // An allow entry the venue does not list (a typo, a retired validator) narrows the choice silently.
    // Said with every decision (a decision of its own would settle a slot the others defer).
    // An address the venue does not list, in allow or deny: a typo? (a mistyped deny entry denies
    // nothing: a new user's denied validator took the stake without a word).
    // limits.validatorAllowlist too: a mistyped entry moves stake off the validator it meant (a
    // fat-finger trial's one wrong digit undelegated 400 HYPE from Hypurr Labs without a word).
    const unlisted = (
      [
        ["allow", params.allow],
        ["deny", params.deny],
        ["limits.validatorAllowlist", snapshot.validatorAllowlist ?? []],
      ] as const
    )
      .map(([key, list]) => [key, list.filter((a) => !infos.has(a))] as const)
      .filter(([, list]) => list.length > 0);
    const noted = (ds: Decision[]): Decision[] =>
      unlisted.length === 0
        ? ds
        : ds.map((d) => ({
            ...d,
            reason: `${d.reason} (note: ${unlisted.map(([key, list]) => `${key} names ${list.join(", ")}`).join("; ")}, which the venue does not list as a validator: a typo?${unlisted.some(([key]) => key === "deny") ? " A deny entry that names no validator keeps none out" : ""})`,
          }));
    // A validator kept under minUptime (keepOnly) takes no new stake. Holding about an even share
    // (within rebalanceThreshold of total / validators) it keeps its place among the N, so nothing
    // else moves while its uptime hovers under minUptime (without its place, a trial's 10,000 HYPE
    // moved between two others at every swing); holding less (a review: 1 HYPE took one of the N places,
    // the whole pool going to one validator), it is no candidate and what it holds stays aside.
    let delegated = ZERO;
    for (const c of current.values()) delegated = delegated.plus(c.amount);
    const undelegated = snapshot.staking.undelegated;
    const evenShare = delegated.plus(undelegated).div(params.validators);
    const keepsPlace = (a: string) =>
      heldAmount(a).gte(evenShare.times(ONE.minus(params.rebalanceThreshold)));
    // Memory of moves for yield: a validator this strategy moved stake away from for yield (its own move,
    // journaled as such: not a jail, an exclusion, a withdrawal or the user's hand) less than horizonDays
    // ago, and that holds no stake now, ranks after every other until horizonDays have passed since. A move pays
    // only if the lead it followed lasts the horizon; one reversed within it did not (a staker's 90 days
    // beside a validator whose APR came and went every two days: 92 moves earned 5.5 HYPE where staying
    // put earned 10.0). The next best takes its place (a review: held back from the one left, stake stayed
    // 28 days on a validator whose APR had collapsed while a third paid 2.3%).
    const horizonMs = params.horizonDays.times(DAY_MS).toNumber();
    const leftForYield = new Map<string, number>();
    for (const e of snapshot.stakingHistory ?? []) {
      if (e.kind !== "undelegate" || e.validator === undefined) continue;
      if (e.time > now || e.time < now - horizonMs || heldAmount(e.validator).gte(minMove)) continue;
      const ownYieldMove = (snapshot.ownStakingMoves ?? []).some(
        (m) =>
          m.forYield === true &&
          m.isUndelegate &&
          m.validator === e.validator &&
          m.amount.eq(e.amount) &&
          Math.abs(m.time - e.time) <= PAIRED_WITHIN_MS,
      );
      if (ownYieldMove) leftForYield.set(e.validator, Math.max(leftForYield.get(e.validator) ?? 0, e.time));
    }
    const eligible: Candidate[] = snapshot.validators
      .filter((v) => {
        if (exclusion(v) !== undefined) return false;
        const a = v.address.toLowerCase();
        return !keepOnly.has(a) || keepsPlace(a);
      })
      .map((v) => ({
        v,
        address: v.address.toLowerCase(),
        score: scoreOf(v, params),
        net: adjustedApr(v, params),
      }))
      .sort(
        (a, b) =>
          b.score.cmp(a.score) ||
          (b.v.stake > a.v.stake ? 1 : b.v.stake < a.v.stake ? -1 : 0) ||
          (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
      );
    // Ranked last, not left out: they fill only places no other can (N, maxShare, maxNetworkShare; a
    // review: left out, jailed stake went all to one validator against maxShare 50%).
    const notBack = eligible.filter((c) => leftForYield.has(c.address));
    const ranked = [...eligible.filter((c) => !leftForYield.has(c.address)), ...notBack];
    if (ranked.length === 0) {
      // Stake on validators that pay nothing stays there, earning nothing, until one is eligible: said,
      // with what stays elsewhere and why each validator is left out (a staker's trial: "no eligible
      // validator among 6 listed" alone, while 1,001 HYPE sat on a 30%-commission validator; which
      // setting to relax could not be told).
      let idleHeld = ZERO;
      let paidHeld = ZERO;
      for (const d of snapshot.delegations) {
        const v = infos.get(d.validator.toLowerCase());
        if (v === undefined || !earningApr(v, params.statsPeriod).gt(0)) idleHeld = idleHeld.plus(d.amount);
        else paidHeld = paidHeld.plus(d.amount);
      }
      const SHOWN = 8;
      const why = snapshot.validators
        .slice(0, SHOWN)
        .map(
          (v) =>
            `${label(v.address.toLowerCase(), v)} ${exclusion(v) ?? "holds this account's stake under minUptime (it takes no more)"}`,
        );
      const more =
        snapshot.validators.length > SHOWN ? `; and ${snapshot.validators.length - SHOWN} more` : "";
      const stays = [
        ...(idleHeld.gt(0)
          ? [
              `${fmt(idleHeld)} HYPE delegated to validators that pay nothing (jailed, inactive or 0% net APR) stays there, earning nothing, until one is eligible`,
            ]
          : []),
        ...(paidHeld.gt(0)
          ? [`${fmt(paidHeld)} HYPE stays delegated where it is (on validators left out, still paying)`]
          : []),
        ...(snapshot.staking.undelegated.gte(minMove)
          ? [`${fmt(snapshot.staking.undelegated)} HYPE undelegated in staking stays idle, earning nothing`]
          : []),
      ];
      return noted([
        skip(
          name,
          `no eligible validator among ${snapshot.validators.length} listed` +
            (stays.length > 0 ? `: ${stays.join("; ")}` : "") +
            (why.length > 0 ? ` (${why.join("; ")}${more})` : ""),
          "tokenDelegate",
        ),
      ]);
    }

    const lockedUntil = (a: string) => {
      const until = current.get(a)?.lockedUntil ?? 0;
      return until > now ? until : undefined;
    };
    /** When stake delegated to `a` may be moved for yield or balance (minHoldDays after the last delegation). */
    const holdUntil = (a: string) => {
      const until = current.get(a)?.lockedUntil ?? 0;
      if (until <= 0) return undefined;
      // Delegated at lockedUntil − the lock (the venue locks the stake for a day after each delegation).
      const end = until - DELEGATION_LOCK_MS + params.minHoldDays.times(DAY_MS).toNumber();
      return end > now ? Math.round(end) : undefined;
    };

    const decisions: Decision[] = [];

    // What the user did by hand in the last respectManualDays (delegatorHistory).
    const window = params.respectManualDays.times(DAY_MS).toNumber();
    const recent = (snapshot.stakingHistory ?? []).filter((e) => window > 0 && e.time >= now - window);
    let manualUndelegated = ZERO;
    let finalised = ZERO;
    /** When the last of `finalised` is no longer kept on spot. */
    let finalisedUntil = 0;
    // hlbot's own delegations and undelegations (journaled when sent), each matched to one event of the
    // history: what is left is what the user did (a time window, as the venue's time is not the send's).
    const own = new Set<number>();
    for (const m of snapshot.ownStakingMoves ?? []) {
      const i = recent.findIndex(
        (e, k) =>
          !own.has(k) &&
          e.kind === (m.isUndelegate ? "undelegate" : "delegate") &&
          e.validator === m.validator &&
          e.amount.eq(m.amount) &&
          Math.abs(e.time - m.time) <= PAIRED_WITHIN_MS,
      );
      if (i !== -1) own.add(i);
    }
    // And the withdrawals that land from its own cWithdraws (for a sale, or above maxStaked; a treasurer's
    // trial: 754 HYPE withdrawn for a sale the market then called off stayed on spot 7 days more, taken
    // for a withdrawal the user made). Each send is matched to its initiation (same amount, within
    // PAIRED_WITHIN_MS), and that to its landing: withdrawals land in the order they were started (one
    // queue length), so each landing is paired with the oldest initiation of its amount before it. A
    // landing of the same amount the user started earlier is the user's (a review: hlbot's withdrawal
    // claimed it, staked the user's HYPE again, and then held its own).
    const fullHistory = snapshot.stakingHistory ?? [];
    const landingOf = new Map<StakingEvent, StakingEvent>();
    const paid = new Set<StakingEvent>();
    for (const f of fullHistory) {
      if (f.kind !== "withdrawalFinalized") continue;
      const start = fullHistory.find(
        (e) => e.kind === "withdrawalInitiated" && !paid.has(e) && e.amount.eq(f.amount) && e.time <= f.time,
      );
      if (start === undefined) continue;
      paid.add(start);
      landingOf.set(start, f);
    }
    const ownLanded = new Set<StakingEvent>();
    const ownStarts = new Set<StakingEvent>();
    for (const w of snapshot.ownWithdrawals ?? []) {
      const start = fullHistory.find(
        (e) =>
          e.kind === "withdrawalInitiated" &&
          !ownStarts.has(e) &&
          e.amount.eq(w.amount) &&
          Math.abs(e.time - w.time) <= PAIRED_WITHIN_MS,
      );
      if (start === undefined) continue;
      ownStarts.add(start);
      const landed = landingOf.get(start);
      if (landed !== undefined) ownLanded.add(landed);
    }
    // Then moves among the rest: an undelegation followed within PAIRED_WITHIN_MS by a delegation or a
    // withdrawal of the same amount (events of one cycle share a timestamp, so in either order).
    const legs = new Set<number>();
    const paired = new Set<number>();
    for (const [i, e] of recent.entries()) {
      if (e.kind !== "undelegate" || own.has(i)) continue;
      const j = recent.findIndex(
        (n, k) =>
          k !== i &&
          !own.has(k) &&
          !legs.has(k) &&
          n.time >= e.time &&
          n.time - e.time <= PAIRED_WITHIN_MS &&
          (n.kind === "delegate" || n.kind === "withdrawalInitiated") &&
          n.amount.eq(e.amount),
      );
      if (j === -1) continue;
      legs.add(j);
      paired.add(i);
    }
    // HYPE deposited into staking and not yet delegated: a delegation funds from it first.
    let deposited = ZERO;
    for (const [i, e] of recent.entries()) {
      if (e.kind === "withdrawalFinalized" && !ownLanded.has(e)) {
        finalised = finalised.plus(e.amount);
        finalisedUntil = Math.max(finalisedUntil, e.time + window);
      }
      if (e.kind === "deposit") deposited = deposited.plus(e.amount);
      if (legs.has(i) || paired.has(i)) continue;
      if (e.kind === "delegate") {
        const fromDeposit = Decimal.min(deposited, e.amount);
        deposited = deposited.minus(fromDeposit);
        // What the user did next with HYPE they undelegated by hand: staked it again (any validator,
        // any amount, any time later; beyond what a deposit brought): it is no longer theirs to keep idle.
        if (!own.has(i))
          manualUndelegated = Decimal.max(ZERO, manualUndelegated.minus(e.amount.minus(fromDeposit)));
      }
      // Or withdrew it (not a withdrawal of hlbot's own: a review found the user's 200 HYPE delegated
      // again a minute after hlbot withdrew 200 of its own).
      if (e.kind === "withdrawalInitiated" && !ownStarts.has(e))
        manualUndelegated = Decimal.max(ZERO, manualUndelegated.minus(e.amount));
      // An undelegation of hlbot's own whose other leg did not happen (refused, lost, a stop in between)
      // is the bot's to delegate again, not the user's to keep idle.
      if (e.kind === "undelegate" && !own.has(i)) manualUndelegated = manualUndelegated.plus(e.amount);
    }
    const reserved = trunc(Decimal.min(undelegated, manualUndelegated));
    const notes: string[] = [];
    if (reserved.gt(0)) {
      notes.push(
        `${fmt(reserved)} HYPE undelegated by hand in the last ${fmt(params.respectManualDays)} days stays undelegated`,
      );
    }

    // Choose: the N best, but a validator already holding stake keeps its place unless a challenger
    // beats it clearly (hysteresis, keepAgainst). The challenger is the weakest chosen validator that
    // holds less than the incumbent: when two validators holding stake compete for a place, the smaller
    // stake is the one that moves (a move costs a day of rewards on what moves). A trial's 3,000 HYPE
    // moved for 0.009 points because the challenger held 10 HYPE, which once exempted the incumbent.
    const N = params.validators;
    let chosen = ranked.slice(0, N);
    const keepAgainst = (inc: Candidate, ch: Candidate): string | undefined => {
      const hold = holdUntil(inc.address);
      if (hold !== undefined)
        return `held less than minHoldDays ${fmt(params.minHoldDays)} (until ${isoTime(hold)})`;
      if (params.rankBy === "predictedApr") {
        const gain = ch.net.minus(inc.net);
        if (gain.lt(params.minImprovement)) {
          return `${label(ch.address, ch.v)} earns only ${points(gain)} points more net APR, below minImprovement ${fmt(params.minImprovement.times(100), 3)}`;
        }
        if (!gain.times(params.horizonDays).gt(inc.net.times(MOVE_COST_DAYS))) {
          return `the gain over ${fmt(params.horizonDays)} days does not pay for the move (${MOVE_COST_DAYS} day of rewards)`;
        }
        return undefined;
      }
      if (ch.score.lte(inc.score.times(ONE.plus(params.rebalanceThreshold)))) {
        return `${label(ch.address, ch.v)} ranks within ${pct(params.rebalanceThreshold)} of it by ${params.rankBy}`;
      }
      return undefined;
    };
    /** Incumbents outside the N best that keep their place, and why. */
    const kept = new Map<string, string>();
    /** Validators among the N best that hold stake and gave their place to a larger incumbent, and why. */
    const displaced = new Map<string, string>();
    /** Incumbents outside the N best whose stake moves, and why (what beat them). */
    const leaves = new Map<string, string>();
    /** Of `leaves`, those beaten for yield (not moved to keep the count at N): remembered (forYield). */
    const beaten = new Set<string>();
    const beatenBy = (inc: Candidate, ch: Candidate): string =>
      params.rankBy === "predictedApr"
        ? `${label(ch.address, ch.v)} earns ${points(ch.net.minus(inc.net))} points more net APR (minImprovement ${fmt(params.minImprovement.times(100), 3)}), which pays for the move within ${fmt(params.horizonDays)} days`
        : `${label(ch.address, ch.v)} ranks more than ${pct(params.rebalanceThreshold)} higher by ${params.rankBy}`;
    // A validator that gives its place up holding stake contends again in turn (its stake would move:
    // that move must pay too, against the weakest chosen holding less; a trial's 12,158 HYPE moved to a
    // validator of exactly the same net APR).
    const contenders = ranked.slice(N);
    for (let k = 0; k < contenders.length; k++) {
      const inc = contenders[k]!;
      const incHeld = heldAmount(inc.address);
      if (incHeld.lt(minMove)) continue;
      // A validator kept earlier is challengeable too: a larger incumbent later in the ranking may keep
      // the place instead (a trial's 3,000 HYPE moved for 0.07 points because the 1,500 it competed with
      // had been kept against an empty validator first).
      // One kept under minUptime takes no stake: the incumbent's could not move to it.
      const weakest = chosen
        .filter((c) => heldAmount(c.address).lt(incHeld) && !keepOnly.has(c.address))
        .at(-1);
      if (weakest === undefined) {
        leaves.set(
          inc.address,
          `each of the ${chosen.length} validators chosen holds more stake, so the smallest stake moves to keep it on ${N}`,
        );
        continue;
      }
      const why = keepAgainst(inc, weakest);
      if (why === undefined) {
        leaves.set(inc.address, beatenBy(inc, weakest));
        beaten.add(inc.address);
        continue;
      }
      kept.set(inc.address, why);
      kept.delete(weakest.address);
      displaced.delete(inc.address);
      const weakHeld = heldAmount(weakest.address);
      if (weakHeld.gte(minMove)) {
        contenders.push(weakest);
        displaced.set(
          weakest.address,
          `${label(weakest.address, weakest.v)} (${netText(weakest.v)}) holds ${fmt(weakHeld)} HYPE and gives its place among the ${N} to ${label(inc.address, inc.v)}, which holds ${fmt(incHeld)} and keeps it (${why})`,
        );
      }
      chosen = [...chosen.filter((c) => c !== weakest), inc].sort(
        (a, b) => ranked.indexOf(a) - ranked.indexOf(b),
      );
    }

    // maxShare: spread over more validators when N of them cannot hold the whole stake.
    if (params.maxShare !== undefined) {
      const need = Math.ceil(ONE.div(params.maxShare).toNumber() - 1e-9);
      for (const c of ranked) {
        if (chosen.length >= need) break;
        if (!chosen.includes(c)) chosen.push(c);
      }
      if (chosen.length < need && chosen.length > 0)
        notes.push(
          `only ${chosen.length} eligible validators for maxShare ${pct(params.maxShare)}: the stake goes to them as evenly as they allow (up to ${pct(ONE.div(chosen.length))} each)`,
        );
    }
    if (chosen.length < N) notes.push(`only ${chosen.length} of ${N} wanted validators are eligible`);
    const heldBack = notBack.filter((c) => !chosen.includes(c));
    if (heldBack.length > 0)
      notes.push(
        `not moved back to for yield before horizonDays ${fmt(params.horizonDays)} have passed since stake left it: ${heldBack
          .map(
            (c) =>
              `${label(c.address, c.v)} ${netText(c.v)} (left ${isoTime(leftForYield.get(c.address)!)}, until ${isoTime(leftForYield.get(c.address)! + horizonMs)})`,
          )
          .join(", ")}`,
      );
    // A validator paying more than the chosen that a rule leaves out, said with the rule (a staker read
    // a week of stake on a 1.73% validator beside a 2.33% one as a wrong choice: its uptime after a jail
    // kept it out). Active, unjailed ones only: jailed and inactive ones are said where stake leaves them.
    const lowest = chosen.reduce<Decimal | undefined>(
      (m, c) => (m === undefined || c.net.lt(m) ? c.net : m),
      undefined,
    );
    if (lowest !== undefined) {
      const better = snapshot.validators
        .filter((v) => v.isActive && !v.isJailed && adjustedApr(v, params).gt(lowest))
        .flatMap((v) => {
          const why = exclusion(v);
          return why === undefined ? [] : [{ v, why }];
        })
        .sort((a, b) => adjustedApr(b.v, params).cmp(adjustedApr(a.v, params)))
        .slice(0, 2);
      if (better.length > 0)
        notes.push(
          `left out though paying more: ${better.map(({ v, why }) => `${label(v.address.toLowerCase(), v)} ${netText(v)} ${why}`).join(", ")}`,
        );
    }

    // The user's cap on the stake: withdraw the excess first (idle stake, then the worst delegations).
    let staked = delegated.plus(undelegated);
    /** HYPE this run undelegates for its withdrawal: it counts in maxMovePerRun. */
    let movedByWithdrawal = ZERO;
    // Or less, what a rebalancer's sale lacks (withdrawForSales): a year of the shipped strategies left a
    // 50/50 rebalancer at 62 to 67% HYPE for months, everything above keepSpot staked and never withdrawn.
    const sale = params.withdrawForSales ? saleShortfall(snapshot) : undefined;
    // Stake a sale will take (withdrawForSales): what it lacks now, or a sale its sell floor holds that
    // spot and the pending withdrawals do not cover. The chosen validators are not evened out meanwhile:
    // a move locks what it moves for a day, and the withdrawal waits for the lock (an exiting holder's
    // trial: with the floor holding the sale, 3,328 HYPE were spread to a validator holding nothing, then
    // withdrawn days later; after each withdrawal 1 to 47 HYPE were evened out, locking the next one).
    // Stake still moves for yield (its gain beats a day's rewards) and off a validator that must be
    // left: a review's floor held a sale for weeks while 10,000 HYPE sat on a validator gone to 95%
    // commission.
    const floorHeld = params.withdrawForSales
      ? (snapshot.plannedHypeSales ?? []).find(
          (p) =>
            p.heldBy === "its sell floor" &&
            p.size.gt(
              (snapshot.balances.get(STAKING_TOKEN)?.available ?? ZERO).plus(
                snapshot.staking.totalPendingWithdrawal,
              ),
            ),
        )
      : undefined;
    const stakeForSale = sale?.short.gte(minMove)
      ? { strategy: sale.strategy, held: false }
      : floorHeld !== undefined
        ? { strategy: floorHeld.strategy, held: true }
        : undefined;
    let stakeCap = params.maxStaked;
    let capText = `maxStaked ${fmt(params.maxStaked ?? ZERO)}`;
    let forSale = false;
    if (sale?.short.gte(minMove) && (stakeCap === undefined || staked.minus(sale.short).lt(stakeCap))) {
      stakeCap = trunc(Decimal.max(ZERO, staked.minus(sale.short)));
      forSale = sale.short.gte(sale.worth);
      const sells =
        sale.toBand === undefined
          ? `would sell ${fmt(trunc(sale.sells))} before it is back within its band`
          : `would sell ${fmt(trunc(sale.toBand))} before it is back within its band, ${fmt(trunc(sale.sells))} of it by the time a withdrawal now is back and ${PACE_GAP_DAYS + PACE_MARGIN_DAYS} days more at its pace (its runs, limits.maxOrderUsd and maxDailyNotionalUsd; the rest is withdrawn later)`;
      capText = `what leaves ${sale.strategy} HYPE to sell (withdrawForSales: it is ${fmt(trunc(sale.over))} HYPE over its target and ${sells}, spot holds ${fmt(sale.spot)}${sale.back.gt(0) ? ` and ${fmt(sale.back)} is on its way back from the withdrawal queue` : ""})`;
    }
    let forWithdrawal = ZERO;
    /**
     * The stake is over maxStaked and nothing of it can be withdrawn now: the chosen validators are not
     * evened out meanwhile (a year-long trial: with the queue full, 30 HYPE a day moved between validators,
     * each move re-locking its receiver for a day, of stake withdrawn days later); stake that must leave
     * its validator still does.
     */
    let withdrawalBlocked = false;
    /** This run withdraws stake above the cap: the chosen validators are not evened out in it either. */
    let withdrawing = false;
    // A withdrawal holds one of the venue's few queue places for 7 days: rewards creeping over the cap
    // are withdrawn one withdrawal at a time (none while another is pending), not a few HYPE each run; an
    // excess of rebalanceThreshold of the cap (a cap lowered, a large deposit) is withdrawn at once. A
    // sale's shortfall goes at once when worth a queue place (half a piece of it: HYPE the rebalancer
    // will sell; waiting for the queue held it over its band for days), a smaller one waits (what is on
    // its way back counts in it, and a rise adding a few HYPE each run took a place each: 2.79 HYPE).
    const over = stakeCap === undefined ? ZERO : staked.minus(stakeCap);
    const waiting = snapshot.staking.nPendingWithdrawals > 0;
    // maxStaked's excess is large against maxStaked itself: against a cap a sale sets (what is staked less
    // what the sale lacks), an exit's cap near 0 made every few HYPE "large", and 6 to 15 HYPE went out
    // beside two pending withdrawals (an exiting holder's trial); a sale's is large when worth a place.
    const maxStaked = params.maxStaked;
    const large =
      stakeCap !== undefined &&
      (forSale ||
        (maxStaked !== undefined &&
          staked.minus(maxStaked).gte(trunc(maxStaked.times(params.rebalanceThreshold)))));
    if (stakeCap !== undefined && over.gte(minMove) && waiting && !large) {
      notes.push(
        `${fmt(trunc(over))} HYPE above ${capText}, withdrawn once the pending withdrawal(s) are done`,
      );
      forWithdrawal = trunc(Decimal.min(undelegated.minus(reserved), over));
    }
    if (stakeCap !== undefined && over.gte(minMove) && (!waiting || large)) {
      const why = `${fmt(staked)} HYPE staked, above ${capText}`;
      const out = unstake(
        snapshot,
        params,
        name,
        trunc(over),
        why,
        reserved,
        current,
        infos,
        ranked,
        chosen,
        lockedUntil,
      );
      if (out.some((d) => d.kind !== "skip")) {
        // The run goes on with the withdrawal's undelegations taken out of what each validator holds, so
        // stake that must leave its validator (jailed, inactive, excluded) still moves in this run: a
        // staker's trial (maxStaked, a daily schedule) withdrew 1 HYPE off a jailed validator and left the
        // other 499.5 there, earning nothing, until the next day's run. Deposits stop at the cap below.
        decisions.push(...out);
        let undelegating = ZERO;
        let withdrawn = ZERO;
        for (const d of out) {
          if (d.kind === "tokenDelegate" && d.isUndelegate) {
            const held = current.get(d.validator);
            if (held !== undefined)
              current.set(d.validator, { ...held, amount: held.amount.minus(d.amount) });
            undelegating = undelegating.plus(d.amount);
          } else if (d.kind === "cWithdraw") withdrawn = withdrawn.plus(d.amount);
        }
        delegated = delegated.minus(undelegating);
        // What the withdrawal takes of the stake already undelegated (the rest is what it undelegates).
        forWithdrawal = trunc(Decimal.max(ZERO, withdrawn.minus(undelegating)));
        staked = staked.minus(withdrawn);
        movedByWithdrawal = undelegating;
        withdrawing = true;
      } else {
        // Nothing can be withdrawn now (the queue is full, the excess locked): the run goes on without it
        // (a jailed validator is still left), deposits stop at maxStaked below, and idle stake up to the
        // excess stays idle for the withdrawal to come (delegated, it would be locked for a day).
        decisions.push(...out);
        forWithdrawal = trunc(Decimal.min(undelegated.minus(reserved), over));
        withdrawalBlocked = true;
      }
    }

    // Stake that must leave its validator (jailed, inactive, no longer listed, or excluded by a limit) and
    // can now: a per-run cap is spent on it before idle spot HYPE is deposited (a staker's trial: 600k HYPE
    // on a jailed validator waited 18 days behind 5,000-HYPE deposits each run). It counts twice: its
    // undelegation and its delegation.
    const chosenNow = new Set(chosen.map((c) => c.address));
    let mustLeave = ZERO;
    for (const [a, c] of current) {
      if (chosenNow.has(a) || keepOnly.has(a) || !c.amount.gt(0) || lockedUntil(a) !== undefined) continue;
      const info = infos.get(a);
      if (info === undefined || exclusion(info) !== undefined) mustLeave = mustLeave.plus(c.amount);
    }

    // Idle spot HYPE next: the delegations below may use it in the same run.
    let deposit = ZERO;
    let depositIntent: CDepositIntent | undefined;
    /** Spot HYPE there is, all of it kept on spot: said when nothing is staked either. */
    let spotKept: string | undefined;
    if (params.stakeIdleSpot?.enabled) {
      const spot = snapshot.balances.get(STAKING_TOKEN)?.available ?? ZERO;
      const keep = params.stakeIdleSpot.keepSpot.plus(finalised);
      let extra = trunc(spot.minus(keep));
      let capNote = "";
      if (stakeCap !== undefined && extra.gt(stakeCap.minus(staked))) {
        extra = trunc(Decimal.max(ZERO, stakeCap.minus(staked)));
        capNote = `, up to ${capText}`;
      }
      // No more than this run delegates (maxMovePerRun, after the idle stake already there): staked
      // HYPE left undelegated earns nothing and takes 7 days to come back to spot; the rest waits on spot.
      let movedLater = false;
      if (params.maxMovePerRun !== undefined) {
        const idle = Decimal.max(ZERO, undelegated.minus(reserved));
        const room = trunc(Decimal.max(ZERO, params.maxMovePerRun.minus(idle).minus(mustLeave.times(2))));
        if (extra.gt(room)) {
          movedLater = true;
          capNote += `, ${fmt(room)} of ${fmt(extra)} now: what this run delegates (maxMovePerRun ${fmt(params.maxMovePerRun)}${mustLeave.gt(0) ? `, after the ${fmt(mustLeave)} HYPE that must leave its validator` : ""}), the rest at later runs`;
          extra = room;
        }
      }
      // HYPE being sold (a rebalancer bringing HYPE back to its weight, a DCA selling) is not staked
      // under the seller: staked, it takes the unstaking queue (7 days on mainnet) to come back, and the
      // seller finds nothing to sell at its next run (a trial's rebalancer stayed 15 points overweight
      // for a month). Kept on spot: what the running sells would sell over that queue at their pace
      // (size / duration), so a long, small sell does not hold back everything.
      const sells = spotSellsOf(snapshot, STAKING_TOKEN);
      // And what a rebalancer of the account would sell now (not placed yet: its slot is later, or it
      // waits behind a limit), in full: staked, it could not be sold when its TWAP goes out.
      const planned = snapshot.plannedHypeSales ?? [];
      const forSales = trunc(
        sells
          .reduce((a, t) => a.plus(t.size.times(UNSTAKING_QUEUE_MINUTES).div(t.minutes)), ZERO)
          .plus(planned.reduce((a, p) => a.plus(p.size), ZERO)),
      );
      if (forSales.gt(0) && extra.gt(0)) {
        const running = sells
          .map(
            (t) =>
              `${t.twapId === undefined ? "a TWAP" : `#${t.twapId}`}: ${fmt(t.size)} HYPE over ${t.minutes} min${t.waiting ? " once its trigger price is reached" : ""}`,
          )
          .join(", ");
        const held = Decimal.min(extra, forSales);
        extra = trunc(extra.minus(held));
        movedLater = false;
        // The sales' pace, not their size: a rebalancer's sale is followed by the next one, and staked
        // HYPE would take the queue to come back for it. (A trial read "would sell 33600 HYPE" about a
        // 200-HYPE sale as a wrong figure: the words now say what is held and why.) A planned sale (not
        // placed yet) is held in full.
        const reasons = [
          ...(sells.length > 0
            ? [
                `while HYPE is being sold (${running}): at that pace the sales could use it before staked HYPE came back through the unstaking queue (7 days on mainnet)`,
              ]
            : []),
          ...(planned.length > 0
            ? [
                `for the sale ${planned.map((p) => (p.heldBy === undefined ? `${p.strategy} would make now (${fmt(p.size)} HYPE)` : `${p.strategy} would make (${fmt(p.size)} HYPE, held now by ${p.heldBy})`)).join(" and ")}: staked, it could not be sold when that sale goes out`,
              ]
            : []),
        ];
        const why = `${fmt(held)} idle spot HYPE stays on spot ${reasons.join("; and ")}`;
        if (extra.gt(0)) capNote += `; ${why}`;
        else decisions.push(skip(name, why, "cDeposit"));
      }
      const kept =
        `keeping ${fmt(params.stakeIdleSpot.keepSpot)} on spot${floorText(snapshot.balances.get(STAKING_TOKEN))}` +
        (finalised.gt(0)
          ? ` plus ${fmt(finalised)} HYPE withdrawn in the last ${fmt(params.respectManualDays)} days`
          : "");
      // Said whenever it keeps HYPE on spot, not only when nothing is staked (a treasurer's 254 HYPE
      // waited 7 days under "nothing to move").
      let keptForUser = Decimal.min(finalised, spot.minus(params.stakeIdleSpot.keepSpot));
      // Not what maxStaked would keep on spot anyway.
      if (stakeCap !== undefined) keptForUser = Decimal.min(keptForUser, stakeCap.minus(staked));
      keptForUser = trunc(keptForUser);
      if (keptForUser.gt(0))
        notes.push(
          `${fmt(keptForUser)} HYPE back on spot from a withdrawal not made by hlbot stays there for respectManualDays ${fmt(params.respectManualDays)} after it landed (until ${isoTime(finalisedUntil)} for the last of it)`,
        );
      if (extra.gte(minMove)) {
        deposit = extra;
        // Decided after the moves of stake that must leave (a daily cap, applied in order, is spent on them first).
        depositIntent = {
          kind: "cDeposit",
          strategy: name,
          amount: extra,
          reason: `move ${fmt(extra)} idle spot HYPE into staking (${kept}${capNote})`,
        };
      } else if (movedLater) {
        decisions.push(
          skip(
            name,
            `idle spot HYPE stays on spot this run: maxMovePerRun ${fmt(params.maxMovePerRun ?? ZERO)} is used by ${[
              ...(mustLeave.gt(0) ? [`the ${fmt(mustLeave)} HYPE that must leave its validator`] : []),
              ...(undelegated.minus(reserved).gt(0) || mustLeave.isZero()
                ? ["the stake already undelegated"]
                : []),
            ].join(" and ")}`,
            "cDeposit",
          ),
        );
      } else if (extra.gt(0)) {
        decisions.push(
          skip(
            name,
            `${fmt(extra)} idle spot HYPE is below minMove ${fmt(minMove)}: not staked yet`,
            "cDeposit",
          ),
        );
      } else if (spot.gt(0) && !spot.gt(keep)) {
        // The floors add up (keepSpot is kept above limits.keepOnSpot): a small account read "no HYPE
        // available to stake" with 12 HYPE on spot.
        spotKept = `the ${fmt(spot)} HYPE on spot is all kept there (${kept})`;
      }
    }

    const pool0 = trunc(Decimal.max(ZERO, undelegated.minus(reserved).minus(forWithdrawal)).plus(deposit));
    networkAfter = networkStake + BigInt(pool0.times(10 ** STAKE_DECIMALS).toFixed(0));
    // What validators kept under minUptime hold stays there; outside the split when they hold too
    // little to keep a place among the N.
    let keptAside = ZERO;
    const asideOf = new Set<string>();
    for (const a of keepOnly) {
      const held = heldAmount(a);
      if (!held.gt(0)) continue;
      const inSplit = chosen.some((c) => c.address === a);
      if (!inSplit && ranked.some((c) => c.address === a)) continue; // lost its place: it moves
      if (!inSplit) {
        keptAside = keptAside.plus(held);
        asideOf.add(a);
      }
      const v = infos.get(a);
      const per = params.minUptime?.period ?? "week";
      notes.push(
        `${label(a, v)} keeps its ${fmt(held)} HYPE but takes no more: ${per} uptime ${v ? pct(v.stats[per].uptimeFraction) : "?"}, under minUptime ${pct(params.minUptime?.fraction ?? ONE)} (left below half its allowed downtime more)`,
      );
    }
    const total = delegated.minus(keptAside).plus(pool0);
    if (!total.gt(0))
      return noted([
        ...decisions,
        skip(
          name,
          `no HYPE staked or available to stake${spotKept === undefined ? "" : `: ${spotKept}`}`,
          "tokenDelegate",
        ),
      ]);

    // Targets, truncated to wei so they never add up to more than the stake.
    // Too few eligible validators to hold the stake under maxShare: each takes an even share instead.
    // Stake left on a jailed validator, or idle in staking, earns nothing; a larger share on an active
    // validator earns (a trader's jailed stake stayed 80 days, and half a deposit sat undelegated).
    const cap =
      params.maxShare === undefined
        ? undefined
        : Decimal.max(total.times(params.maxShare), chosen.length > 0 ? total.div(chosen.length) : ZERO);
    const { weights, byScore } = allocationWeights(chosen, params);
    if (params.allocation === "score" && !byScore) notes.push("all scores are 0: split equally");
    const targets = new Map<string, Decimal>();
    // What each chosen validator may hold: maxShare, and what keeps it within maxNetworkShare (what it
    // holds now, and the room left under the limit: a delegation never takes it over).
    const capFor = (c: Candidate): Decimal | undefined => {
      if (keepOnly.has(c.address)) return heldAmount(c.address);
      const room = networkRoom(c.v);
      const byNetwork = room === undefined ? undefined : heldAmount(c.address).plus(room);
      if (cap === undefined) return byNetwork;
      return byNetwork === undefined ? cap : Decimal.min(cap, byNetwork);
    };
    let rest = total;
    let open = [...chosen];
    for (;;) {
      const wsum = open.reduce((s, c) => s.plus(weights.get(c.address) ?? ZERO), ZERO);
      if (!wsum.gt(0)) break;
      const shareOf = (c: Candidate) => rest.times(weights.get(c.address) ?? ZERO).div(wsum);
      const over = open.filter((c) => {
        const k = capFor(c);
        return k !== undefined && shareOf(c).gt(k);
      });
      if (over.length === 0) {
        for (const c of open) targets.set(c.address, trunc(shareOf(c)));
        break;
      }
      for (const c of over) {
        const k = trunc(capFor(c)!);
        targets.set(c.address, k);
        rest = rest.minus(k);
      }
      open = open.filter((c) => !over.includes(c));
      if (open.length === 0 && rest.gte(minMove)) {
        // The chosen cannot hold the rest (maxNetworkShare, or kept under minUptime for what they
        // hold): the next eligible validators with room take it, as maxShare adds validators (a
        // review's two validators at 19.99% took 50,000 HYPE over the limit while one at 10% stood by).
        const next = ranked.find(
          (c) => !chosen.includes(c) && !keepOnly.has(c.address) && (networkRoom(c.v) ?? rest).gte(minMove),
        );
        if (next !== undefined) {
          chosen.push(next);
          // Alone in the open set: its weight's size does not matter, only that it is not 0 (a score of
          // 0 left most of the stake without a target, idle, a review found).
          weights.set(next.address, ONE);
          open = [next];
          notes.push(
            `${label(next.address, next.v)} added: the validators chosen take no more (maxNetworkShare ${pct(params.maxNetworkShare ?? ZERO)})`,
          );
          continue;
        }
      }
      if (open.length === 0) {
        // No room left under maxNetworkShare anywhere: the rest is spread over the chosen anyway
        // (idle, it would earn nothing), and said.
        if (rest.gte(minMove)) {
          notes.push(
            `maxNetworkShare ${pct(params.maxNetworkShare ?? ZERO)} leaves no room on any eligible validator for ${fmt(trunc(rest))} HYPE: spread over the chosen anyway`,
          );
          const each = rest.div(chosen.length);
          for (const c of chosen) targets.set(c.address, trunc((targets.get(c.address) ?? ZERO).plus(each)));
        }
        break;
      }
    }
    for (const c of chosen) if (!targets.has(c.address)) targets.set(c.address, ZERO);

    if (pool0.gt(0) && pool0.lt(minMove))
      notes.push(`${fmt(pool0)} HYPE idle is below minMove ${fmt(minMove)}`);
    const chosenText = chosen.map((c) => `${label(c.address, c.v)} ${netText(c.v)}`).join(", ");
    const split =
      `${fmt(total)} HYPE to stake over ${chosen.length} validator(s) by ${params.rankBy === "predictedApr" ? "net APR" : params.rankBy}, ${params.allocation} split: ${chosenText}` +
      (notes.length ? ` (${notes.join("; ")})` : "");

    // Sources of delegated stake to move, in order: must leave, lost its place, above target.
    // `leaving`: stake on a validator that must be left (jailed, inactive, gone, excluded): moved before
    // the idle pool, with the cap reserved for it (mustLeave); stake over maxShare is forced too but moves
    // after the pool (its cap was not reserved: a review's deposit went out with no delegation left for it).
    /** `evening`: a chosen validator's excess over its target (not stake leaving a validator not chosen). */
    const sources: Array<{
      address: string;
      amount: Decimal;
      why: string;
      forced: boolean;
      leaving?: true;
      evening?: true;
      /** Beaten by a better validator (not forced, not evening out, not the count): a move for yield. */
      forYield?: true;
    }> = [];
    const chosenSet = new Set(chosen.map((c) => c.address));
    // Worst paid first (jailed, inactive or no longer listed: nothing), then the larger stake: a per-run
    // or daily cap is spent on stake earning nothing before stake that still earns (a trial's jailed
    // 10,000 HYPE waited 14 days behind a slightly larger stake on a 15%-commission validator).
    const leaving = [...current.entries()]
      .filter(([a, c]) => !chosenSet.has(a) && c.amount.gt(0))
      .sort(
        ([a1, c1], [a2, c2]) =>
          paidOn(a1, infos, params).cmp(paidOn(a2, infos, params)) ||
          c2.amount.cmp(c1.amount) ||
          (a1 < a2 ? -1 : 1),
      );
    for (const [a, c] of leaving) {
      if (asideOf.has(a)) continue; // stays, said in the split
      const info = infos.get(a);
      const excluded = info === undefined ? "is no longer listed by the venue" : exclusion(info);
      const lock = lockedUntil(a);
      if (excluded !== undefined) {
        const why = `${label(a, info)} ${excluded}`;
        if (lock !== undefined) {
          decisions.push(
            skip(name, `${why}: its stake is locked until ${isoTime(lock)}; ${split}`, "tokenDelegate"),
          );
          continue;
        }
        sources.push({ address: a, amount: c.amount, why, forced: true, leaving: true });
        continue;
      }
      const why =
        displaced.get(a) ??
        `${label(a, info)} (${netText(info!)}) is not among the ${N} best${leaves.has(a) ? `: ${leaves.get(a)}` : ""}`;
      const hold = holdUntil(a);
      if (lock !== undefined || hold !== undefined) {
        decisions.push(
          skip(
            name,
            `${why}: its stake is held until ${isoTime(lock ?? hold ?? 0)} (lock, minHoldDays); ${split}`,
            "tokenDelegate",
          ),
        );
        continue;
      }
      if (c.amount.lt(minMove)) continue;
      sources.push({
        address: a,
        amount: c.amount,
        why,
        ...(beaten.has(a) ? { forYield: true as const } : {}),
        forced: false,
      });
    }
    for (const c of chosen) {
      const have = heldAmount(c.address);
      const target = targets.get(c.address) ?? ZERO;
      const excess = trunc(have.minus(target));
      if (!excess.gte(minMove)) continue;
      const overCap = cap !== undefined && have.gt(cap);
      if (!overCap && !excess.gt(target.times(params.rebalanceThreshold))) continue;
      if (!overCap && (withdrawalBlocked || withdrawing)) {
        decisions.push(
          skip(
            name,
            `${label(c.address, c.v)} holds ${fmt(have)} HYPE, target ${fmt(target)}: not evened out ${withdrawing ? `in a run that withdraws the stake above ${capText} (evened out at a later run)` : `while the stake above ${capText} waits to be withdrawn`}`,
            "tokenDelegate",
          ),
        );
        continue;
      }
      if (!overCap && stakeForSale !== undefined) {
        decisions.push(
          skip(
            name,
            `${label(c.address, c.v)} holds ${fmt(have)} HYPE, target ${fmt(target)}: not evened out, ${notMovedForSale(stakeForSale)}`,
            "tokenDelegate",
          ),
        );
        continue;
      }
      const hold = lockedUntil(c.address) ?? (overCap ? undefined : holdUntil(c.address));
      const why = `${label(c.address, c.v)} holds ${fmt(have)} HYPE, target ${fmt(target)}${overCap ? ` (above maxShare ${pct(params.maxShare!)})` : ""}`;
      if (hold !== undefined) {
        decisions.push(skip(name, `${why}: held until ${isoTime(hold)}; ${split}`, "tokenDelegate"));
        continue;
      }
      sources.push({
        address: c.address,
        amount: excess,
        why,
        forced: overCap,
        ...(overCap ? {} : { evening: true as const }),
      });
    }

    // Sinks: chosen validators under target, most under target first.
    const deficits = chosen
      .map((c) => ({ c, left: trunc((targets.get(c.address) ?? ZERO).minus(heldAmount(c.address))) }))
      .filter((d) => d.left.gt(0))
      .sort((a, b) => b.left.cmp(a.left) || ranked.indexOf(a.c) - ranked.indexOf(b.c));
    /**
     * Splits `amount` over the sinks, never a piece below minMove (small pieces join the first one).
     * `whole`: all of `amount` must go (stake leaving a validator): a rounding residue the truncated
     * deficits leave over joins the first piece, so no dust stays behind on a validator being left.
     */
    /** What `d` may take and stay within its band: its deficit and rebalanceThreshold of its target. */
    const room = (d: { c: { address: string }; left: Decimal }) =>
      d.left.plus((targets.get(d.c.address) ?? ZERO).times(params.rebalanceThreshold));
    const allocate = (
      amount: Decimal,
      whole = false,
      join = true,
      /**
       * A move only to even the stake out (not stake that must go, nor the idle pool): all of it is not
       * put on one validator past its band (a small account's trial: 8 HYPE moved from the best validator
       * to the second, leaving it 8 against a target of 4, as uneven as before, for a day's lock).
       */
      evening = false,
    ): Array<{ to: string; amount: Decimal }> => {
      const pieces: Array<{ to: string; amount: Decimal }> = [];
      let left = amount;
      let dust = ZERO;
      // Pieces a validator within its band is short by join the first piece too, while that one stays
      // within its own band and caps (a staker's 9,067 HYPE leaving went 8,932.67 to one validator and
      // about 34 to each of four others: five moves, each re-locking about 9,000 HYPE for a day).
      let joined = ZERO;
      const firstC = deficits[0]?.c;
      const mayJoin = (take: Decimal): boolean => {
        const first = pieces[0];
        if (!join || first === undefined || firstC === undefined || firstC.address !== first.to) return false;
        const more = joined.plus(take);
        return (
          isSmall(more) &&
          more.lte((targets.get(first.to) ?? ZERO).times(params.rebalanceThreshold)) &&
          fitsCaps(firstC, first.amount.plus(more).plus(dust))
        );
      };
      for (const d of deficits) {
        if (!left.gt(0)) break;
        const take = trunc(Decimal.min(left, d.left));
        if (!take.gt(0)) continue;
        left = left.minus(take);
        if (take.lt(minMove)) dust = dust.plus(take);
        else if (mayJoin(take)) joined = joined.plus(take);
        else pieces.push({ to: d.c.address, amount: take });
      }
      // The dust joins the first piece too: with what joined, it must still fit its caps, or nothing joins
      // (a review: what earlier sources of the run had put on it was not counted, and it went over maxShare).
      if (
        joined.gt(0) &&
        firstC !== undefined &&
        !fitsCaps(firstC, pieces[0]!.amount.plus(joined).plus(dust))
      )
        return allocate(amount, whole, false, evening);
      dust = dust.plus(joined);
      // Only a rounding residue (below minMove) joins; more than that stays for lack of room.
      const residue = whole && left.gt(0) && left.lt(minMove);
      if (residue) dust = dust.plus(left);
      if (pieces.length === 0) {
        const first = deficits[0];
        const all = trunc(amount.minus(residue ? ZERO : left));
        if (evening && first !== undefined && all.gt(room(first))) return [];
        return first && all.gte(minMove) ? [{ to: first.c.address, amount: all }] : [];
      }
      pieces[0]!.amount = pieces[0]!.amount.plus(dust);
      return pieces;
    };
    /** What this run has planned onto each validator so far. */
    const planned = new Map<string, Decimal>();
    const use = (to: string, amount: Decimal) => {
      for (const d of deficits) if (d.c.address === to) d.left = Decimal.max(ZERO, d.left.minus(amount));
      planned.set(to, (planned.get(to) ?? ZERO).plus(amount));
    };

    /**
     * Whether `amount` more on `c`, beyond what this run already planned onto it, keeps it within
     * maxNetworkShare and maxShare, and takes none to one kept only for what it holds (a small amount goes
     * in one piece, past its target: a review's 100 HYPE moved off a jailed validator took one 40 HYPE
     * over the limit; another's second piece onto a validator already filled this run, over maxShare,
     * was moved off again over three days).
     */
    const fitsCaps = (c: Candidate, amount: Decimal, share = true): boolean => {
      const more = (planned.get(c.address) ?? ZERO).plus(amount);
      return (
        !keepOnly.has(c.address) &&
        more.lte(networkRoom(c.v) ?? more) &&
        (!share || cap === undefined || heldAmount(c.address).plus(more).lte(cap))
      );
    };
    /** Within rebalanceThreshold of an average target: one validator can take it without leaving its band. */
    const isSmall = (amount: Decimal) =>
      amount.lte(total.div(chosen.length).times(params.rebalanceThreshold));
    let capLeft =
      params.maxMovePerRun === undefined
        ? undefined
        : Decimal.max(ZERO, params.maxMovePerRun.minus(movedByWithdrawal));
    const capReason = (pair = false) =>
      `maxMovePerRun ${fmt(params.maxMovePerRun ?? ZERO)} HYPE reached this run` +
      (pair ? " (a move between validators counts twice: its undelegation and its delegation)" : "");
    const transfers: Transfer[] = [];

    // Delegated stake that must or should move, each undelegation paired with the delegation it funds.
    // Stake that must move (it earns nothing, or breaks a limit) goes first, before the idle pool and the
    // deposit funding it: a per-run or daily cap is spent on it before anything else (a trial's jailed
    // stake waited three days behind a yield move of a larger stake; a staker's, 18 days behind deposits).
    const move = (list: typeof sources) => {
      for (const s of list) {
        let amount = s.amount;
        if (capLeft !== undefined) amount = trunc(Decimal.min(amount, capLeft.div(2)));
        const whole = s.forced && amount.eq(s.amount);
        // One delegation for a small amount (each re-locks its validator's whole stake for a day), and for
        // the remainder below minMove on a validator that must be left (a cap cut the earlier move short):
        // there it earns nothing, and waiting for it to grow would wait for good.
        const first = deficits.find((d) => d.left.gt(0));
        // A remainder below minMove may go past maxShare by less than minMove: it could never be moved
        // back (a review: with every target at the cap, 4 HYPE on a jailed validator stayed there for good).
        const single =
          first !== undefined &&
          amount.gt(0) &&
          ((isSmall(amount) &&
            amount.gte(minMove) &&
            fitsCaps(first.c, amount) &&
            (s.evening !== true || amount.lte(room(first)))) ||
            (whole && amount.lt(minMove) && fitsCaps(first.c, amount, false)));
        const pieces = single
          ? [{ to: first.c.address, amount }]
          : allocate(amount, whole, true, s.evening === true);
        if (pieces.length === 0 && whole && amount.lt(minMove)) {
          decisions.push(
            skip(
              name,
              `${s.why}: the ${fmt(amount)} HYPE left on it is below minMove ${fmt(minMove)}; ${split}`,
              "tokenDelegate",
            ),
          );
          continue;
        }
        if (pieces.length === 0) {
          decisions.push(
            skip(
              name,
              `${s.why}: ${
                amount.lt(s.amount) && amount.lt(minMove)
                  ? capReason(true)
                  : first === undefined || s.evening !== true
                    ? "no chosen validator is under its target to take it"
                    : `the validators under their targets each lack less than minMove ${fmt(minMove)}, and all of it on ${label(first.c.address, first.c.v)} would leave that one as far past its target: kept`
              }; ${split}`,
              "tokenDelegate",
            ),
          );
          continue;
        }
        for (const p of pieces) {
          use(p.to, p.amount);
          if (capLeft !== undefined) capLeft = capLeft.minus(p.amount.times(2));
          transfers.push({
            from: s.address,
            to: p.to,
            amount: p.amount,
            why: s.why + (amount.lt(s.amount) ? ` (limited: ${capReason(true)})` : ""),
            ...(s.forYield === true ? { forYield: true as const } : {}),
          });
        }
      }
    };

    // 1. Stake that must leave its validator.
    move(sources.filter((x) => x.leaving));
    const forcedTransfers = transfers.length;

    // 2. The idle pool is always delegated (whatever rebalanceThreshold says), to the validators most under target.
    if (pool0.gte(minMove)) {
      // A small pool goes to the one validator most under target: each delegation re-locks that
      // validator's whole stake for a day, so fewer is better; the overshoot stays within the threshold.
      const small = isSmall(pool0);
      // The stake that had to move went first and may have filled the most-under-target validator.
      const first = deficits.find((d) => d.left.gt(0)) ?? deficits[0];
      // In one piece only where it fits (the overshoot of its target may not).
      const fits = first !== undefined && fitsCaps(first.c, pool0);
      // Whole: the rounding residue of an equal split joins the first piece (a small account's trial: 10 HYPE
      // over 3 left 0.00000001 idle for good, named in every staking reason).
      const pieces =
        small && first && fits ? [{ to: first.c.address, amount: pool0 }] : allocate(pool0, true);
      if (pieces.length === 0 && deficits.length === 0) {
        // Every chosen validator is at its target (rounding): the idle stake goes to the best one.
        pieces.push({ to: chosen[0]!.address, amount: pool0 });
      }
      for (const p of pieces) {
        let amount = p.amount;
        if (capLeft !== undefined) amount = trunc(Decimal.min(amount, capLeft));
        if (amount.lt(minMove)) {
          decisions.push(
            skip(
              name,
              `delegate idle HYPE to ${label(p.to, infos.get(p.to))}: ${capReason()}`,
              "tokenDelegate",
            ),
          );
          continue;
        }
        if (capLeft !== undefined) capLeft = capLeft.minus(amount);
        use(p.to, amount);
        transfers.push({
          to: p.to,
          amount,
          why:
            `delegate idle stake (${fmt(pool0)} HYPE undelegated${deposit.gt(0) ? ", deposit included" : ""})` +
            (amount.lt(p.amount) ? ` (limited: ${capReason()})` : ""),
        });
      }
    }

    // 3. Stake above maxShare, then stake that should move for yield or balance.
    move(sources.filter((x) => !x.leaving && x.forced));
    move(sources.filter((x) => !x.forced));

    for (const [i, t] of transfers.entries()) {
      if (i === forcedTransfers && depositIntent !== undefined) decisions.push(depositIntent);
      const toInfo = infos.get(t.to);
      const toText = `${label(t.to, toInfo)}${toInfo ? ` ${netText(toInfo)}` : ""}`;
      if (t.from !== undefined) {
        const undelegate: TokenDelegateIntent = {
          kind: "tokenDelegate",
          strategy: name,
          validator: t.from,
          amount: t.amount,
          isUndelegate: true,
          fundsNext: true,
          ...(t.forYield ? { forYield: true as const } : {}),
          reason: `${t.why}: undelegate ${fmt(t.amount)} HYPE from ${label(t.from, infos.get(t.from))} to delegate it to ${toText}; ${split}`,
        };
        decisions.push(undelegate);
      }
      const delegate: TokenDelegateIntent = {
        kind: "tokenDelegate",
        strategy: name,
        validator: t.to,
        amount: t.amount,
        isUndelegate: false,
        reason: `${t.why}: delegate ${fmt(t.amount)} HYPE to ${toText}, holding ${fmt(heldAmount(t.to))}, target ${fmt(targets.get(t.to) ?? ZERO)}; ${split}`,
      };
      decisions.push(delegate);
    }

    if (transfers.length <= forcedTransfers && depositIntent !== undefined) decisions.push(depositIntent);

    if (!decisions.some((d) => d.kind === "tokenDelegate")) {
      const keptText = [...kept.entries()]
        .map(([a, why]) => `${label(a, infos.get(a))} keeps its stake: ${why}`)
        .join("; ");
      // Under target beyond the threshold with nothing to fill it (stake held or locked elsewhere, HYPE
      // undelegated by hand kept idle): said as it is, not as "within target".
      const short = deficits.filter((d) =>
        d.left.gt((targets.get(d.c.address) ?? ZERO).times(params.rebalanceThreshold)),
      );
      const state =
        short.length === 0
          ? `delegations within ${pct(params.rebalanceThreshold)} of target`
          : `${short.map((d) => `${label(d.c.address, d.c.v)} is ${fmt(d.left)} HYPE under its target ${fmt(targets.get(d.c.address) ?? ZERO)}`).join(", ")} and no stake is free to move there now`;
      decisions.push(
        skip(name, `${split}: nothing to move (${state}${keptText ? `; ${keptText}` : ""})`, "tokenDelegate"),
      );
    }
    return noted(decisions);
  },
});

/** What stake on validator `a` earns now (0: jailed, inactive, or not listed by the venue). */
function paidOn(
  a: string,
  infos: ReadonlyMap<string, ValidatorInfo>,
  params: ValidatorStakingParams,
): Decimal {
  const v = infos.get(a);
  return v === undefined ? ZERO : earningApr(v, params.statsPeriod);
}

/**
 * Whether maxShare or maxNetworkShare would cap the split of `after` HYPE by `weights` (the withdrawal's
 * targets then are not the weights': a review found a cap merely set, not binding, sending the
 * withdrawal back to holdings and moves after it).
 */
function capBinds(
  split: { weights: ReadonlyMap<string, Decimal>; wsum: Decimal; after: Decimal; excess: Decimal },
  params: ValidatorStakingParams,
  infos: ReadonlyMap<string, ValidatorInfo>,
  current: ReadonlyMap<string, Held>,
): boolean {
  const { weights, wsum, after, excess } = split;
  const share = (w: Decimal) => w.div(wsum);
  if (params.maxShare !== undefined && [...weights.values()].some((w) => share(w).gt(params.maxShare!)))
    return true;
  if (params.maxNetworkShare === undefined) return false;
  const hype = (wei: bigint) => fromWei(wei, STAKE_DECIMALS);
  const network = hype([...infos.values()].reduce((sum, v) => sum + v.stake, 0n));
  const limit = network.minus(excess).times(params.maxNetworkShare);
  return [...weights].some(([a, w]) => {
    const v = infos.get(a);
    if (v === undefined) return false;
    const others = hype(v.stake).minus(current.get(a)?.amount ?? ZERO);
    return others.plus(after.times(share(w))).gt(limit);
  });
}

/** The chosen validators' weights in the split: equal, or by score (equal when every score is 0). */
function allocationWeights(
  chosen: readonly Candidate[],
  params: ValidatorStakingParams,
): { weights: Map<string, Decimal>; byScore: boolean } {
  const byScore = params.allocation === "score" && chosen.some((c) => c.score.gt(0));
  const weights = new Map<string, Decimal>();
  for (const c of chosen) weights.set(c.address, byScore ? Decimal.max(c.score, ZERO) : ONE);
  return { weights, byScore };
}

/** Why the chosen validators are not evened out while a sale will take stake (withdrawForSales). */
function notMovedForSale(sale: { strategy: string; held: boolean }): string {
  return sale.held
    ? `${sale.strategy}'s HYPE sale, held by its sell floor, would take stake that spot does not cover (withdrawForSales), and a move would lock it for a day`
    : `stake is being withdrawn for ${sale.strategy}'s HYPE sale (withdrawForSales), and a move would lock it for a day`;
}

/**
 * HYPE a rebalancer of the account must sell beyond the spot HYPE it can sell and the withdrawals already
 * on their way back (withdrawForSales): the largest of the rebalancers' (two sharing HYPE are warned of).
 */
function saleShortfall(snapshot: Snapshot):
  | {
      strategy: string;
      over: Decimal;
      sells: Decimal;
      /** What it sells before it is back within its band, when its pace over the queue is less (sells). */
      toBand: Decimal | undefined;
      spot: Decimal;
      back: Decimal;
      worth: Decimal;
      short: Decimal;
    }
  | undefined {
  let largest: PlannedSale | undefined;
  for (const p of snapshot.plannedHypeSales ?? [])
    if (p.overTarget?.gt(largest?.overTarget ?? ZERO)) largest = p;
  if (largest?.overTarget === undefined) return undefined;
  const over = largest.overTarget;
  const band = largest.bandSize ?? ZERO;
  // What it will sell: out of its band, it sells towards its target one TWAP a run, each at most a
  // piece (limits.maxOrderUsd), and stops once back within the band. Withdrawn to the target, the part
  // it never sold sat on spot earning nothing, or was staked again weeks later (a staker's trial: 25 to
  // 36% of a year's withdrawals; 1.43 HYPE withdrawn and re-delegated untouched).
  const piece = largest.pieceSize;
  const toBand = !over.gt(band)
    ? ZERO
    : piece === undefined || !piece.gt(0)
      ? over
      : Decimal.min(over, over.minus(band).div(piece).ceil().times(piece));
  // And no more than it sells at its pace (cycle.ts paceOf) by the time a withdrawal started now is back
  // and PACE_GAP_DAYS + PACE_MARGIN_DAYS more: the rest is withdrawn later, just in time, earning until then. An exiting
  // holder's trial withdrew all 25,000 staked HYPE in the first week of a sale its daily limit spread
  // over five: 4 HYPE of rewards instead of 18, fees without the staking discount, and 10,196 HYPE idle
  // once its floor held the rest.
  const perDay = largest.pacePerDay;
  const pace = perDay?.times(SALE_PACE_HORIZON_DAYS);
  const paced = pace?.lt(toBand) === true;
  const sells = paced && pace !== undefined ? pace : toBand;
  // The account's spot HYPE, as the rebalancer sells from it: this strategy's own view may be capped by
  // its capital (a review: a capital of 50 HYPE read 1,000 HYPE on spot as 50, and stake was withdrawn).
  const spot = largest.spotAvailable ?? snapshot.balances.get(STAKING_TOKEN)?.available ?? ZERO;
  const back = snapshot.staking.totalPendingWithdrawal;
  // Worth a queue place of its own while another withdrawal waits: half a piece (or half its band); at
  // its pace, PACE_GAP_DAYS of sales, so the withdrawals of a long sale hold about queue ÷ gap places
  // (3.5 of the venue's 5) rather than one a run.
  const half = (piece?.gt(0) ? piece : band).div(2);
  const worth = paced && perDay !== undefined ? Decimal.max(half, perDay.times(PACE_GAP_DAYS)) : half;
  return {
    strategy: largest.strategy,
    over,
    sells,
    toBand: paced ? toBand : undefined,
    spot,
    back,
    worth,
    short: trunc(sells.minus(spot).minus(back)),
  };
}

/**
 * The stake above its cap (maxStaked, or what a rebalancer's sale lacks): withdraw the excess through the 7-day queue (at most
 * maxPendingWithdrawals waiting; Hyperliquid docs, and df-hyperliquid-core's MAX_PENDING_WITHDRAWALS = 5),
 * idle stake first, then undelegating from the worst validators (each undelegation paired with the
 * withdrawal it funds). Nothing else is done in that run.
 */
function unstake(
  snapshot: Snapshot,
  params: ValidatorStakingParams,
  name: string,
  /** HYPE to withdraw. */
  total: Decimal,
  /** Why, as reasons start ("600 HYPE staked, above maxStaked 50"). */
  why: string,
  /** Idle stake undelegated by hand lately (respectManualDays): it stays where its owner put it. */
  reserved: Decimal,
  current: ReadonlyMap<string, Held>,
  infos: ReadonlyMap<string, ValidatorInfo>,
  ranked: readonly Candidate[],
  chosen: readonly Candidate[],
  lockedUntil: (a: string) => number | undefined,
): Decision[] {
  const decisions: Decision[] = [];
  let excess = total;
  if (params.maxPendingWithdrawals - snapshot.staking.nPendingWithdrawals <= 0) {
    return [
      skip(
        name,
        `${why}: ${snapshot.staking.nPendingWithdrawals} withdrawals are pending, the venue queues at most ${params.maxPendingWithdrawals}`,
        "cWithdraw",
      ),
    ];
  }
  // Not the stake undelegated by hand (README, "Your own actions win"; a review found it queued for a
  // withdrawal: what the owner undelegates stays undelegated for respectManualDays).
  const fromIdle = trunc(
    Decimal.min(excess, Decimal.max(ZERO, snapshot.staking.undelegated.minus(reserved))),
  );
  const idle = fromIdle.gte(params.minMove) ? fromIdle : ZERO;
  excess = excess.minus(idle);
  // Stake that leaves anyway first (not among the chosen validators: excluded or outside the N), worst
  // first; then the chosen validators by what each holds above its share of the stake that stays (its
  // target after the withdrawal: the split's weights), so no move follows to even them out (a trial's
  // 2,000 HYPE taken from one of two equal validators was followed by a 1,000-HYPE move; a staker's
  // 300,000/100,000/100,000 cut in proportion to holdings kept 3:1:1, and the daily limit, letting the
  // largest pair through first, drained one, each followed by a move). Largest first: a limit that cuts
  // the list leaves the split nearer its target. A small excess, within rebalanceThreshold of the
  // smallest of them, comes from the lowest ranked alone (one undelegation).
  const rank = (a: string) => {
    const i = ranked.findIndex((c) => c.address === a);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  const chosenSet = new Set(chosen.map((c) => c.address));
  const free: Array<[string, Decimal]> = [];
  const byWorst = ([x]: [string, Held], [y]: [string, Held]) =>
    rank(y) - rank(x) || paidOn(x, infos, params).cmp(paidOn(y, infos, params));
  for (const [a, c] of [...current.entries()].sort(byWorst)) {
    if (!c.amount.gt(0)) continue;
    const lock = lockedUntil(a);
    if (lock === undefined) free.push([a, c.amount]);
    else if (excess.gte(params.minMove))
      decisions.push(
        skip(
          name,
          `${why}: stake with ${label(a, infos.get(a))} is locked until ${isoTime(lock)}`,
          "cWithdraw",
        ),
      );
  }
  const takes: Array<[string, Decimal]> = [];
  for (const [a, amount] of free.filter(([a]) => !chosenSet.has(a))) {
    const take = trunc(Decimal.min(excess, amount));
    if (take.lt(params.minMove)) continue;
    takes.push([a, take]);
    excess = excess.minus(take);
  }
  const stay = free.filter(([a]) => chosenSet.has(a));
  const held = stay.reduce((sum, [, amount]) => sum.plus(amount), ZERO);
  const smallest = Decimal.min(...stay.map(([, amount]) => amount), held);
  if (excess.gte(params.minMove) && held.gt(0)) {
    // Above its target after the withdrawal, per validator (weights as the split's). Where maxShare or
    // maxNetworkShare would cap that split, its weights are not the targets: there, in proportion to
    // what each holds, which keeps the split as it is (a review: score weights 3:1 capped to 50/50 by
    // maxShare aimed the withdrawal at 3:1, and a move followed).
    const after = held.minus(excess);
    const split = allocationWeights(
      chosen.filter((c) => stay.some(([a]) => a === c.address)),
      params,
    ).weights;
    const total = (m: ReadonlyMap<string, Decimal>) => [...m.values()].reduce((sum, w) => sum.plus(w), ZERO);
    const splitSum = total(split);
    const capped =
      splitSum.gt(0) && capBinds({ weights: split, wsum: splitSum, after, excess }, params, infos, current);
    const weights = capped ? new Map(stay.map(([a, amount]) => [a, amount] as const)) : split;
    const wsum = capped ? held : splitSum;
    const above = stay
      .map(([a, amount]): [string, Decimal] => [
        a,
        wsum.gt(0) ? Decimal.max(ZERO, amount.minus(after.times(weights.get(a) ?? ZERO).div(wsum))) : amount,
      ])
      // A validator a hair above its share (rewards since) gives nothing: a share under minMove would
      // send the whole excess down the one-validator path below.
      .filter(([, x]) => x.gte(params.minMove));
    const aboveSum = above.reduce((sum, [, x]) => sum.plus(x), ZERO);
    // An excess as large as the free stake (the rest locked, or undelegated by hand) is all of it: shares
    // of it are not (a staker's maxStaked 0 with 20,000 of 45,000 locked asked a validator holding 15,000
    // for 25,000; the venue refused each run until the lock ended).
    const shares =
      excess.gte(held) ||
      excess.lte(smallest.times(params.rebalanceThreshold)) ||
      stay.length === 1 ||
      !aboveSum.gt(0)
        ? []
        : above
            .map(([a, x]): [string, Decimal] => [a, trunc(excess.times(x).div(aboveSum))])
            .filter(([, x]) => x.gt(0))
            .sort(([, x], [, y]) => y.cmp(x));
    if (shares.length > 0) {
      // The truncation's remainder joins the largest share.
      const rest = excess.minus(shares.reduce((sum, [, x]) => sum.plus(x), ZERO));
      const largest = shares.reduce((m, x) => (x[1].gt(m[1]) ? x : m));
      largest[1] = largest[1].plus(rest);
    }
    const holds = (a: string) => stay.find(([x]) => x === a)?.[1] ?? ZERO;
    if (shares.length > 0 && shares.every(([a, x]) => x.gte(params.minMove) && x.lte(holds(a)))) {
      takes.push(...shares);
      excess = ZERO;
    } else {
      // Shares under minMove: whole holdings, the most above its share first.
      const aboveOf = (a: string) => above.find(([x]) => x === a)?.[1] ?? ZERO;
      for (const [a, amount] of [...stay].sort(([x], [y]) => aboveOf(y).cmp(aboveOf(x)))) {
        const take = trunc(Decimal.min(excess, amount));
        if (take.lt(params.minMove)) continue;
        takes.push([a, take]);
        excess = excess.minus(take);
      }
    }
  }
  // The undelegations, then ONE withdrawal of what they free and the idle stake: a withdrawal holds one of
  // the venue's few queue places for 7 days, an undelegation none (a year-long trial: one withdrawal per
  // validator filled the 5 places in 2 to 3 runs of a rally, and the next sale's waited a day). Each
  // undelegation funds what follows (`fundsNext`): the limits reduce or block them with the withdrawal.
  const undelegated = takes.reduce((sum, [, amount]) => sum.plus(amount), ZERO);
  const sum = idle.plus(undelegated);
  if (sum.gt(0)) {
    for (const [a, amount] of takes) {
      const u: TokenDelegateIntent = {
        kind: "tokenDelegate",
        strategy: name,
        validator: a,
        amount,
        isUndelegate: true,
        fundsNext: true,
        reason: `${why}: undelegate ${fmt(amount)} HYPE from ${label(a, infos.get(a))} to withdraw it`,
      };
      decisions.push(u);
    }
    const sources = [
      ...(idle.gt(0) ? [`${fmt(idle)} idle`] : []),
      ...takes.map(([a, amount]) => `${fmt(amount)} undelegated from ${label(a, infos.get(a))}`),
    ];
    const w: CWithdrawIntent = {
      kind: "cWithdraw",
      strategy: name,
      amount: sum,
      reason:
        takes.length === 0
          ? `${why}: withdraw ${fmt(sum)} idle HYPE from staking (back on spot after the unstaking queue, 7 days on mainnet)`
          : `${why}: withdraw ${fmt(sum)} HYPE (${sources.join(", ")}) from staking (back on spot after the unstaking queue, 7 days on mainnet; one queue place)`,
    };
    decisions.push(w);
  }
  if (!decisions.some((d) => d.kind !== "skip"))
    decisions.push(skip(name, `${why}: nothing can be withdrawn now`, "cWithdraw"));
  return decisions;
}
