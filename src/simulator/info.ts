// Answers to POST /info (and /explorer) of the simulated venue, one function per query type, shaped as
// the venue answers. Requests are validated with the client's own strict request schemas
// (src/venue/info), so a body the client would refuse to send is exactly a body this venue answers 422.
import type { z } from "zod";
import { Decimal, fromWei, ZERO } from "../lib/decimal.js";
import { stringifyJson } from "../lib/json.js";
import { USER_FILLS_MAX } from "../venue/constants.js";
import { type CandleInterval, INFO_METHODS } from "../venue/info/methods/index.js";
import type { InfoMethodSpec } from "../venue/info/query.js";
import { historyExtraWeight } from "../venue/transport/weights.js";
import { simulatedCandles } from "./candles.js";
import type { VenueCore } from "./core.js";
import { fmt } from "./format.js";
import type { Pair, Token } from "./markets.js";
import { PERIODS, recentlyJailed, uptimeAt, type Validator } from "./staking.js";
import type { TwapHistoryEntry } from "./twap.js";

export const UNPROCESSABLE_BODY = "Failed to deserialize the JSON body into the target type";
const ZERO_HASH = `0x${"0".repeat(64)}`;

/** userFees' staking discount tiers: bps of max supply, the discount as written, and as a Decimal. */
const STAKING_DISCOUNT_TIERS: ReadonlyArray<readonly [string, string, Decimal]> = (
  [
    ["0.0", "0.0"],
    ["0.0001", "0.05"],
    ["0.001", "0.1"],
    ["0.01", "0.15"],
    ["0.1", "0.2"],
    ["1.0", "0.3"],
    ["5.0", "0.4"],
  ] as const
).map(([bps, discount]) => [bps, discount, new Decimal(discount)] as const);
/** A UTC day: userFees reports the day's volume under its date. */
const DAY_MS = 86_400_000;

export type InfoAnswer =
  | { kind: "json"; body: unknown; text?: string; type: string; weight: number; extraWeight: number }
  | { kind: "unprocessable" };

/**
 * An array answer already serialized: what a handler returns when serializing the whole answer on
 * every request would dominate a long simulation (a year of twapHistory is ~30 KB asked ~30 times a
 * simulated day). `text` is byte for byte what JSON.stringify of the array would give.
 */
class Serialized {
  constructor(
    readonly text: string,
    /** Items of an array answer (they may cost weight); undefined for an object. */
    readonly length: number | undefined,
  ) {}
}

function twapHistoryEntry(h: TwapHistoryEntry): unknown {
  return {
    time: Math.floor(h.time / 1000),
    state: {
      coin: h.twap.pair.name,
      user: h.twap.user,
      side: twapSide(h.twap.isBuy),
      sz: fmt(h.twap.size),
      executedSz: fmt(h.executedSz),
      executedNtl: fmt(h.executedNtl),
      minutes: h.twap.minutes,
      reduceOnly: h.twap.reduceOnly,
      randomize: h.twap.randomize,
      timestamp: h.twap.placedAt,
      trigger: null,
      stopPx: null,
    },
    status: { status: h.status },
    twapId: h.twap.id,
  };
}

/**
 * A user's history list is append-only and its entries never change (each is the TWAP's state at one
 * status change), so each entry is serialized once and the answer is the join of those texts.
 */
const historyTexts = new WeakMap<readonly TwapHistoryEntry[], { parts: string[]; answer?: Serialized }>();

function twapHistoryText(list: readonly TwapHistoryEntry[]): Serialized {
  let memo = historyTexts.get(list);
  if (memo === undefined || memo.parts.length > list.length) {
    memo = { parts: [] };
    historyTexts.set(list, memo);
  }
  if (memo.answer !== undefined && memo.answer.length === list.length) return memo.answer;
  for (let i = memo.parts.length; i < list.length; i++)
    memo.parts.push(JSON.stringify(twapHistoryEntry(list[i]!)));
  memo.answer = new Serialized(`[${memo.parts.join(",")}]`, list.length);
  return memo.answer;
}

type Handler = (core: VenueCore, req: Record<string, unknown>) => unknown;

function hypeOf(core: VenueCore, wei: bigint): string {
  return fmt(fromWei(wei, core.hype?.weiDecimals ?? 8));
}

/** Agents' addresses answer empty data. */
function isAgent(core: VenueCore, user: string): boolean {
  return core.accounts.agent(user, core.now()) !== undefined;
}

function spotState(core: VenueCore, user: string): Record<string, unknown> {
  if (isAgent(core, user)) return { balances: [] };
  const balances: Record<string, unknown>[] = core.balances(user).map((b) => ({
    coin: b.coin,
    token: b.token,
    total: fmt(b.total),
    hold: fmt(b.hold),
    entryNtl: fmt(b.entryNtl),
  }));
  const profile = core.accounts.profiles.get(user);
  for (const o of profile?.outcomeBalances ?? [])
    balances.push({ coin: o.coin, total: fmt(o.total), hold: "0.0", entryNtl: fmt(o.entryNtl) });
  const out: Record<string, unknown> = { balances };
  if (profile && profile.evmEscrows.length > 0) {
    out.evmEscrows = profile.evmEscrows.map((e) => {
      const token = core.markets.token(e.coin);
      return { coin: e.coin, token: token?.index ?? 0, total: fmt(e.total) };
    });
  }
  return out;
}

/**
 * Where a validator's stake goes in its text. A string value holding the same characters is written
 * with its quotes escaped, so `"stake":"` followed by the marker is only ever the stake itself.
 */
const STAKE_MARK = "\u0000stake";
const STAKE_MARK_WRITTEN = '"stake":"\\u0000stake"';

/**
 * Answers asked every cycle and changed rarely (fees, balances, validators), kept by venue and name (the
 * query and its user) with what each was made of: handed out again while every input is the same, by
 * identity (a Decimal, a position's amount or a rates object is replaced, never changed, when it moves).
 */
const keptAnswers = new WeakMap<VenueCore, Map<string, { inputs: unknown[]; answer: Serialized }>>();

function keptWhile(core: VenueCore, name: string, inputs: unknown[], make: () => Serialized): Serialized {
  let byName = keptAnswers.get(core);
  if (byName === undefined) {
    byName = new Map();
    keptAnswers.set(core, byName);
  }
  const kept = byName.get(name);
  if (kept !== undefined && sameItems(kept.inputs, inputs)) return kept.answer;
  const answer = make();
  byName.set(name, { inputs, answer });
  return answer;
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The validator list as the venue writes it, largest stake first. */
function validatorSummariesText(core: VenueCore, validators: readonly Validator[], now: number): Serialized {
  const items = validators
    .map((v) => ({ v, stake: core.staking.stakeOf(v) }))
    .sort((a, b) => (a.stake === b.stake ? (a.v.address < b.v.address ? -1 : 1) : a.stake > b.stake ? -1 : 1))
    .map(({ v, stake }) =>
      // The stake is wei, beyond 2^53 on mainnet: written as bare digits in place of a marker (the
      // native writer refuses a bigint, and the exact writer costs several times more).
      JSON.stringify({
        validator: v.address,
        signer: v.signer,
        name: v.name,
        description: v.description,
        nRecentBlocks: v.nRecentBlocks,
        stake: STAKE_MARK,
        isJailed: v.isJailed,
        unjailableAfter: v.isJailed ? v.unjailableAfter : null,
        isActive: v.isActive,
        commission: fmt(v.commission),
        stats: PERIODS.map((p) => [
          p,
          {
            uptimeFraction: fmt(uptimeAt(v, p, now)),
            // The venue states the delegators' rate, after commission (src/venue/constants.ts); the
            // scenario's (and the simulator's) rate is before it.
            predictedApr: fmt(v.stats[p].predictedApr.times(new Decimal(1).minus(v.commission))),
            nSamples: v.stats[p].nSamples,
          },
        ]),
      }).replace(STAKE_MARK_WRITTEN, `"stake":${stake}`),
    );
  return new Serialized(`[${items.join(",")}]`, items.length);
}

function tokenMeta(t: Token): Record<string, unknown> {
  return {
    name: t.name,
    szDecimals: t.szDecimals,
    weiDecimals: t.weiDecimals,
    index: t.index,
    tokenId: t.tokenId,
    isCanonical: t.isCanonical,
    evmContract: t.evmContract,
    fullName: t.fullName,
    deployerTradingFeeShare: fmt(t.deployerTradingFeeShare ?? ZERO),
  };
}

/**
 * spotMeta's text per market set: tokens and pairs do not change during a run (events halt pairs and
 * move prices, which the contexts carry), and the metadata is asked for every cycle, alone or with the
 * contexts.
 */
const spotMetaTexts = new WeakMap<VenueCore["markets"], string>();

function spotMetaText(core: VenueCore): string {
  let text = spotMetaTexts.get(core.markets);
  if (text === undefined) {
    text = stringifyJson(spotMeta(core));
    spotMetaTexts.set(core.markets, text);
  }
  return text;
}

function spotMeta(core: VenueCore): Record<string, unknown> {
  return {
    tokens: core.markets.tokens.map(tokenMeta),
    universe: core.markets.pairs.map((p) => ({
      name: p.name,
      tokens: [p.base.index, p.quote.index],
      index: p.index,
      isCanonical: p.config.isCanonical,
    })),
  };
}

/** The supply of a token whose scenario gives none. */
const DEFAULT_SUPPLY = new Decimal(1_000_000_000);

function supplies(t: Token): { circulating: Decimal; total: Decimal; max: Decimal } {
  const d = t.details;
  const total = d?.totalSupply ?? d?.maxSupply ?? DEFAULT_SUPPLY;
  return { total, circulating: d?.circulatingSupply ?? total, max: d?.maxSupply ?? total };
}

function assetCtx(core: VenueCore, p: Pair): Record<string, unknown> {
  const mid = core.markets.mid(p);
  const vol = core.markets.dayVolume(p);
  const s = supplies(p.base);
  return {
    coin: p.name,
    prevDayPx: fmt(core.markets.prevDayPx(p)),
    dayNtlVlm: fmt(vol.ntl),
    markPx: fmt(mid),
    midPx: p.halted ? null : fmt(mid),
    circulatingSupply: fmt(s.circulating),
    totalSupply: fmt(s.total),
    dayBaseVlm: fmt(vol.base),
  };
}

function perpState(core: VenueCore): Record<string, unknown> {
  const summary = { accountValue: "0.0", totalNtlPos: "0.0", totalRawUsd: "0.0", totalMarginUsed: "0.0" };
  return {
    marginSummary: summary,
    crossMarginSummary: summary,
    crossMaintenanceMarginUsed: "0.0",
    withdrawable: "0.0",
    assetPositions: [],
    time: core.now(),
  };
}

function twapSide(isBuy: boolean): "B" | "A" {
  return isBuy ? "B" : "A";
}

const HANDLERS: Record<string, Handler> = {
  tokenDetails(core, req) {
    const tokenId = String(req.tokenId).toLowerCase();
    const t = core.markets.tokens.find((x) => x.tokenId.toLowerCase() === tokenId);
    // The venue has no documented answer for an unknown id; null is what a client can recognise.
    if (!t) return null;
    const d = t.details;
    const pair = core.markets.pairForBase(t);
    const mid = pair ? fmt(core.markets.mid(pair)) : "1.0";
    const s = supplies(t);
    const genesis =
      d?.genesis === undefined || d.genesis === null
        ? null
        : {
            userBalances: d.genesis.userBalances.map(([a, v]) => [a, fmt(v)]),
            existingTokenBalances: d.genesis.existingTokenBalances.map(([i, v]) => [i, fmt(v)]),
            ...(d.genesis.blacklistUsers === undefined ? {} : { blacklistUsers: d.genesis.blacklistUsers }),
          };
    return {
      name: t.name,
      maxSupply: fmt(s.max),
      totalSupply: fmt(s.total),
      circulatingSupply: fmt(s.circulating),
      szDecimals: t.szDecimals,
      weiDecimals: t.weiDecimals,
      midPx: pair?.halted ? null : mid,
      markPx: mid,
      prevDayPx: pair ? fmt(core.markets.prevDayPx(pair)) : "1.0",
      genesis,
      deployer: d?.deployer ?? null,
      deployGas: d?.deployGas == null ? null : fmt(d.deployGas),
      deployTime: d?.deployTime ?? null,
      seededUsdc: fmt(d?.seededUsdc ?? ZERO),
      nonCirculatingUserBalances: (d?.nonCirculatingUserBalances ?? []).map(([a, v]) => [a, fmt(v)]),
      futureEmissions: fmt(d?.futureEmissions ?? ZERO),
    };
  },

  referral(core, req) {
    const user = String(req.user);
    const r = core.accounts.profiles.get(user)?.referral;
    const totals = {
      cumVlm: fmt(r?.cumVlm ?? ZERO),
      unclaimedRewards: fmt(r?.unclaimedRewards ?? ZERO),
      claimedRewards: fmt(r?.claimedRewards ?? ZERO),
      builderRewards: fmt(r?.builderRewards ?? ZERO),
    };
    let referrerState: Record<string, unknown> = { stage: "needToCreateCode" };
    if (r?.stage === "needToTrade") referrerState = { stage: "needToTrade", data: { required: r.required } };
    if (r?.stage === "ready") {
      referrerState = {
        stage: "ready",
        data: {
          code: r.code,
          nReferrals: r.referrals.length,
          referralStates: r.referrals.map((x) => {
            const st = {
              cumVlm: fmt(x.cumVlm),
              cumRewardedFeesSinceReferred: fmt(x.cumRewardedFeesSinceReferred),
              cumFeesRewardedToReferrer: fmt(x.cumFeesRewardedToReferrer),
            };
            return { ...st, timeJoined: x.timeJoined, user: x.user, tokenToState: [[0, st]] };
          }),
        },
      };
    }
    return {
      referredBy: r?.referredBy ?? null,
      ...totals,
      referrerState,
      rewardHistory: [],
      tokenToState: [[0, totals]],
    };
  },

  spotClearinghouseState(core, req) {
    const user = String(req.user);
    // Asked every cycle, and the same until a fill, a transfer or a TWAP: with no TWAP running (a
    // buy's hold moves with the price) the answer is kept with what it was made of, by identity (a
    // position's amounts are replaced, never changed, when they move).
    if (core.twaps.running(user).length > 0) return spotState(core, user);
    const inputs: unknown[] = [isAgent(core, user), core.accounts.profiles.get(user)];
    for (const [index, p] of core.spot.of(user)) inputs.push(index, p.total, p.entryNtl);
    return keptWhile(
      core,
      `spotClearinghouseState\u0000${user}`,
      inputs,
      () => new Serialized(stringifyJson(spotState(core, user)), undefined),
    );
  },

  delegatorHistory(core, req) {
    const user = String(req.user);
    if (isAgent(core, user)) return [];
    const a = core.staking.account(user);
    return [...(a?.history ?? [])].reverse().map((h) => ({ time: h.time, hash: h.hash, delta: h.delta }));
  },

  validatorSummaries(core) {
    // Kept while no validator's fields changed (every change goes through updateValidator) and every
    // stake is the same: read every few hours, changed daily by rewards.
    const validators = core.staking.allValidators();
    const inputs: unknown[] = [core.staking.validatorChanges];
    // While a validator's jailing is within a period's window its uptime moves with time: kept per minute.
    const now = core.clock.now();
    const jailing = validators.some((v) => recentlyJailed(v, now));
    const at = jailing ? Math.floor(now / 60_000) * 60_000 : now;
    if (jailing) inputs.push(at);
    for (const v of validators) inputs.push(v, core.staking.stakeOf(v));
    return keptWhile(core, "validatorSummaries", inputs, () => validatorSummariesText(core, validators, at));
  },

  subAccounts2(core, req) {
    const subs = core.accounts.subAccountsOf(String(req.user));
    if (subs.length === 0) return null;
    return subs.map((s) => ({
      name: s.name,
      subAccountUser: s.address,
      master: s.master,
      dexToClearinghouseState: s.abstraction === "unifiedAccount" ? [] : [["", perpState(core)]],
      spotState: spotState(core, s.address),
      ...(s.abstraction === undefined ? {} : { abstraction: s.abstraction }),
    }));
  },

  userToMultiSigSigners(core, req) {
    const m = core.accounts.profiles.get(String(req.user))?.multiSig;
    return m ? { authorizedUsers: m.authorizedUsers, threshold: m.threshold } : null;
  },

  txDetails(core, req) {
    const tx = core.tx(String(req.hash));
    if (!tx) return { type: "error", message: core.messages.unknownTxHash(String(req.hash)) };
    return {
      type: "txDetails",
      tx: {
        action: tx.action,
        block: tx.block,
        error: tx.error,
        hash: tx.hash,
        time: tx.time,
        user: tx.user,
      },
    };
  },

  isVip(core, req) {
    const p = core.accounts.profiles.get(String(req.user));
    return p ? p.isVip : false;
  },

  spotMeta(core) {
    return new Serialized(spotMetaText(core), undefined);
  },

  allMids(core, req) {
    // Spot mids are part of the default dex only.
    if (req.dex !== undefined && req.dex !== "") return {};
    return core.mids();
  },

  spotMetaAndAssetCtxs(core) {
    const ctxs = core.markets.pairs.map((p) => assetCtx(core, p));
    return new Serialized(`[${spotMetaText(core)},${stringifyJson(ctxs)}]`, 2);
  },

  delegations(core, req) {
    const a = core.staking.account(String(req.user));
    if (!a) return [];
    return [...a.delegations.values()]
      .filter((d) => d.amount > 0n)
      .map((d) => ({
        validator: d.validator,
        amount: hypeOf(core, d.amount),
        lockedUntilTimestamp: d.lockedUntil,
      }));
  },

  delegatorSummary(core, req) {
    const user = String(req.user);
    const a = core.staking.account(user);
    let pending = 0n;
    for (const w of a?.pending ?? []) pending += w.amount;
    return {
      delegated: hypeOf(core, core.staking.totalDelegated(user)),
      undelegated: hypeOf(core, a?.undelegated ?? 0n),
      totalPendingWithdrawal: hypeOf(core, pending),
      nPendingWithdrawals: a?.pending.length ?? 0,
    };
  },

  delegatorRewards(core, req) {
    const a = core.staking.account(String(req.user));
    return [...(a?.rewards ?? [])]
      .reverse()
      .map((r) => ({ time: r.time, source: r.source, totalAmount: hypeOf(core, r.totalAmount) }));
  },

  twapHistory(core, req) {
    return twapHistoryText(core.twaps.historyOf(String(req.user)));
  },

  // The simulated venue has TWAPs only: no order rests on its books.
  openOrders() {
    return [];
  },

  userTwapSliceFills(core, req) {
    const fills = core.twaps.fillsOf(String(req.user));
    const out: unknown[] = [];
    for (let i = fills.length - 1; i >= 0 && out.length < USER_FILLS_MAX; i--) {
      const f = fills[i]!;
      out.push({
        fill: {
          coin: f.coin,
          px: fmt(f.px),
          sz: fmt(f.sz),
          side: f.side,
          time: f.time,
          startPosition: fmt(f.startPosition),
          dir: f.side === "B" ? "Buy" : "Sell",
          closedPnl: "0.0",
          hash: ZERO_HASH,
          oid: f.oid,
          crossed: true,
          fee: fmt(f.fee),
          tid: f.tid,
          feeToken: f.feeToken,
          twapId: f.twapId,
        },
        twapId: f.twapId,
      });
    }
    return out;
  },

  userFees(core, req) {
    const user = String(req.user);
    const f = core.settings.fees;
    const rates = core.fees(user);
    const link = core.accounts.link(user);
    const asStaking = core.accounts.linkByStaking(user);
    let stakingLink: Record<string, unknown> | null = null;
    if (link?.status === "requested") stakingLink = { type: "requested", stakingUser: link.staking };
    else if (link?.status === "linked") stakingLink = { type: "tradingUser", stakingUser: link.staking };
    else if (asStaking) stakingLink = { type: "stakingUser", tradingUser: asStaking.trading };
    // Asked every cycle and the same all day: kept per rates object (Simulator.fees keeps one while the
    // rates hold), day and link.
    const dayNumber = Math.floor(core.now() / DAY_MS);
    const linkKey = stakingLink === null ? "" : JSON.stringify(stakingLink);
    return keptWhile(core, `userFees\u0000${user}`, [rates, dayNumber, linkKey], () => {
      const day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
      const tiers = STAKING_DISCOUNT_TIERS;
      const active = tiers.find(([, , d]) => d.eq(rates.stakingDiscount)) ?? tiers[0]!;
      return new Serialized(
        JSON.stringify({
          dailyUserVlm: [{ date: day, userCross: "0.0", userAdd: "0.0", exchange: "0.0" }],
          feeSchedule: {
            cross: fmt(f.cross),
            add: fmt(f.add),
            spotCross: fmt(f.spotCross),
            spotAdd: fmt(f.spotAdd),
            tiers: { vip: [], mm: [] },
            referralDiscount: fmt(f.referralDiscount),
            stakingDiscountTiers: tiers.map(([bps, discount]) => ({ bpsOfMaxSupply: bps, discount })),
          },
          userCrossRate: fmt(rates.cross),
          userAddRate: fmt(rates.add),
          userSpotCrossRate: fmt(rates.spotCross),
          userSpotAddRate: fmt(rates.spotAdd),
          activeReferralDiscount: fmt(rates.referralDiscount),
          trial: null,
          feeTrialEscrow: "0.0",
          nextTrialAvailableTimestamp: null,
          stakingLink,
          activeStakingDiscount: { bpsOfMaxSupply: active[0], discount: active[1] },
        }),
        undefined,
      );
    });
  },

  candleSnapshot(core, req) {
    // The request schema already refused (422) an unknown interval, an empty or non-string coin and a
    // time that is not unix ms. The coin is a pair's venue name ("@107", "PURR/USDC"), not the token
    // names the simulator also accepts elsewhere. An unknown coin answers null, as the venue was seen
    // to (see the candleSnapshot module); the client reads it as no candles.
    const r = req.req as { coin: string; interval: CandleInterval; startTime: number; endTime?: number };
    const pair = core.markets.pair(r.coin);
    if (!pair || pair.name !== r.coin) return null;
    return simulatedCandles(core.markets, pair, r, {
      now: core.now(),
      start: core.startTime,
      priceStep: core.settings.priceStep,
    });
  },

  userRole(core, req) {
    const user = String(req.user);
    const agent = core.accounts.agent(user, core.now());
    if (agent) return { role: "agent", data: { user: agent.master } };
    const sub = core.accounts.subAccount(user);
    if (sub) return { role: "subAccount", data: { master: sub.master } };
    const profile = core.accounts.profiles.get(user);
    if (profile?.role === "vault") return { role: "vault" };
    return core.accounts.exists(user) ? { role: "user" } : { role: "missing" };
  },
};

/** Query types this venue answers (every type of the client's registry). */
export const SIMULATED_INFO_TYPES = Object.keys(HANDLERS);

/**
 * Each body is checked against its request schema once: processRequest hands out the same frozen body
 * for the same text, so a body seen before has its verdict here.
 */
const checkedBodies = new WeakMap<object, Record<string, unknown> | null>();

function validRequest(spec: InfoMethodSpec, body: object): Record<string, unknown> | undefined {
  let request = checkedBodies.get(body);
  if (request === undefined) {
    const parsed = (spec.request as z.ZodType).safeParse(body);
    request = parsed.success ? (parsed.data as Record<string, unknown>) : null;
    checkedBodies.set(body, request);
  }
  return request ?? undefined;
}

/**
 * Answers one info body (already parsed from JSON). `endpoint` is where it arrived: explorer queries
 * are answered on /explorer and, as with a custom base URL, on /info too.
 */
export function answerInfo(core: VenueCore, body: unknown, endpoint: "info" | "explorer"): InfoAnswer {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { kind: "unprocessable" };
  const type = (body as { type?: unknown }).type;
  if (typeof type !== "string" || !Object.hasOwn(INFO_METHODS, type)) return { kind: "unprocessable" };
  const spec = INFO_METHODS[type as keyof typeof INFO_METHODS] as InfoMethodSpec;
  if (endpoint === "explorer" && spec.endpoint !== "explorer") return { kind: "unprocessable" };
  const handler = HANDLERS[type];
  const request = validRequest(spec, body);
  if (request === undefined || !handler) return { kind: "unprocessable" };
  const answer = handler(core, request);
  const serialized = answer instanceof Serialized ? answer : undefined;
  const items = serialized?.length ?? (Array.isArray(answer) ? answer.length : undefined);
  const extraWeight =
    spec.perItemWeight !== undefined && items !== undefined
      ? historyExtraWeight(items, spec.perItemWeight)
      : 0;
  if (serialized)
    return { kind: "json", body: undefined, text: serialized.text, type, weight: spec.weight, extraWeight };
  return { kind: "json", body: answer, type, weight: spec.weight, extraWeight };
}
