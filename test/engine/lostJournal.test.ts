// A lost journal (deleted, truncated or replaced) as each kind of command meets it: live commands refuse
// to act, dry runs warn and tell the user to run `hlbot journal rebuild`, and `journal rebuild` itself,
// which is the repair, does not tell its user to run it.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRuntime } from "../../src/engine/runtime.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
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
    expect(await open(false)).toEqual([expect.stringMatching(/Run `hlbot journal rebuild`/)]);
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
