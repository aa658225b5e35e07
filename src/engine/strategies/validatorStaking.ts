// validator-staking: spread the account's whole stake (delegated + undelegated, plus idle spot HYPE when
// asked) over the N best eligible validators. Stake is only moved where a delegation is off its target
// by more than the threshold, undelegations come first (they free the HYPE the delegations use), locked
// stake is left alone, and the HYPE moved per run is capped. Amounts are truncated to whole wei.
import * as z from "zod";
import { Decimal, truncateDecimals, ZERO } from "../../lib/decimal.js";
import { address, fraction, hypeAmount, integer } from "../config/fields.js";
import type { CDepositIntent, Decision, TokenDelegateIntent } from "../intents.js";
import type { ValidatorInfo, ValidatorPeriod } from "../snapshot.js";
import { fmt, isoTime, pct, skip } from "./common.js";
import { defineStrategy } from "./types.js";

/** Staking amounts travel as `wei` = HYPE × 1e8. */
export const STAKE_DECIMALS = 8;
const STAKING_TOKEN = "HYPE";
const period = z.enum(["day", "week", "month"]);

export const validatorStakingParams = z
  .strictObject({
    validators: integer({ min: 1, max: 100 }).describe("How many validators to spread the stake over"),
    rankBy: z
      .enum(["predictedApr", "stake", "uptime"])
      .default("predictedApr")
      .describe("Ranking of eligible validators (best first)"),
    statsPeriod: period.default("week").describe("Period of the stats used by rankBy (predictedApr, uptime)"),
    maxCommission: fraction().optional().describe("Exclude validators charging more (0.05 = 5%)"),
    minUptime: z
      .strictObject({ period, fraction: fraction() })
      .optional()
      .describe("Exclude validators whose uptime over the period is lower"),
    allow: z.array(address()).default([]).describe("When not empty, only these validators are eligible"),
    deny: z.array(address()).default([]).describe("Validators never delegated to"),
    allocation: z
      .enum(["equal", "score"])
      .default("equal")
      .describe("equal: same stake each; score: stake proportional to the rankBy value"),
    rebalanceThreshold: fraction()
      .prefault(0.1)
      .describe(
        "Move stake only where a delegation is off its target by more than this fraction of the target",
      ),
    maxMovePerRun: hypeAmount({ gt: 0 })
      .optional()
      .describe("Cap on HYPE moved per run, summing delegations and undelegations"),
    stakeIdleSpot: z
      .strictObject({
        enabled: z.boolean().default(false),
        keepSpot: hypeAmount({ min: 0 })
          .prefault(0)
          .describe("Spot HYPE to keep; the rest is moved into staking"),
      })
      .optional()
      .describe("Move spot HYPE above keepSpot into staking (cDeposit) before delegating"),
  })
  .superRefine((p, ctx) => {
    const deny = new Set(p.deny);
    p.allow.forEach((a, i) => {
      if (deny.has(a)) ctx.addIssue({ code: "custom", path: ["allow", i], message: `${a} is also in deny` });
    });
  });

export type ValidatorStakingParams = z.output<typeof validatorStakingParams>;

function short(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

function label(address: string, info: ValidatorInfo | undefined): string {
  return info ? `${info.name} (${short(address)})` : short(address);
}

function scoreOf(v: ValidatorInfo, rankBy: ValidatorStakingParams["rankBy"], p: ValidatorPeriod): Decimal {
  switch (rankBy) {
    case "predictedApr":
      return v.stats[p].predictedApr;
    case "uptime":
      return v.stats[p].uptimeFraction;
    case "stake":
      return new Decimal(v.stake.toString());
  }
}

const trunc = (d: Decimal) => truncateDecimals(d, STAKE_DECIMALS);

export const validatorStaking = defineStrategy({
  description: "Delegate the whole stake evenly (or by score) to the N best eligible validators",
  paramsSchema: validatorStakingParams,
  decide(snapshot, params, now, _memory, name) {
    const allow = new Set(params.allow);
    const deny = new Set(params.deny);
    const exclusion = (v: ValidatorInfo): string | undefined => {
      const a = v.address.toLowerCase();
      if (v.isJailed) return "is jailed";
      if (!v.isActive) return "is inactive";
      if (deny.has(a)) return "is on the deny list";
      if (allow.size > 0 && !allow.has(a)) return "is not on the allow list";
      if (params.maxCommission !== undefined && v.commission.gt(params.maxCommission)) {
        return `charges ${pct(v.commission)} commission, above maxCommission ${pct(params.maxCommission)}`;
      }
      if (params.minUptime !== undefined) {
        const up = v.stats[params.minUptime.period].uptimeFraction;
        if (up.lt(params.minUptime.fraction)) {
          return `has ${params.minUptime.period} uptime ${pct(up)}, below ${pct(params.minUptime.fraction)}`;
        }
      }
      return undefined;
    };

    const infos = new Map(snapshot.validators.map((v) => [v.address.toLowerCase(), v]));
    const ranked = snapshot.validators
      .filter((v) => exclusion(v) === undefined)
      .map((v) => ({
        v,
        address: v.address.toLowerCase(),
        score: scoreOf(v, params.rankBy, params.statsPeriod),
      }))
      .sort(
        (a, b) =>
          b.score.cmp(a.score) ||
          (b.v.stake > a.v.stake ? 1 : b.v.stake < a.v.stake ? -1 : 0) ||
          (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
      );
    const chosen = ranked.slice(0, params.validators);
    if (chosen.length === 0) {
      return [
        skip(name, `no eligible validator among ${snapshot.validators.length} listed`, "tokenDelegate"),
      ];
    }

    const decisions: Decision[] = [];
    const notes: string[] = [];
    if (chosen.length < params.validators) {
      notes.push(`only ${chosen.length} of ${params.validators} wanted validators are eligible`);
    }

    // Idle spot HYPE first: the delegations below may use it in the same run.
    let deposit = ZERO;
    if (params.stakeIdleSpot?.enabled) {
      const spot = snapshot.balances.get(STAKING_TOKEN)?.available ?? ZERO;
      const extra = trunc(spot.minus(params.stakeIdleSpot.keepSpot));
      if (extra.gt(0)) {
        deposit = extra;
        const intent: CDepositIntent = {
          kind: "cDeposit",
          strategy: name,
          amount: extra,
          reason: `move ${fmt(extra)} idle spot HYPE into staking (keeping ${fmt(params.stakeIdleSpot.keepSpot)} on spot)`,
        };
        decisions.push(intent);
      }
    }

    const current = new Map<string, { amount: Decimal; lockedUntil: number }>();
    for (const d of snapshot.delegations) {
      const a = d.validator.toLowerCase();
      const prev = current.get(a);
      current.set(a, {
        amount: (prev?.amount ?? ZERO).plus(d.amount),
        lockedUntil: Math.max(prev?.lockedUntil ?? 0, d.lockedUntil),
      });
    }
    let delegated = ZERO;
    for (const c of current.values()) delegated = delegated.plus(c.amount);
    const undelegated = snapshot.staking.undelegated;
    const total = delegated.plus(undelegated).plus(deposit);
    if (!total.gt(0))
      return [...decisions, skip(name, "no HYPE staked or available to stake", "tokenDelegate")];

    // Targets: truncated to wei, so they never add up to more than the stake (dust stays undelegated).
    const targets = new Map<string, Decimal>();
    const scoreSum = chosen.reduce((s, c) => s.plus(c.score.gt(0) ? c.score : ZERO), ZERO);
    const byScore = params.allocation === "score" && scoreSum.gt(0);
    if (params.allocation === "score" && !byScore) notes.push("all scores are 0: split equally");
    for (const c of chosen) {
      const share = byScore
        ? total.times(c.score.gt(0) ? c.score : ZERO).div(scoreSum)
        : total.div(chosen.length);
      targets.set(c.address, trunc(share));
    }
    const split =
      `${fmt(total)} HYPE staked over ${chosen.length} validator(s) by ${params.rankBy}, ${params.allocation} split` +
      (notes.length ? ` (${notes.join("; ")})` : "");

    let capLeft = params.maxMovePerRun;
    const capped = (amount: Decimal): Decimal => {
      if (capLeft === undefined) return amount;
      const take = trunc(Decimal.min(amount, capLeft));
      capLeft = capLeft.minus(take);
      return take;
    };
    const capReason = () => `maxMovePerRun ${fmt(params.maxMovePerRun ?? ZERO)} HYPE reached this run`;
    const locked = (address: string) => {
      const until = current.get(address)?.lockedUntil ?? 0;
      return until > now ? until : undefined;
    };
    const undelegate = (address: string, amount: Decimal, why: string) => {
      const info = infos.get(address);
      const lockedUntil = locked(address);
      if (lockedUntil !== undefined) {
        decisions.push(
          skip(
            name,
            `${why}: stake with ${label(address, info)} is locked until ${isoTime(lockedUntil)}`,
            "tokenDelegate",
          ),
        );
        return ZERO;
      }
      const take = capped(amount);
      if (!take.gt(0)) {
        decisions.push(skip(name, `${why}: ${capReason()}`, "tokenDelegate"));
        return ZERO;
      }
      const intent: TokenDelegateIntent = {
        kind: "tokenDelegate",
        strategy: name,
        validator: address,
        amount: take,
        isUndelegate: true,
        reason:
          `${why}: undelegate ${fmt(take)} HYPE from ${label(address, info)}` +
          (take.lt(amount) ? ` (${capReason()})` : ""),
      };
      decisions.push(intent);
      return take;
    };

    // 1. Validators that fell out of the chosen set lose all their stake.
    let freed = ZERO;
    const leaving = [...current.entries()]
      .filter(([a, c]) => !targets.has(a) && c.amount.gt(0))
      .sort(([a1, c1], [a2, c2]) => c2.amount.cmp(c1.amount) || (a1 < a2 ? -1 : 1));
    for (const [address, c] of leaving) {
      const info = infos.get(address);
      const why =
        info === undefined
          ? "is no longer listed by the venue"
          : (exclusion(info) ?? `is not among the ${params.validators} best`);
      freed = freed.plus(undelegate(address, c.amount, `${label(address, info)} ${why}; ${split}`));
    }

    // 2. Chosen validators above target by more than the threshold give back the excess.
    const gaps = chosen.map((c) => {
      const target = targets.get(c.address) ?? ZERO;
      const have = current.get(c.address)?.amount ?? ZERO;
      const diff = target.minus(have);
      return { ...c, target, have, diff, move: diff.abs().gt(target.times(params.rebalanceThreshold)) };
    });
    for (const g of gaps) {
      if (!g.move || !g.diff.lt(0)) continue;
      const why = `${label(g.address, g.v)} holds ${fmt(g.have)} HYPE, target ${fmt(g.target)}; ${split}`;
      freed = freed.plus(undelegate(g.address, trunc(g.diff.neg()), why));
    }

    // 3. Delegations, best-ranked first, from the undelegated balance (including what was just freed).
    let pool = trunc(undelegated.plus(deposit).plus(freed));
    for (const g of gaps) {
      if (!g.move || !g.diff.gt(0)) continue;
      const why = `${label(g.address, g.v)} holds ${fmt(g.have)} HYPE, target ${fmt(g.target)}; ${split}`;
      const wanted = trunc(Decimal.min(g.diff, pool));
      if (!wanted.gt(0)) {
        decisions.push(skip(name, `${why}: no undelegated HYPE left to delegate this run`, "tokenDelegate"));
        continue;
      }
      const take = capped(wanted);
      if (!take.gt(0)) {
        decisions.push(skip(name, `${why}: ${capReason()}`, "tokenDelegate"));
        continue;
      }
      pool = pool.minus(take);
      const limitedBy = take.lt(wanted)
        ? capReason()
        : wanted.lt(g.diff)
          ? "all the undelegated HYPE left"
          : undefined;
      const intent: TokenDelegateIntent = {
        kind: "tokenDelegate",
        strategy: name,
        validator: g.address,
        amount: take,
        isUndelegate: false,
        reason: `${why}: delegate ${fmt(take)} HYPE` + (limitedBy ? ` (limited: ${limitedBy})` : ""),
      };
      decisions.push(intent);
    }

    if (!decisions.some((d) => d.kind === "tokenDelegate")) {
      const within = gaps.every((g) => !g.move);
      if (within && leaving.length === 0) {
        decisions.push(
          skip(
            name,
            `${split}: every delegation is within ${pct(params.rebalanceThreshold)} of its target`,
            "tokenDelegate",
          ),
        );
      }
    }
    return decisions;
  },
});
