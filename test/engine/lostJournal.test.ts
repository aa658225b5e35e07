// A lost journal (deleted, truncated or replaced) as each kind of command meets it: live commands refuse
// to act, dry runs warn and tell the user to run `hlbot journal rebuild`, and `journal rebuild` itself,
// which is the repair, does not tell its user to run it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { runCycle } from "../../src/engine/cycle.js";
import { openRuntime } from "../../src/engine/runtime.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { runCli } from "../helpers/cli.js";
import { captureLogger } from "../helpers/logs.js";

let bot: TestBot | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

describe("a lost journal", () => {
  it("is warned of by a dry run, not by the repair itself", async () => {
    // minOrderUsd at the venue minimum: a configuration that warns of nothing else.
    const rebalance = { ...REBALANCE, params: { ...REBALANCE.params, minOrderUsd: 100 } };
    bot = await startTestBot({ strategies: [rebalance], fund: { USDC: "100" } });
    await bot.runtime.close();
    const db = join(bot.dir, "state", "hlbot.db");
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    const open = async (repairingState: boolean) => {
      const { logger, warnings } = captureLogger();
      const runtime = await openRuntime({
        config: bot!.runtime.config,
        env: { TEST_BOT_KEY: bot!.key },
        mode: "dry-run",
        logger,
        ...(repairingState ? { repairingState } : {}),
      });
      await runtime.close();
      return warnings().map((w) => w.msg);
    };
    // Opening confirms nothing: both see the journal lost, only the dry run says so.
    expect(await open(true)).toEqual([]);
    expect(await open(false)).toEqual([
      expect.stringMatching(
        /Run `hlbot journal rebuild` .*\(it reads the venue your bot file names, its `network` and `baseUrl`/,
      ),
    ]);
    expect(await open(true)).toEqual([]);
  });
});

describe("a state folder of another network", () => {
  it("is refused with what to do: a testnet bot sharing a mainnet bot's folder took its slots and limits", async () => {
    bot = await startTestBot({ strategies: [REBALANCE], fund: { USDC: "100" } });
    await bot.runtime.close();
    const open = (network: "testnet" | "mainnet", mode: "live" | "dry-run") =>
      openRuntime({
        config: { ...bot!.runtime.config, network },
        env: { TEST_BOT_KEY: bot!.key },
        mode,
        logger: captureLogger().logger,
      });
    for (const mode of ["live", "dry-run"] as const)
      await expect(open("mainnet", mode)).rejects.toThrow(
        /the state folder .*state belongs to a testnet bot \(its journal was first used on testnet\), and this bot file says network: mainnet\. .*give this bot its own folder with `state:`/,
      );
    // Its own network opens it as before.
    await (await open("testnet", "dry-run")).close();
  });
});

describe("a state folder of another account", () => {
  it("is refused with what to do: two accounts' bots sharing one folder shared its kill switch", async () => {
    // An operator of several bots: two bot files with no `state:` shared the default folder; `hlbot stop`
    // for one stopped the other's daemon, `resume` for one released the other's stop.
    bot = await startTestBot({ strategies: [REBALANCE], fund: { USDC: "100" } });
    await bot.runtime.close();
    const other = Wallet.createRandom();
    const open = (key: string, mode: "live" | "dry-run") =>
      openRuntime({
        config: bot!.runtime.config,
        env: { TEST_BOT_KEY: key },
        mode,
        logger: captureLogger().logger,
      });
    for (const mode of ["live", "dry-run"] as const)
      await expect(open(other.privateKey, mode)).rejects.toThrow(
        new RegExp(
          `the state folder .*state belongs to the bot of account ${bot.address.toLowerCase()} \\(the first to use it, or the one whose live runs its journal held\\), and this bot file is for ${other.address.toLowerCase()}\\. .*give this bot its own folder with \`state:\``,
        ),
      );
    // Its own account opens it as before.
    await (await open(bot.key, "dry-run")).close();
  });

  it("a folder written before the claim belongs to the account whose live runs its journal holds", async () => {
    // An upgrade trial: the first bot of any account this version opened it with (another account's dry
    // run) claimed a folder of 11 live cycles of its owner, and the owner's bot was refused.
    bot = await startTestBot({ strategies: [REBALANCE], fund: { USDC: "100" } });
    bot.runtime.journal.startCycle({
      id: "c-old",
      trigger: "once",
      mode: "live",
      account: bot.address,
      strategies: ["rebalance"],
    });
    bot.runtime.db.exec("DELETE FROM state_account"); // as a version before the claim left it
    await bot.runtime.close();
    const other = Wallet.createRandom();
    const open = (key: string) =>
      openRuntime({
        config: bot!.runtime.config,
        env: { TEST_BOT_KEY: key },
        mode: "dry-run",
        logger: captureLogger().logger,
      });
    await expect(open(other.privateKey)).rejects.toThrow(
      new RegExp(
        `belongs to the bot of account ${bot.address.toLowerCase()} \\(the first to use it, or the one whose live runs its journal held\\)`,
      ),
    );
    await (await open(bot.key)).close();
  });
});

describe("journal rebuild on a journal that still has its staking moves", () => {
  it("adds only the moves its own submissions do not explain (a trial's 85 HYPE of moves counted as 145)", async () => {
    // The documented repair after a lost write-ahead log keeps every older row; run on such a journal (or
    // an intact one), every journaled staking move was imported again and counted twice by the 24-h
    // stake-move limit, holding the staking strategy for up to a day.
    const staking = {
      name: "staking",
      kind: "validator-staking",
      params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
    };
    bot = await startTestBot({ mode: "live", strategies: [staking], fund: { HYPE: "100" } });
    const run = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    expect(run.actions.filter((a) => a.outcome === "accepted").length).toBeGreaterThanOrEqual(2);
    const moved = () =>
      bot!.runtime.db
        .prepare(
          "SELECT COALESCE(SUM(CAST(stake_move AS REAL)), 0) AS s, COUNT(*) AS n FROM submissions WHERE status NOT IN ('rejected', 'absent') AND action_type IN ('cDeposit', 'tokenDelegate', 'cWithdraw')",
        )
        .get() as { s: number; n: number };
    const before = moved();
    // The latest move lost with the log: the rebuild adds that one, and only that one.
    const last = bot.runtime.db
      .prepare("SELECT MAX(id) AS id FROM submissions WHERE action_type IN ('cDeposit', 'tokenDelegate')")
      .get() as { id: number };
    bot.runtime.db.prepare("DELETE FROM attempts WHERE submission_id = ?").run(last.id);
    bot.runtime.db.prepare("DELETE FROM submissions WHERE id = ?").run(last.id);
    await bot.runtime.close();
    const {
      code,
      stdout: out,
      stderr: err,
    } = await runCli(["journal", "rebuild", "--config", join(bot.dir, "bot.yaml")], {
      env: { TEST_BOT_KEY: bot.key },
    });
    expect(code, err).toBe(0);
    expect(out).toMatch(/0 TWAP\(s\) and 1 staking move\(s\) added/);
    await bot.reopen("live");
    expect(moved()).toEqual(before);
  });
});

describe("journal rebuild beside a staking move whose answer was lost", () => {
  it("leaves its record to it: the move is reconciled as landed, not held 2 days and counted twice", async () => {
    const staking = {
      name: "staking",
      kind: "validator-staking",
      params: { validators: 2, stakeIdleSpot: { enabled: true, keepSpot: 0 } },
    };
    bot = await startTestBot({ mode: "live", strategies: [staking], fund: { HYPE: "100" } });
    bot.sim.setFaults({ exchange: { dropRate: 1 } }); // applied, answer lost
    const first = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    bot.sim.setFaults({});
    expect(first.actions.map((a) => a.outcome)).toContain("unknown");
    await bot.runtime.close();
    const r = await runCli(["journal", "rebuild", "--config", join(bot.dir, "bot.yaml")], {
      env: { TEST_BOT_KEY: bot.key },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/0 TWAP\(s\) and 0 staking move\(s\) added/);
    await bot.reopen("live");
    bot.sim.advance(10 * 60_000);
    const second = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    expect(second.reconciled.map((x) => x.verdict)).toEqual(["landed"]);
  });
});

describe("journal rebuild of a TWAP", () => {
  it("writes its value to 6 decimals (a bookkeeper's trial: an average of many fills gave 120 digits)", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      sim: { seed: 7 },
    });
    bot.sim.setPrice("@107", "40");
    const run = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    expect(run.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    // Its fills at prices that move, so their average has endless digits.
    for (let i = 0; i < 70; i++) {
      bot.sim.setPrice("@107", (40 + (i % 7) / 3).toFixed(6));
      bot.sim.advance(60_000);
    }
    // Valued at the higher of its average fill and today's mid: the average, here.
    bot.sim.setPrice("@107", "35");
    bot.runtime.db.prepare("DELETE FROM attempts").run();
    bot.runtime.db.prepare("DELETE FROM submissions").run();
    await bot.runtime.close();
    const { code, stdout, stderr } = await runCli(
      ["journal", "rebuild", "--config", join(bot.dir, "bot.yaml")],
      {
        env: { TEST_BOT_KEY: bot.key },
      },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/1 TWAP\(s\) and 0 staking move\(s\) added/);
    await bot.reopen("live");
    const rows = bot.runtime.db
      .prepare("SELECT notional_usd AS n FROM submissions WHERE action_type = 'twapOrder'")
      .all() as Array<{ n: string }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.n).toMatch(/^\d+(\.\d{1,6})?$/);
  });
});
