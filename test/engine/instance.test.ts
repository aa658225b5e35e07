// openInstance, the one way `once` and `run` take a state folder: the instance lock keeps a second
// process out (exit 2, nothing opened), a cycle an earlier process left running is marked interrupted
// once the lock is held, a failed open releases the lock, and close() releases it for the next process.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { openInstance } from "../../src/engine/instance.js";
import { LockHeldError } from "../../src/engine/lock.js";
import { silentLogger } from "../../src/lib/log.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot;
let config: LoadedConfig;
let env: Record<string, string>;

beforeEach(async () => {
  bot = await startTestBot({ strategies: [REBALANCE] });
  env = { TEST_BOT_KEY: bot.key };
  config = await loadConfig(join(bot.dir, "bot.yaml"), env);
});
afterEach(async () => {
  await bot.close();
});

const open = (command = "test") =>
  openInstance({ config, env, mode: "dry-run", logger: silentLogger(), budget: null, command });

describe("openInstance", () => {
  it("marks cycles an earlier process left running as interrupted, once it holds the lock", async () => {
    bot.runtime.journal.startCycle({
      id: "c-1",
      trigger: "run",
      mode: "live",
      account: bot.address,
      strategies: [],
    });
    bot.runtime.journal.startCycle({
      id: "c-2",
      trigger: "plan",
      mode: "dry-run",
      account: bot.address,
      strategies: [],
    });
    const first = await open();
    try {
      expect(first.interrupted).toBe(1);
      const rows = first.runtime.db.prepare("SELECT id, status FROM cycles ORDER BY id").all();
      expect(rows).toEqual([
        { id: "c-1", status: "interrupted" },
        { id: "c-2", status: "running" },
      ]);
    } finally {
      await first.close();
    }
  });

  it("marks a manual action's cycle left running over an hour as interrupted, not a recent one", async () => {
    // An upgrade trial: a manual TWAP killed mid-send showed `running` in history for good, its
    // submission long reconciled. A manual action takes no lock: only one an hour old is surely dead.
    for (const id of ["m-old", "m-new"])
      bot.runtime.journal.startCycle({
        id,
        trigger: "manual",
        mode: "live",
        account: bot.address,
        strategies: [],
      });
    const at = bot.runtime.db.prepare("UPDATE cycles SET started_at = ? WHERE id = ?");
    at.run(Date.now() - 2 * 60 * 60_000, "m-old");
    at.run(Date.now() - 60_000, "m-new");
    const first = await open();
    try {
      expect(first.interrupted).toBe(1);
      expect(first.runtime.db.prepare("SELECT id, status FROM cycles ORDER BY id").all()).toEqual([
        { id: "m-new", status: "running" },
        { id: "m-old", status: "interrupted" },
      ]);
    } finally {
      await first.close();
    }
  });

  it("keeps a second process out until the first closes", async () => {
    const first = await open("hlbot run --config a.yaml");
    await expect(open("hlbot once")).rejects.toThrow(LockHeldError);
    await expect(open("hlbot once")).rejects.toThrow(/hlbot run --config a\.yaml/);
    await first.close();
    await first.close(); // twice is harmless
    const second = await open();
    expect(second.interrupted).toBe(0);
    await second.close();
  });

  it("releases the lock when the runtime cannot open", async () => {
    const broken = { ...config, wallet: { privateKeyEnv: "NO_SUCH_KEY" } } as LoadedConfig;
    await expect(
      openInstance({
        config: broken,
        env: {},
        mode: "dry-run",
        logger: silentLogger(),
        budget: null,
        command: "x",
      }),
    ).rejects.toThrow(/NO_SUCH_KEY/);
    const next = await open();
    await next.close();
  });
});
