// A state database SQLite finds damaged (a truncated write-ahead log, pages overwritten, a file that is not
// a database) is a state problem with a way out: exit 2 and what to do (move it aside, `hlbot journal
// rebuild`), where a recovery trial met the bare "database disk image is malformed" (exit 1 from `once`)
// and `journal rebuild` refusing the same file with no advice.
import { closeSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { runCli } from "../helpers/cli.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

async function stoppedBot(): Promise<{ bot: TestBot; db: string; config: string }> {
  bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { USDC: "1000" } });
  // Some rows, then closed: the journal as a stopped bot leaves it.
  bot.runtime.journal.slotState(bot.address, "rebalance", Date.now());
  await bot.runtime.close();
  return { bot, db: join(bot.dir, "state", "hlbot.db"), config: join(bot.dir, "bot.yaml") };
}

describe("a damaged state database", () => {
  it("that is not a database at all: every command exits 2 saying to move it aside and rebuild", async () => {
    const { bot: b, db, config } = await stoppedBot();
    writeFileSync(db, Buffer.alloc(8192, 0x5a));
    for (const args of [["once"], ["journal", "rebuild"]]) {
      const r = await runCli([...args, "--config", config], { env: { TEST_BOT_KEY: b.key } });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(`the state database ${db} is damaged`);
      expect(r.stderr).toContain(`mv ${db} ${db}.broken`);
      expect(r.stderr).toContain("hlbot journal rebuild");
    }
  });

  it("whose pages were overwritten: once exits 2 with the way out, not 1 as for a venue failure", async () => {
    const { bot: b, db, config } = await stoppedBot();
    const size = statSync(db).size;
    expect(readFileSync(db).subarray(0, 15).toString()).toBe("SQLite format 3");
    // Every page after the first overwritten (the header stays: the file opens, its tables do not read).
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    closeSync(fd);
    const r = await runCli(["once", "--json", "--config", config], { env: { TEST_BOT_KEY: b.key } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/malformed|not a database/);
    expect(r.stderr).toContain("is damaged: stop every hlbot of this state folder");
    // --json promises its summary line when the pass cannot start (a recovery trial got none).
    const summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "null") as {
      summary?: { error?: string; failed?: number };
    };
    expect(summary.summary?.failed).toBe(1);
    expect(summary.summary?.error).toMatch(/malformed|not a database/);
  });

  it("whose table page was overwritten (it opens, a read fails): names the real file, and a rebuild into it confirms nothing", async () => {
    const { bot: b, db, config } = await stoppedBot();
    const raw = new Database(db);
    raw.pragma("wal_checkpoint(TRUNCATE)");
    const { rootpage } = raw
      .prepare("SELECT rootpage FROM sqlite_master WHERE name = 'schedule_slots'")
      .get() as {
      rootpage: number;
    };
    const pageSize = raw.pragma("page_size", { simple: true }) as number;
    raw.close();
    const fd = openSync(db, "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (rootpage - 1) * pageSize);
    closeSync(fd);
    const env = { env: { TEST_BOT_KEY: b.key } };
    // Run from another folder than the bot file's: the advice names the file itself (a review: it said
    // `mv state/hlbot.db`, relative to wherever the user stood).
    const once = await runCli(["once", "--config", config], env);
    expect(once.code).toBe(2);
    expect(once.stderr).toContain(`mv ${db} ${db}.broken`);
    const rebuild = await runCli(["journal", "rebuild", "--config", config], env);
    expect(rebuild.code).toBe(2);
    expect(rebuild.stdout).not.toContain("live commands act again");
    expect(rebuild.stderr).toContain(`mv ${db} ${db}.broken`);
  });
});
