// Settings that load but undo a protection or make the bot unable to act: warnings, not errors (a
// user may mean them), shown by `hlbot config validate` and logged when a bot starts. Each says what
// will happen and what to change.

import { Decimal } from "../../lib/decimal.js";
import { NETWORKS } from "../../venue/networks.js";
import { DEFAULT_TWAP_BUY_RESERVE } from "../allocate.js";
import { DEFAULT_USER_SIGNED_GRACE_MS } from "../reconcile.js";
import { CronSchedule, DEFAULT_CATCH_UP_MS, lastSlotAtOrBefore, scheduleWarnings } from "../schedule.js";
import { DEFAULT_VENUE_RULES, type VenueRules } from "../snapshot.js";
import { strategyConflicts } from "../strategies/shared.js";
import { isUsdStablecoin } from "../usd.js";
import { isPlaceholderAddress } from "./fields.js";
import type { LoadedConfig } from "./loader.js";

const HOUR_MS = 3_600_000;
/** Room above the venue's TWAP minimum for rounding an order down to whole lots. */
const ROUNDING_ROOM = new Decimal("1.02");
/**
 * The smallest amount that stays at the venue's TWAP minimum once rounded down to whole lots: a lot is
 * worth well under 1% of 100 USD on the venue's pairs; 2% leaves room for that (whole USD, up).
 */
function withRoundingRoom(minOrder: Decimal): Decimal {
  return minOrder.times(ROUNDING_ROOM).toDecimalPlaces(0, Decimal.ROUND_UP);
}
/** Room for fills a little off a run's amount (the budget counts what fills): 2%. */
const FILL_ROOM = new Decimal("1.02");
/** A rebalancer's band below this (0.25 percentage points) trades price noise at a round trip's cost. */
const NARROW_BAND = new Decimal("0.0025");
/** A twap.maxDeviation below this (0.5%) is cancelled by ordinary moves of the mid over a TWAP's minutes. */
const TIGHT_DEVIATION = new Decimal("0.005");

/**
 * What a DCA's budget has left after its full runs: a run is full while what is left is at least
 * `amount` × (1 + `reserve`) (twapAccumulate sizes the last one under what is left by the reserve).
 */
function budgetTail(budget: Decimal, amount: Decimal, reserve: Decimal): Decimal {
  const full = amount.times(reserve.plus(1));
  if (budget.lt(full)) return budget;
  const runs = budget.minus(full).div(amount).floor().plus(1);
  return budget.minus(runs.times(amount));
}

function span(ms: number): string {
  return ms >= HOUR_MS ? `${+(ms / HOUR_MS).toFixed(2)} h` : `${+(ms / 60_000).toFixed(2)} min`;
}

/** What in `c` works against the user, in words (strategies that fight included). */
export function configWarnings(c: LoadedConfig): string[] {
  const out: string[] = [];
  const grace = c.venue.userSignedGraceMs;
  if (grace < DEFAULT_USER_SIGNED_GRACE_MS) {
    out.push(
      `venue.userSignedGraceMs is ${grace} (${span(grace)}): a staking action whose answer was lost can ` +
        `still land until the venue's nonce window has passed (2 days in its docs), but its strategy acts again after ` +
        `${span(grace)}, so the action may happen twice. Remove the line (default ${DEFAULT_USER_SIGNED_GRACE_MS}, 2 days).`,
    );
  }
  // Settings that undo a protection, each said with what it costs (a config trial: accepted silently).
  if (c.venue.expiresAfterMs === null)
    out.push(
      "venue.expiresAfterMs is null (an empty `expiresAfterMs:` reads so): TWAP orders and cancels are sent with no expiresAfter, " +
        "so one whose answer was lost may still land until the venue's 2-day nonce window has passed, and its strategy waits that long " +
        "before it acts again. Remove the line (default 60000, 1 min).",
    );
  const catchUp = c.schedule?.catchUpMs;
  if (catchUp !== undefined && catchUp < 5 * 60_000)
    out.push(
      `schedule.catchUp is ${span(catchUp)}: a slot is acted in only if hlbot looks within it (under cron, \`hlbot once\` called in that window ` +
        'after every slot; a daemon\'s run delayed by a busy venue or a retry): others are missed. Use at least "15m" (default "2h").',
    );
  const skew = c.schedule?.maxClockSkewMs;
  if (skew !== undefined && skew > HOUR_MS)
    out.push(
      `schedule.maxClockSkew is ${span(skew)}: strategies decide with the local clock up to that far from the venue's, so a slot may be ` +
        `acted in that early (a clock a day ahead runs tomorrow's DCA today, and again tomorrow). Use minutes (default "5m").`,
    );
  // The other network's API as baseUrl: requests signed for one network go to the other's servers, which
  // refuse them, and `plan` shows the other network's account (a fat-finger trial: no warning).
  const other = NETWORKS[c.network === "mainnet" ? "testnet" : "mainnet"];
  if (c.baseUrl !== undefined && sameHost(c.baseUrl, other.apiUrl))
    out.push(
      `baseUrl ${c.baseUrl} is ${other.name}'s API, but network is ${c.network}: every action is signed for ${c.network} and refused there, ` +
        `and the account shown is the one on ${other.name}. Set network: ${other.name}, or remove baseUrl (it defaults to ${c.network}'s API).`,
    );
  if (c.besideState !== undefined)
    out.push(
      `no \`state:\` is set, so the state folder is ${c.state}; ${c.besideState} beside the bot file holds a journal (the default folder of hlbot versions before 2026-11-25, or another bot file's): if it is this bot's, set \`state: ./state\` to keep its journal and nonces, or this bot starts anew (a journal's pending sends and budgets are not seen).`,
    );
  if (!c.strategies.some((s) => s.enabled)) {
    const where = "folder" in c.strategySource ? ` in ${c.strategySource.folder}` : "";
    out.push(
      `no enabled strategy${where}: the bot has nothing to do (\`hlbot run\` refuses to start; plan, once and simulate do nothing). Add a strategy file with \`enabled: true\`.`,
    );
  }
  const minOrder = c.venue.rules.twapMinOrderValue;
  // An order a limit reduces is rounded down to whole lots: a limit at the minimum lands just under it
  // (a small account that followed "at least 100" had its 150-USD DCA blocked on 30 days of 30).
  const enough = withRoundingRoom(minOrder);
  const underMinimum = (key: string, value: Decimal, below: string, at: string) => {
    if (value.gte(enough)) return;
    out.push(
      `limits.${key} ${value.toFixed()} is ${value.lt(minOrder) ? "below" : "at"} the smallest TWAP the venue accepts ` +
        `(venue.twapMinOrderValue ${minOrder.toFixed()}): ${value.lt(minOrder) ? below : at}. Raise ${key} to at least ${enough.toFixed()}.`,
    );
  };
  underMinimum(
    "maxOrderUsd",
    c.limits.maxOrderUsd,
    "every TWAP will be blocked",
    "an order it reduces is rounded down to whole lots and lands under the minimum, blocked",
  );
  underMinimum(
    "maxDailyNotionalUsd",
    c.limits.maxDailyNotionalUsd,
    "no TWAP fits a day",
    "no TWAP fits a day",
  );
  for (const s of c.strategies)
    out.push(...strategyWarnings(s, c.venue.rules, c.limits, c.schedule?.catchUpMs));
  out.push(...strategyConflicts(c.strategies));
  return out;
}

/**
 * What in one strategy works against the user: amounts the venue refuses or the limits cut, schedules
 * that run otherwise than they read, guards that cancel most TWAPs, placeholders. Without `limits` (a
 * strategy file checked on its own) the warnings about them are left out. Disabled strategies: none.
 */
export function strategyWarnings(
  s: LoadedConfig["strategies"][number],
  rules: VenueRules = DEFAULT_VENUE_RULES,
  limits?: Pick<LoadedConfig["limits"], "maxOrderUsd" | "maxDailyNotionalUsd">,
  /** schedule.catchUp of the bot file (its default for a strategy file checked on its own). */
  catchUpMs: number = DEFAULT_CATCH_UP_MS,
): string[] {
  const out: string[] = [];
  const minOrder = rules.twapMinOrderValue;
  const { amountUsd, budgetUsd } =
    s.kind === "twap-accumulate" ? (s.params as { amountUsd?: unknown; budgetUsd?: unknown }) : {};
  const enough = withRoundingRoom(minOrder);
  // The venue's minimum is in the pair's quote: compared with USD amounts only where the quote is a dollar
  // (a DCA paid in HYPE is told so below, not "raise amountUsd to 102").
  const quoteParam = s.kind === "twap-accumulate" ? (s.params as { quote?: unknown }).quote : undefined;
  const inDollars = typeof quoteParam !== "string" || isUsdStablecoin(quoteParam);
  if (s.enabled && inDollars && amountUsd instanceof Decimal && amountUsd.lt(enough))
    out.push(
      `strategy ${s.name}: amountUsd ${amountUsd.toFixed()} is ${amountUsd.lt(minOrder) ? "below" : "at"} the smallest TWAP the venue accepts ` +
        `(venue.twapMinOrderValue ${minOrder.toFixed()})${amountUsd.lt(minOrder) ? ": every run will be skipped" : ", and orders are rounded down to whole lots: a run is skipped whenever that takes it below (at most prices)"}. ` +
        `Raise amountUsd to at least ${enough.toFixed()}.`,
    );
  // A band as wide as a target: the token can go to nothing and stay "within band" (a trader's PURR at
  // 1.7% against 5% ± 10% was never bought).
  if (s.enabled && s.kind === "twap-rebalance") {
    const { targets, band, quote } = s.params as {
      targets?: Record<string, unknown>;
      band?: unknown;
      quote?: string;
    };
    for (const [token, target] of Object.entries(targets ?? {}))
      if (
        token !== quote &&
        target instanceof Decimal &&
        band instanceof Decimal &&
        target.gt(0) &&
        band.gte(target)
      )
        out.push(
          `strategy ${s.name}: band ${band.toFixed()} is at least ${token}'s target ${target.toFixed()}: ${token} can fall to nothing and stay within band, so it is never bought back. Narrow band below ${target.toFixed()} (e.g. ${target.div(4).toDecimalPlaces(4, Decimal.ROUND_DOWN).toFixed()}).`,
        );
  }
  // A band so narrow that a correction is triggered by price noise worth about a round trip's cost: a
  // trial's 0.0005 band on a 50/50 PURR/USDC book placed 52 TWAPs in 2 days, buying at 0.196364 on average
  // and selling at 0.196177, 394 USDC behind holding (fees 42.53, spread and impact 148.62).
  const band = s.kind === "twap-rebalance" ? (s.params as { band?: unknown }).band : undefined;
  if (s.enabled && band instanceof Decimal && band.lt(NARROW_BAND))
    out.push(
      `strategy ${s.name}: band ${band.toFixed()} (${band.times(100).toFixed()} percentage points) is narrower than the moves ` +
        `a round trip's fees and spread cost (the venue's taker fee is 0.07% each way at its base tier, plus half the spread ` +
        `and the impact): the rebalancer trades price noise back and forth and loses that cost each time. Use ${NARROW_BAND.toFixed()} or more (${NARROW_BAND.times(4).toFixed()} or more on a thin book, whose spread is wider).`,
    );
  // A DCA paid in a token that is not a dollar: the venue's minimum is in that token, not in USD.
  if (s.enabled && !inDollars)
    out.push(
      `strategy ${s.name}: it pays in ${quoteParam}: the venue's smallest TWAP (venue.twapMinOrderValue ${minOrder.toFixed()}) is ` +
        `${minOrder.toFixed()} ${quoteParam}, not USD, so amountUsd${budgetUsd === undefined ? "" : " and budgetUsd"} must be worth at least that much ${quoteParam} ` +
        `at its USD price (a run worth less is skipped).`,
    );
  // A rebalancer's minOrderUsd under the venue minimum: corrections between the two are skipped anyway.
  const { minOrderUsd } =
    s.kind === "twap-rebalance" ? (s.params as { minOrderUsd?: unknown }) : { minOrderUsd: undefined };
  if (s.enabled && minOrderUsd instanceof Decimal && minOrderUsd.lt(minOrder))
    out.push(
      `strategy ${s.name}: minOrderUsd ${minOrderUsd.toFixed()} is below the smallest TWAP the venue accepts ` +
        `(venue.twapMinOrderValue ${minOrder.toFixed()}): a correction under ${minOrder.toFixed()} USD is skipped all the same, ` +
        `so a portfolio whose band is worth less than that stays out of band. Raise minOrderUsd to at least ${enough.toFixed()}, or widen band.`,
    );
  // A DCA amount above a limit is cut (or blocked) on every run: it never buys what it says.
  if (s.enabled && amountUsd instanceof Decimal && limits !== undefined) {
    const { maxOrderUsd, maxDailyNotionalUsd } = limits;
    if (amountUsd.gt(maxOrderUsd))
      out.push(
        `strategy ${s.name}: amountUsd ${amountUsd.toFixed()} is above limits.maxOrderUsd ${maxOrderUsd.toFixed()}: every run is reduced to ${maxOrderUsd.toFixed()} USD ` +
          `(blocked when that is below the venue minimum). Lower amountUsd or raise maxOrderUsd to at least ${amountUsd.toFixed()}.`,
      );
    if (amountUsd.gt(maxDailyNotionalUsd))
      out.push(
        `strategy ${s.name}: amountUsd ${amountUsd.toFixed()} is above limits.maxDailyNotionalUsd ${maxDailyNotionalUsd.toFixed()}: every run is reduced to what is left of the day's ` +
          `${maxDailyNotionalUsd.toFixed()} USD, or blocked when that is below the venue minimum. Lower amountUsd or raise maxDailyNotionalUsd to at least ${amountUsd.toFixed()}.`,
      );
  }
  const reserve = rules.twapBuyReserve ?? DEFAULT_TWAP_BUY_RESERVE;
  const smallestBudget = enough.times(reserve.plus(1)).toDecimalPlaces(0, Decimal.ROUND_UP);
  if (s.enabled && inDollars && budgetUsd instanceof Decimal && budgetUsd.lt(smallestBudget))
    out.push(
      `strategy ${s.name}: budgetUsd ${budgetUsd.toFixed()} is too small for one TWAP: a run is sized ${reserve.times(100).toFixed()}% under ` +
        `the budget left (venue.twapBuyReserve) and must reach the venue minimum (${minOrder.toFixed()}) in whole lots. ` +
        `Raise budgetUsd to at least ${smallestBudget.toFixed()}.`,
    );
  // A budget whose last part is too small for a TWAP: that part is never spent (a small account's 300 USD
  // in runs of 102 bought 202 and then skipped 28 runs as "budget used up").
  if (
    s.enabled &&
    inDollars &&
    budgetUsd instanceof Decimal &&
    amountUsd instanceof Decimal &&
    amountUsd.gte(minOrder) &&
    !budgetUsd.lt(smallestBudget)
  ) {
    const tailOf = (budget: Decimal) => budgetTail(budget, amountUsd, reserve);
    const tail = tailOf(budgetUsd);
    // Said when it is worth saying: 5% of the budget or more (what is lost is always under about
    // amountUsd × 1.03, so a large budget loses a small share of it).
    if (tail.gt(0) && tail.div(reserve.plus(1)).lt(minOrder) && !tail.lt(budgetUsd.div(20))) {
      const runs = budgetUsd.minus(tail).div(amountUsd).toDecimalPlaces(0, Decimal.ROUND_DOWN);
      // A budget of whole runs ends with a last run of about amountUsd, sized under it by the reserve:
      // spent to the end when that reaches the minimum with room for whole lots and for fills a little
      // off amountUsd (the budget counts what fills). Nearer the minimum no budget is safe (a review:
      // a suggested rest of 106 USD left 102 after fills and was lost on some price paths).
      const wholeRunsSafe = !amountUsd.div(reserve.plus(1)).lt(enough.times(FILL_ROOM));
      const saferAmount = enough.times(reserve.plus(1)).times(FILL_ROOM).ceil();
      out.push(
        `strategy ${s.name}: budgetUsd ${budgetUsd.toFixed()} buys ${runs.toFixed()} run${runs.eq(1) ? "" : "s"} of amountUsd ${amountUsd.toFixed()} ` +
          `and leaves about ${tail.toFixed(2)} USD: one more TWAP, sized ${reserve.times(100).toFixed()}% under it (venue.twapBuyReserve), ` +
          `would be under the venue minimum ${minOrder.toFixed()}, so that part of the budget is usually left unspent (the budget counts what fills, a little off amountUsd). ` +
          (wholeRunsSafe
            ? `Make it whole runs: budgetUsd ${runs.times(amountUsd).toFixed()} or ${runs.plus(1).times(amountUsd).toFixed()} (the last run is sized under what is left).`
            : `With amountUsd this close to the minimum the last run of any budget may not reach it: raise amountUsd to at least ${saferAmount.toFixed()} and make budgetUsd whole runs of it.`),
      );
    }
  }
  // Not beside "every run will be skipped": it buys nothing a day (a small account's trial read both).
  const neverRuns = inDollars && amountUsd instanceof Decimal && amountUsd.lt(minOrder);
  if (s.enabled && s.kind === "twap-accumulate" && typeof s.schedule === "string" && !neverRuns) {
    const pace = dcaPaceWarning(s.name, s.schedule, s.params as DcaPaceParams, catchUpMs);
    if (pace !== undefined) out.push(pace);
  }
  if (s.enabled && typeof s.schedule === "string")
    for (const w of scheduleWarnings(s.schedule))
      out.push(`strategy ${s.name}: schedule "${s.schedule}": ${w}`);
  const maxDeviation = (s.params as { twap?: { maxDeviation?: unknown } }).twap?.maxDeviation;
  if (s.enabled && maxDeviation instanceof Decimal && maxDeviation.lt(TIGHT_DEVIATION))
    out.push(
      `strategy ${s.name}: twap.maxDeviation ${maxDeviation.toFixed()} (${maxDeviation.times(100).toFixed()}%) is tighter than ordinary moves ` +
        `of the mid over a TWAP's minutes: most TWAPs will be cancelled after a few slices, each paying fees on what filled ` +
        `and counting against the limits until then. Use ${TIGHT_DEVIATION.toFixed()} or more, or leave it out.`,
    );
  if (
    s.enabled &&
    s.kind === "twap-rebalance" &&
    (s.params as { refillFloors?: unknown }).refillFloors === true &&
    s.capital !== undefined &&
    s.capital.size > 0
  )
    out.push(
      `strategy ${s.name}: refillFloors with capital: each rebalancer counts the account's whole floor deficit, not its share, ` +
        "so two of them refill a floor twice (and trade it back). Set refillFloors on one rebalancer only, or leave capital out of it.",
    );
  // maxStaked 0 is a cap of nothing: all stake is undelegated and withdrawn (the 7-day queue), which a
  // newcomer writing 0 for "no cap" did not mean (a trial's 10 days withdrew all 600 HYPE).
  const maxStaked =
    s.kind === "validator-staking" ? (s.params as { maxStaked?: unknown }).maxStaked : undefined;
  if (s.enabled && maxStaked instanceof Decimal && maxStaked.isZero())
    out.push(
      `strategy ${s.name}: maxStaked 0 caps the stake at nothing: every delegation is undelegated and all stake withdrawn to spot ` +
        "(through the unstaking queue, 7 days on mainnet, no rewards meanwhile). For no cap, leave maxStaked out.",
    );
  const counterparty =
    s.kind === "link-staking" ? (s.params as { counterparty?: unknown }).counterparty : undefined;
  if (s.enabled && typeof counterparty === "string" && isPlaceholderAddress(counterparty))
    out.push(
      `strategy ${s.name}: counterparty ${counterparty} is a placeholder, not an account (is STAKING_ACCOUNT set in this environment?): ` +
        "the strategy sends nothing until it names the real account; a staking link is permanent.",
    );
  return out;
}

interface DcaPaceParams {
  amountUsd?: unknown;
  side?: unknown;
  twap?: { minutes?: unknown };
}

/** More DCA runs a day than this (more than hourly) is said with what they spend a day. */
const DCA_RUNS_A_DAY = 24;
const DAY_MS = 24 * HOUR_MS;
/** A week from a Monday, 00:00 UTC: long enough for weekday schedules, the same answer every time. */
const PACE_FROM = Date.UTC(2025, 0, 6);
const PACE_SPAN_MS = 7 * DAY_MS;

/**
 * A DCA whose schedule fires more often than its TWAP lasts, or more than hourly: each run spends
 * amountUsd, and a run is skipped only while its last TWAP runs, so it trades back to back (a user's
 * `"* * * * *"` meant for a daily DCA bought 12 × 150 USD in a day with no word said; only the budget
 * and limits.maxDailyNotionalUsd bound it). Said with the runs and the amount a day.
 */
function dcaPaceWarning(
  name: string,
  expression: string,
  p: DcaPaceParams,
  catchUpMs: number,
): string | undefined {
  const minutes = typeof p.twap?.minutes === "number" ? p.twap.minutes : undefined;
  if (minutes === undefined || !(p.amountUsd instanceof Decimal)) return undefined;
  let schedule: CronSchedule;
  try {
    schedule = new CronSchedule(expression);
  } catch {
    return undefined; // the loader says what is wrong with it
  }
  const twapMs = minutes * 60_000;
  // The shortest gap between two slots (the first few hundred are enough to see the pattern).
  let gap = Number.POSITIVE_INFINITY;
  let at = schedule.next(PACE_FROM - 1);
  for (let i = 0; i < 500 && at !== undefined && at < PACE_FROM + PACE_SPAN_MS; i++) {
    const after = schedule.next(at);
    if (after === undefined) break;
    gap = Math.min(gap, after - at);
    at = after;
  }
  // Runs in the week: a slot that came while the last TWAP ran, within schedule.catchUp of its end, is
  // deferred and runs as it ends; else the next one is the first slot after it (a DCA's trial: every
  // 4 h with 300-minute TWAPs was said to run 3 times a day, and ran 4.5).
  let runs = 0;
  for (let t = schedule.next(PACE_FROM - 1); t !== undefined && t < PACE_FROM + PACE_SPAN_MS; ) {
    runs++;
    const end = t + twapMs;
    const deferred = lastSlotAtOrBefore(schedule, t, end);
    t = deferred !== undefined && end - deferred <= catchUpMs ? end : schedule.next(end - 1);
  }
  const perDay = runs / 7;
  if (!(gap < twapMs) && perDay <= DCA_RUNS_A_DAY) return undefined;
  const verb = p.side === "sell" ? "sells" : "buys";
  const daily = p.amountUsd.times(perDay).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  const why =
    gap < twapMs
      ? `fires every ${span(gap)}, more often than its ${minutes}-minute TWAP lasts: a new TWAP starts as soon as the last ends`
      : `runs more than hourly`;
  return (
    `strategy ${name}: schedule "${expression}" ${why}, about ${+perDay.toFixed(1)} runs a day of amountUsd ${p.amountUsd.toFixed()}: ` +
    `it ${verb} about ${daily.toFixed()} USD a day, bounded only by budgetUsd and limits.maxDailyNotionalUsd. ` +
    `If you meant a daily DCA, write e.g. "0 9 * * *" (every day at 09:00 UTC).`
  );
}

/** Whether two URLs name the same host (an unparsable one names none). */
function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).hostname.toLowerCase() === new URL(b).hostname.toLowerCase();
  } catch {
    return false;
  }
}
