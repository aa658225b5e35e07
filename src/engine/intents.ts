// What strategies decide: intents (actions they want taken) and skips (actions they considered and did
// not take), each with a reason a person can read. Intents are in domain terms; the executor turns them
// into canonical wire actions, and risk limits may reduce or block them first.
import type { Decimal } from "../lib/decimal.js";

/** Name under which manual actions (`hlbot twap`, …) are journaled: their decisions, submissions and usage. */
export const MANUAL_STRATEGY = "manual";

interface Base {
  /** Name of the strategy (from its file) that produced this decision. */
  strategy: string;
  /** Why, in words a person reading `hlbot plan` understands. */
  reason: string;
}

export interface TwapOrderIntent extends Base {
  kind: "twapOrder";
  /** Pair name as the venue names it ("@107"). */
  coin: string;
  /** Human label, e.g. "HYPE/USDC". */
  label: string;
  assetId: number;
  side: "buy" | "sell";
  /** Base-token size, already truncated to the token's szDecimals. */
  size: Decimal;
  szDecimals: number;
  minutes: number;
  randomize: boolean;
  reduceOnly: boolean;
  /** Mid price at decision time, in quote units per base unit. Lets risk limits re-value a reduced order. */
  midPx: Decimal;
  /**
   * The mid the strategy decided at, kept when price sanity raised `midPx` to value the order at the
   * highest price seen: the watch's maxDeviation measures from this one.
   */
  decisionMidPx?: Decimal;
  /** size × midPx × quoteUsd: the order's value in USD (what risk limits and budgets count). */
  notionalUsd: Decimal;
  /**
   * USD per quote unit at decision time (1 for USDC and other stablecoins, the quote's USDC mid
   * otherwise). Absent: risk limits accept only a stablecoin quote and block the rest (fail closed).
   */
  quoteUsd?: Decimal;
  /**
   * The other pairs (venue names) whose mids sized this order: a rebalancer's weights are valued at the
   * mid of every target token. Each passes the price checks as the order's own pair does (a risk trial:
   * with PURR's mid wrong by 200%, the PURR sale was blocked while a 7,000-USDC HYPE buy sized from that
   * PURR price went out, and was sold back an hour later).
   */
  valuedWith?: readonly string[];
  /**
   * The watch's guard of this TWAP as its strategy was configured when it decided (set by the cycle,
   * journaled with the decision): it keeps guarding the TWAP when the strategy is renamed or removed.
   */
  guard?: TwapGuard;
  /**
   * Whether a twap-accumulate decided it (set by the cycle, journaled): a DCA's budget may count it after
   * that strategy's name changed (budget.ts). Absent in journals from before it (Journal.markLegacyDcas).
   */
  byDca?: boolean;
}

/** A running TWAP's price guard: a buy ceiling or sell floor, and the largest move against its side. */
export interface TwapGuard {
  limitPx?: Decimal | undefined;
  /** Where limitPx comes from, for the reason (default "limitPx"). */
  limitName?: string | undefined;
  maxDeviation?: Decimal | undefined;
}

export interface TwapCancelIntent extends Base {
  kind: "twapCancel";
  assetId: number;
  twapId: number;
}

export interface TokenDelegateIntent extends Base {
  kind: "tokenDelegate";
  validator: string;
  /** HYPE. */
  amount: Decimal;
  isUndelegate: boolean;
  /**
   * Set on an undelegation that funds the intent right after it (a delegation elsewhere or a cWithdraw of
   * the same amount): risk limits reduce or block the two together, never one without the other.
   */
  fundsNext?: true;
  /**
   * Set on an undelegation that moves stake for yield (not stake that must leave, not evening out):
   * validator-staking does not move stake back to that validator for yield within horizonDays.
   */
  forYield?: true;
}

export interface CDepositIntent extends Base {
  kind: "cDeposit";
  /** HYPE moved from spot to staking. */
  amount: Decimal;
}

export interface CWithdrawIntent extends Base {
  kind: "cWithdraw";
  /** HYPE moved from staking to the unstaking queue. */
  amount: Decimal;
}

export interface LinkStakingUserIntent extends Base {
  kind: "linkStakingUser";
  user: string;
  isFinalize: boolean;
}

export type Intent =
  | TwapOrderIntent
  | TwapCancelIntent
  | TokenDelegateIntent
  | CDepositIntent
  | CWithdrawIntent
  | LinkStakingUserIntent;

export interface Skip extends Base {
  kind: "skip";
  /** The action that was considered, when there was one. */
  considered?: Intent["kind"];
  /** Not acted on for a temporary reason: the slot stays due. */
  defer?: true;
  /** The strategy threw while deciding (a bug, a read that failed): a failure of its run, not a choice. */
  failed?: true;
  /**
   * Netted against an opposing TWAP on this asset that is still to be sent: covered only if that one
   * goes out (the cycle defers this decision otherwise). Not journaled.
   */
  coveredOn?: number;
  /**
   * What of this strategy's own TWAP was netted against an opposing one of another strategy (its whole
   * order for the smaller side, the part taken off for the larger): traded for it by not trading the
   * other way, so its budget counts it (a portfolio trial: a DCA and a take-profit netted on one pair
   * counted nothing, and repeated the same netted day forever). Counted unless the decision is deferred.
   */
  netted?: {
    usd: Decimal;
    assetId: number;
    side: "buy" | "sell";
    /** The larger side's part taken off its own TWAP (covered by that TWAP going out). */
    part?: true;
    /** A larger side netted to nothing: covered by the other larger sides' TWAPs going out. */
    absorbed?: true;
  };
}

export type Decision = Intent | Skip;

/** The skip that records a guard blocking an intent, naming why. */
export function blockedBy(intent: Intent, why: string): Skip {
  return {
    kind: "skip",
    strategy: intent.strategy,
    considered: intent.kind,
    reason: `${intent.reason}; blocked: ${why}`,
  };
}

/**
 * The price a TWAP's size is held to the venue's minimum order value at: the lower of the mid the strategy
 * decided at and `midPx` (which price sanity may raise above the mid to value the order). The venue checks
 * the order near its mid: after a fall, a reduced buy of 4.6 HYPE met the minimum at the previous day's 25
 * (115 USDC) and was refused at the mid 20 (92 USDC), every hour of the dip (a trader's trial).
 */
export function minimumCheckPx(intent: Pick<TwapOrderIntent, "midPx" | "decisionMidPx">): Decimal {
  const decided = intent.decisionMidPx;
  return decided?.lt(intent.midPx) ? decided : intent.midPx;
}

export function isIntent(decision: Decision): decision is Intent {
  return decision.kind !== "skip";
}

/** Exhaustiveness guard: a new variant becomes a compile error where it is not handled. */
export function never(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}
