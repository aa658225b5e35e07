// Promise 1, "at most once": a fault soak. Every strategy kind runs cycle after cycle in virtual time
// against the simulator while about a fifth of all requests (info, exchange and explorer) are faulted:
// 5xx and 429 (body null) before the venue looks at them; answers slower than the client's timeout, dropped
// connections, non-JSON and schema-violating bodies after the venue applied the request. Then the venue's
// ledger is compared with hlbot's journal: nothing took effect twice, every effect maps to one journaled
// submission, no cycle crashed, every failure carries its cause, and after a few fault-free cycles past
// every expiry nothing is left unresolved.
//
// `npm run test:soak` runs it at full length (HLBOT_SOAK=1: 600 cycles); the regular suite runs a shorter
// soak with the same checks. Figures are printed as one JSON line and, when HLBOT_RELIABILITY_OUT names a
// folder, written there for RELIABILITY.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CycleDeps, runCycle } from "../../src/engine/cycle.js";
import { HlbotError } from "../../src/lib/errors.js";
import type { FaultDecision } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { auditLedgerAgainstJournal, nonceViolations, prng, readSubmissions } from "./audit.js";

const FULL = process.env.HLBOT_SOAK === "1";
const CYCLES = Number(process.env.HLBOT_SOAK_CYCLES ?? (FULL ? 600 : 120));
/** Client timeout (ms, real time); slow answers take SLOW_MS, well beyond it. */
const TIMEOUT_MS = 100;
const SLOW_MS = 160;
/** Each fault kind on its own; six kinds at this rate fault 1 − (1 − r)^6 ≈ 20% of requests. */
const RATE = 0.036;
/** Share of actions that meet an account whose spot money is momentarily spent. */
const RACE_RATE = 0.06;
const SEED = Number(process.env.HLBOT_SOAK_SEED ?? 20250101);

const VALIDATORS = [
  "0x5ac99df645f3414876c816caa18b2d234024b487",
  "0xb8f45222a3246a2b0104696a1df26842007c5bc5",
  "0x000000000056f99d36b6f2e0c51fd41496bbacb8",
  "0xef22f260eec3b7d1edebe53359f5ca584c18d5ac",
];

const STRATEGIES = [
  {
    name: "rebalance",
    kind: "twap-rebalance",
    params: {
      targets: { HYPE: 0.5, USDC: 0.5 },
      quote: "USDC",
      band: 0.03,
      twap: { minutes: 10, randomize: true },
      minOrderUsd: 100,
    },
  },
  {
    name: "accumulate",
    kind: "twap-accumulate",
    params: {
      coin: "PURR",
      quote: "USDC",
      side: "buy",
      amountUsd: 150,
      twap: { minutes: 5, randomize: false },
    },
  },
  {
    name: "staking",
    kind: "validator-staking",
    params: {
      validators: 2,
      rankBy: "predictedApr",
      rebalanceThreshold: 0.05,
      maxMovePerRun: 400,
      stakeIdleSpot: { enabled: true, keepSpot: 1500 },
    },
  },
  {
    name: "link",
    kind: "link-staking",
    params: { counterparty: "0xa11ce00000000000000000000000000000a11ce0", finalize: false },
  },
];

type FaultKind = "serverError" | "rateLimit" | "slow" | "drop" | "nonJson" | "badSchema";

let bot: TestBot | undefined;
let info: HttpTransport | undefined;
afterEach(async () => {
  await info?.close();
  await bot?.close();
  info = undefined;
  bot = undefined;
});

describe("fault soak: at most once under faults", () => {
  it(`runs ${CYCLES} cycles of every strategy kind with ~20% of requests faulted and loses or doubles nothing`, {
    timeout: 600_000,
  }, async () => {
    const wallStart = Date.now();
    bot = await startTestBot({
      mode: "live",
      strategies: STRATEGIES,
      fund: { HYPE: "2000", USDC: "60000" },
      sim: { seed: SEED },
      limits: { maxOrderUsd: 20000, maxDailyNotionalUsd: 10_000_000, maxStakeMovePerDay: 1_000_000 },
      // The simulator applies what it applies at once (it never holds a request back to land later), so
      // a short grace for user-signed actions is safe here; the default covers the venue's nonce window.
      configExtra: { venue: { timeoutMs: TIMEOUT_MS, userSignedGraceMs: 300_000 } },
    });
    const { sim, runtime } = bot;
    const random = prng(SEED);

    // Count every request the venue sees and fault a share of them. The simulator's own knobs cover
    // five kinds; answers slower than the client timeout are added here with the same rate.
    const requests = { info: 0, exchange: 0, explorer: 0 };
    const faults: Record<FaultKind, number> = {
      serverError: 0,
      rateLimit: 0,
      slow: 0,
      drop: 0,
      nonJson: 0,
      badSchema: 0,
    };
    let faulted = 0;
    let slowOn = false;
    let races = 0;
    const injector = sim.core.faults;
    const decide = injector.decide.bind(injector);
    injector.decide = (endpoint): FaultDecision => {
      const d = decide(endpoint);
      requests[endpoint]++;
      // Now and then the account's spot money is gone by the time an action arrives (spent elsewhere a
      // moment after the snapshot): the venue applies the action and refuses it, so the journal must
      // learn of the refusal, including when the answer is then lost. Restored right after this request.
      if (endpoint === "exchange" && slowOn && random() < RACE_RATE) {
        races++;
        const drained: Array<[string, string]> = [];
        for (const coin of ["HYPE", "USDC", "PURR"]) {
          const available = sim.balance(bot!.address, coin).available;
          if (available.gt(0)) {
            sim.fund(bot!.address, coin, available.neg());
            drained.push([coin, available.toFixed()]);
          }
        }
        queueMicrotask(() => {
          for (const [coin, amount] of drained) sim.fund(bot!.address, coin, amount);
        });
      }
      if (slowOn && random() < RATE) d.latencyMs = SLOW_MS;
      const kinds: FaultKind[] = [];
      if (d.rateLimit) kinds.push("rateLimit");
      else if (d.serverError) kinds.push("serverError");
      else {
        if (d.drop) kinds.push("drop");
        else if (d.nonJson) kinds.push("nonJson");
        else if (d.badSchema) kinds.push("badSchema");
      }
      if (d.latencyMs >= SLOW_MS) kinds.push("slow");
      for (const k of kinds) faults[k]++;
      if (kinds.length) faulted++;
      return d;
    };

    // Reads retry at once (the production backoff is real time and would only make this slow); the
    // exchange client is the runtime's own, with the bot's resend rules shortened by startTestBot.
    // Explorer queries get their own endpoint, as on the real venue (a custom base URL would fold
    // them into /info).
    info = new HttpTransport({
      endpoints: { ...resolveEndpoints("testnet", sim.url), explorer: `${sim.url}/explorer` },
      timeoutMs: TIMEOUT_MS,
      retry: { attempts: 4, baseDelayMs: 1, maxDelayMs: 4 },
      budget: null,
    });
    const facts = await runtime.facts();
    const deps: CycleDeps = { ...runtime.cycleDeps(facts), info: new InfoClient(info) };
    const strategies = runtime.strategies();

    const outcomes: Record<string, number> = {};
    const failedCycles: Record<string, number> = {};
    const crashes: unknown[] = [];
    let okCycles = 0;
    const lookups = { ok: 0, failed: 0 };
    const runOne = async () => {
      // What `hlbot tx` does for the latest action: an explorer read that must fail cleanly or answer.
      const last = sim.ledger({ kind: "action", user: bot!.address }).at(-1);
      if (last?.hash) {
        try {
          await deps.info.txDetails({ hash: last.hash });
          lookups.ok++;
        } catch (err) {
          if (err instanceof HlbotError) lookups.failed++;
          else crashes.push(err);
        }
      }
      try {
        const report = await runCycle(deps, { trigger: "run", strategies });
        okCycles++;
        for (const a of report.actions) outcomes[a.outcome] = (outcomes[a.outcome] ?? 0) + 1;
      } catch (err) {
        if (err instanceof HlbotError) failedCycles[err.code] = (failedCycles[err.code] ?? 0) + 1;
        else crashes.push(err);
      }
    };

    const faultKnobs = {
      serverErrorRate: RATE,
      rateLimitRate: RATE,
      dropRate: RATE,
      nonJsonRate: RATE,
      badSchemaRate: RATE,
    };
    sim.setFaults({ all: faultKnobs });
    slowOn = true;
    for (let i = 0; i < CYCLES; i++) {
      // The market moves, validators change, money arrives: reasons for every strategy to act.
      if (random() < 0.3) {
        const px = sim.price("@107").times(0.85 + random() * 0.3);
        sim.setPrice("@107", px.toDecimalPlaces(4));
      }
      if (random() < 0.04) {
        const v = VALIDATORS[Math.floor(random() * VALIDATORS.length)]!;
        sim.setValidator(v, { apr: (0.015 + random() * 0.02).toFixed(4) });
      }
      if (random() < 0.05) sim.fund(bot.address, "HYPE", (50 + Math.floor(random() * 200)).toString());
      await runOne();
      sim.advance(60_000 + Math.floor(random() * 180_000));
    }

    // Faults off; run past every expiry and grace period, and reconcile.
    const faultyCycles = CYCLES;
    sim.setFaults({});
    slowOn = false;
    const faultedRequests = faulted;
    const totalFaultyRequests = requests.info + requests.exchange + requests.explorer;
    sim.advance(10 * 60_000);
    for (let i = 0; i < 3; i++) {
      await runOne();
      sim.advance(10 * 60_000);
    }

    const unresolved = runtime.journal.unresolved();
    const audit = auditLedgerAgainstJournal(sim.ledger(), runtime.db, bot.address);
    const subs = readSubmissions(runtime.db);
    const failedWithoutCause = runtime.db
      .prepare("SELECT COUNT(*) AS n FROM cycles WHERE status = 'failed' AND (error IS NULL OR error = '')")
      .get() as { n: number };
    const attemptsWithoutCause = runtime.db
      .prepare(
        "SELECT COUNT(*) AS n FROM attempts WHERE outcome NOT IN ('accepted') AND (detail IS NULL OR detail = '')",
      )
      .get() as { n: number };
    // Nothing is submitted on the basis of invalid or missing data: a cycle whose reads failed sent nothing.
    const sentByFailedCycles = runtime.db
      .prepare(
        "SELECT COUNT(*) AS n FROM submissions s JOIN cycles c ON c.id = s.cycle_id WHERE c.status = 'failed'",
      )
      .get() as { n: number };
    const stillRunning = runtime.db
      .prepare("SELECT COUNT(*) AS n FROM cycles WHERE status = 'running'")
      .get() as { n: number };

    const figures = {
      cycles: faultyCycles + 3,
      faultyCycles,
      okCycles,
      failedCycles,
      crashes: crashes.length,
      requests: { ...requests, total: totalFaultyRequests },
      faultedRequests,
      faultShare: Number((faultedRequests / totalFaultyRequests).toFixed(3)),
      faults,
      outcomes,
      txLookups: lookups,
      races,
      sentByFailedCycles: sentByFailedCycles.n,
      ...audit.figures,
      unresolvedAtEnd: unresolved.length,
      nonceViolations: nonceViolations(subs).length,
      virtualHours: Number(((sim.now() - sim.core.startTime) / 3_600_000).toFixed(1)),
      wallSeconds: Number(((Date.now() - wallStart) / 1000).toFixed(1)),
    };
    console.log(`soak figures ${JSON.stringify(figures)}`);
    if (process.env.HLBOT_RELIABILITY_OUT) {
      mkdirSync(process.env.HLBOT_RELIABILITY_OUT, { recursive: true });
      writeFileSync(
        join(process.env.HLBOT_RELIABILITY_OUT, "soak.json"),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
    }

    expect(crashes).toEqual([]);
    expect(audit.violations).toEqual([]);
    expect(unresolved).toEqual([]);
    expect(nonceViolations(subs)).toEqual([]);
    expect(failedWithoutCause.n).toBe(0);
    expect(attemptsWithoutCause.n).toBe(0);
    expect(stillRunning.n).toBe(0);
    expect(sentByFailedCycles.n).toBe(0);
    // The soak is only meaningful when faults actually bit and every kind of action went out.
    expect(figures.faultShare).toBeGreaterThan(0.15);
    expect(figures.faultShare).toBeLessThan(0.25);
    for (const kind of Object.keys(faults) as FaultKind[]) expect(faults[kind], kind).toBeGreaterThan(0);
    expect(outcomes.unknown ?? 0).toBeGreaterThan(0);
    expect(outcomes.rejected ?? 0).toBeGreaterThan(0);
    const sentTypes = new Set(subs.map((s) => s.actionType));
    for (const t of ["twapOrder", "cDeposit", "tokenDelegate", "linkStakingUser"])
      expect(sentTypes).toContain(t);
    expect(audit.figures.ledgerEffects).toBeGreaterThan(0);
  });
});
