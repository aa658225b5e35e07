// `hlbot simulate` without the terminal: starts the embedded venue on a virtual clock, opens the same
// runtime and cycle code the daemon uses (live, but against the simulator only), and runs the enabled
// strategies from `from` to `to` through the same scheduler as `run` and `once`
// (src/engine/scheduler.ts: due slots, one cycle per slot instant, back-off after a failure, deferred
// slots kept due) and the same one-minute watch of running TWAPs' guards (src/engine/guards.ts). Between
// cycles the clock jumps straight to the next thing due (a slot, a retry, a watch minute while a guarded
// TWAP runs, a sample), and the simulator runs TWAP slices, rewards and queues on the way, so days pass
// in seconds. The result is plain data: what every cycle decided, samples of the
// account over time, and the simulator's ledger for the account, from which the summary is computed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { LoadedConfig } from "../engine/config/loader.js";
import type { CycleReport } from "../engine/cycle.js";
import { scheduledStrategies } from "../engine/daemon.js";
import { WATCH_INTERVAL_MS, watchNeeded, watchRunningTwaps } from "../engine/guards.js";
import { type Journal, newCycleId } from "../engine/journal.js";
import { importVenueTwaps } from "../engine/rebuildTwaps.js";
import { openRuntime, type Runtime } from "../engine/runtime.js";
import { runSlotGroup, Scheduler } from "../engine/scheduler.js";
import { checkStrategyMarkets } from "../engine/strategies/markets.js";
import type { Strategy } from "../engine/strategies/registry.js";
import { valueUsdPerUnit } from "../engine/usd.js";
import { type ValuedHolding, valueAccount } from "../engine/valuation.js";
import { Decimal, ZERO } from "../lib/decimal.js";
import { ConfigError, describeError, ValidationError } from "../lib/errors.js";
import { silentLogger } from "../lib/log.js";
import { shortAddress, duration as spanText } from "../lib/text.js";
import { type CandleFile, type CandleGaps, gapSpansWithin, readCandleFile } from "../simulator/candles.js";
import { eventTimeOf } from "../simulator/events.js";
import {
  createSimulator,
  DEMO_SCENARIO_PATH,
  HOUR,
  type LedgerEntry,
  loadScenarioFile,
  pairName,
  parseScenarioObject,
  type Scenario,
  type ScenarioInput,
  type Simulator,
  startSimulator,
} from "../simulator/index.js";
import { checkEventsNotBefore, faultKnobSet, type ScenarioPair } from "../simulator/scenario.js";
import { nextCandleOpen } from "../venue/info/methods/candleSnapshot.js";
import type { TwapHistoryResponse } from "../venue/info/methods/index.js";
import { adoptDemoAccount, type DemoHoldings, demoSigner } from "./demoAccount.js";

export const DAY_MS = 24 * HOUR;
/** Base URL of the in-process venue: never resolved, only named in messages. */
const IN_PROCESS_URL = "http://simulator.invalid";

export interface SimulationOptions {
  config: LoadedConfig;
  /** Scenario file (default: the bundled demo). */
  scenarioFile?: string;
  /**
   * Candle files (hlbot data fetch) whose prices replace the scenario's path of their pair; the run
   * starts at the latest first candle unless `from` says otherwise.
   */
  prices?: string[];
  /** A scenario given as data instead of a file (a fork of a real account); `scenarioFile` names it. */
  scenario?: ScenarioInput;
  /** Overrides the scenario's seed (prices, randomised TWAPs, faults, the demo key). */
  seed?: number;
  /** Start (unix ms); default the scenario's start time. */
  from?: number;
  /** End (unix ms, exclusive for cycles); default `from` + `days`. */
  to?: number;
  /** Length when `to` is not given (default 3). */
  days?: number;
  /** Interval of the account samples for the report (default one hour; cycles that act add samples). */
  sampleEveryMs?: number;
  logger?: Logger;
  /** Called as virtual time advances (for a progress bar). */
  onProgress?: (progress: { doneMs: number; totalMs: number; cycles: number }) => void;
  /** Ends the run early (between two cycles); the result covers what ran and says so. */
  signal?: AbortSignal;
  /**
   * How the bot's clients reach the embedded venue: "in-process" (default: the same client code over
   * a wire without sockets) or "http" (a server on 127.0.0.1, as `hlbot venue` serves it).
   */
  transport?: "in-process" | "http";
  /**
   * The real account a fork was read from (`hlbot simulate --fork`): the scenario's demo account is that
   * account, and the summary names it so.
   */
  forkOf?: string;
  /**
   * The forked account's TWAPs ended before the fork (ForkResult.endedTwaps): imported into the new
   * journal with the carried ones, so budgets and the daily limit count them as a rebuilt journal would.
   */
  priorTwaps?: TwapHistoryResponse;
  /** Called with the simulator once it exists (the CLI dates its log lines by its virtual clock). */
  onSimulator?: (sim: Simulator) => void;
  /** Called with the simulator and the journal before they are closed (tests compare the result with their state). */
  onFinished?: (sim: Simulator, account: string, journal: Journal) => void | Promise<void>;
}

/** One priced position of the account. `asset` is a spot coin, or "HYPE (staked)" for staking. */
export interface AssetValue {
  asset: string;
  amount: Decimal;
  /** Price in the valuation coin, or undefined when the venue has none (valued at 0). */
  price: Decimal | undefined;
  value: Decimal;
}

export interface Valuation {
  at: number;
  value: Decimal;
  assets: AssetValue[];
  /** HYPE per validator address (delegations only). */
  stake: Record<string, Decimal>;
  /** The staking balance by state: delegated (of which locked), idle (undelegated), pending withdrawal. */
  staking: StakeBreakdown;
  /** Mid price of every priced coin at that time, in the valuation coin. */
  prices: Record<string, Decimal>;
}

export interface StakeBreakdown {
  delegated: Decimal;
  /** Delegated and still within its 1-day lock. */
  locked: Decimal;
  /** In the staking balance but delegated to no validator: earns nothing. */
  idle: Decimal;
  pendingWithdrawal: Decimal;
}

/** A light sample for charts (plain numbers). */
export interface Sample {
  t: number;
  value: number;
  /** Value per asset, in the valuation coin. */
  assets: Record<string, number>;
  /** HYPE delegated per validator address. */
  stake: Record<string, number>;
  /** Mid price of every priced coin, in the valuation coin (for the buy-and-hold benchmark). */
  prices: Record<string, number>;
  /** Value of buy and hold at that time: the venue run without the bot (see BenchmarkRecord). */
  benchmark?: number;
}

export interface CycleDecisionRecord {
  strategy: string;
  /** Intent kind, or "skip". */
  kind: string;
  considered: string | undefined;
  guard: string;
  reason: string;
  outcome: string | undefined;
  detail: string | undefined;
  twapId: number | undefined;
  /** A TWAP's mid when the strategy decided (before any resend): what its slippage is measured from. */
  decisionMid?: string;
  /** A skip whose trade an opposing TWAP covered (netting): the USD its budget counts as traded. */
  nettedUsd?: string;
}

export interface CycleRecord {
  at: number;
  strategies: string[];
  /** The cron slot a scheduled run was for (a retry's is its slot's); none for a TWAP watch's cycle. */
  slot?: number;
  /** A TWAP watch's cycle (cancels of guarded TWAPs), not a scheduled run of its strategies. */
  watch?: true;
  /** Set when the cycle failed as a whole (nothing further was sent in it). */
  error: string | undefined;
  decisions: CycleDecisionRecord[];
}

/** A submission whose answer was lost at send (outcome unknown), and what reconciliation concluded. */
export interface UnknownSubmissionRecord {
  /** When it was sent (the cycle's time). */
  at: number;
  strategy: string;
  action: string;
  /** What was lost (the executor's detail). */
  detail: string | undefined;
  /**
   * The journal's status at the end of the run: "landed" or "absent" once a later cycle reconciled it
   * against the venue, still "unknown" (or "pending") when the run ended first.
   */
  status: string;
  /** When the reconciliation concluded (the journal row's last update), when it did. */
  settledAt: number | undefined;
  /** The TWAP a landed twapOrder placed, as reconciliation found it; the TWAP a twapCancel was for. */
  twapId?: number;
}

/** The venue left alone: the same scenario, seed and period without the bot (the buy-and-hold benchmark). */
export interface BenchmarkRecord {
  start: Valuation;
  end: Valuation;
  /** The venue's ledger for the account in that run: rewards, and the scenario's deposits and withdrawals. */
  ledger: LedgerEntry[];
}

/** A scenario event the run did not reach (dated after its end). */
export interface SkippedEventRecord {
  at: number;
  type: string;
  /** What it would have done, in a few words. */
  what: string;
}

export interface SimulationRecord {
  scenario: { name: string; file: string };
  /** The real account the scenario was forked from (`--fork`), if it was. */
  forkOf?: string;
  /** The bot file's `account:` when it names one: not what signed here (a demo key did), nor, unless forked, what was held. */
  configAccount?: string;
  seed: number;
  network: LoadedConfig["network"];
  account: string;
  holdings: DemoHoldings;
  /** The coin values are expressed in (the scenario's token 0, USDC on the venue). */
  valuationCoin: string;
  from: number;
  /** Where the run ended: `to`, or earlier when interrupted. */
  to: number;
  plannedTo: number;
  interrupted: boolean;
  /** Candle files replayed in place of their pair's price path (simulate --prices, then the scenario's). */
  replayed: ReplayedPrices[];
  /**
   * With candles replayed: the scenario's other pairs and how their prices were made (not history). A
   * skeptic's trial read a run with HYPE replayed as a run on real history, while PURR's random walk
   * swung its result from -430 to +297 across seeds.
   */
  notReplayed?: Array<{ pair: string; path: string }>;
  strategies: Array<Pick<Strategy, "name" | "kind" | "schedule">>;
  /**
   * netApr: the delegator's APR at the end, the simulator's week rate (before commission) × (1 − commission); `notEarning` when
   * the validator was jailed or inactive at the end (its delegators earned nothing then).
   */
  validators: Array<{ address: string; name: string; netApr?: string; notEarning?: "jailed" | "inactive" }>;
  /** Spot pairs by venue name ("@107"): base and quote coin. */
  /** By venue pair name; `book`: the model its TWAP slices fill against (none: at the mid, no cost). */
  pairs: Record<
    string,
    {
      base: string;
      quote: string;
      book?: {
        class: string;
        spreadBps: number;
        depth: number;
        depthRange: number;
        recovery: number;
        /** Quote traded a day besides the account's own fills (the pair's dayNtlVlm baseline). */
        dayVolume: number;
      };
    }
  >;
  cycles: CycleRecord[];
  /**
   * Slots of each strategy never run: too old to catch up (schedule.catchUp) or superseded by a later
   * one, e.g. after an outage longer than the catch-up; `at` is when the scheduler settled them.
   */
  missed: Array<{ at: number; strategy: string; count: number; latest: number | undefined }>;
  samples: Sample[];
  start: Valuation;
  end: Valuation;
  /** The simulator's ledger entries for the account, in order. */
  ledger: LedgerEntry[];
  /** Mid prices at the end, by coin (for valuing fees and rewards). */
  endPrices: Record<string, Decimal>;
  /** Submissions sent with a lost answer, and how each was settled. */
  unknowns: UnknownSubmissionRecord[];
  /** The buy-and-hold benchmark: the venue run again from the same start without the bot. */
  benchmark: BenchmarkRecord;
  /** Scenario events dated after the end of the run, which were not applied. */
  eventsAfterEnd: SkippedEventRecord[];
  /** Scenario events applied during the run (validators jailed, prices shocked, …), in time order. */
  eventsApplied: SkippedEventRecord[];
}

export interface SimulationResult {
  record: SimulationRecord;
  /** Wall-clock duration (not part of the deterministic record). */
  wallMs: number;
}

export interface ReplayedPrices {
  file: string;
  coin: string;
  interval: string;
  candles: number;
  /** Open times of the first and last candle. */
  first: number;
  last: number;
  /** Close of the last candle (the next one's open): where the replayed prices end. */
  end: number;
  /** Where whole candles are missing (the replay holds the last close there): to warn about. */
  gaps: CandleGaps;
  /** The gaps that fall in the run's planned period, clipped to it (unix ms). */
  gapSpans: Array<{ from: number; to: number }>;
  /** Named by the scenario's `prices:` rather than --prices (the run does not start at its first candle). */
  fromScenario?: true;
}

/** Label of staked HYPE among a valuation's assets. */
export const STAKED_HYPE = "HYPE (staked)";

/** Checks the period before anything starts (ValidationError → exit 2). */
export function resolvePeriod(o: { from?: number; to?: number; days?: number }, scenarioStart: number) {
  const issues: Array<{ path: string; message: string }> = [];
  const from = o.from ?? scenarioStart;
  // Paths are the CLI's flags (the options of a sweep or an API call have the same names).
  if (o.days !== undefined && !(Number.isFinite(o.days) && o.days > 0))
    issues.push({ path: "--days", message: `expected a positive number of days, got ${o.days}` });
  if (o.to !== undefined && o.days !== undefined)
    issues.push({ path: "--to", message: "give either an end (--to) or a length (--days), not both" });
  const to = o.to ?? from + Math.round((o.days ?? 3) * DAY_MS);
  if (issues.length === 0 && !(to > from))
    issues.push({
      path: "--to",
      message: `the end ${new Date(to).toISOString()} is not after the start ${new Date(from).toISOString()}${o.from === undefined ? " (the start of the scenario or of the replayed candles; give --from)" : ""}`,
    });
  if (issues.length > 0) throw new ValidationError(issues);
  return { from, to };
}

/**
 * A run's period and the candle files it replays, checked before anything starts: the period as
 * resolvePeriod checks it, starting by default where every replayed file has candles (the latest first
 * candle) or at the scenario's start, and no scenario event dated before it (ConfigError with the
 * event's file and line). A sweep checks this once for all its points.
 */
export function runPeriod(
  o: Pick<SimulationOptions, "prices" | "from" | "to" | "days">,
  scenario: Scenario,
  scenarioFile: string,
): { from: number; to: number; replayed: ReplayedPrices[] } {
  const given = replayPrices(scenario, o.prices ?? []);
  const replayFrom = given.length > 0 ? Math.max(...given.map((c) => c.candles[0]!.t)) : undefined;
  const inScenario = scenarioCandles(scenario, given);
  const { from, to } = resolvePeriod(o, replayFrom ?? scenario.settings.startTime ?? Date.UTC(2025, 0, 1));
  const replayed = [
    ...given.map((c) => replayedOf(c, from, to)),
    ...inScenario.map((c) => ({ ...replayedOf(c, from, to), fromScenario: true as const })),
  ];
  // A run beside its candles would replay one price held flat: a result that looks real and is not.
  for (const r of replayed)
    if (to <= r.first || from >= r.end)
      throw new ConfigError(
        `the ${r.interval} candles of ${r.coin} cover ${isoMinute(r.first)} → ${isoMinute(r.end)} UTC, and the run (${isoMinute(from)} → ${isoMinute(to)} UTC) does not overlap them: ${r.coin} would be replayed as one price held flat; choose --from/--to within the candles`,
        { file: r.file },
      );
  checkEventsNotBefore(scenario, from, scenarioFile);
  return { from, to, replayed };
}

export async function runSimulation(o: SimulationOptions): Promise<SimulationResult> {
  const wallStart = performance.now();
  const scenarioFile = o.scenarioFile ?? (o.scenario ? "(given as data)" : DEMO_SCENARIO_PATH);
  const scenario = o.scenario
    ? parseScenarioObject(o.scenario, scenarioFile)
    : loadScenarioFile(scenarioFile);
  const seed = o.seed ?? scenario.seed;
  const { from, to, replayed } = runPeriod(o, scenario, scenarioFile);
  const enabled = o.config.strategies.filter((s) => s.enabled);

  const signer = demoSigner(seed);
  const account = signer.address;
  const holdings = adoptDemoAccount(scenario, account);
  const venueOptions = {
    scenario,
    seed,
    network: o.config.network,
    clock: "virtual",
    startTime: from,
  } as const;
  const http = o.transport === "http";
  const sim = http ? await startSimulator(venueOptions) : createSimulator(venueOptions);
  o.onSimulator?.(sim);
  // The benchmark: the same venue left alone (no bot, so no cycles: it only runs rewards, prices and the
  // scenario's events). Price paths are exogenous: the book model never moves a mid (twap.ts: impact is
  // temporary), so both venues value holdings at the same mids, and a delegation earns by its own
  // amount and its validator's APR (staking.ts), whatever else is delegated.
  const bench = createSimulator(venueOptions);
  const stateDir = mkdtempSync(join(tmpdir(), "hlbot-simulate-"));
  const logger = o.logger ?? silentLogger();
  try {
    // The account acted for is the demo account, whatever the configuration says; state is throw-away.
    // The simulator states predictedApr after commission, as the venue does: read it so whatever the
    // bot file says for the real venue (venue.predictedAprNet).
    const config: LoadedConfig = {
      ...o.config,
      account: undefined,
      state: stateDir,
      venue: { ...o.config.venue, rules: { ...o.config.venue.rules, predictedAprNet: true } },
    };
    const runtime = await openRuntime({
      config,
      env: {},
      mode: "live",
      logger,
      // Said in the summary (and a sweep's table), not as a log line before it.
      quietConfigWarnings: true,
      clock: () => sim.now(),
      signer,
      // The client-side budget counts real time; the simulator's own limiter follows virtual time.
      budget: null,
      // A retry or resend waits in virtual time: the venue's clock moves on (an outage may end), and
      // the run does not spend real seconds per attempt.
      sleep: async (ms: number) => sim.advance(ms),
      // In-process, the URL only names the venue in error messages (.invalid never resolves).
      ...(http ? { baseUrl: sim.url } : { baseUrl: IN_PROCESS_URL, wire: sim.wire }),
    });
    const cycles: CycleRecord[] = [];
    const missed: SimulationRecord["missed"] = [];
    const samples: Sample[] = [];
    const unknowns: Array<UnknownSubmissionRecord & { submissionId: number | undefined }> = [];
    const noteUnknowns = (report: CycleReport, at: number) => {
      if (!report.actions.some((a) => a.outcome === "unknown")) return;
      const sent = runtime.journal.submissionsOfCycle(report.cycleId);
      for (const { decision, action: a } of report.decisions) {
        if (a?.outcome !== "unknown") continue;
        const nonce = a.request.nonce;
        const row = sent.find((r) => r.nonce === nonce && r.strategy === a.strategy);
        unknowns.push({
          at,
          strategy: a.strategy,
          action: a.action,
          detail: a.detail,
          status: "unknown",
          settledAt: undefined,
          submissionId: row?.id,
          // The TWAP a cancel was for (its journal row names none): a cancel found landed cancelled it.
          ...(decision.kind === "twapCancel" ? { twapId: decision.twapId } : {}),
        });
      }
    };
    let end = to;
    let interrupted = false;
    try {
      // A throw-away database that nothing else opens: durability and sharing only cost time here
      // (an exclusive lock spares each transaction the WAL index's locking: about 40% of the journal's
      // time per cycle; the rollback journal is kept in memory, and the loop below commits once per
      // simulated day, the journal's own transactions nesting inside as savepoints; no submission is
      // written to the state folder's mark file either: 2% of a year).
      runtime.db.pragma("synchronous = OFF");
      runtime.db.pragma("locking_mode = EXCLUSIVE");
      runtime.db.pragma("journal_mode = MEMORY");
      // A run's whole journal in memory, as better-sqlite3's default allows (the state database's is
      // smaller for a daemon's memory, stateDb.ts): a year's journal is about 10 MB.
      runtime.db.pragma("cache_size = -16000");
      runtime.journal.markSubmissions = false;
      const valuationCoin = sim.tokens()[0]?.name ?? "USDC";
      const start = valuate(sim, account);
      samples.push(toSample(start));
      const facts = await runtime.facts();
      // Per cycle, as the daemon does: the deps carry what the journal taught (a TWAP minimum the venue
      // stated when it refused one). Built once, a simulation never learnt it and sent the refused
      // order at every slot where a live bot re-sizes it.
      const depsNow = () => runtime.cycleDeps(facts);
      await importCarriedTwaps(runtime, account, config.strategies, o.priorTwaps ?? []);
      // A simulation's journal is new by design: "this state folder's journal was empty … run `hlbot
      // journal rebuild`" named the stand-in account and a command a simulation cannot run (a fork
      // trial, for the forked account's staking history).
      runtime.journal.takeFreshNotice();
      const strategies = scheduledStrategies(config.strategies);
      await checkStrategyMarkets(runtime.info, strategies, {
        warn: (m) => logger.warn(m),
        floorTokens: config.limits.keepOnSpot?.keys(),
        botFile: config.file,
      });
      const scheduler = new Scheduler({
        journal: runtime.journal,
        account: runtime.account,
        strategies,
        ...(config.schedule ? { catchUpMs: config.schedule.catchUpMs } : {}),
      });
      // As if the bot had been started just before `from`: a slot at `from` itself is due.
      for (const s of strategies) runtime.journal.slotState(runtime.account, s.name, from - 1);
      const sampleEvery = o.sampleEveryMs ?? HOUR;
      let nextSample = from + sampleEvery;
      let t = from;

      // In-process, nothing in a cycle waits for I/O: give the event loop a turn now and then, so a
      // signal (Ctrl-C) or a timer can abort the run.
      let lastTurn = performance.now();
      runtime.db.exec("BEGIN");
      let watching = false;
      let nextCommit = t + DAY_MS;
      for (;;) {
        if (t >= nextCommit) {
          runtime.db.exec("COMMIT");
          runtime.db.exec("BEGIN");
          nextCommit = t + DAY_MS;
        }
        if (performance.now() - lastTurn > 50) {
          await new Promise((resolve) => setImmediate(resolve));
          lastTurn = performance.now();
        }
        if (o.signal?.aborted) {
          interrupted = true;
          end = sim.now();
          break;
        }
        sim.advanceTo(t);
        if (t === nextSample && t < to) {
          samples.push(toSample(valuate(sim, account)));
          nextSample += sampleEvery;
        }
        if (t >= to) break;
        // The watch first (as `once` does): a cancel must not wait behind new orders.
        // Only the cycles of the last step can have started a guarded TWAP since `watching` was measured.
        if (
          watching &&
          t % WATCH_INTERVAL_MS === 0 &&
          watchNeeded(runtime.journal, account, t, strategies, config.limits.keepOnSpot)
        ) {
          const names = strategies.map((s) => s.name);
          try {
            const w = await watchRunningTwaps(depsNow(), strategies, { killSwitchActive: false });
            if (w.report) {
              cycles.push({
                ...recordOf(w.report, t, [...new Set(w.report.decisions.map((d) => d.decision.strategy))]),
                watch: true,
              });
              noteUnknowns(w.report, t);
            }
          } catch (err) {
            cycles.push({
              at: t,
              strategies: names,
              watch: true,
              error: `TWAP watch: ${describeError(err)}`,
              decisions: [],
            });
          }
        }
        const plan = scheduler.plan(t);
        for (const m of plan.missed) missed.push({ at: t, ...m });
        for (const group of plan.groups) {
          const names = group.strategies.map((s) => s.name);
          let record: CycleRecord;
          try {
            // The kill switch guards real submissions; a simulation never sends anything real.
            const r = await runSlotGroup(scheduler, depsNow(), group, {
              trigger: "simulate",
              killSwitchActive: false,
            });
            record = { ...recordOf(r.report, t, names), slot: group.slot };
            noteUnknowns(r.report, t);
          } catch (err) {
            record = { at: t, strategies: names, slot: group.slot, error: describeError(err), decisions: [] };
          }
          cycles.push(record);
          if (record.decisions.some((d) => d.outcome === "accepted"))
            samples.push(toSample(valuate(sim, account)));
        }
        o.onProgress?.({ doneMs: t - from, totalMs: to - from, cycles: cycles.length });
        // Next: a slot, a retry, the next watch minute while a guarded TWAP runs, a sample, the end.
        watching = watchNeeded(runtime.journal, account, t, strategies, config.limits.keepOnSpot);
        const candidates = [
          scheduler.nextSlot(t),
          scheduler.nextRetry(t),
          watching ? Math.floor(t / WATCH_INTERVAL_MS) * WATCH_INTERVAL_MS + WATCH_INTERVAL_MS : undefined,
          nextSample,
          to,
        ].filter((x): x is number => x !== undefined && x > t);
        t = Math.min(...candidates);
      }
      runtime.db.exec("COMMIT");
      const last = valuate(sim, account);
      if (samples[samples.length - 1]?.t !== last.at) samples.push(toSample(last));
      o.onProgress?.({ doneMs: end - from, totalMs: to - from, cycles: cycles.length });

      const books = sim.pairBooks();
      const endPrices: Record<string, Decimal> = { ...last.prices };
      // How each lost answer was settled: later cycles reconcile it against the venue before acting.
      const rows = new Map(
        (unknowns.length === 0 ? [] : runtime.journal.recentSubmissions(Number.MAX_SAFE_INTEGER)).map(
          (r) => [r.id, r] as const,
        ),
      );
      const settled = unknowns.map(({ submissionId, ...u }) => {
        const row = submissionId === undefined ? undefined : rows.get(submissionId);
        if (!row) return u;
        const done = row.status === "landed" || row.status === "absent";
        return {
          ...u,
          status: row.status,
          settledAt: done ? row.updatedAt : undefined,
          ...(row.twapId === null ? {} : { twapId: row.twapId }),
        };
      });
      const record: SimulationRecord = {
        scenario: { name: sim.scenarioName, file: scenarioFile },
        seed,
        network: o.config.network,
        account,
        holdings,
        valuationCoin,
        from,
        to: end,
        plannedTo: to,
        interrupted,
        replayed,
        ...(replayed.length === 0 ? {} : { notReplayed: notReplayed(scenario, replayed, seed) }),
        strategies: enabled.map((s) => ({ name: s.name, kind: s.kind, schedule: s.schedule })),
        validators: sim.validators().map((v) => ({
          address: v.address,
          name: v.name,
          netApr: v.stats.week.predictedApr.times(new Decimal(1).minus(v.commission)).toFixed(),
          ...(v.isJailed
            ? { notEarning: "jailed" as const }
            : v.isActive
              ? {}
              : { notEarning: "inactive" as const }),
        })),
        pairs: Object.fromEntries(
          sim.pairs().map((p) => {
            const book = books.get(p.name);
            return [p.name, { base: p.base, quote: p.quote, ...(book ? { book } : {}) }];
          }),
        ),
        cycles,
        missed,
        samples,
        start,
        end: last,
        ledger: [...sim.ledger({ user: account })],
        endPrices,
        unknowns: settled,
        benchmark: runBenchmark(bench, account, samples, end),
        ...scenarioEvents(scenario, from, end, account),
        ...(o.forkOf === undefined ? {} : { forkOf: o.forkOf.toLowerCase() }),
        ...(o.config.account === undefined ? {} : { configAccount: o.config.account.toLowerCase() }),
      };
      await o.onFinished?.(sim, account, runtime.journal);
      return { record, wallMs: performance.now() - wallStart };
    } finally {
      await runtime.close();
    }
  } finally {
    await sim.stop();
    await bench.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/**
 * TWAPs running at the start (a fork's, a scenario's `twaps:`). A simulation's journal is new, and a
 * budgeted strategy holds while the venue shows a TWAP on its pair and side its journal lacks (budget.ts:
 * a lost journal would spend a budget again): a review found a budgeted DCA held for the whole fork,
 * told to run a rebuild it could not run. They are written to it as `hlbot journal rebuild` writes the
 * venue's TWAPs (src/engine/rebuildTwaps.ts): a budgeted DCA of their pair and side counts them, as a
 * live bot's rebuilt journal does (a second trial: the fork's DCA spent its whole budget again), and
 * strategies wait for them while they run. A fork's TWAPs that ended before it (`prior`, read from the
 * real account) are imported beside them: what a budget spent and the daily limit's last 24 h.
 */
async function importCarriedTwaps(
  runtime: Runtime,
  account: string,
  strategies: readonly Strategy[],
  prior: TwapHistoryResponse,
): Promise<void> {
  const twaps = [...prior, ...(await runtime.info.twapHistory({ user: account as `0x${string}` }))];
  if (twaps.length === 0) return;
  const [meta, mids] = [await runtime.info.spotMeta({}), await runtime.info.allMids({})];
  const cycleId = newCycleId(runtime.clock());
  runtime.journal.startCycle({ id: cycleId, trigger: "rebuild", mode: "rebuild", account, strategies: [] });
  importVenueTwaps(runtime.journal, { cycleId, account, strategies, twaps, meta, mids });
  runtime.journal.finishCycle(cycleId, "ok");
}

/**
 * Runs the venue alone to each of the bot's sample times (setting the sample's `benchmark` value) and
 * to the end, valuing the same account each time.
 */
function runBenchmark(bench: Simulator, account: string, samples: Sample[], end: number): BenchmarkRecord {
  const start = valuate(bench, account);
  for (const x of samples) {
    bench.advanceTo(x.t);
    x.benchmark = valuate(bench, account).value.toNumber();
  }
  bench.advanceTo(end);
  return { start, end: valuate(bench, account), ledger: [...bench.ledger({ user: account })] };
}

/**
 * The scenario's events as a person reads them: those dated within the run (applied, oldest first) and
 * those after `end` (the run stopped before them, so they were not applied).
 */
function scenarioEvents(
  scenario: Scenario,
  from: number,
  end: number,
  /** The simulated account: money moved in or out of another is said to be invisible to the bot. */
  account: string,
): { eventsApplied: SkippedEventRecord[]; eventsAfterEnd: SkippedEventRecord[] } {
  const all = scenario.events.map((e) => ({
    at: eventTimeOf(e.at, from),
    type: e.type,
    what: eventText(e, scenario, account),
  }));
  return {
    eventsApplied: all.filter((e) => e.at <= end).sort((a, b) => a.at - b.at),
    eventsAfterEnd: all.filter((e) => e.at > end),
  };
}

function eventText(e: Scenario["events"][number], scenario: Scenario, account: string): string {
  switch (e.type) {
    case "validator": {
      const name = scenario.validators.find(
        (v) => v.address.toLowerCase() === e.validator.toLowerCase(),
      )?.name;
      const short = shortAddress(e.validator);
      const changes = [
        e.jailed === undefined ? "" : e.jailed ? "jailed" : "unjailed",
        e.active === undefined ? "" : e.active ? "active" : "inactive",
        e.commission === undefined ? "" : `commission ${e.commission.toFixed()}`,
        e.apr === undefined ? "" : `APR ${e.apr.toFixed()}`,
        e.uptime === undefined ? "" : `uptime ${e.uptime.toFixed()}`,
      ].filter(Boolean);
      return `validator ${name === undefined ? short : `${name} (${short})`} ${changes.join(", ")}`;
    }
    case "pair":
      return `pair ${e.pair} ${e.halted ? "halted" : "resumed"}`;
    case "price": {
      if (e.px !== undefined) return `price of ${e.pair} to ${e.px.toFixed()}`;
      const pct = new Decimal(e.change!).times(100);
      return `price of ${e.pair} ${pct.gte(0) ? "+" : ""}${pct.toFixed()}%`;
    }
    case "deposit":
    case "withdrawal":
      // A flow of another account (a typo, the staker's) was listed as applied and changed nothing the
      // bot saw (a scenario author's trial): say whose money moved.
      return e.account.toLowerCase() === account.toLowerCase()
        ? `${e.type} of ${e.amount.toFixed()} ${e.coin}`
        : `${e.type} of ${e.amount.toFixed()} ${e.coin} ${e.type === "deposit" ? "to" : "from"} ${e.account}, not the simulated account (the bot sees nothing of it)`;
    case "outage": {
      const knobs = Object.entries(e.faults)
        .filter(([, v]) => faultKnobSet(v))
        .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join("–") : v}`);
      return `outage of ${e.endpoint} for ${spanText(e.for)} (${knobs.join(", ")})`;
    }
  }
}

function recordOf(report: CycleReport, at: number, strategies: string[]): CycleRecord {
  return {
    at,
    strategies,
    error: undefined,
    decisions: report.decisions.map(({ decision, guard, guardReason, action }) => ({
      strategy: decision.strategy,
      kind: decision.kind,
      considered: decision.kind === "skip" ? decision.considered : undefined,
      guard,
      reason: guardReason ?? decision.reason,
      outcome: action?.outcome,
      detail: action?.detail,
      twapId: action?.twapId ?? (decision.kind === "twapCancel" ? decision.twapId : undefined),
      ...(decision.kind === "twapOrder"
        ? { decisionMid: (decision.decisionMidPx ?? decision.midPx).toFixed() }
        : {}),
      // As the journal counts it for the budget (nettedUsd): not when deferred (the slot is retried).
      ...(decision.kind === "skip" && decision.netted !== undefined && decision.defer !== true
        ? { nettedUsd: decision.netted.usd.toFixed() }
        : {}),
    })),
  };
}

/**
 * The account at the simulator's current time, valued by the engine's one valuation
 * (src/engine/valuation.ts, as `hlbot status` and the metrics value it): spot balances and all HYPE in
 * staking at the mids of the moment.
 */
export function valuate(sim: Simulator, account: string): Valuation {
  const market = {
    pairs: new Map(
      sim.pairs().map((p) => [p.name, { ...p, base: { name: p.base }, quote: { name: p.quote } }] as const),
    ),
  };
  const staking = sim.staking(account);
  const now = sim.now();
  const breakdown: StakeBreakdown = {
    delegated: ZERO,
    locked: ZERO,
    idle: staking.undelegated,
    pendingWithdrawal: ZERO,
  };
  const stake: Record<string, Decimal> = {};
  for (const d of staking.delegations) {
    stake[d.validator] = (stake[d.validator] ?? ZERO).plus(d.amount);
    breakdown.delegated = breakdown.delegated.plus(d.amount);
    if (d.lockedUntil > now) breakdown.locked = breakdown.locked.plus(d.amount);
  }
  for (const w of staking.pendingWithdrawals)
    breakdown.pendingWithdrawal = breakdown.pendingWithdrawal.plus(w.amount);
  const v = valueAccount(market, {
    spot: sim.balances(account).filter((b) => !b.total.isZero()),
    staking: {
      delegated: breakdown.delegated,
      undelegated: breakdown.idle,
      pendingWithdrawal: breakdown.pendingWithdrawal,
    },
  });
  const asset = (h: ValuedHolding, name: string): AssetValue => ({
    asset: name,
    amount: h.amount,
    price: h.usdPrice,
    value: h.usd ?? ZERO,
  });
  const assets = v.spot.map((h) => asset(h, h.coin));
  if (v.staked && !v.staked.amount.isZero()) assets.push(asset(v.staked, STAKED_HYPE));
  const prices: Record<string, Decimal> = {};
  for (const token of sim.tokens()) {
    const px = valueUsdPerUnit(market, token.name);
    if (px !== undefined) prices[token.name] = px;
  }
  // Staked HYPE without a price (a scenario with no HYPE/USDC pair) is left out, as in the assets.
  return { at: now, value: v.totalUsd ?? v.spotUsd, assets, stake, staking: breakdown, prices };
}

function toSample(v: Valuation): Sample {
  const assets: Record<string, number> = {};
  for (const a of v.assets) assets[a.asset] = a.value.toNumber();
  const stake: Record<string, number> = {};
  for (const [validator, amount] of Object.entries(v.stake)) stake[validator] = amount.toNumber();
  const prices: Record<string, number> = {};
  for (const [coin, px] of Object.entries(v.prices)) prices[coin] = px.toNumber();
  return { t: v.at, value: v.value.toNumber(), assets, stake, prices };
}

/** A time as "2025-01-01 00:00" (UTC, to the minute): how runs and candles are named to a person. */
export function isoMinute(t: number): string {
  return new Date(t).toISOString().slice(0, 16).replace("T", " ");
}

/**
 * Puts each candle file in place of its pair's price path (matched by the file's coin: the pair's venue
 * name or BASE/QUOTE). Returns the files read.
 */
function replayPrices(scenario: Scenario, files: string[]): CandleFile[] {
  const fileOfPair = new Map<ScenarioPair, string>();
  return files.map((file) => {
    const c = readCandleFile(file);
    const pair = scenario.pairs.find((p) => pairName(p) === c.coin || `${p.base}/${p.quote}` === c.coin);
    if (!pair)
      throw new ConfigError(
        `the candles are of ${c.coin}, a pair the scenario does not have (${scenario.pairs.map(pairName).join(", ")})`,
        { file },
      );
    const other = fileOfPair.get(pair);
    if (other !== undefined)
      throw new ConfigError(
        `the candles are of ${pair.base}/${pair.quote}, which ${other} replays already: give one file per pair`,
        { file },
      );
    fileOfPair.set(pair, file);
    delete scenario.prices[`${pair.base}/${pair.quote}`];
    scenario.prices[pairName(pair)] = { candles: c };
    return c;
  });
}

/** The scenario's pairs no candle file replays, and what their prices are instead. */
function notReplayed(
  scenario: ReturnType<typeof loadScenarioFile>,
  replayed: readonly ReplayedPrices[],
  seed: number,
): Array<{ pair: string; path: string }> {
  const coins = new Set(replayed.map((r) => r.coin));
  return scenario.pairs.flatMap((p) => {
    const name = pairName(p);
    const label = `${p.base}/${p.quote}`;
    if (coins.has(name) || coins.has(label)) return [];
    const config = scenario.prices[name] ?? scenario.prices[label];
    const path =
      config !== undefined && "points" in config
        ? "the scenario's scripted points"
        : config !== undefined && "candles" in config
          ? "the scenario's candles"
          : config === undefined || config.volatility === 0
            ? "held flat by the scenario"
            : `the scenario's random walk (volatility ${config.volatility} a year, seed ${seed})`;
    return [{ pair: label, path }];
  });
}

function replayedOf(c: CandleFile, from: number, to: number): ReplayedPrices {
  return {
    file: c.file,
    coin: c.coin,
    interval: c.interval,
    candles: c.candles.length,
    first: c.candles[0]!.t,
    last: c.candles[c.candles.length - 1]!.t,
    end: nextCandleOpen(c.interval, c.candles[c.candles.length - 1]!.t),
    gaps: c.gaps,
    gapSpans: gapSpansWithin(c, from, to),
  };
}

/** The candle files the scenario's `prices:` names (not replaced by --prices), for the same warnings. */
function scenarioCandles(scenario: Scenario, given: readonly CandleFile[]): CandleFile[] {
  return Object.values(scenario.prices)
    .flatMap((p) => (p && "candles" in p ? [p.candles] : []))
    .filter((c) => !given.some((g) => g.file === c.file));
}

/**
 * The time of `from`..`to` a replayed file has no candle for, where its pair's price is held flat (ms):
 * before the first candle (its open held), after the last one's close (that close held), and in gaps.
 */
export function replayCoverage(
  r: Pick<ReplayedPrices, "first" | "end" | "gapSpans">,
  from: number,
  to: number,
): { before: number; after: number; inGaps: number } {
  const overlap = (a: number, b: number) => Math.max(0, Math.min(b, to) - Math.max(a, from));
  return {
    before: overlap(from, r.first),
    after: overlap(r.end, to),
    inGaps: r.gapSpans.reduce((sum, g) => sum + overlap(g.from, g.to), 0),
  };
}
