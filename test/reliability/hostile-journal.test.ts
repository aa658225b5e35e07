// Issue #17, Money 4: a lost journal must not reset the limits. Before the fix, deleting hlbot.db
// made the next start a fresh one: a 300-USD budget was spent again. Now a state folder whose journal
// is not its own refuses to act live until `hlbot journal rebuild` has put the venue's history back.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runCycle } from "../../src/engine/cycle.js";
import { openRuntime, type Runtime } from "../../src/engine/runtime.js";
import type { Strategy } from "../../src/engine/strategies/registry.js";
import { parseDecimal } from "../../src/lib/decimal.js";
import { ConfigError } from "../../src/lib/errors.js";
import { silentLogger } from "../../src/lib/log.js";
import { NonceStore } from "../../src/venue/nonces.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";

let bot: TestBot | undefined;
const opened: Runtime[] = [];
afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
  await bot?.close();
  bot = undefined;
});

const DCA = {
  name: "dca",
  kind: "twap-accumulate",
  params: {
    coin: "HYPE",
    quote: "USDC",
    side: "buy",
    amountUsd: 150,
    budgetUsd: 300,
    twap: { minutes: 5, randomize: false },
  },
};

/** DCA's parameters as the loader makes them (decimals), for a strategy made in a test. */
function DCA_PARAMSED() {
  return {
    ...DCA.params,
    quote: "USDC",
    amountUsd: parseDecimal(DCA.params.amountUsd),
    budgetUsd: parseDecimal(DCA.params.budgetUsd),
  };
}

async function cycle(b: TestBot) {
  const facts = await b.runtime.facts();
  return runCycle(b.runtime.cycleDeps(facts), { trigger: "once", strategies: b.runtime.strategies() });
}

async function cli(b: TestBot, args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main([...args, "--config", join(b.dir, "bot.yaml")], {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { TEST_BOT_KEY: b.key },
    isTTY: false,
  });
  return { code, stdout, stderr };
}

describe("a lost journal (issue #17, Money 4)", () => {
  it("refuses to act after hlbot.db was deleted, until `journal rebuild` puts the venue's TWAPs back: the budget holds", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000" } });
    const placed = () => bot!.sim.ledger({ kind: "twapPlaced", user: bot!.address });
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    const second = await cycle(bot);
    // The last run: the 150 USD left less the 3% buy reserve (fills pay the spread), 145.63 USD.
    expect(second.actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    expect((await cycle(bot)).decisions[0]?.decision.reason).toMatch(/budget used up \(.* of 300 USD/);
    expect(placed()).toHaveLength(2);

    const db = join(bot.dir, "state", "hlbot.db");
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    const refused = await bot.reopen("live").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(/deleted, truncated or replaced.*hlbot journal rebuild/);

    const rebuilt = await cli(bot, ["journal", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/2 TWAP\(s\) and 0 staking move\(s\) added/);

    await bot.reopen("live");
    // The venue's fills put the budget back at what the two TWAPs spent, 150 + 150 / 1.03 ≈ 295.63 USD
    // (the fills differ from the planned mids by cents), and within the 300 USD budget.
    const spent = bot.runtime.journal.spentUsd("dca").toNumber();
    expect(spent).toBeGreaterThan(294.5);
    expect(spent).toBeLessThanOrEqual(300);
    const after = await cycle(bot);
    expect(after.actions).toHaveLength(0);
    expect(after.decisions[0]?.decision.reason).toMatch(
      /USDC is less than one lot|budget used up \(.* of 300 USD/,
    );
    expect(placed()).toHaveLength(2);
  });

  it("a new state folder beside a TWAP still running says it is running, not that it executed 0.00 USD", async () => {
    // A newcomer's trial: the venue's executedNtl of a running TWAP is 0 until it ends, and the hold said
    // "0.00 USD executed" of TWAPs that had filled about 400 USD, then told to raise the budget by that.
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000" } });
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(60_000); // a minute into its 5
    rmSync(join(bot.dir, "state"), { recursive: true, force: true });
    await bot.reopen("live");
    const held = await cycle(bot);
    expect(held.actions).toHaveLength(0);
    const reason = held.decisions[0]?.decision.reason ?? "";
    expect(reason).toMatch(
      /^holding: the venue shows 1 TWAP\(s\) on this strategy's pair and side \(the first on \d{4}-\d\d-\d\d; 1 still running: the venue says what it executes once it ends\) that this state folder's journal does not have/,
    );
    expect(reason).not.toMatch(/USD executed/);
  });

  // A DCA may name its market by the pair's venue name: a limit tester's trial found the hold skipped
  // for `coin: "@107"` (its budget spent again on a fresh state folder).
  it.each(["HYPE", "@107"])(
    "a whole new state folder (the old one lost with its marker, a container without its volume) holds a budgeted DCA until `journal rebuild` (coin %s)",
    async (coin) => {
      const dca = { ...DCA, params: { ...DCA.params, coin } };
      bot = await startTestBot({ mode: "live", strategies: [dca], fund: { USDC: "1000" } });
      const placed = () => bot!.sim.ledger({ kind: "twapPlaced", user: bot!.address });
      expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
      bot.sim.advance(10 * 60_000);
      expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
      bot.sim.advance(10 * 60_000);
      expect(placed()).toHaveLength(2);

      // Nothing of the old folder is left: to hlbot this is a first start, not a lost journal.
      rmSync(join(bot.dir, "state"), { recursive: true, force: true });
      await bot.reopen("live");
      const held = await cycle(bot);
      expect(held.actions).toHaveLength(0);
      expect(held.decisions[0]?.decision.reason).toMatch(
        /^holding: the venue shows 2 TWAP\(s\) on this strategy's pair and side \(the first on \d{4}-\d\d-\d\d, 29\d\.\d\d USD executed\) that this state folder's journal does not have .*`hlbot journal rebuild` imports them and counts them against the budget/,
      );
      // Still held at the next pass: the journal's own cycles do not make the venue's TWAPs its own.
      bot.sim.advance(10 * 60_000);
      expect((await cycle(bot)).actions).toHaveLength(0);
      expect(placed()).toHaveLength(2);

      const rebuilt = await cli(bot, ["journal", "rebuild"]);
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      await bot.reopen("live");
      const after = await cycle(bot);
      expect(after.actions).toHaveLength(0);
      expect(after.decisions[0]?.decision.reason).toMatch(
        /USDC is less than one lot|budget used up \(.* of 300 USD/,
      );
      expect(placed()).toHaveLength(2);
    },
  );

  it("after the rebuild a held DCA counts the rebuilt TWAPs, though a DCA without a budget on its market is listed first", async () => {
    const weekly = { ...DCA, name: "weekly", params: { ...DCA.params, budgetUsd: undefined } };
    bot = await startTestBot({ mode: "live", strategies: [weekly, DCA], fund: { USDC: "2000" } });
    const dcaOnly = () => bot!.runtime.strategies().filter((s) => s.name === "dca");
    const run = async () =>
      runCycle(bot!.runtime.cycleDeps(await bot!.runtime.facts()), {
        trigger: "once",
        strategies: dcaOnly(),
      });
    const placed = () => bot!.sim.ledger({ kind: "twapPlaced", user: bot!.address });
    expect((await run()).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    expect((await run()).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    rmSync(join(bot.dir, "state"), { recursive: true, force: true });
    await bot.reopen("live");
    expect((await run()).decisions[0]?.decision.reason).toMatch(/^holding: the venue shows 2 TWAP/);
    const rebuilt = await cli(bot, ["journal", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await bot.reopen("live");
    const after = await run();
    expect(after.actions).toHaveLength(0);
    expect(after.decisions[0]?.decision.reason).toMatch(/budget used up/);
    expect(placed()).toHaveLength(2);
  });

  it("a state folder first used for another account is refused to this account's bot", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000" } });
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    // Account B spends its DCA's budget from a state folder of its own (another machine).
    const b = Wallet.createRandom();
    const account = b.address.toLowerCase();
    bot.sim.fund(account, "USDC", "1000");
    writeFileSync(
      join(bot.dir, "bot-b.yaml"),
      readFileSync(join(bot.dir, "bot.yaml"), "utf8").replace("state: ./state", "state: ./state-b"),
    );
    const open = async (file: string) => {
      const env = { TEST_BOT_KEY: b.privateKey };
      const runtime = await openRuntime({
        config: await loadConfig(join(bot!.dir, file), env),
        env,
        mode: "live",
        logger: silentLogger(),
        clock: () => bot!.sim.now(),
        budget: null,
      });
      opened.push(runtime);
      return runtime;
    };
    const runOn = async (r: Runtime) =>
      runCycle(r.cycleDeps(await r.facts()), { trigger: "once", strategies: r.strategies() });
    const elsewhere = await open("bot-b.yaml");
    expect((await runOn(elsewhere)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    expect((await runOn(elsewhere)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    bot.sim.advance(10 * 60_000);
    // The first folder, A's, is refused for B: its kill switch, slots and limits are A's (an operator
    // of several bots; before, B's DCA ran in it, held only by the venue's TWAPs it did not know).
    await expect(open("bot.yaml")).rejects.toThrow(
      new RegExp(
        `belongs to the bot of account ${bot.address.toLowerCase()} .* this bot file is for ${account}`,
      ),
    );
    expect(bot.sim.ledger({ kind: "twapPlaced", user: account })).toHaveLength(2);
  });

  it("a new state folder does not hold a budgeted DCA for the venue's TWAPs on another market or side", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000", HYPE: "100" } });
    bot.sim.setPrice("@107", "40");
    // A HYPE sell before the journal began: not this buy DCA's budget.
    const twap = { asset: 10107, isBuy: false, size: "10", szDecimals: 2, minutes: 30, randomize: false };
    expect((await bot.runtime.exchange!.twapOrder(twap)).status).toBe("accepted");
    bot.sim.advance(31 * 60_000);
    rmSync(join(bot.dir, "state"), { recursive: true, force: true });
    await bot.reopen("live");
    const first = await cycle(bot);
    expect(
      first.actions.map((a) => a.outcome),
      first.decisions[0]?.decision.reason,
    ).toEqual(["accepted"]);
  });

  it("refuses after the journal lost its latest writes (its write-ahead log deleted), until `journal rebuild`", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000" } });
    const db = join(bot.dir, "state", "hlbot.db");
    // The journal as it was on disk before any submission: the main file alone, without its WAL.
    bot.runtime.db.pragma("wal_checkpoint(TRUNCATE)");
    copyFileSync(db, `${db}.before`);
    expect((await cycle(bot)).actions.map((a) => a.outcome)).toEqual(["accepted"]);
    // The WAL (holding that submission) is lost: the files are swapped under the running process, as a
    // deleted WAL and a SIGKILL would leave them.
    for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
    copyFileSync(`${db}.before`, db);
    const refused = await bot.reopen("live").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(
      /ends at submission #0, but this state folder recorded #1 .*latest writes were lost.*hlbot journal rebuild/,
    );
    const rebuilt = await cli(bot, ["journal", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await bot.reopen("live");
    // The venue's TWAP is back in the journal and counts against the budget.
    expect(bot.runtime.journal.spentUsd("dca").toNumber()).toBeGreaterThan(140);
  });

  it("refuses when the journal was replaced by another one (restored from a copy)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000" } });
    bot.runtime.db.prepare("UPDATE state_identity SET id = 'another'").run();
    const refused = await bot.reopen("live").catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/not the one this state folder had/);
  });
});

describe("hlbot journal reset-nonces", () => {
  it("sets a stored nonce beyond the venue's window back to the venue's time, and only such a one", async () => {
    bot = await startTestBot({ mode: "live", strategies: [DCA], fund: { USDC: "1000" } });
    const store = new NonceStore(bot.runtime.db);
    store.next(bot.address);
    const yearAhead = bot.sim.now() + 365 * 86_400_000;
    bot.runtime.db.prepare("UPDATE nonces SET last_nonce = ?").run(yearAhead);
    const reset = await cli(bot, ["journal", "reset-nonces"]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(
      new RegExp(`^${bot.address}: .* → .* \\(venue time\\)\nreset 1 nonce counter\\(s\\)\n$`),
    );
    const last = store.last(bot.address)!;
    expect(last).toBeLessThan(yearAhead);
    expect(Math.abs(last - bot.sim.now())).toBeLessThan(5_000);
    const again = await cli(bot, ["journal", "reset-nonces"]);
    expect(again.stdout).toBe("no stored nonce is beyond the venue's window\n");
  });
});

describe("journal rebuild of a rebalancer's history", () => {
  it("gives its TWAPs to no budget: a DCA added later starts from nothing", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { USDC: "10000" } });
    bot.sim.setPrice("@107", "40");
    expect((await cycle(bot)).actions.map((a) => [a.strategy, a.outcome])).toEqual([
      ["rebalance", "accepted"],
    ]);
    bot.sim.advance(61 * 60_000);
    rmSync(join(bot.dir, "state"), { recursive: true, force: true });
    const rebuilt = await cli(bot, ["journal", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    await bot.reopen("live");
    const [template] = bot.runtime.strategies();
    const added = {
      ...template!,
      name: "dca-new",
      kind: "twap-accumulate",
      params: DCA_PARAMSED(),
    } as Strategy;
    const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
    const run = await runCycle(
      {
        ...deps,
        peers: [added, ...bot.runtime.strategies()],
        configured: [added, ...bot.runtime.strategies()],
      },
      { trigger: "once", strategies: [added] },
    );
    expect(
      run.actions.map((a) => [a.strategy, a.outcome]),
      run.decisions[0]?.decision.reason,
    ).toEqual([["dca-new", "accepted"]]);
  });
});

describe("journal rebuild with two DCAs on one pair and side", () => {
  it("says that every budget there counts the venue's TWAPs, and each does", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [DCA, { ...DCA, name: "dca-2" }],
      fund: { USDC: "1000" },
    });
    expect((await cycle(bot)).actions.map((a) => [a.strategy, a.outcome])).toEqual([
      ["dca", "accepted"],
      ["dca-2", "accepted"],
    ]);
    bot.sim.advance(10 * 60_000);
    // The state folder is lost; the rebuild imports both TWAPs and gives both to dca.
    rmSync(join(bot.dir, "state"), { recursive: true, force: true });
    const rebuilt = await cli(bot, ["journal", "rebuild"]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/2 TWAP\(s\) and 0 staking move\(s\) added/);
    expect(rebuilt.stderr).toMatch(
      /warning: dca, dca-2 all buy HYPE\/USDC with a budget: the venue does not say which strategy placed a TWAP, so every HYPE\/USDC buy TWAP it shows counts against each of their budgets/,
    );
    await bot.reopen("live");
    const after = await cycle(bot);
    // Each counts both (≈295 of 300 USD): neither buys again.
    expect(after.actions).toHaveLength(0);
    const reason = after.decisions.find((d) => d.decision.strategy === "dca-2")?.decision.reason;
    expect(reason).toMatch(
      /^budget used up \(29\d\.\d\d of 300 USD, 29\d\.\d\d of it by TWAPs `hlbot journal rebuild` imported on this pair and side/,
    );
  });
});
