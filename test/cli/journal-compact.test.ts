// `hlbot journal compact`: a journal grown for months (a per-minute strategy writes about 500 MB a year)
// is pruned as journal.keepDays prunes and VACUUMed, so the disk gets the space back; it needs the state
// folder alone, and says so while a daemon holds it.
import { type ChildProcess, spawn } from "node:child_process";
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeAll, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { Journal } from "../../src/engine/journal.js";
import { openStateDb } from "../../src/lib/stateDb.js";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

const ACCOUNT = "0x1111111111111111111111111111111111111111";
const MINUTE = 60_000;
let holder: ChildProcess | undefined;
beforeAll(() => buildOnce(), 120_000);
afterEach(() => {
  holder?.kill("SIGKILL");
  holder = undefined;
});

async function cli(argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    isTTY: false,
  });
  return { code, stdout, stderr };
}

/** A bot file and a journal holding 14 days of per-minute held cycles, up to now. */
async function grownJournal(extra: Record<string, unknown> = {}) {
  const dir = scratchDir("hlbot-compact-");
  const state = join(dir, "state");
  const strategy = join(dir, "dca.yaml");
  writeFileSync(
    strategy,
    stringify({
      name: "dca",
      kind: "twap-accumulate",
      schedule: "* * * * *",
      params: { coin: "HYPE", side: "buy", amountUsd: 150, twap: { minutes: 30 } },
    }),
  );
  const config = join(dir, "bot.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      strategies: [strategy],
      state,
      limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 },
      ...extra,
    }),
  );
  const db = await openStateDb({ dir: state });
  const end = Date.now();
  let now = end - 14 * 24 * 60 * MINUTE;
  const journal = new Journal(db, () => now);
  db.transaction(() => {
    for (let i = 0; now < end; i++, now += MINUTE) {
      const id = `c${i}`;
      journal.startCycle({ id, trigger: "run", mode: "live", account: ACCOUNT, strategies: ["dca"] });
      journal.recordSnapshot(id, { balances: { USDC: "1000", HYPE: "12.5" }, note: "x".repeat(200) });
      journal.recordDecision(id, {
        strategy: "dca",
        kind: "skip",
        reason: "not due: the next slot is at 08:30 UTC, and the budget has 1234.56 USD left",
        guard: "skipped",
        intent: { considered: "twapOrder", pad: "y".repeat(150) },
      });
      journal.finishCycle(id, "ok");
    }
  })();
  db.close();
  return { config, file: join(state, "hlbot.db"), state };
}

const cycles = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM cycles").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

it("deletes what is older than --keep-days and gives the space back", async () => {
  const { config, file } = await grownJournal();
  const before = statSync(file).size;
  expect(cycles(file)).toBe(14 * 24 * 60);
  const r = await cli(["journal", "compact", "--config", config, "--keep-days", "7"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(
    /^compacted .*hlbot\.db: [\d.]+ MB → [\d.]+ MB; deleted \d+ cycle\(s\), \d+ decision\(s\) and 0 notification attempt\(s\) from before 20/,
  );
  // The first cycle (the journal's start) stays, and the last 7 days.
  expect(cycles(file)).toBeGreaterThan(7 * 24 * 60 - 5);
  expect(cycles(file)).toBeLessThan(7 * 24 * 60 + 5);
  expect(statSync(file).size).toBeLessThan(before * 0.6);
}, 60_000);

it("uses the bot file's journal.keepDays, and asks for one when there is none", async () => {
  const none = await grownJournal();
  const asked = await cli(["journal", "compact", "--config", none.config]);
  expect(asked.code).toBe(2);
  expect(asked.stderr).toMatch(/give --keep-days, or set journal\.keepDays in the bot file/);
  expect(cycles(none.file)).toBe(14 * 24 * 60);
  expect((await cli(["journal", "compact", "--config", none.config, "--keep-days", "3"])).stderr).toMatch(
    /--keep-days.*expected a whole number >= 7, got "3"/,
  );

  const set = await grownJournal({ journal: { keepDays: 10 } });
  expect((await cli(["journal", "compact", "--config", set.config])).code).toBe(0);
  expect(cycles(set.file)).toBeLessThan(10 * 24 * 60 + 5);
  expect(cycles(set.file)).toBeGreaterThan(10 * 24 * 60 - 5);
}, 60_000);

it("refuses while another hlbot holds the state folder, changing nothing", async () => {
  const { config, file, state } = await grownJournal();
  const script = `
    const { acquireInstanceLock } = await import(${JSON.stringify(join(REPO_ROOT, "dist/engine/lock.js"))});
    acquireInstanceLock(${JSON.stringify(state)}, "hlbot run --config bot.yaml");
    process.stdout.write("locked\\n");
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  holder = child;
  await new Promise<void>((resolve) =>
    child.stdout?.on("data", (d: Buffer) => d.includes("locked") && resolve()),
  );
  const r = await cli(["journal", "compact", "--config", config, "--keep-days", "7"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/is in use by another hlbot \(`hlbot run --config bot\.yaml`/);
  expect(cycles(file)).toBe(14 * 24 * 60);
}, 60_000);
