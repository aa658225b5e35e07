// Regression tests for the bugs the reliability work found, each named after what it protects. The
// corpus (badInputs.test.ts), the soak and the crash test found them; these pin each fix down at the
// smallest scale that shows it.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { type ConfigIssue, ConfigIssuesError, didYouMean } from "../../src/engine/config/issues.js";
import { loadConfig, loadStrategyFile } from "../../src/engine/config/loader.js";
import { runCycle } from "../../src/engine/cycle.js";
import { Journal } from "../../src/engine/journal.js";
import { acquireInstanceLock } from "../../src/engine/lock.js";
import { createLogger } from "../../src/lib/log.js";
import { exposedSecretFileWarning } from "../../src/lib/secrets.js";
import { openStateDb } from "../../src/lib/stateDb.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});
function temp(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-regress-"));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const STRATEGY = `name: s
kind: twap-accumulate
schedule: "0 * * * *"
params: { coin: HYPE, side: buy, amountUsd: 100, twap: { minutes: 30 } }
`;
const bot = (body: string) => `${body}
strategies: [./s.yaml]
limits: { maxOrderUsd: 100, maxDailyNotionalUsd: 1000, maxStakeMovePerDay: 10 }
`;

async function issuesOfLoad(promise: Promise<unknown>): Promise<readonly ConfigIssue[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigIssuesError);
  return (err as ConfigIssuesError).issues;
}

describe("configuration messages: one mistake, one clear line", () => {
  it("reports a misspelt required key once, as the unknown key with its did-you-mean", async () => {
    const dir = temp({ "bot.yaml": bot("netwrok: testnet"), "s.yaml": STRATEGY });
    const issues = await issuesOfLoad(loadConfig(join(dir, "bot.yaml"), {}));
    expect(issues.map((i) => `${i.keyPath}: ${i.message}`)).toEqual([
      'netwrok: unknown key "netwrok" (did you mean "network"?)',
    ]);
  });

  it("says a missing decimal field is required instead of 'got undefined undefined'", async () => {
    const dir = temp({
      "bot.yaml":
        "network: testnet\nstrategies: [./s.yaml]\nlimits: { maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 }\n",
      "s.yaml": STRATEGY,
    });
    const issues = await issuesOfLoad(loadConfig(join(dir, "bot.yaml"), {}));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.keyPath).toBe("limits.maxOrderUsd");
    expect(issues[0]?.message).toMatch(/^is required \(expected a decimal number/);
    expect(issues[0]?.message).not.toMatch(/undefined/);
  });

  it("offers a did-you-mean for two swapped letters", () => {
    expect(didYouMean("bnad", ["targets", "quote", "band", "twap", "minOrderUsd"])).toBe("band");
    expect(didYouMean("nmae", ["name", "kind"])).toBe("name");
    expect(didYouMean("colour", ["network", "limits"])).toBeUndefined();
  });
});

describe("HYPE amounts in the configuration are whole wei", () => {
  it("refuses maxMovePerRun, keepSpot and maxStakeMovePerDay beyond 8 decimals, naming the key", async () => {
    const staking = (move: string, keep: string) => `name: st
kind: validator-staking
schedule: "0 * * * *"
params:
  validators: 2
  maxMovePerRun: "${move}"
  stakeIdleSpot: { enabled: true, keepSpot: "${keep}" }
`;
    let dir = temp({ "s.yaml": staking("1.000000001", "10") });
    let issues = await issuesOfLoad(loadStrategyFile(join(dir, "s.yaml"), {}));
    expect(issues.map((i) => i.keyPath)).toEqual(["params.maxMovePerRun"]);
    expect(issues[0]?.message).toMatch(/1\.000000001 has more than 8 decimal places/);

    dir = temp({ "s.yaml": staking("1", "0.123456789") });
    issues = await issuesOfLoad(loadStrategyFile(join(dir, "s.yaml"), {}));
    expect(issues.map((i) => i.keyPath)).toEqual(["params.stakeIdleSpot.keepSpot"]);

    dir = temp({ "s.yaml": staking("1.00000001", "10.5") });
    const loaded = await loadStrategyFile(join(dir, "s.yaml"), {});
    expect(loaded.kind).toBe("validator-staking");

    dir = temp({
      "bot.yaml":
        'network: testnet\nstrategies: [./s.yaml]\nlimits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: "5.000000001" }\n',
      "s.yaml": STRATEGY,
    });
    issues = await issuesOfLoad(loadConfig(join(dir, "bot.yaml"), {}));
    expect(issues.map((i) => i.keyPath)).toEqual(["limits.maxStakeMovePerDay"]);
  });
});

describe("venue failures name the query", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>502 Bad Gateway</html>");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("prefixes a transport failure of a read with the info type, so a cycle's failed read is identifiable", async () => {
    const transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", url), budget: null });
    try {
      await expect(new InfoClient(transport).spotMeta()).rejects.toThrow(/^spotMeta: response is not JSON/);
      await expect(new InfoClient(transport).delegations({ user: `0x${"1".repeat(40)}` })).rejects.toThrow(
        /^delegations: response is not JSON/,
      );
    } finally {
      await transport.close();
    }
  });
});

describe("twap size below one lot", () => {
  it("is refused naming --size, without first announcing a truncation to 0", async () => {
    const state = temp({});
    let stderr = "";
    const code = await main(
      [
        "twap",
        "buy",
        "--asset",
        "10107",
        "--sz-decimals",
        "2",
        "--size",
        "0.004",
        "--minutes",
        "30",
        "--state",
        state,
      ],
      {
        stdout: () => undefined,
        stderr: (t) => {
          stderr += t;
        },
        env: { HLBOT_PRIVATE_KEY: KEY },
        isTTY: false,
      },
    );
    expect(code).toBe(2);
    expect(stderr).toBe("hlbot: --size: 0.004 is less than one lot (2 decimal places)\n");
  });
});

describe("reconciliation does not credit one action's venue record to another", () => {
  let bot: TestBot | undefined;
  afterEach(async () => {
    await bot?.close();
    bot = undefined;
  });

  /** Makes the next journal write of a pending submission "crash" right after the row is written. */
  function crashAfterJournalWrite(b: TestBot): () => void {
    const journal = b.runtime.journal;
    const original = journal.recordPending.bind(journal);
    journal.recordPending = (s) => {
      original(s);
      throw new Error("simulated crash after the pending row was written");
    };
    return () => {
      journal.recordPending = original;
    };
  }

  async function cycle(b: TestBot) {
    const facts = await b.runtime.facts();
    return runCycle(b.runtime.cycleDeps(facts), { trigger: "once", strategies: b.runtime.strategies() });
  }

  it("declares a TWAP that never went out absent, although an identical one was placed seconds before", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          params: { coin: "PURR", side: "buy", amountUsd: 150, twap: { minutes: 5, randomize: false } },
        },
      ],
      fund: { USDC: "5000" },
    });
    bot.sim.setPrice("PURR/USDC", "0.2");
    const first = await cycle(bot);
    expect(first.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    // The TWAP ends (cancelled from elsewhere) and the same order is decided again at once, but the
    // process dies between the journal write and the send.
    const twapId = first.actions[0]!.twapId!;
    expect(bot.sim.core.twaps.cancel(bot.address, 10_000, twapId)).toBe(true);
    const restore = crashAfterJournalWrite(bot);
    await expect(cycle(bot)).rejects.toThrow(/simulated crash/);
    restore();

    bot.sim.advance(2 * 60_000); // past its expiresAfter and the clock slack
    const after = await cycle(bot);
    expect(after.reconciled.map((r) => r.verdict)).toEqual(["absent"]);
    expect(after.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    const placed = bot.sim.ledger({ kind: "twapPlaced", user: bot.address });
    expect(placed).toHaveLength(2);
    const twapIds = bot.runtime.journal.recentSubmissions(10).map((s) => s.twapId);
    expect(new Set(twapIds.filter((t) => t !== null)).size).toBe(2);
  });

  it("declares a staking deposit that never went out absent, although one of the same amount landed before", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "staking",
          kind: "validator-staking",
          params: { validators: 1, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
        },
      ],
      fund: { HYPE: "100" },
    });
    const first = await cycle(bot);
    expect(first.actions.map((a) => `${a.action} ${a.outcome}`)).toEqual([
      "cDeposit accepted",
      "tokenDelegate accepted",
    ]);
    bot.sim.fund(bot.address, "HYPE", "100");
    const restore = crashAfterJournalWrite(bot);
    await expect(cycle(bot)).rejects.toThrow(/simulated crash/);
    restore();

    // Past the grace period of user-signed actions: the venue's whole nonce window (2 days, issue #17).
    bot.sim.advance(2 * 24 * 60 * 60_000 + 60_000);
    const after = await cycle(bot);
    expect(after.reconciled.map((r) => [r.actionType, r.verdict])).toEqual([["cDeposit", "absent"]]);
    expect(bot.sim.ledger({ kind: "cDeposit", user: bot.address })).toHaveLength(2);
  });
});

describe("journal consistency after a crash", () => {
  it("marks run and once cycles left running by a dead process as interrupted, and leaves other triggers alone", async () => {
    const dir = temp({});
    const db = await openStateDb({ dir });
    try {
      let now = 1_700_000_000_000;
      const journal = new Journal(db, () => now);
      for (const [id, trigger] of [
        ["c-run", "run"],
        ["c-once", "once"],
        ["c-plan", "plan"],
        ["c-done", "run"],
      ] as const)
        journal.startCycle({ id, trigger, mode: "live", account: "0xabc", strategies: ["s"] });
      journal.finishCycle("c-done", "ok");
      now += 1000;
      expect(journal.closeInterruptedCycles(["run", "once"])).toBe(2);
      const status = Object.fromEntries(journal.recentCycles(10).map((c) => [c.id, c.status]));
      expect(status).toEqual({
        "c-run": "interrupted",
        "c-once": "interrupted",
        "c-plan": "running",
        "c-done": "ok",
      });
      expect(journal.closeInterruptedCycles(["run", "once"])).toBe(0);
    } finally {
      db.close();
    }
  });
});

describe("log file", () => {
  it("creates a missing log folder (private) instead of crashing the process with an unhandled stream error", async () => {
    const root = temp({});
    const file = join(root, "state", "logs", "hlbot.log");
    let terminal = "";
    const logger = await createLogger({
      level: "info",
      format: "json",
      file,
      stream: {
        write: (s: string) => {
          terminal += s;
          return true;
        },
      } as unknown as NodeJS.WritableStream,
    });
    logger.info("hello");
    await logger.flush();
    expect(readFileSync(file, "utf8")).toMatch(/"msg":"hello"/);
    expect(statSync(join(root, "state")).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(terminal).toMatch(/"msg":"hello"/);
  });

  it("warns once and keeps logging to the terminal when the log file cannot be written", async () => {
    const root = temp({ "not-a-folder": "x" });
    let terminal = "";
    const logger = await createLogger({
      level: "info",
      format: "json",
      file: join(root, "not-a-folder", "hlbot.log"),
      stream: {
        write: (s: string) => {
          terminal += s;
          return true;
        },
      } as unknown as NodeJS.WritableStream,
    });
    logger.info("first");
    await new Promise((r) => setTimeout(r, 50));
    logger.info("second");
    await logger.flush();
    expect(terminal).toMatch(
      /cannot write the log file .*not-a-folder\/hlbot\.log \(ENOTDIR\); logging to the terminal only/,
    );
    expect(terminal).toMatch(/"msg":"second"/);
  });
});

describe("secrets", () => {
  it("does not echo a key from the environment that was pasted where an argument belongs", async () => {
    const state = temp({});
    for (const argv of [
      ["stake", "--amount", KEY, "--state", state],
      ["delegate", "--validator", KEY, "--amount", "1", "--state", state],
      ["link-staking", "--user", KEY.slice(2).toUpperCase(), "--state", state],
    ]) {
      let stderr = "";
      const code = await main(argv, {
        stdout: () => undefined,
        stderr: (t) => {
          stderr += t;
        },
        env: { HLBOT_PRIVATE_KEY: KEY },
        isTTY: false,
      });
      expect(code).toBe(2);
      // Refused before the arguments are parsed (issue #17 item 9), so nothing can echo it.
      expect(stderr).toMatch(/holds the signing key or the keystore password; refused, nothing was sent/);
      expect(stderr.toLowerCase()).not.toContain(KEY.slice(2));
    }
  });

  it("refuses to send the signing key as a transaction hash or query argument", async () => {
    for (const argv of [
      ["tx", KEY, "--base-url", "http://127.0.0.1:1"],
      [
        "info",
        "txDetails",
        "--hash",
        KEY.toUpperCase().replace("0X", "0x"),
        "--base-url",
        "http://127.0.0.1:1",
      ],
    ]) {
      let stderr = "";
      const code = await main(argv, {
        stdout: () => undefined,
        stderr: (t) => {
          stderr += t;
        },
        env: { HLBOT_PRIVATE_KEY: KEY },
        isTTY: false,
      });
      // 2, not 1: refused before any connection was tried (the port is closed).
      expect(code, stderr).toBe(2);
      expect(stderr).toMatch(/signing key/);
      expect(stderr.toLowerCase()).not.toContain(KEY.slice(2));
    }
  });

  it("creates the instance lock file private (0600), and tightens one left readable", async () => {
    const dir = temp({});
    acquireInstanceLock(dir, "test").release();
    expect(statSync(join(dir, "lock.db")).mode & 0o777).toBe(0o600);
    chmodSync(join(dir, "lock.db"), 0o644);
    acquireInstanceLock(dir, "test").release();
    expect(statSync(join(dir, "lock.db")).mode & 0o777).toBe(0o600);
  });

  it("warns about a secret file other users can read, and only then", () => {
    const dir = temp({ "keystore.json": "{}" });
    const file = join(dir, "keystore.json");
    chmodSync(file, 0o600);
    expect(exposedSecretFileWarning(file, "keystore")).toBeUndefined();
    chmodSync(file, 0o640);
    expect(exposedSecretFileWarning(file, "keystore")).toBe(
      `keystore ${file} can be read by other users (mode 0640); make it private: chmod 600 ${file}`,
    );
    expect(exposedSecretFileWarning(join(dir, "missing"), "keystore")).toBeUndefined();
  });
});
