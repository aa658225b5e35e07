// The HTML report of a simulation: one self-contained file (inline CSS and SVG, no script, no external
// reference of any kind) that opens in a browser offline. Charts: portfolio value, portfolio weights
// (stacked, in percent) and stake per validator (stacked), all over virtual time, with the TWAPs and
// delegation changes marked; then the summary's tables. The samples and the summary are also embedded
// as JSON (`<script type="application/json" id="hlbot-simulation">`) for anyone who wants the numbers.

import { Decimal } from "../lib/decimal.js";
import { shortAddress } from "../lib/text.js";
import {
  accountCaveat,
  booksText,
  eventsNotAppliedText,
  netAprText,
  notReplayedLine,
  onePathText,
  onePricePath,
  replayedLine,
  runsText,
  signedPct,
  unknownsText,
} from "./format.js";
import type { Sample, SimulationRecord } from "./runner.js";
import { type FlowSummary, type SimulationSummary, twapStatusText, unequalFlowsEffect } from "./summary.js";
import {
  figureColumns,
  pointFigures,
  RANK_FIGURES,
  rankRuns,
  type SweepResult,
  sameCandlesCaveat,
  sweepSeeds,
  twapsText,
  unrankedText,
} from "./sweep.js";
import { pointText, valueText } from "./sweepFile.js";
import { type RankFigureSpec, sweepFigures } from "./sweepPoint.js";

const PALETTE = ["#2563eb", "#16a34a", "#ea580c", "#9333ea", "#0891b2", "#dc2626", "#ca8a04", "#4b5563"];
const W = 880;
const H = 260;
const PAD = { left: 64, right: 16, top: 12, bottom: 28 };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

interface Series {
  name: string;
  color: string;
  values: number[];
}

interface Marker {
  t: number;
  label: string;
  color: string;
}

interface ChartSpec {
  title: string;
  times: number[];
  series: Series[];
  stacked: boolean;
  /** Start the y axis at 0 (stacked charts always do). */
  zero: boolean;
  /** Fixed top of the y axis (percent charts). */
  max?: number;
  unit: string;
  markers?: Marker[];
}

function niceStep(range: number, target: number): number {
  const raw = range / Math.max(1, target);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10) * mag;
}

function fmtAxis(v: number, step: number): string {
  const dp = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step)));
  return v.toLocaleString("en-US", { minimumFractionDigits: dp, maximumFractionDigits: dp });
}

const n2 = (v: number) => (Math.round(v * 10) / 10).toString();

function chart(spec: ChartSpec): string {
  const { times, series } = spec;
  if (times.length === 0 || series.length === 0)
    return `<p class="empty">${escapeHtml(spec.title)}: no data</p>`;
  const t0 = times[0]!;
  const t1 = Math.max(times[times.length - 1]!, t0 + 1);
  const tops = times.map((_, i) =>
    spec.stacked
      ? series.reduce((a, s) => a + (s.values[i] ?? 0), 0)
      : Math.max(...series.map((s) => s.values[i] ?? 0)),
  );
  const bottoms = times.map((_, i) => (spec.stacked ? 0 : Math.min(...series.map((s) => s.values[i] ?? 0))));
  let lo = spec.zero || spec.stacked ? 0 : Math.min(...bottoms);
  let hi = Math.max(...tops);
  if (hi === lo) hi = lo + (Math.abs(lo) || 1);
  const margin = spec.zero || spec.stacked ? 0 : (hi - lo) * 0.08;
  lo -= margin;
  hi += margin;
  const step = niceStep(hi - lo, 5);
  lo = Math.floor(lo / step) * step;
  hi = spec.max ?? Math.ceil(hi / step) * step;
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (t: number) => PAD.left + ((t - t0) / (t1 - t0)) * iw;
  const y = (v: number) => PAD.top + ih - ((v - lo) / (hi - lo)) * ih;

  const parts: string[] = [];
  // Grid and axes.
  for (let v = lo; v <= hi + step / 2; v += step) {
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${n2(y(v))}" y2="${n2(y(v))}"/>`,
    );
    parts.push(
      `<text class="ylab" x="${PAD.left - 6}" y="${n2(y(v) + 4)}">${escapeHtml(fmtAxis(v, step))}</text>`,
    );
  }
  const days = (t1 - t0) / DAY;
  const tick = days <= 1.5 ? 6 * HOUR : days <= 8 ? DAY : days <= 40 ? 5 * DAY : 30 * DAY;
  for (let t = Math.ceil(t0 / tick) * tick; t <= t1; t += tick) {
    const d = new Date(t).toISOString();
    const label = tick < DAY ? `${d.slice(5, 10)} ${d.slice(11, 16)}` : d.slice(5, 10);
    parts.push(
      `<line class="grid" x1="${n2(x(t))}" x2="${n2(x(t))}" y1="${PAD.top}" y2="${H - PAD.bottom}"/>`,
    );
    parts.push(`<text class="xlab" x="${n2(x(t))}" y="${H - 8}">${label}</text>`);
  }
  // Data.
  if (spec.stacked) {
    const base = times.map(() => 0);
    for (const s of series) {
      const upper = times.map((_, i) => base[i]! + (s.values[i] ?? 0));
      const top = times.map((t, i) => `${n2(x(t))},${n2(y(upper[i]!))}`);
      const bottom = times.map((t, i) => `${n2(x(t))},${n2(y(base[i]!))}`).reverse();
      parts.push(
        `<polygon fill="${s.color}" fill-opacity="0.75" stroke="${s.color}" stroke-width="0.5" points="${[...top, ...bottom].join(" ")}"><title>${escapeHtml(s.name)}</title></polygon>`,
      );
      for (const [i, v] of upper.entries()) base[i] = v;
    }
  } else {
    for (const s of series) {
      const pts = times.map((t, i) => `${n2(x(t))},${n2(y(s.values[i] ?? 0))}`).join(" ");
      parts.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="1.6" points="${pts}"><title>${escapeHtml(s.name)}</title></polyline>`,
      );
    }
  }
  for (const m of spec.markers ?? []) {
    const mx = n2(x(m.t));
    parts.push(
      `<g class="marker"><line x1="${mx}" x2="${mx}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="${m.color}"/>` +
        `<circle cx="${mx}" cy="${PAD.top + 4}" r="3.5" fill="${m.color}"/><title>${escapeHtml(m.label)}</title></g>`,
    );
  }
  const legend = series
    .map((s) => `<span><i style="background:${s.color}"></i>${escapeHtml(s.name)}</span>`)
    .join("");
  return (
    `<figure><figcaption>${escapeHtml(spec.title)} <small>(${escapeHtml(spec.unit)})</small></figcaption>` +
    `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${escapeHtml(spec.title)}">${parts.join("")}</svg>` +
    `<div class="legend">${legend}</div></figure>`
  );
}

function tableHtml(head: string[], rows: Array<Array<string | number>>, numeric: boolean[] = []): string {
  if (rows.length === 0) return `<p class="empty">none</p>`;
  const th = head.map((h, i) => `<th${numeric[i] ? ' class="num"' : ""}>${escapeHtml(h)}</th>`).join("");
  const body = rows
    .map(
      (r) =>
        `<tr>${r.map((c, i) => `<td${numeric[i] ? ' class="num"' : ""}>${escapeHtml(String(c))}</td>`).join("")}</tr>`,
    )
    .join("");
  return `<table><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`;
}

const when = (iso: string) => iso.replace("T", " ").replace(/:\d\d\.\d{3}Z$/, "");
const pct = (fraction: string) => `${(Number(fraction) * 100).toFixed(2)}%`;

/** JSON that can sit inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

export interface ReportData {
  /** With a fork's notes (what it carried, what it could not): said in the report as on stderr. */
  summary: SimulationSummary & { notes?: readonly string[] };
  record: Pick<SimulationRecord, "samples" | "validators">;
}

/** Distinct reason wordings listed (most frequent first); the grouped reasons are always complete. */
const MAX_REPORT_REASONS = 200;

/** Most samples drawn per chart (and embedded): a year of hourly samples stays a light file. */
export const MAX_REPORT_SAMPLES = 1_500;

/**
 * At most about `max` samples, spread evenly over the run: each bucket keeps its first sample and the
 * ones with its lowest and highest portfolio value (so a drawdown or a spike is never smoothed away),
 * and the last sample is always kept. Fewer samples than `max` are returned as they are.
 */
export function thinSamples(samples: Sample[], max = MAX_REPORT_SAMPLES): Sample[] {
  if (samples.length <= max) return samples;
  const size = Math.ceil(samples.length / Math.floor(max / 3));
  const out: Sample[] = [];
  for (let start = 0; start < samples.length; start += size) {
    const bucket = samples.slice(start, start + size);
    let lo = 0;
    let hi = 0;
    bucket.forEach((x, i) => {
      if (x.value < bucket[lo]!.value) lo = i;
      if (x.value > bucket[hi]!.value) hi = i;
    });
    for (const i of [...new Set([0, lo, hi])].sort((a, b) => a - b)) out.push(bucket[i]!);
  }
  if (out[out.length - 1] !== samples[samples.length - 1]) out.push(samples[samples.length - 1]!);
  return out;
}

/** Renders the self-contained HTML report. */
/** The text with its first letter in upper case (a sentence of the console's, in the report). */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function renderReport({ summary: s, record }: ReportData): string {
  const samples: Sample[] = thinSamples(record.samples);
  const distinct = [...s.skipped].sort((a, b) => b.count - a.count).slice(0, MAX_REPORT_REASONS);
  const times = samples.map((x) => x.t);
  const colorOf = new Map<string, string>();
  const color = (key: string) => {
    let c = colorOf.get(key);
    if (!c) {
      c = PALETTE[colorOf.size % PALETTE.length]!;
      colorOf.set(key, c);
    }
    return c;
  };

  const assets = [...new Set(samples.flatMap((x) => Object.keys(x.assets)))].sort();
  const weightSeries: Series[] = assets.map((a) => ({
    name: a,
    color: color(`asset:${a}`),
    values: samples.map((x) => (x.value > 0 ? ((x.assets[a] ?? 0) / x.value) * 100 : 0)),
  }));
  const names = new Map(record.validators.map((v) => [v.address, v.name]));
  const staked = [...new Set(samples.flatMap((x) => Object.keys(x.stake)))].sort();
  const stakeSeries: Series[] = staked.map((v) => ({
    name: `${names.get(v) ?? v} (${shortAddress(v)})`,
    color: color(`validator:${v}`),
    values: samples.map((x) => x.stake[v] ?? 0),
  }));
  const twapMarkers: Marker[] = s.twaps.map((t) => ({
    t: Date.parse(t.placedAt),
    label: `TWAP #${t.twapId} ${t.side} ${t.size} ${t.label} (${t.carried ? "carried" : (t.strategy ?? "?")})`,
    color: t.side === "buy" ? "#16a34a" : "#dc2626",
  }));
  const stakeMarkers: Marker[] = s.staking.changes.map((c) => ({
    t: Date.parse(c.at),
    label: `${c.action} ${c.amount} HYPE ${c.action === "delegate" ? "to" : "from"} ${c.name}`,
    color: c.action === "delegate" ? "#16a34a" : "#dc2626",
  }));

  const charts = [
    chart({
      title: "Portfolio value",
      times,
      series: [
        { name: `bot, value in ${s.valuationCoin}`, color: "#2563eb", values: samples.map((x) => x.value) },
        {
          name: "buy and hold (the starting holdings left alone, at the same prices)",
          color: "#9ca3af",
          // The venue run without the bot, at the same times; without it, the end holdings at each
          // sample's prices, less the deposits and withdrawals still to come.
          values: samples.map((x) =>
            x.benchmark !== undefined
              ? x.benchmark
              : s.benchmark.holdings.reduce((v, h) => v + Number(h.amount) * (x.prices?.[h.coin] ?? 0), 0) -
                s.portfolio.flows
                  .filter((f) => Date.parse(f.at) > x.t)
                  .reduce(
                    (v, f) =>
                      v + Number(f.amount) * (x.prices?.[f.coin] ?? (f.coin === s.valuationCoin ? 1 : 0)),
                    0,
                  ),
          ),
        },
      ],
      stacked: false,
      zero: false,
      unit: `${s.valuationCoin} at mid prices; markers: TWAPs placed (green buy, red sell)`,
      markers: twapMarkers,
    }),
    chart({
      title: "Portfolio weights",
      times,
      series: weightSeries,
      stacked: true,
      zero: true,
      max: 100,
      unit: "% of the value, stacked",
    }),
    chart({
      title: "Stake per validator",
      times,
      series: stakeSeries,
      stacked: true,
      zero: true,
      unit: "HYPE delegated, stacked; markers: delegation changes",
      markers: stakeMarkers,
    }),
  ].join("\n");

  const p = s.portfolio;
  const filledNothing = s.trades.reduce((a, t) => a + t.filledNothing, 0);
  const figures: Array<[string, string]> = [
    ["Start value", `${p.start.value} ${s.valuationCoin}`],
    ["End value", `${p.end.value} ${s.valuationCoin}`],
    [
      "Change",
      // With deposits or withdrawals the change holds them: no percentage of it (the console's rule).
      `${p.change} ${s.valuationCoin}${p.changeRatio === null || p.flows.length > 0 ? "" : ` (${signedPct(p.changeRatio, p.change)})`}`,
    ],
    ...(p.flows.length > 0
      ? ([
          ["of which deposits and withdrawals", `${p.netFlows} ${s.valuationCoin}`],
          [
            "Change without them",
            `${p.changeExFlows} ${s.valuationCoin}${p.changeExFlowsRatio === null ? "" : ` (${signedPct(p.changeExFlowsRatio, p.changeExFlows)} of the capital, flows weighted by time)`}`,
          ],
        ] as Array<[string, string]>)
      : []),
    [
      "Buy and hold",
      `${s.benchmark.end} ${s.valuationCoin}${s.benchmark.changeRatio === null ? "" : ` (${signedPct(s.benchmark.changeRatio, s.benchmark.change)})`}`,
    ],
    ["Bot − buy and hold", `${s.benchmark.botMinusBenchmark} ${s.valuationCoin}`],
    ["TWAPs", `${s.twaps.length}${filledNothing > 0 ? ` (${filledNothing} filled nothing)` : ""}`],
    ["Fees", `≈ ${s.fees.value} ${s.valuationCoin}`],
    ["Spread and impact", `${s.execution.impact} ${s.valuationCoin}`],
    ["Staking rewards", `${s.staking.rewards.amount} HYPE (≈ ${s.staking.rewards.value} ${s.valuationCoin})`],
    ["Cycles", `${s.cycles.total} (${s.cycles.failed} failed)`],
  ];

  const assetRows = [...new Set([...p.start.assets, ...p.end.assets].map((a) => a.asset))].map((asset) => {
    const a = p.start.assets.find((x) => x.asset === asset);
    const b = p.end.assets.find((x) => x.asset === asset);
    return [asset, a?.amount ?? "0", a ? pct(a.weight) : "", b?.amount ?? "0", b ? pct(b.weight) : ""];
  });

  const skippedEvents = eventsNotAppliedText(s.eventsNotApplied);
  const body = `
<header>
  <h1>hlbot simulation: ${escapeHtml(s.scenario)} scenario</h1>
  <p>${escapeHtml(when(s.period.from))} → ${escapeHtml(when(s.period.to))} UTC (${s.period.days} days${s.period.interrupted ? ", interrupted" : ""}),
  seed ${s.seed}, ${escapeHtml(s.network)} signatures, account <code>${escapeHtml(s.account)}</code> (demo key derived from the seed)${s.forkedFrom ? `, holding what the forked account <code>${escapeHtml(s.forkedFrom)}</code> held` : s.holdingsFrom ? `, holding what the scenario's demo account <code>${escapeHtml(s.holdingsFrom)}</code> holds` : ", with the default demo holdings"}.${s.configAccount === null ? "" : ` ${escapeHtml(capitalized(accountCaveat(s.configAccount, s.forkedFrom)))}.`}
  Strategies: ${s.strategies.map((x) => `<b>${escapeHtml(x.name)}</b> (${escapeHtml(x.kind)}, <code>${escapeHtml(x.schedule)}</code>, ${runsText(x)})`).join(", ") || "none"}.</p>
  ${s.replayed.map((r) => `<p class="replayed">${escapeHtml(replayedLine(r, s.period.days))}.</p>`).join("")}
  ${s.notReplayed.map((n) => `<p class="replayed">${escapeHtml(notReplayedLine(n))}.</p>`).join("")}
  ${s.eventsApplied.length ? `<p>Scenario events: ${s.eventsApplied.map((e) => `${escapeHtml(when(e.at))} ${escapeHtml(e.what)}`).join("; ")}.</p>` : ""}
  ${skippedEvents ? `<p>${escapeHtml(skippedEvents)}.</p>` : ""}
  ${s.notes?.length ? `<p>The fork: ${s.notes.map((n) => escapeHtml(n)).join("; ")}.</p>` : ""}
  ${s.warnings?.length ? `<p>Warnings (as <code>hlbot config validate</code> gives them):</p><ul>${s.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>` : ""}
</header>
<section class="figures">${figures.map(([k, v]) => `<div><span>${escapeHtml(k)}</span><b>${escapeHtml(v)}</b></div>`).join("")}</section>
<section>${charts}</section>
<section><h2>Did the bot help?</h2>
<p>Buy and hold keeps the starting holdings untouched, valued at the same prices: the same scenario and seed run on the venue without the bot, so its starting delegations keep earning rewards${p.flows.length > 0 ? "; the deposits and withdrawals join it when they happen, and both changes leave them out" : ""}.</p>
${tableHtml(
  [
    "",
    `start (${s.valuationCoin})`,
    "end",
    p.flows.length > 0 ? "change without deposits and withdrawals" : "change",
  ],
  [
    ["bot", p.start.value, p.end.value, p.flows.length > 0 ? p.changeExFlows : p.change],
    ["buy and hold", s.benchmark.start, s.benchmark.end, s.benchmark.change],
  ],
  [false, true, true, true],
)}
<h3>Staking rewards</h3>${tableHtml(
    ["", "HYPE", `value at the end price (${s.valuationCoin})`],
    [
      ["bot", s.benchmark.rewards.bot.amount, s.benchmark.rewards.bot.value],
      ["buy and hold", s.benchmark.rewards.benchmark.amount, s.benchmark.rewards.benchmark.value],
    ],
    [false, true, true],
  )}
<h3>Bot − buy and hold: ${escapeHtml(s.benchmark.botMinusBenchmark)} ${escapeHtml(s.valuationCoin)}</h3>${tableHtml(
    ["part", `value (${s.valuationCoin})`],
    [
      ["staking rewards beyond buy and hold's", s.benchmark.breakdown.stakingRewards],
      ["fees", s.benchmark.breakdown.fees],
      ["spread and impact", s.benchmark.breakdown.spreadAndImpact],
      ["price moves on what it traded, and other", s.benchmark.breakdown.timingAndOther],
    ],
    [false, true],
  )}${onePricePath(s) ? `<p>${escapeHtml(capitalized(onePathText(s.seed)))}.</p>` : ""}${
    Number(s.benchmark.unequalWithdrawals) === 0
      ? ""
      : `<p>Left out of it: ${escapeHtml(s.benchmark.unequalWithdrawals)} ${escapeHtml(s.valuationCoin)}, the move since of what a withdrawal paid the bot and buy and hold differently (the rest was staked or on hold).</p>`
  }</section>
<section><h2>Portfolio</h2>${tableHtml(["asset", "start", "weight", "end", "weight"], assetRows, [false, true, true, true, true])}</section>
<section><h2>TWAPs</h2>${tableHtml(
    [
      "id",
      "strategy",
      "placed",
      "side",
      "size",
      "pair",
      "minutes",
      "status",
      "executed",
      "avg price",
      "notional",
      "slices",
      "fee",
      "reduced or cancelled",
    ],
    s.twaps.map((t) => [
      t.twapId,
      t.carried ? "(carried)" : (t.strategy ?? "?"),
      when(t.placedAt),
      t.side,
      t.size,
      t.label,
      t.minutes,
      twapStatusText(t),
      t.executedSize,
      t.averagePrice ?? "-",
      t.executedNotional,
      t.slices,
      `${t.fee} ${t.feeToken ?? ""}`,
      t.note ?? "",
    ]),
    [true, false, false, false, true, false, true, false, true, true, true, true, true, false],
  )}
<h3>Execution</h3><p>Cost against a reference price, positive = worse for the account. Slippage: against the mid the strategy decided at; shortfall: against the time-weighted mid of its run; spread and impact: against each slice's own mid. Total on ${escapeHtml(s.execution.notional)} ${escapeHtml(s.valuationCoin)} traded: slippage ${escapeHtml(s.execution.slippage)} (${escapeHtml(s.execution.slippageBps ?? "-")} bps), shortfall ${escapeHtml(s.execution.shortfall)} (${escapeHtml(s.execution.shortfallBps ?? "-")} bps), spread and impact ${escapeHtml(s.execution.impact)} (${escapeHtml(s.execution.impactBps ?? "-")} bps), fees ${escapeHtml(s.execution.fees)} (${escapeHtml(s.execution.feesBps ?? "-")} bps); fees, spread and impact together ${escapeHtml(s.execution.costsBps ?? "-")} bps (the sum of the two: fees of the notional paid, spread and impact of the slices' mids).${s.books.length > 0 ? ` The ${escapeHtml(booksText(s))}.` : ""}</p>${tableHtml(
    [
      "id",
      "decision mid",
      "avg fill",
      "slippage bps",
      "slippage",
      "run mid",
      "shortfall bps",
      "shortfall",
      "spread+impact",
      "unfilled (base)",
    ],
    s.twaps.map((t) => [
      t.twapId,
      t.decisionMid ?? "-",
      t.averagePrice ?? "-",
      t.slippageBps ?? "-",
      t.slippage,
      t.twMid ?? "-",
      t.shortfallBps ?? "-",
      t.shortfall,
      t.impact,
      `${t.unfilledSize} ${t.label.split("/")[0] ?? ""}`.trimEnd(),
    ]),
    [true, true, true, true, true, true, true, true, true, true],
  )}
<h3>Trades</h3>${tableHtml(
    ["pair", "side", "TWAPs", "filled nothing", "slices", "size", "notional", "average price", "start mid"],
    s.trades.map((t) => [
      t.label,
      t.side,
      t.twaps,
      t.filledNothing,
      t.slices,
      t.size,
      t.notional,
      t.averagePrice ?? "-",
      t.startMid ?? "-",
    ]),
    [false, false, true, true, true, true, true, true, true],
  )}
<h3>Fees</h3>${tableHtml(
    ["token", "amount", `value (${s.valuationCoin})`],
    s.fees.byToken.map((f) => [f.token, f.amount, f.value]),
    [false, true, true],
  )}</section>
<section><h2>Staking</h2>
<p>${s.staking.deposits} deposit(s) moved ${escapeHtml(s.staking.deposited)} HYPE from spot into staking; rewards ${escapeHtml(s.staking.rewards.amount)} HYPE in ${s.staking.rewards.payouts} payouts.</p>
<p>At the end: ${escapeHtml(s.staking.end.delegated)} HYPE delegated (${escapeHtml(s.staking.end.locked)} locked), ${escapeHtml(s.staking.end.idle)} idle (undelegated, earning nothing), ${escapeHtml(s.staking.end.pendingWithdrawal)} pending withdrawal.</p>
${tableHtml(
  [
    "validator",
    "address",
    "week's net APR at end (predicted, less commission)",
    "start",
    "delegated",
    "undelegated",
    "rewards",
    "end",
  ],
  s.staking.validators.map((v) => [
    v.name,
    v.validator,
    netAprText(v.netApr, v.notEarning),
    v.start,
    v.delegated,
    v.undelegated,
    v.rewards,
    v.end,
  ]),
  [false, false, true, true, true, true, true, true],
)}
<h3>Delegation changes and withdrawals</h3>${tableHtml(
    ["time", "action", "amount (HYPE)", "validator, or when it lands"],
    [
      ...s.staking.changes.map((c) => ({ at: c.at, row: [when(c.at), c.action, c.amount, c.name] })),
      ...s.staking.withdrawals.list.map((w) => ({
        at: w.at,
        row: [
          when(w.at),
          "withdraw to spot",
          w.amount,
          w.landedAt === null
            ? "still in the unstaking queue at the end"
            : `back on spot ${when(w.landedAt)}`,
        ],
      })),
    ]
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
      .map((x) => x.row),
    [false, false, true, false],
  )}</section>
<section><h2>Rejections and failures</h2>${
    unknownsText(s.unknowns)
      ? `<p>${escapeHtml(unknownsText(s.unknowns)!)}.</p>${tableHtml(
          ["sent", "what", "why unknown", "reconciled", "when"],
          s.unknowns.submissions.map((u) => [
            when(u.at),
            `${u.strategy} ${u.action}`,
            u.detail ?? "",
            u.status,
            u.settledAt ? when(u.settledAt) : "",
          ]),
        )}`
      : ""
  }${tableHtml(
    ["what", "count", "reason"],
    [
      ...s.rejections.map((r) => [`${r.strategy} ${r.action}`, r.count, r.reason]),
      ...s.cycles.failures.map((f) => ["cycle failed", f.count, f.reason]),
    ],
    [false, true, false],
  )}</section>
<section><h2>Skipped and blocked decisions</h2>
<p>${s.skipped.reduce((a, g) => a + g.count, 0)} decisions in ${s.reasons.length} kinds of reason (grouped by template, numbers aside; the latest wording shown).</p>
${tableHtml(
  ["strategy", "guard", "count", "wordings", "first", "latest", "latest reason"],
  s.reasons.map((g) => [g.strategy, g.guard, g.count, g.distinct, when(g.first), when(g.latestAt), g.latest]),
  [false, false, true, true, false, false, false],
)}
<details><summary>${distinct.length < s.skipped.length ? `the ${distinct.length} most frequent of the ${s.skipped.length} distinct reasons (all of them: hlbot simulate --json, "skipped")` : `each of the ${s.skipped.length} distinct reasons`}</summary>
${tableHtml(
  ["strategy", "guard", "count", "first", "last", "reason"],
  distinct.map((g) => [g.strategy, g.guard, g.count, when(g.first), when(g.last), g.reason]),
  [false, false, true, false, false, false],
)}</details></section>
<script type="application/json" id="hlbot-simulation">${scriptJson({
    // Every distinct wording would weigh megabytes over a year; the grouped reasons are in the summary.
    summary: { ...s, skipped: distinct },
    samples,
    samplesThinned: samples.length < record.samples.length,
    validators: record.validators,
  })}</script>`;

  return page(
    `hlbot simulation: ${escapeHtml(s.scenario)}, ${escapeHtml(when(s.period.from))} to ${escapeHtml(when(s.period.to))}`,
    body,
    960,
  );
}

// ---- the report of a parameter sweep (hlbot simulate --sweep --report) ----

/** Runs drawn in the sweep report's value chart (the best ones; the table lists every run). */
const SWEEP_CHART_RUNS = 6;

/**
 * The HTML report of a sweep: the ranked table of every point, the portfolio value over time of the
 * best points beside buy and hold (on the first seed when there are several), and for each swept key
 * the mean and best rank figure per value. Self-contained like the run report; the ranked figures are
 * embedded as JSON (`hlbot-sweep`). With several seeds the figures are each point's means over them,
 * with the rank figure's worst seed and the number of seeds the point was best on.
 */
export function renderSweepReport(result: SweepResult): string {
  const { plan } = result;
  const by = plan.sweep.rank;
  const spec = RANK_FIGURES[by];
  const ranked = rankRuns(result.runs, by);
  const seeds = sweepSeeds(result.runs);
  const many = seeds.length > 1;
  const okPoints = ranked.filter((r) => r.status === "ok");
  // The first seed's run of each point that ran on every seed.
  const firstRuns = okPoints.map((r) => {
    const run = r.runs[0]!;
    if (!run.outcome.ok) throw new Error("unreachable: a point of status ok has a failed run");
    return { ...r, outcome: run.outcome };
  });
  const s = firstRuns[0]?.outcome.summary;
  const coin = s?.valuationCoin ?? "USDC";
  const cols = figureColumns(by);
  const extra = many ? [`worst ${spec.label}`, "best on"] : [];
  const rows = ranked.map((r) => {
    const values = r.point.values.map(valueText);
    if (r.status !== "ok") {
      const errors = r.runs
        .filter((run) => !run.outcome.ok)
        .map((run) => `${many ? `seed ${run.seed}: ` : ""}${run.outcome.ok ? "" : run.outcome.error}`);
      return [
        "-",
        r.point.index,
        ...values,
        ...cols.map(() => ""),
        ...extra.map(() => ""),
        "",
        "",
        `${r.status}: ${errors.join("; ")}`,
      ];
    }
    const f = pointFigures(r.runs)!;
    const without = r.runs.filter((_, j) => r.perSeed[j] === null).map((run) => run.seed);
    // A mean over seeds to 2 decimals, as the console shows it (one run's figures are rounded already).
    const shown = (v: string | null | undefined) =>
      v === null || v === undefined ? "-" : many ? new Decimal(v).toDecimalPlaces(2).toFixed() : v;
    return [
      r.rank === undefined ? "-" : `${r.rank}${r.tied ? "=" : ""}`,
      r.point.index,
      ...values,
      shown(f[by]),
      ...(many ? [shown(r.worst), r.bestOn === undefined ? "-" : `${r.bestOn}/${seeds.length}`] : []),
      ...cols.slice(1).map((c) => shown(f[c])),
      shown(f.traded),
      many ? twapsText(f.twaps) : f.twaps,
      (r.rank === undefined
        ? `ok, not ranked: ${many ? `${(spec as RankFigureSpec).unranked ?? "traded nothing"} on seed(s) ${without.join(", ")}` : unrankedText(by)}`
        : "ok") + (r.point.warnings ? `; warned: ${r.point.warnings.join(" ")}` : ""),
    ];
  });
  const table = tableHtml(
    [
      "#",
      "point",
      ...plan.keys.map((k) => k.label),
      `${many ? "mean " : ""}${spec.label}`,
      ...extra,
      ...cols.slice(1).map((c) => RANK_FIGURES[c].label),
      `traded (${coin})`,
      "TWAPs",
      "run",
    ],
    rows,
    [
      true,
      true,
      ...plan.keys.map(() => false),
      ...cols.map(() => true),
      ...extra.map(() => true),
      true,
      true,
      false,
    ],
  );

  // Bot − buy and hold over time for the best points (buy and hold is the same for every run of a seed:
  // the same starting holdings at the same prices), so that the runs' differences are not lost in the
  // market's moves. With several seeds: the runs of the first seed.
  const drawn = firstRuns.filter((r) => r.outcome.samples !== undefined).slice(0, SWEEP_CHART_RUNS);
  const base = drawn[0]?.outcome.samples ?? [];
  const times = base.map((x) => x.t);
  // Each sample carries buy and hold's value (the venue run without the bot); an older one does not.
  const hold = base.map((x) =>
    s === undefined
      ? 0
      : x.benchmark !== undefined
        ? x.benchmark
        : s.benchmark.holdings.reduce((v, h) => v + Number(h.amount) * (x.prices?.[h.coin] ?? 0), 0) -
          s.portfolio.flows
            .filter((f) => Date.parse(f.at) > x.t)
            .reduce(
              (v, f) => v + Number(f.amount) * (x.prices?.[f.coin] ?? (f.coin === s.valuationCoin ? 1 : 0)),
              0,
            ),
  );
  // Each side without its own deposits and withdrawals so far, as the ranked figure: a withdrawal may
  // take less from a run that had spent the coin than from buy and hold.
  const holdExFlows = times.map((t, j) => hold[j]! - flowsUpTo(s?.benchmark.flows ?? [], t));
  const series: Series[] = drawn.map((r, i) => ({
    name: `#${r.rank ?? "-"} point ${r.point.index} (${pointText(plan, r.point)})`,
    color: PALETTE[i % PALETTE.length]!,
    values: leadOverTime(times, holdExFlows, r.outcome.samples!, r.outcome.summary.portfolio.flows, {
      benchFlows: s?.benchmark.flows ?? [],
      valuationCoin: r.outcome.summary.valuationCoin,
    }),
  }));
  const valueChart =
    drawn.length === 0
      ? ""
      : chart({
          title:
            `Bot − buy and hold over time, the ${drawn.length} best run(s)` +
            (many
              ? ` on seed ${seeds[0]}, the first of the ${seeds.length} seeds (the others are not drawn)`
              : ""),
          times,
          series,
          stacked: false,
          zero: false,
          unit: `${coin} at mid prices`,
        });

  // Each key on its own: the rank figure's mean and best over the points with each value.
  const perKey = plan.keys
    .map((k, ki) => {
      const rowsOf = k.values.map((v) => {
        const figures = okPoints
          .filter((r) => r.figure !== undefined && valueText(r.point.values[ki]) === valueText(v))
          .map((r) => Number(r.figure));
        const mean = figures.length ? figures.reduce((a, x) => a + x, 0) / figures.length : undefined;
        const best = figures.length
          ? spec.better === "higher"
            ? Math.max(...figures)
            : Math.min(...figures)
          : undefined;
        return [valueText(v), figures.length, mean?.toFixed(2) ?? "-", best?.toFixed(2) ?? "-"];
      });
      const label = many ? `${spec.label} (a point's mean over the seeds)` : spec.label;
      return `<h3>${escapeHtml(k.key)}</h3>${tableHtml(["value", many ? "points" : "runs", `mean ${label}`, `best ${label}`], rowsOf, [false, true, true, true])}`;
    })
    .join("\n");

  const period = s ? `${when(s.period.from)} → ${when(s.period.to)} UTC (${s.period.days} days)` : "";
  const runsText = many
    ? `${result.runs.length} run(s), ${plan.points.length} point(s) × ${seeds.length} seeds,`
    : `${plan.points.length} run(s)`;
  const seedText = many ? `seeds ${seeds.join(", ")}` : `seed ${s?.seed}`;
  const caveat = sameCandlesCaveat(s?.replayed, seeds.length);
  const rankedText = many
    ? `Ranked by the mean <b>${escapeHtml(spec.label)}</b> over the ${seeds.length} seeds: ${escapeHtml(spec.help)}; ${spec.better} is better. Every figure is a point's mean over the seeds; "worst ${escapeHtml(spec.label)}" is its worst seed's (the ${spec.better === "higher" ? "lowest" : "highest"}), "best on" on how many seeds it was the best point.` +
      (caveat === "" ? "" : ` <b>Note:</b> ${escapeHtml(caveat)}.`)
    : `Ranked by <b>${escapeHtml(spec.label)}</b>: ${escapeHtml(spec.help)}; ${spec.better} is better.`;
  const body = `
<header>
  <h1>hlbot sweep: ${escapeHtml(plan.sweep.file)}</h1>
  <p>${runsText} of <code>${escapeHtml(plan.configPath)}</code>${s ? ` on the ${escapeHtml(s.scenario)} scenario, ${seedText}, ${escapeHtml(period)}` : ""}, on ${result.jobs === 1 ? "one thread" : `${result.jobs} worker threads`}${result.interrupted ? " (interrupted)" : ""}.
  ${rankedText} Amounts in ${escapeHtml(coin)}; bps are per amount traded ("traded").</p>
  <ul>${plan.keys.map((k) => `<li><b>${escapeHtml(k.label)}</b>: <code>${escapeHtml(k.key)}</code> = ${escapeHtml(k.values.map(valueText).join(", "))}</li>`).join("")}</ul>
  ${s ? s.replayed.map((r) => `<p class="replayed">${escapeHtml(replayedLine(r, s.period.days))}.</p>`).join("") : ""}
  ${(plan.warnings ?? []).map((w) => `<p>Warning for every point: ${escapeHtml(w)}</p>`).join("")}
</header>
<section><h2>${many ? "Points" : "Runs"}, best first</h2>${table}</section>
<section>${valueChart}</section>
<section><h2>Each key on its own</h2>${perKey}</section>
<script type="application/json" id="hlbot-sweep">${scriptJson({
    rank: { by, better: spec.better, unit: spec.unit, ...(many ? { of: "mean over the seeds" } : {}) },
    keys: plan.keys.map((k) => ({ key: k.key, label: k.label, values: k.values })),
    ...(many ? { seeds } : {}),
    runs: ranked.map((r) => {
      if (!many) {
        const o = r.runs[0]!.outcome;
        return {
          rank: r.rank ?? null,
          point: r.point.index,
          values: r.point.values,
          ...(o.ok ? { figures: sweepFigures(o.summary) } : { error: o.error }),
        };
      }
      return {
        rank: r.rank ?? null,
        point: r.point.index,
        values: r.point.values,
        figure: r.figure ?? null,
        worst: r.worst ?? null,
        bestOn: r.bestOn ?? null,
        figures: pointFigures(r.runs) ?? null,
        seeds: r.runs.map((run) => ({
          seed: run.seed ?? null,
          ...(run.outcome.ok ? { figures: sweepFigures(run.outcome.summary) } : { error: run.outcome.error }),
        })),
      };
    }),
  })}</script>`;
  return page(`hlbot sweep: ${escapeHtml(plan.sweep.file)}`, body, 1100);
}

/** The self-contained page around a report's body: one stylesheet for the run and the sweep reports. */
function page(title: string, body: string, maxWidth: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;margin:0 auto;max-width:${maxWidth}px;padding:16px 24px}
h1{font-size:20px;margin:8px 0}h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid #e5e7eb}h3{font-size:14px;margin:16px 0 6px}
code{font:12px ui-monospace,monospace;background:#f3f4f6;padding:1px 3px;border-radius:3px}
.figures{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}.figures div{border:1px solid #e5e7eb;border-radius:6px;padding:6px 10px}
.figures span{display:block;color:#6b7280;font-size:12px}
figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}figcaption small{font-weight:400;color:#6b7280}
svg{background:#fff;border:1px solid #e5e7eb;border-radius:6px}
.grid{stroke:#e5e7eb;stroke-width:1}.ylab{font-size:11px;fill:#6b7280;text-anchor:end}.xlab{font-size:11px;fill:#6b7280;text-anchor:middle}
.marker line{stroke-width:1;stroke-dasharray:3 3;opacity:.6}
.legend{display:flex;flex-wrap:wrap;gap:12px;font-size:12px;margin-top:4px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;width:100%;font-size:12px}th,td{border-bottom:1px solid #f3f4f6;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f9fafb}.num{text-align:right;font-variant-numeric:tabular-nums}.empty{color:#6b7280}
</style>
</head>
<body>${body}
</body>
</html>
`;
}

/**
 * A run's lead over buy and hold at each time: its value less its own deposits and withdrawals so far,
 * minus buy and hold's value less its own (`holdExFlows`, at the same times). A time without a sample of
 * the run takes its previous one.
 */
export function leadOverTime(
  times: readonly number[],
  holdExFlows: readonly number[],
  samples: readonly Pick<Sample, "t" | "value" | "prices">[],
  flows: readonly FlowSummary[],
  unequal?: { benchFlows: readonly FlowSummary[]; valuationCoin: string },
): number[] {
  const at = new Map(samples.map((x) => [x.t, x]));
  let last = samples[0];
  // A withdrawal paid differently to the two sides: its move since is left out, as in the summary's
  // lead (only when either side was paid in part, which its flows say).
  const short =
    unequal !== undefined && [...flows, ...unequal.benchFlows].some((f) => f.requested !== undefined);
  return times.map((t, j) => {
    last = at.get(t) ?? last;
    const lead = (last?.value ?? 0) - flowsUpTo(flows, t) - holdExFlows[j]!;
    if (!short || last?.prices === undefined) return lead;
    const prices = Object.fromEntries(Object.entries(last.prices).map(([c, px]) => [c, new Decimal(px)]));
    const done = (f: FlowSummary) => Date.parse(f.at) <= t;
    return (
      lead -
      unequalFlowsEffect(
        flows.filter(done),
        unequal.benchFlows.filter(done),
        prices,
        unequal.valuationCoin,
      ).toNumber()
    );
  });
}

/** The value of the deposits (+) and withdrawals (−) made at or before `t`. */
function flowsUpTo(flows: readonly FlowSummary[], t: number): number {
  let sum = 0;
  for (const f of flows) if (Date.parse(f.at) <= t && f.value !== null) sum += Number(f.value);
  return sum;
}
