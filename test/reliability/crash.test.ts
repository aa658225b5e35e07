// Promise 2, "crash safety": a real `hlbot run` process (the built CLI) against a simulator served by
// this test over 127.0.0.1 in real time, killed with SIGKILL again and again and restarted each time.
// Kills are aimed at the two dangerous windows as well as at random moments:
// - between the journal write and the send: the test-only hook HLBOT_TEST_PAUSE_BEFORE_SEND (honoured
//   only with HLBOT_TEST=1) holds each submission for a moment after it is journaled as pending, and
//   logs that it does; the kill lands inside that pause;
// - between the send and the answer: the simulator delays its exchange answers (latency fault) and the
//   test kills the process the moment the venue's ledger shows the action applied;
// - anywhere: a kill after a random delay.
// Afterwards a last run reconciles, and the venue's ledger is compared with the journal: no duplicate
// effect, nonces strictly increasing per signer, the journal readable and consistent, and every
// interrupted submission reconciled. `npm run test:soak` kills 36 times; the regular suite 6 times.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type LedgerEntry, type Simulator, startSimulator } from "../../src/simulator/index.js";
import { BIN, ensureBuilt } from "../helpers/dist.js";
import { auditLedgerAgainstJournal, nonceViolations, prng, readSubmissions } from "./audit.js";

const FULL = process.env.HLBOT_SOAK === "1";
const KILLS = Number(process.env.HLBOT_CRASH_KILLS ?? (FULL ? 36 : 6));
const PAUSE_MS = 300;
/** The reconciler's allowance for clock differences (reconcile.ts default). */
const RECONCILE_SLACK_MS = 10_000;
const SEED = 7;

type KillMode = "before-send" | "after-apply" | "random";
const MODES: KillMode[] = ["before-send", "after-apply", "random"];

/** Schedules (cron with seconds) while killing: something is decided every second. */
const FAST = {
  staking: "* * * * * *",
  accumulate: "*/2 * * * * *",
  rebalance: "1-59/2 * * * * *",
  link: "*/3 * * * * *",
};
/**
 * The last run is scheduled gently: its reads stay within the client's 1200-per-minute weight budget, so
 * no cycle waits a minute for budget and SIGTERM finds nothing running for long.
 */
const GENTLE = {
  staking: "*/5 * * * * *",
  accumulate: "1-59/5 * * * * *",
  rebalance: "2-59/5 * * * * *",
  link: "3-59/5 * * * * *",
};

function writeStrategies(schedules: typeof FAST): string[] {
  const strategies = [
    {
      name: "staking",
      kind: "validator-staking",
      schedule: schedules.staking,
      params: { validators: 2, rebalanceThreshold: 0.05, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
    },
    {
      name: "accumulate",
      kind: "twap-accumulate",
      schedule: schedules.accumulate,
      params: { coin: "PURR", side: "buy", amountUsd: 150, twap: { minutes: 5, randomize: false } },
    },
    {
      name: "rebalance",
      kind: "twap-rebalance",
      schedule: schedules.rebalance,
      params: { targets: { HYPE: 0.5, USDC: 0.5 }, band: 0.05, twap: { minutes: 5 }, minOrderUsd: 100 },
    },
    {
      name: "link",
      kind: "link-staking",
      schedule: schedules.link,
      params: { counterparty: "0xa11ce00000000000000000000000000000a11ce0" },
    },
  ];
  return strategies.map((s, i) => {
    const file = join(dir, `strategy-${i}.yaml`);
    writeFileSync(file, stringify({ enabled: true, ...s }));
    return file;
  });
}

let sim: Simulator & { url: string };
let dir: string;
let configFile: string;
let stateDir: string;
let key: string;
let account: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  ensureBuilt(["cli/main.js", "cli/commands/run.js", "engine/daemon.js"]);
  const wallet = Wallet.createRandom();
  key = wallet.privateKey;
  account = wallet.address.toLowerCase();
  sim = await startSimulator({ clock: "real", rateLimit: false, seed: SEED });
  sim.fund(account, "HYPE", "300");
  sim.fund(account, "USDC", "20000");
  // Answers to actions come late (the action is applied first): the window between send and answer.
  sim.setFaults({ exchange: { latencyMs: [150, 450] } });

  dir = mkdtempSync(join(tmpdir(), "hlbot-crash-"));
  stateDir = join(dir, "state");
  const files = writeStrategies(FAST);
  configFile = join(dir, "bot.yaml");
  writeFileSync(
    configFile,
    stringify({
      network: "testnet",
      baseUrl: sim.url,
      mode: "live",
      wallet: { privateKeyEnv: "HLBOT_PRIVATE_KEY" },
      strategies: files,
      state: stateDir,
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 10000000, maxStakeMovePerDay: 1000000 },
      log: { level: "info", format: "json" },
      // The schedules are by the second (something is decided every second while killing).
      schedule: { allowSeconds: true },
      // Short lifetimes, so interrupted submissions become decidable within the test's time.
      venue: { expiresAfterMs: 2000, userSignedGraceMs: 2000, timeoutMs: 5000 },
    }),
  );
}, 180_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await sim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  exited: Promise<number | null>;
  lines: string[];
  /** Resolves on the first stderr line matching. */
  waitForLine(pattern: RegExp): Promise<void>;
}

function startBot(): Running {
  const child = spawn(process.execPath, [BIN, "run", "--config", configFile], {
    env: {
      PATH: process.env.PATH ?? "",
      HLBOT_PRIVATE_KEY: key,
      HLBOT_TEST: "1",
      HLBOT_TEST_PAUSE_BEFORE_SEND: String(PAUSE_MS),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const lines: string[] = [];
  const watchers: Array<{ pattern: RegExp; resolve: () => void }> = [];
  let partial = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    partial += chunk.toString("utf8");
    const parts = partial.split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const w of watchers.splice(0)) {
        if (w.pattern.test(line)) w.resolve();
        else watchers.push(w);
      }
    }
  });
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    lines,
    waitForLine: (pattern) => new Promise((resolve) => watchers.push({ pattern, resolve })),
  };
}

function waitForLedgerAction(): { promise: Promise<void>; cancel: () => void } {
  let cancel = () => {};
  const promise = new Promise<void>((resolve) => {
    const off = sim.core.ledger.subscribe((e: LedgerEntry) => {
      if (e.kind === "action" && e.user === account) {
        off();
        resolve();
      }
    });
    cancel = () => off();
  });
  return { promise, cancel };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function openJournal(): Database.Database {
  return new Database(join(stateDir, "hlbot.db"), { readonly: true, fileMustExist: true });
}

describe("crash safety: hlbot run killed with SIGKILL and restarted", () => {
  it(`loses and doubles nothing over ${KILLS} kills`, { timeout: 300_000 }, async () => {
    const wallStart = Date.now();
    const random = prng(SEED);
    const kills: Record<string, number> = { "before-send": 0, "after-apply": 0, random: 0, fallback: 0 };
    /** What each kill interrupted, judged from the journal and the ledger right after it. */
    const interrupted = { journaledNotSent: 0, sentNotAnswered: 0, nothingInFlight: 0 };
    const interruptedIds = new Set<number>();

    for (let round = 0; round < KILLS; round++) {
      const mode = MODES[round % MODES.length]!;
      // Money arrives between runs: the staking strategy has HYPE to deposit and delegate. Running
      // TWAPs end (as if cancelled from the venue's own interface), so the TWAP strategies act again.
      sim.fund(account, "HYPE", String(5 + Math.floor(random() * 20)));
      for (const t of sim.twaps(account))
        if (t.status === "activated") sim.core.twaps.cancel(account, t.pair.assetId, t.id);
      const bot = startBot();
      const ledgerAction = waitForLedgerAction();
      const trigger =
        mode === "before-send"
          ? bot.waitForLine(/test hook: pausing between the journal write and the send/)
          : mode === "after-apply"
            ? ledgerAction.promise
            : sleep(300 + random() * 2500);
      const fired = await Promise.race([trigger.then(() => true), sleep(6_000).then(() => false)]);
      if (mode === "random") await sleep(0);
      bot.child.kill("SIGKILL");
      ledgerAction.cancel();
      await bot.exited;
      kills[fired ? mode : "fallback"]!++;

      const db = openJournal();
      try {
        const open = db
          .prepare("SELECT id, signer, nonce FROM submissions WHERE status IN ('pending', 'unknown')")
          .all() as Array<{ id: number; signer: string; nonce: number }>;
        const fresh = open.filter((s) => !interruptedIds.has(s.id));
        if (fresh.length === 0) interrupted.nothingInFlight++;
        for (const s of fresh) {
          interruptedIds.add(s.id);
          const landed = sim
            .ledger({ kind: "action", user: account })
            .some((e) => e.data.nonce === s.nonce && String(e.data.signer) === s.signer.toLowerCase());
          if (landed) interrupted.sentNotAnswered++;
          else interrupted.journaledNotSent++;
        }
      } finally {
        db.close();
      }
    }

    // The last run: no kill. Started once every interrupted submission is past the moment it could still
    // land (its expiry or grace, plus the reconciler's clock slack), it must reconcile all of them, go on
    // without sending anything twice, and stop cleanly on SIGTERM.
    await sleep(2000 + RECONCILE_SLACK_MS + 1000);
    writeStrategies(GENTLE);
    const last = startBot();
    const deadline = Date.now() + 30_000;
    let unresolved = -1;
    for (;;) {
      await sleep(500);
      const db = openJournal();
      try {
        unresolved = (
          db
            .prepare("SELECT COUNT(*) AS n FROM submissions WHERE status IN ('pending', 'unknown')")
            .get() as {
            n: number;
          }
        ).n;
      } finally {
        db.close();
      }
      if (unresolved === 0 || Date.now() > deadline) break;
    }
    await sleep(3000); // a few more cycles after reconciliation: nothing may be sent twice
    last.child.kill("SIGTERM");
    const lastExit = await last.exited;
    if (lastExit !== 0 || unresolved !== 0)
      console.log(`last run stderr:\n${last.lines.slice(-25).join("\n")}`);
    if (process.env.HLBOT_CRASH_LOG) writeFileSync(process.env.HLBOT_CRASH_LOG, last.lines.join("\n"));

    const db = new Database(join(stateDir, "hlbot.db"), { readonly: true });
    try {
      const integrity = db.pragma("integrity_check", { simple: true });
      const audit = auditLedgerAgainstJournal(sim.ledger(), db, account);
      const subs = readSubmissions(db);
      const ledgerNonces = sim.ledger({ kind: "action", user: account }).map((e) => Number(e.data.nonce));
      const ledgerOrder = ledgerNonces.filter((n, i) => i > 0 && n <= ledgerNonces[i - 1]!).length;
      const counter = db.prepare("SELECT signer, last_nonce AS last FROM nonces").all() as Array<{
        signer: string;
        last: number;
      }>;
      const notReconciled = subs.filter(
        (s) => interruptedIds.has(s.id) && !["landed", "absent", "accepted", "rejected"].includes(s.status),
      );
      const reconciledRows = db
        .prepare(
          `SELECT COUNT(DISTINCT submission_id) AS n FROM attempts WHERE outcome LIKE 'reconcile:%'
           AND outcome != 'reconcile:unresolved'`,
        )
        .get() as { n: number };

      const cycles = Object.fromEntries(
        (
          db.prepare("SELECT status, COUNT(*) AS n FROM cycles GROUP BY status").all() as Array<{
            status: string;
            n: number;
          }>
        ).map((r) => [r.status, r.n]),
      );
      const figures = {
        kills: KILLS,
        killsByTrigger: kills,
        interrupted,
        interruptedSubmissions: interruptedIds.size,
        ...audit.figures,
        reconciledSubmissions: reconciledRows.n,
        unresolvedAtEnd: unresolved,
        nonceViolations: nonceViolations(subs).length,
        ledgerNonceOrderViolations: ledgerOrder,
        integrity,
        cycles,
        lastExit,
        wallSeconds: Number(((Date.now() - wallStart) / 1000).toFixed(1)),
      };
      console.log(`crash figures ${JSON.stringify(figures)}`);
      if (process.env.HLBOT_RELIABILITY_OUT) {
        mkdirSync(process.env.HLBOT_RELIABILITY_OUT, { recursive: true });
        writeFileSync(
          join(process.env.HLBOT_RELIABILITY_OUT, "crash.json"),
          `${JSON.stringify(figures, null, 2)}\n`,
        );
      }

      expect(integrity).toBe("ok");
      // Consistent: no cycle claims to be running after its process died.
      expect(cycles.running ?? 0).toBe(0);
      expect(audit.violations).toEqual([]);
      expect(unresolved).toBe(0);
      expect(nonceViolations(subs)).toEqual([]);
      expect(ledgerOrder).toBe(0);
      for (const c of counter) {
        const max = Math.max(0, ...subs.filter((s) => s.signer === c.signer).map((s) => s.nonce));
        expect(c.last).toBeGreaterThanOrEqual(max);
      }
      expect(notReconciled).toEqual([]);
      expect(lastExit).toBe(0);
      // The kills did land in both windows.
      expect(interrupted.journaledNotSent).toBeGreaterThan(0);
      expect(interrupted.sentNotAnswered).toBeGreaterThan(0);
      expect(audit.figures.ledgerEffects).toBeGreaterThan(0);
    } finally {
      db.close();
    }
  });
});
