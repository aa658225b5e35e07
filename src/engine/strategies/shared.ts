// Defaults that depend on the other strategies sharing the account, resolved once when the
// configuration is loaded (so every run mode, and every cycle of the daemon, sees the same value).
//
// twap-rebalance `countStaked`: unset, it is true when the rebalancer targets HYPE and a
// validator-staking strategy shares the account, enabled or not (staking moves spot HYPE into staking;
// a rebalancer counting spot HYPE only would buy it back again and again; and pausing staking leaves
// the stake where it is: a newcomer's `enabled: false` had the rebalancer buy 13,660 USDC of HYPE in 3
// hours), false otherwise. Set it to decide.
import { Decimal } from "../../lib/decimal.js";
import { pct } from "./common.js";
import type { Strategy } from "./registry.js";
import { STAKED_TOKEN } from "./twapRebalance.js";

export function resolveSharedDefaults(strategies: Strategy[]): Strategy[] {
  const staking = strategies.some((s) => s.kind === "validator-staking");
  return strategies.map((s) => {
    if (s.kind !== "twap-rebalance" || s.params.countStaked !== undefined) return s;
    const countStaked = staking && Object.hasOwn(s.params.targets, STAKED_TOKEN);
    return { ...s, params: { ...s.params, countStaked } };
  });
}

/**
 * Ways the enabled strategies of one account will work against each other, in words (for
 * `hlbot config validate`). Not errors: the configuration still loads; each warning names the fix.
 */
export function strategyConflicts(
  strategies: readonly Strategy[],
  /** The tokens of a pair named by its venue name ("@107"), when the spot metadata is at hand. */
  pairTokens?: (coin: string) => { base: string; quote: string } | undefined,
): string[] {
  const enabled = strategies.filter((s) => s.enabled);
  const warnings: string[] = [];
  // A DCA's coin may name its pair ("PURR/USDC", "@107"): compared by base and quote tokens.
  const market = (a: Extract<Strategy, { kind: "twap-accumulate" }>) => {
    const coin = a.params.coin;
    const [pairBase, pairQuote] = coin.includes("/") ? coin.split("/") : [];
    const known = pairBase === undefined ? pairTokens?.(coin) : undefined;
    const base = pairBase ?? known?.base ?? coin;
    const quote = pairQuote ?? known?.quote ?? a.params.quote;
    return { base, quote, text: base === coin ? coin : `${base} (${coin})` };
  };
  const rebalancers = enabled.filter((s) => s.kind === "twap-rebalance");
  for (const r of rebalancers) {
    const held = Object.keys(r.params.targets).filter((t) => t !== r.params.quote);
    for (const other of enabled) {
      if (other === r) continue;
      if (other.kind === "twap-accumulate") {
        const { base, quote, text } = market(other);
        // The token the DCA pays with (or is paid in) is one the rebalancer holds at a weight: what the
        // DCA spends takes that weight out of band, and the rebalancer sells its other tokens to bring it
        // back, so part of each buy is paid with them at a second fee and spread (a small account's PURR
        // DCA paid in USDC had a HYPE/USDC 50/50 rebalancer sell HYPE after each buy, HYPE flat).
        const weight = r.params.targets[quote];
        // A venue name ("@107") not resolved offline may be a token the rebalancer holds: that is the
        // other warning's, once the metadata names it.
        if (
          quote !== base &&
          !base.startsWith("@") &&
          weight?.gt(0) &&
          !held.includes(base) &&
          !r.capital?.has(quote)
        )
          warnings.push(
            `${other.name} ${other.params.side === "buy" ? "pays for its buys in" : "is paid in"} ${quote}, which ${r.name} holds at ` +
              `${weight} of its portfolio: as ${other.name}'s runs ${other.params.side === "buy" ? "spend" : "add"} ${quote}, ${r.name} ` +
              `${other.params.side === "buy" ? "sells" : "buys"} its other tokens to bring ${quote} back to its weight, so about ` +
              `${pct(new Decimal(1).minus(weight))} of each run is ${other.params.side === "buy" ? "paid with them" : "put into them"}, at a second fee and spread. If that is not meant, give ${r.name} ` +
              `a capital of ${quote} (capital: {${quote}: amount}): it then sees at most that much ${quote}, and what ${other.name} ` +
              `${other.params.side === "buy" ? "spends" : "adds"} beyond it does not move its weights.`,
          );
        if (held.includes(base)) {
          warnings.push(
            `${other.name} ${other.params.side === "buy" ? "buys" : "sells"} ${text}, which ${r.name} holds at ` +
              `${r.params.targets[base]} of its portfolio: once ${other.name}'s runs take ${base} out of ${r.name}'s band, ` +
              `${r.name} trades them back (fees both ways, no progress). Let only one of them trade ${base}.`,
          );
        }
      } else if (other.kind === "twap-rebalance") {
        const both = held.filter((t) => Object.hasOwn(other.params.targets, t) && t !== other.params.quote);
        // Each pair is reported once.
        if (both.length > 0 && rebalancers.indexOf(other) > rebalancers.indexOf(r)) {
          warnings.push(
            `${r.name} and ${other.name} both hold ${both.join(", ")} at a weight: each moves the other's ` +
              `portfolio. Give each rebalancer its own tokens.`,
          );
        } else if (rebalancers.indexOf(other) > rebalancers.indexOf(r)) {
          // Only the quote shared (HYPE/USDC and PURR/USDC): each sizes its trade from the same quote
          // balance in the same cycle, so after a deposit, a withdrawal or a shock both correct at once and
          // one overshoots and trades back within the hour (a portfolio trial: PURR sold back 53% of a buy
          // two hours later). A capital of the quote for each keeps them apart.
          const quote = r.params.quote;
          const sharesQuote =
            quote === other.params.quote &&
            r.params.targets[quote]?.gt(0) === true &&
            other.params.targets[quote]?.gt(0) === true &&
            !(r.capital?.has(quote) === true && other.capital?.has(quote) === true);
          if (sharesQuote)
            warnings.push(
              `${r.name} and ${other.name} both hold ${quote} at a weight and size their trades from the same ${quote} balance: ` +
                `after a deposit, a withdrawal or a price shock both correct at once, and one overshoots and trades back. ` +
                `Give each a capital of ${quote} (capital: {${quote}: amount}) so each sees only its own.`,
            );
        }
      } else if (other.kind === "validator-staking") {
        if (
          held.includes(STAKED_TOKEN) &&
          other.params.stakeIdleSpot?.enabled &&
          r.params.countStaked !== true
        ) {
          warnings.push(
            `${other.name} moves spot ${STAKED_TOKEN} above ${other.params.stakeIdleSpot.keepSpot} into staking, and ` +
              `${r.name} holds ${STAKED_TOKEN} at a weight counting spot only: it will buy back what is staked ` +
              `until its quote is gone. Set countStaked: true in ${r.name} (or disable stakeIdleSpot).`,
          );
        } else if (
          held.includes(STAKED_TOKEN) &&
          other.params.stakeIdleSpot?.enabled &&
          !(other.params.withdrawForSales && other.params.stakeIdleSpot.keepSpot.gt(0))
        ) {
          // Without withdrawForSales staked HYPE is never withdrawn for the rebalancer's sales: once what is
          // kept on spot is sold, a further rise leaves it over target (a year of the shipped configs: HYPE
          // 55 to 76% against a 50% target for months, "no HYPE available on spot to sell", a long-run trial).
          const keep = other.params.stakeIdleSpot.keepSpot;
          warnings.push(
            keep.isZero()
              ? `${other.name} moves all spot ${STAKED_TOKEN} into staking (keepSpot: 0), and ${r.name} can sell only ` +
                  `spot ${STAKED_TOKEN}: when ${STAKED_TOKEN} rises above its band it will have nothing to sell ` +
                  `(unstaking takes 7 days on mainnet${other.params.withdrawForSales ? ": withdrawForSales withdraws what a sale lacks, and the sale waits that long" : ""}). ` +
                  `Keep some ${STAKED_TOKEN} on spot for it (keepSpot).`
              : `${other.name} stakes spot ${STAKED_TOKEN} above keepSpot ${keep.toFixed()} and never withdraws stake for ` +
                  `${r.name}'s sales: once those ${keep.toFixed()} (and what it bought since) are sold, a further rise of ` +
                  `${STAKED_TOKEN} leaves ${r.name} over target until staked ${STAKED_TOKEN} is brought back by hand ` +
                  `(\`hlbot undelegate\` and \`hlbot unstake\`, 7 days on mainnet)` +
                  (other.params.maxStaked === undefined
                    ? ` or by ${other.name}'s maxStaked`
                    : ` (its maxStaked ${other.params.maxStaked.toFixed()} withdraws only the stake above it)`) +
                  `. Set withdrawForSales: true in ${other.name} to withdraw what a sale lacks (it waits the unstaking queue, 7 days on mainnet)` +
                  (other.params.maxStaked === undefined
                    ? `, keep on spot what the sales you expect need (keepSpot), or cap the stake (maxStaked).`
                    : `, or keep on spot what the sales you expect need (keepSpot).`),
          );
        }
      }
    }
  }
  // countStaked from a paused staking strategy (its default since staking paused no longer drops the
  // stake from the weight): said, so a stake meant to stay apart is not sold against (a review: a
  // rebalancer beside a disabled staking file sold 400 HYPE where it sold 109 before).
  const paused = strategies.filter((s) => !s.enabled && s.kind === "validator-staking");
  if (paused.length > 0 && !enabled.some((s) => s.kind === "validator-staking"))
    for (const r of rebalancers)
      if (Object.hasOwn(r.params.targets, STAKED_TOKEN) && r.params.countStaked === true)
        warnings.push(
          `${r.name} counts staked ${STAKED_TOKEN} in its weight (countStaked, true by default while ${paused.map((s) => s.name).join(", ")} ` +
            `is configured, even disabled: pausing staking leaves the stake where it is), and sells only spot ${STAKED_TOKEN}. ` +
            `If that stake is meant to stay apart from ${r.name}'s portfolio, set countStaked: false in ${r.name}.`,
        );
  // Two staking strategies of one account each place the whole stake by their own rules: they move it
  // back and forth (rewards lost, maxStakeMovePerDay spent on moves) and delegate the same idle stake in
  // one cycle, the second refused by the venue (a config trial: no warning). Likewise two link-staking.
  for (const kind of ["validator-staking", "link-staking"] as const) {
    const same = enabled.filter((s) => s.kind === kind);
    if (same.length > 1)
      warnings.push(
        `${same.map((s) => s.name).join(" and ")} are all ${kind} strategies of this account: ` +
          (kind === "validator-staking"
            ? "each places the whole stake by its own rules, so they move it back and forth (rewards lost, maxStakeMovePerDay spent on moves) and delegate the same idle stake in one cycle (the venue refuses the second)."
            : "each sends its own link proposals for the same account.") +
          " Keep one enabled.",
      );
  }
  const accumulators = enabled.filter((s) => s.kind === "twap-accumulate");
  // A DCA selling HYPE beside staking that sweeps spot HYPE: once staked, HYPE takes the unstaking queue
  // to come back, and the sales find only what staking keeps on spot (a trial's sell DCA sold 100 HYPE
  // and then failed every run while 9,900 sat in staking). Staking holds back idle HYPE only while a
  // sale is running, not for one scheduled later.
  for (const a of accumulators) {
    if (a.params.side !== "sell" || market(a).base !== STAKED_TOKEN) continue;
    for (const st of enabled) {
      if (st.kind !== "validator-staking" || !st.params.stakeIdleSpot?.enabled) continue;
      warnings.push(
        `${a.name} sells ${market(a).text}, and ${st.name} moves spot ${STAKED_TOKEN} above keepSpot ` +
          `${st.params.stakeIdleSpot.keepSpot} into staking between its runs: staked ${STAKED_TOKEN} takes the ` +
          `unstaking queue (7 days on mainnet) to come back, so ${a.name} can sell only what is kept on spot. ` +
          `Check that keepSpot (or limits.keepOnSpot.${STAKED_TOKEN}) covers what ${a.name} sells in a week, or disable stakeIdleSpot.`,
      );
    }
  }
  for (const [i, a] of accumulators.entries()) {
    for (const b of accumulators.slice(i + 1)) {
      const ma = market(a);
      const mb = market(b);
      if (ma.base === mb.base && ma.quote === mb.quote && a.params.side !== b.params.side) {
        // A buy below a ceiling and a sell above a floor over it never trade at one mid: buy low, sell high
        // (a trader's pair of DCAs was warned as fighting).
        const buy = a.params.side === "buy" ? a : b;
        const sell = a.params.side === "buy" ? b : a;
        const ceiling = buy.params.limitPx;
        const floor = sell.params.limitPx;
        if (ceiling !== undefined && floor !== undefined && ceiling.lt(floor)) continue;
        warnings.push(
          `${a.name} ${a.params.side}s and ${b.name} ${b.params.side}s ${ma.base}/${ma.quote}: ` +
            `opposing sides on one pair (netted when they run in the same cycle, fees both ways otherwise).`,
        );
      }
    }
  }
  return warnings;
}
