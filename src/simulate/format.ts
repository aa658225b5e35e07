// The simulation summary as text for a person at a terminal. Everything shown comes from the summary
// object (so `--json` holds the same figures); skipped decisions are grouped by their reason's template
// (summary.ts reasonTemplate: numbers aside) with the latest wording, because an hourly strategy says "within band" with
// new numbers every hour. `--json` lists every distinct reason with its exact count.
import { Decimal } from "../lib/decimal.js";
import { duration, netAprText, shortAddress } from "../lib/text.js";

export { netAprText };

import { CronSchedule } from "../engine/schedule.js";
import { candleGapWarning } from "../simulator/candles.js";
import { CANDLE_INTERVAL_MS, type CandleInterval } from "../venue/info/methods/candleSnapshot.js";
import { isoMinute, type ReplayedPrices } from "./runner.js";
import {
  type FlowSummary,
  type ReplayedSummary,
  reasonTemplate,
  replayedSummary,
  type SimulationSummary,
  twapStatusText,
  type ValuationSummary,
} from "./summary.js";

/** What reconciliation concluded about submissions whose answer was lost, in a few words. */
export function unknownsText(u: SimulationSummary["unknowns"]): string | undefined {
  if (u.total === 0) return undefined;
  const sent = `${u.total === 1 ? "1 submission" : `${u.total} submissions`} unknown at send`;
  if (u.unresolved === u.total)
    return `${sent}, still unknown at the end of the run (no later cycle reconciled ${u.total === 1 ? "it" : "them"})`;
  if (u.total === 1)
    return `${sent}, later found ${u.landed ? "landed" : "absent (never took effect)"} (reconciled against the venue)`;
  const parts = [
    u.landed > 0 ? `${u.landed} found landed` : "",
    u.absent > 0 ? `${u.absent} found absent (never took effect)` : "",
    u.unresolved > 0 ? `${u.unresolved} still unknown at the end of the run` : "",
  ].filter(Boolean);
  return `${sent}; reconciled against the venue later: ${parts.join(", ")}`;
}

/** Scenario events the run never reached, in one line. */
export function eventsNotAppliedText(events: SimulationSummary["eventsNotApplied"]): string | undefined {
  if (events.length === 0) return undefined;
  const list = events.map((e) => `${e.what} at ${when(e.at)}`).join("; ");
  return `${events.length === 1 ? "1 scenario event" : `${events.length} scenario events`} after the end of the run ${events.length === 1 ? "was" : "were"} not applied: ${list}`;
}

/** "12345.5" → "12,345.5" (exact: works on the decimal string). */
export function groupDigits(value: string): string {
  const [int = "", frac] = value.split(".");
  const sign = int.startsWith("-") ? "-" : "";
  const digits = sign ? int.slice(1) : int;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${grouped}${frac === undefined ? "" : `.${frac}`}`;
}

/** Significant digits a value under 1 keeps when `dp` decimals would cut them. */
const SMALL_VALUE_DIGITS = 4;

/**
 * At most `dp` decimals, for display (the JSON keeps every digit); a value under 1 keeps its first
 * SMALL_VALUE_DIGITS significant digits (a numbers audit: 0.00157 UBTC bought showed as 0.0015, a fee of
 * 0.0000009484 as 0, an average price of 0.00001193 as 0.000011).
 */
function short(value: string, dp = 4): string {
  const [int, frac] = value.split(".");
  if (frac === undefined) return groupDigits(value);
  const lead = /^-?0$/.test(int ?? "") ? frac.search(/[1-9]/) : -1;
  const keep = lead === -1 ? dp : Math.max(dp, lead + SMALL_VALUE_DIGITS);
  const cut = frac.slice(0, keep).replace(/0+$/, "");
  return groupDigits(cut ? `${int}.${cut}` : (int ?? "0"));
}

const pct = (fraction: string) => `${(Number(fraction) * 100).toFixed(2)}%`;

/**
 * A change as a signed percentage: the sign is the change's own (a ratio rounded to zero has none), and
 * a change too small to show at 2 decimals says so instead of "+0.00%".
 */
export function signedPct(ratio: string, change: string): string {
  const n = Number(change);
  const sign = n < 0 ? "-" : "+";
  const shown = Math.abs(Number(ratio) * 100).toFixed(2);
  if (shown === "0.00" && n !== 0) return `${sign}<0.01%`;
  return `${n === 0 ? "" : sign}${shown}%`;
}
/** The average against the start mid, signed in the trader's favour (a sale above it, a buy below: +). */
function againstStart(average: string, startMid: string, side: "buy" | "sell"): string {
  const a = new Decimal(average);
  const m = new Decimal(startMid);
  const better = side === "sell" ? a.minus(m) : m.minus(a);
  return signedPct(better.div(m).toString(), better.toString());
}

function when(isoTime: string): string {
  return isoTime.replace("T", " ").replace(/:\d\d\.\d{3}Z$/, "");
}

/** Aligned columns; `align` has one letter per column, "l" or "r" (numbers), default "l" then "r"s. */
function table(rows: string[][], align = "l"): string[] {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  const left = (i: number) => (align[i] ?? "r") === "l";
  return rows.map(
    (r) =>
      "  " +
      r
        .map((c, i) => (left(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
  );
}

function portfolio(s: SimulationSummary): string[] {
  const { start, end } = s.portfolio;
  const find = (v: ValuationSummary, asset: string) => v.assets.find((a) => a.asset === asset);
  const assets = [...new Set([...start.assets, ...end.assets].map((a) => a.asset))];
  const rows = [["", "start", "", "end", ""]];
  rows.push(["value", groupDigits(start.value), "", groupDigits(end.value), ""]);
  for (const asset of assets) {
    const a = find(start, asset);
    const b = find(end, asset);
    rows.push([
      asset,
      a ? short(a.amount) : "0",
      a ? pct(a.weight) : "",
      b ? short(b.amount) : "0",
      b ? pct(b.weight) : "",
    ]);
  }
  // With deposits or withdrawals the change holds them: a percentage of it would be no return.
  const ratio =
    s.portfolio.changeRatio === null || s.portfolio.flows.length > 0
      ? ""
      : `, ${signedPct(s.portfolio.changeRatio, s.portfolio.change)}`;
  const exRatio = s.portfolio.changeExFlowsRatio;
  const sign = s.portfolio.change.startsWith("-") ? "" : "+";
  return [
    `Portfolio (${s.valuationCoin} at mid prices; amounts and weights)`,
    ...table(rows),
    `  change: ${sign}${groupDigits(s.portfolio.change)} ${s.valuationCoin}${ratio}`,
    ...(s.portfolio.flows.length === 0
      ? []
      : [
          `  of which deposits and withdrawals (scenario events): ${s.portfolio.netFlows.startsWith("-") ? "" : "+"}${groupDigits(s.portfolio.netFlows)} ${s.valuationCoin}; change without them: ${s.portfolio.changeExFlows.startsWith("-") ? "" : "+"}${groupDigits(s.portfolio.changeExFlows)}${exRatio === null ? "" : ` (${signedPct(exRatio, s.portfolio.changeExFlows)} of the capital, each deposit and withdrawal weighted by its time in the account)`}`,
          ...s.portfolio.flows.map(
            (f) =>
              `    ${f.at.slice(0, 16).replace("T", " ")}  ${f.amount.startsWith("-") ? "" : "+"}${groupDigits(f.amount)} ${f.coin}` +
              (f.requested === undefined
                ? ""
                : ` (withdrawal of ${groupDigits(f.requested.replace(/^-/, ""))} asked: ${f.held === undefined ? "no more was on spot" : `the rest of the spot balance, ${groupDigits(f.held)}, was held by running orders`})`),
          ),
        ]),
  ];
}

/**
 * What reduced or cancelled TWAPs, one line each; more than three with one template (a small
 * maxOrderUsd reduces every order) in one line with the latest wording.
 */
function twapNotes(list: SimulationSummary["twaps"]): string[] {
  const groups = new Map<string, Array<{ id: number; note: string }>>();
  for (const t of list) {
    if (t.note === null) continue;
    const key = reasonTemplate(t.note);
    groups.set(key, [...(groups.get(key) ?? []), { id: t.twapId, note: t.note }]);
  }
  const out: string[] = [];
  for (const g of groups.values()) {
    if (g.length <= 3) for (const x of g) out.push(`  #${x.id} ${x.note}`);
    else {
      const last = g[g.length - 1]!;
      out.push(`  ${g.length} TWAPs, #${g[0]!.id} to #${last.id}, the latest: #${last.id} ${last.note}`);
    }
  }
  return out;
}

/** The book models the fills came from, in words: the costs are only as true as they are. */
export function booksText(s: SimulationSummary): string {
  const parts = s.books.map(({ pair, book }) => {
    if (book === null) return `${pair}: no book, filled at the mid (no spread or impact)`;
    const quote = pair.split("/")[1] ?? "";
    return (
      `${pair} ${book.class}: spread ${book.spreadBps} bps, ${groupDigits(String(book.depth))} ${quote} within ` +
      `${+(book.depthRange * 100).toFixed(4)}% a side, recovering with a ${duration(book.recoveryMs)} half-life, ` +
      `${groupDigits(String(book.dayVolume))} ${quote} traded a day by others`
    );
  });
  return `fills against assumed books (the scenario's book:, simulator defaults by class): ${parts.join("; ")}`;
}

function twaps(s: SimulationSummary): string[] {
  if (s.twaps.length === 0) return ["TWAPs: none placed"];
  const nothing = s.trades.reduce((a, t) => a + t.filledNothing, 0);
  const out = [
    `TWAPs (${s.twaps.length}${nothing > 0 ? `, ${nothing} filled nothing` : ""}, from the venue's ledger)`,
  ];
  const rows = s.twaps.map((t) => {
    const [base = "", quote = ""] = t.label.split("/");
    return [
      `#${t.twapId}`,
      t.carried ? "(carried)" : (t.strategy ?? "?"),
      when(t.placedAt),
      `${t.side} ${short(t.size)} ${base}`,
      `${t.minutes} min`,
      twapStatusText(t),
      `${short(t.executedSize)} @ ${t.averagePrice === null ? "-" : short(t.averagePrice, 6)}`,
      `${short(t.executedNotional, 2)} ${quote}`,
      `${t.slices} slices${t.skippedSlices ? ` (${t.skippedSlices} skipped: ${skipText(t.skipReasons)})` : ""}`,
      `fee ${short(t.fee, 6)} ${t.feeToken ?? ""}`.trimEnd(),
    ];
  });
  out.push(...table(rows, "lllrllrrll"));
  out.push(...twapNotes(s.twaps));
  out.push(
    `Execution (cost: positive = worse than the reference price; in ${s.twaps[0]?.label.split("/")[1] ?? "quote"})`,
  );
  if (s.books.length > 0) out.push(`  ${booksText(s)}`);
  const bp = (v: string | null) => (v === null ? "-" : `${v} bps`);
  const exec = [
    [
      "",
      "decision mid",
      "avg fill",
      "slippage",
      "(quote)",
      "run mid",
      "shortfall",
      "(quote)",
      "spread+impact",
      "unfilled (base)",
    ],
  ];
  for (const t of s.twaps)
    exec.push([
      `#${t.twapId}`,
      t.decisionMid === null ? "-" : short(t.decisionMid, 6),
      t.averagePrice === null ? "-" : short(t.averagePrice, 6),
      bp(t.slippageBps),
      groupDigits(t.slippage),
      t.twMid === null ? "-" : short(t.twMid, 6),
      bp(t.shortfallBps),
      groupDigits(t.shortfall),
      groupDigits(t.impact),
      t.unfilledSize === "0"
        ? ""
        : // A TWAP still running at the end has not failed to fill: it has not finished.
          `${short(t.unfilledSize)} ${t.label.split("/")[0] ?? ""}`.trimEnd() +
          (t.status === "running" ? " (still running)" : ""),
    ]);
  out.push(...table(exec));
  const e = s.execution;
  out.push(
    `  total on ${groupDigits(e.notional)} ${s.valuationCoin} traded: slippage vs decision ${groupDigits(e.slippage)} (${bp(e.slippageBps)}), shortfall vs run mid ${groupDigits(e.shortfall)} (${bp(e.shortfallBps)}), spread+impact ${groupDigits(e.impact)} (${bp(e.impactBps)}), fees ${groupDigits(e.fees)} (${bp(e.feesBps)}); fees and spread+impact together ${bp(e.costsBps)} (the sum of the two; each bps above is of the notional at its own reference price: fees of the notional paid, spread+impact of the slices' mids)`,
  );
  out.push("Trades");
  out.push(
    ...table(
      s.trades.map((t) => {
        const [base = "", quote = ""] = t.label.split("/");
        return [
          `${t.label} ${t.side}`,
          `${t.twaps} TWAP(s)${t.filledNothing > 0 ? `, ${t.filledNothing} filled nothing` : ""}, ${t.slices} slices`,
          `${short(t.size)} ${base}`,
          `${short(t.notional, 2)} ${quote}`,
          `average ${t.averagePrice === null ? "-" : short(t.averagePrice, 6)}`,
          t.averagePrice === null || t.startMid === null
            ? ""
            : `start mid ${short(t.startMid, 6)} (${againstStart(t.averagePrice, t.startMid, t.side)})`,
        ];
      }),
      "llrrll",
    ),
  );
  if (s.trades.some((t) => t.startMid !== null && t.averagePrice !== null))
    out.push(
      "  (start mid: the pair's mid when the run began; + means the average was better than trading it all at that mid: higher for a sale, lower for a buy)",
    );
  const fees = s.fees.byToken.map((f) => `${short(f.amount, 6)} ${f.token}`).join(" + ");
  out.push(`Fees: ${fees || "none"} (≈ ${groupDigits(s.fees.value)} ${s.valuationCoin})`);
  return out;
}

function staking(s: SimulationSummary): string[] {
  const st = s.staking;
  const out = ["Staking (HYPE)"];
  if (st.deposits > 0)
    out.push(`  moved ${short(st.deposited)} HYPE from spot into staking (${st.deposits} deposits)`);
  if (st.validators.length > 0) {
    const rows = [
      ["validator", "week's net APR at end", "start", "delegated", "undelegated", "rewards", "end"],
    ];
    for (const v of st.validators)
      rows.push([
        `${v.name} (${shortAddress(v.validator)})`,
        netAprText(v.netApr, v.notEarning),
        short(v.start),
        short(v.delegated),
        short(v.undelegated),
        short(v.rewards, 6),
        short(v.end),
      ]);
    out.push(...table(rows));
  }
  // Delegation changes and withdrawals to spot, in time order (an undelegation followed by a withdrawal
  // is stake leaving for spot, not a move).
  const moves = [
    ...st.changes.map((c) => ({
      at: c.at,
      line: `${c.action} ${short(c.amount)} HYPE ${c.action === "delegate" ? "to" : "from"} ${c.name}`,
    })),
    ...st.withdrawals.list.map((w) => ({
      at: w.at,
      line: `withdraw ${short(w.amount)} HYPE to spot (${w.landedAt === null ? "still in the unstaking queue at the end" : `back on spot ${when(w.landedAt)}`})`,
    })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  for (const m of moves) out.push(`  ${when(m.at)}  ${m.line}`);
  const e = st.end;
  out.push(
    `  at the end: ${short(e.delegated)} HYPE delegated (${short(e.locked)} locked), ${short(e.idle, 8)} idle (undelegated, earning nothing), ${short(e.pendingWithdrawal)} pending withdrawal`,
  );
  if (st.withdrawals.initiated !== "0" || st.withdrawals.finalized !== "0")
    out.push(
      `  withdrawals: ${short(st.withdrawals.initiated)} HYPE started, ${short(st.withdrawals.finalized)} HYPE back on spot`,
    );
  out.push(
    `  rewards: ${short(st.rewards.amount, 8)} HYPE in ${st.rewards.payouts} daily payouts (≈ ${groupDigits(st.rewards.value)} ${s.valuationCoin} at the end price)`,
  );
  return out;
}

function benchmark(s: SimulationSummary): string[] {
  const b = s.benchmark;
  const signed = (v: string) => (v.startsWith("-") ? groupDigits(v) : `+${groupDigits(v)}`);
  const ratio = (r: string | null, change: string) => (r === null ? "" : ` (${signedPct(r, change)})`);
  const k = b.breakdown;
  const p = s.portfolio;
  const flows = p.flows.length > 0;
  // With deposits or withdrawals both changes leave them out, so the two rows compare like with like.
  const botChange = flows ? p.changeExFlows : p.change;
  const botRatio = flows ? p.changeExFlowsRatio : p.changeRatio;
  return [
    `Did the bot help? Against buy and hold (the starting holdings${flows ? " plus the deposits and withdrawals when they happen" : ""}, untouched, delegations still earning, at the same prices; ${s.valuationCoin})`,
    ...table(
      [
        ["", "start", "end", flows ? "change without deposits and withdrawals" : "change"],
        [
          "bot",
          groupDigits(p.start.value),
          groupDigits(p.end.value),
          `${signed(botChange)}${ratio(botRatio, botChange)}`,
        ],
        [
          "buy and hold",
          groupDigits(b.start),
          groupDigits(b.end),
          `${signed(b.change)}${ratio(b.changeRatio, b.change)}`,
        ],
      ],
      "lrrr",
    ),
    `  staking rewards: bot ${short(b.rewards.bot.amount, 6)} HYPE (≈ ${groupDigits(b.rewards.bot.value)} ${s.valuationCoin}), buy and hold ${short(b.rewards.benchmark.amount, 6)} HYPE (≈ ${groupDigits(b.rewards.benchmark.value)} ${s.valuationCoin}), on its starting delegations left alone`,
    `  bot − buy and hold: ${signed(b.botMinusBenchmark)} = staking rewards beyond buy and hold's ${signed(k.stakingRewards)}, fees ${signed(k.fees)}, spread and impact ${signed(k.spreadAndImpact)}, price moves on what it traded (what it held when, not only when it traded) and other ${signed(k.timingAndOther)}`,
    ...(onePricePath(s) ? [`  ${onePathText(s.seed)}`] : []),
    ...(Number(b.unequalWithdrawals) === 0
      ? []
      : [
          `  left out of it: ${signed(b.unequalWithdrawals)}, the move since of what a withdrawal paid the bot and buy and hold differently (${unequalPaid(p.flows, b.flows)}); ` +
            `the changes above hold it, so they differ by ${signed((Number(b.botMinusBenchmark) + Number(b.unequalWithdrawals)).toFixed(2))}`,
        ]),
  ];
}

/** The withdrawals paid differently, in words: "2025-01-21 00:00 HYPE: bot 1,000, buy and hold 1,700". */
function unequalPaid(bot: readonly FlowSummary[], bench: readonly FlowSummary[]): string {
  const out: string[] = [];
  for (const f of bot) {
    const other = bench.find((g) => g.at === f.at && g.coin === f.coin);
    if (other === undefined || other.amount === f.amount) continue;
    const paid = (x: string) => groupDigits(x.replace(/^-/, ""));
    out.push(`${when(f.at)} ${f.coin}: bot paid ${paid(f.amount)}, buy and hold ${paid(other.amount)}`);
  }
  return out.join("; ");
}

function skipped(s: SimulationSummary): string[] {
  if (s.skipped.length === 0) return ["Skipped: nothing"];
  const total = s.skipped.reduce((a, g) => a + g.count, 0);
  const out = [
    `Skipped and blocked (${total} decisions, ${s.skipped.length} distinct reasons in ${s.reasons.length} kinds, by template with the latest numbers; --json "reasons" and "skipped")`,
  ];
  for (const g of s.reasons) {
    const tag = g.guard === "blocked" ? "blocked by a limit: " : "";
    out.push(
      // Since when, too: over a year "345×" hid a DCA stopped since its 21st day (a year-long trial).
      `  ${g.strategy}  ${g.count}×  ${tag}${g.latest}${g.count > 1 ? `  (${when(g.first)} to ${when(g.latestAt)})` : ""}`,
    );
  }
  return out;
}

/** What a run of a bot file naming its account does not show about that account (console and HTML). */
export function accountCaveat(configAccount: string, forkedFrom: string | null): string {
  const signing =
    "what it may sign is not checked (on the venue, staking needs the account's own key: a sub-account, a vault or an API wallet cannot stake)";
  return forkedFrom === configAccount
    ? `the bot file's account ${shortAddress(configAccount)}, forked, but signed for by a demo key: ${signing}`
    : `not the bot file's account ${shortAddress(configAccount)}: its holdings are not read (--fork starts from them), and ${signing}`;
}

/** Whether the result rests on one of many possible price paths: not a fork held at its mids (flat). */
export function onePricePath(s: Pick<SimulationSummary, "forkedFrom" | "replayed">): boolean {
  return s.forkedFrom === null || s.replayed.length > 0;
}

export function onePathText(seed: number): string {
  return `one price path (seed ${seed}): the part from price moves can change sign on another (--seed N runs another; a sweep with --seeds, several)`;
}

export function formatSummary(s: SimulationSummary): string {
  const holdings = s.forkedFrom
    ? `the holdings of the forked account ${shortAddress(s.forkedFrom)}`
    : s.holdingsFrom
      ? `the holdings of the scenario's demo account ${shortAddress(s.holdingsFrom)}`
      : "the default demo holdings";
  const outcomes = new Map<string, number>();
  for (const a of s.actions) outcomes.set(a.outcome, (outcomes.get(a.outcome) ?? 0) + a.count);
  const acted = [...outcomes.entries()].map(([o, n]) => `${n} ${o}`).join(", ") || "none";
  const lines = [
    `Simulated ${s.period.days} day(s) of the ${s.scenario} scenario${replayedText(s)} (seed ${s.seed}, ${s.network} signatures): ${when(s.period.from)} → ${when(s.period.to)} UTC${s.period.interrupted ? " (interrupted)" : ""}`,
    ...s.replayed.map((r) => `  ${replayedLine(r, s.period.days)}`),
    ...s.notReplayed.map((n) => `  ${notReplayedLine(n)}`),
    `Account ${s.account}: a demo key derived from the seed, with ${holdings}`,
    ...(s.configAccount === null ? [] : [`  ${accountCaveat(s.configAccount, s.forkedFrom)}`]),
    `Strategies${s.configFile === undefined ? "" : ` of ${s.configFile}`}: ${s.strategies.map((x) => `${x.name} (${x.kind}, "${x.schedule}", ${runsText(x)})`).join("; ") || "none enabled"}`,
    ...(s.warnings?.length
      ? ["Warnings (as `hlbot config validate` gives them):", ...s.warnings.map((w) => `  ${w}`)]
      : []),
    `Cycles: ${s.cycles.total}${s.cycles.watch > 0 ? `, ${s.cycles.watch} of them the TWAP watch's cancels` : ""}, ${s.cycles.failed} failed${s.cycles.watchFailed > 0 ? ` (${s.cycles.watchFailed} of them the TWAP watch's checks, whose reads failed)` : ""}. Actions: ${acted}.`,
  ];
  for (const f of s.cycles.failures) lines.push(`  failed ${f.count}×: ${f.reason}`);
  for (const x of s.strategies)
    if (x.missedSlots > 0)
      lines.push(
        `  ${x.name}: ${x.missedSlots} slot(s) missed, not acted in (left until older than schedule.catchUp, e.g. deferred behind another TWAP on its pair, by a daily limit (maxDailyNotionalUsd, maxStakeMovePerDay) or by failed runs, or superseded by a later slot)${x.lastMissed === null ? "" : `, the latest ${when(x.lastMissed)} UTC`}`,
      );
  for (const r of s.rejections) lines.push(`  ${r.strategy} ${r.action} ${r.count}× ${r.reason}`);
  const unknowns = unknownsText(s.unknowns);
  if (unknowns) lines.push(`  ${unknowns}`);
  for (const e of s.eventsApplied) lines.push(`  event ${when(e.at)}: ${e.what}`);
  const skippedEvents = eventsNotAppliedText(s.eventsNotApplied);
  if (skippedEvents) lines.push(skippedEvents);
  return `${[
    ...lines,
    "",
    ...portfolio(s),
    "",
    ...benchmark(s),
    "",
    ...twaps(s),
    "",
    ...staking(s),
    "",
    ...skipped(s),
  ].join("\n")}\n`;
}

/**
 * "12 runs, 2 failed, 1 missed": how a strategy's slots went; "16 runs in 2 slots" when runs were
 * retries of a slot (deferred behind a TWAP, or a strategy's failure): a newcomer read 16 runs of a
 * daily DCA in a day and a half as 16 buys' chances.
 */
export function runsText(x: SimulationSummary["strategies"][number]): string {
  const inSlots =
    x.slots !== undefined && x.slots < x.runs ? ` in ${x.slots} slot${x.slots === 1 ? "" : "s"}` : "";
  // A netted run traded without a TWAP of its own: its budget counts it, its Trades line does not.
  const netted =
    x.netted === undefined
      ? ""
      : `, ${x.netted.runs} netted against opposing TWAPs for ${groupDigits(x.netted.usd)} USD (traded without a TWAP of its own: a budget counts it, Trades do not)`;
  return `${x.runs} runs${inSlots}${x.failedRuns > 0 ? `, ${x.failedRuns} failed` : ""}${x.missedSlots > 0 ? `, ${x.missedSlots} missed` : ""}${netted}`;
}

/** "PURR/USDC is not replayed: its prices are the scenario's random walk (…), not history". */
export function notReplayedLine(n: SimulationSummary["notReplayed"][number]): string {
  return `${n.pair} is not replayed: its prices are ${n.path}, not history`;
}

/** ", @107 replayed from candles/HYPE.csv": the pairs whose prices were real history, for headers. */
export function replayedText(s: Pick<SimulationSummary, "replayed">): string {
  return s.replayed.map((r) => `, ${r.coin} replayed from ${r.file}`).join("");
}

const DAY = 86_400_000;

/**
 * How much of the run a replayed file left without candles, where the price was held flat: "20 d of the
 * run's 30 d (66.67%) without a candle (after the last 20 d): the price held flat there, not replayed";
 * undefined when the candles cover the whole run.
 */
export function flatText(r: ReplayedSummary, runDays: number): string | undefined {
  const f = r.flat;
  if (f.total === 0) return undefined;
  const d = (days: number) => duration(Math.round(days * DAY));
  const parts = [
    f.before > 0 ? `before the first candle ${d(f.before)}` : "",
    f.after > 0 ? `after the last ${d(f.after)}` : "",
    f.inGaps > 0 ? `in gaps ${d(f.inGaps)}` : "",
  ].filter(Boolean);
  return (
    `${d(f.total)} of the run's ${d(runDays)} (${(Number(f.share) * 100).toFixed(2)}%) without a candle ` +
    `(${parts.join(", ")}): the price held flat there, not replayed`
  );
}

/** One replayed file for the summary: its candles, what they cover, their gaps and the run's flat part. */
export function replayedLine(r: ReplayedSummary, runDays: number): string {
  const { count, missing, largest } = r.gaps;
  const gaps =
    count === 0 || largest === null
      ? "no gaps"
      : `${count} gap${count === 1 ? "" : "s"} (${missing} candle${missing === 1 ? "" : "s"} missing; the largest ` +
        `${duration(Date.parse(largest.to) - Date.parse(largest.from))}, ${when(largest.from)} → ${when(largest.to)} UTC, before line ${largest.line})`;
  const flat = flatText(r, runDays);
  return (
    `${r.coin} replayed from ${r.file}: ${r.candles} ${r.interval} candles, ${when(r.covers.from)} → ${when(r.covers.to)} UTC; ` +
    `${gaps}; ${flat ?? "they cover the whole run"}`
  );
}

/**
 * What `simulate` and a sweep say on stderr about each replayed file over a run: its candles and span,
 * its gaps, and the part of the run it leaves to a flat price. One function, so both say the same.
 */
export function replayNotes(
  run: { from: number; to: number; strategies?: ReadonlyArray<{ name: string; schedule: string }> },
  replayed: readonly ReplayedPrices[],
): string[] {
  const lines: string[] = [];
  for (const r of replayed) {
    // The candles cover from the first one's open to the last one's close.
    const outside = run.from < r.first || run.to > r.end;
    lines.push(
      `hlbot: ${r.coin} replayed from ${r.file}: ${r.candles} ${r.interval} candles, ${isoMinute(r.first)} → ${isoMinute(r.end)} UTC${outside ? "; the run goes beyond them, where the price stays at the first open or last close" : ""}`,
    );
    const gaps = candleGapWarning(r);
    if (gaps !== undefined) lines.push(`warning: ${gaps}`);
    const flat = flatText(replayedSummary(r, run.from, run.to), (run.to - run.from) / DAY);
    if (flat !== undefined) lines.push(`warning: ${r.coin} from ${r.file}: ${flat}`);
  }
  for (const r of replayed) {
    const inside = decisionsInsideCandles(run.strategies ?? [], r.interval, run.from, run.to);
    if (inside.length > 0)
      lines.push(
        `hlbot: ${inside.join(", ")} decide${inside.length === 1 ? "s" : ""} inside the ${r.interval} candles of ${r.coin}: there the price is a path drawn from the seed through each candle's open, high, low and close, not a traded one, with the volatility the candle's range implies (on daily candles of a random walk, hourly moves about 5 to 15% larger than the walk's own, which flatters band rebalancers a little); candles of a shorter interval (hlbot data fetch --interval 1m or 5m) replay those minutes closer`,
      );
  }
  // A history trial: a file's volumes cut to nothing gave the same run; nothing said they were unused.
  if (replayed.length > 0)
    lines.push(
      "hlbot: candle files give prices only (between a candle's open, extremes and close the path is drawn from the seed): their volume is not used; fills cost against each pair's book model, which also gives the venue's 24-hour volume (see Execution in the summary; a scenario's `book:` sets it)",
    );
  return lines;
}

/**
 * Strategies whose schedule fires inside the candles of `interval` (not at their opens) in its next
 * slots from `from` before `to` (a history trial: the demo DCA at :30 decided halfway through every 1h candle, on an
 * invented path, told nowhere). Intervals of a week or more are left out (their opening day is not
 * confirmed); a schedule that fails to parse is left to the loader.
 */
function decisionsInsideCandles(
  strategies: ReadonlyArray<{ name: string; schedule: string }>,
  interval: string,
  from: number,
  to: number,
): string[] {
  const ms = CANDLE_INTERVAL_MS[interval as CandleInterval];
  if (ms === undefined || ms <= 60_000 || ms > 86_400_000) return [];
  const out: string[] = [];
  for (const s of strategies) {
    let cron: CronSchedule;
    try {
      cron = new CronSchedule(s.schedule);
    } catch {
      continue;
    }
    let t: number | undefined = from - 1;
    for (let i = 0; i < 48 && t !== undefined; i++) {
      t = cron.next(t);
      // Only slots of the run (a review: a monthly DCA whose next slot is after a 10-day run was named).
      if (t === undefined || t >= to) break;
      if (t % ms !== 0) {
        out.push(`${s.name} ("${s.schedule}")`);
        break;
      }
    }
  }
  return out;
}

/** "120 halted, 6 price limit": why a TWAP's slices were skipped, most frequent first. */
function skipText(reasons: Readonly<Record<string, number>>): string {
  return Object.entries(reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${n} ${reason}`)
    .join(", ");
}
