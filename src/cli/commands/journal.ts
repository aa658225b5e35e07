// `hlbot journal`: repair the state folder after something outside hlbot damaged it.
// - `rebuild`: the journal was deleted, truncated or replaced, so live commands refuse to act (limits
//   and budgets would start from zero). Rebuilds what the venue knows (every TWAP in twapHistory,
//   every staking move in delegatorHistory) into the journal as landed submissions, so the daily
//   limits and budgets count them again, then confirms the journal as this folder's.
// - `reset-nonces`: a nonce stored while the clock was far ahead blocks every action (the venue refuses
//   nonces more than a day ahead of its clock). Sets such counters back to the venue's time.
// - `compact`: deletes what journal.keepDays deletes (old cycles and decisions), then VACUUMs the file.
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function register(program: Command, ctx: CliContext): void {
  const journal = program
    .command("journal")
    .description("repair the state folder: rebuild a lost journal from the venue, reset far-ahead nonces");

  journal
    .command("rebuild")
    .description(
      "rebuild the journal from the venue's history (TWAPs, staking moves) and confirm it as this state folder's; " +
        "needed before live commands act again after the journal was lost",
    )
    .option("-c, --config <file>", "bot configuration (its `state` folder holds the journal)")
    .action(async (opts: { config?: string }) => {
      await withRuntime(ctx, { ...opts, repairingState: true }, async (runtime, config) => {
        const { Decimal } = await import("../../lib/decimal.js");
        const { confirmStateIdentity } = await import("../../lib/stateDb.js");
        const { newCycleId, VENUE_HISTORY_STRATEGY: VENUE_HISTORY } = await import("../../engine/journal.js");
        const { historyRecordKey } = await import("../../engine/intentKinds.js");
        const user = runtime.account;
        const [twaps, history, mids, meta] = await Promise.all([
          runtime.info.twapHistory({ user }),
          runtime.info.delegatorHistory({ user }),
          runtime.info.allMids({}),
          runtime.info.spotMeta({}),
        ]);
        const cycleId = newCycleId(runtime.clock());
        runtime.journal.startCycle({
          id: cycleId,
          trigger: "rebuild",
          mode: "rebuild",
          account: user,
          strategies: [],
        });

        const { importVenueTwaps } = await import("../../engine/rebuildTwaps.js");
        const { added: twapRows, shared } = importVenueTwaps(runtime.journal, {
          cycleId,
          account: user,
          strategies: config.strategies,
          twaps,
          meta,
          mids,
        });

        // Staking moves the journal's own submissions explain are there already (not counted twice).
        const { explainedRecords } = await import("../../engine/reconcile.js");
        const explained = explainedRecords(
          runtime.journal,
          0,
          { history },
          { account: user, now: runtime.clock() },
          true,
        );
        let stakingRows = 0;
        for (const entry of history) {
          const delta = entry.delta;
          const key = historyRecordKey(entry);
          if (explained.has(key)) continue;
          const common = {
            cycleId,
            strategy: VENUE_HISTORY,
            account: user,
            at: entry.time,
            key,
            record: entry,
          };
          let added = false;
          if (delta.delegate) {
            added = runtime.journal.importVenueRecord({
              ...common,
              actionType: "tokenDelegate",
              stakeMove: new Decimal(delta.delegate.amount),
            });
          } else if (delta.withdrawal && delta.withdrawal.phase === "initiated") {
            added = runtime.journal.importVenueRecord({
              ...common,
              actionType: "cWithdraw",
              stakeMove: new Decimal(delta.withdrawal.amount),
            });
          } else if (delta.cDeposit) {
            added = runtime.journal.importVenueRecord({ ...common, actionType: "cDeposit" });
          }
          if (added) stakingRows++;
        }
        const pairs = runtime.journal.forgetPairs();
        // Confirmed only whole: a damaged file rebuilt into stays damaged (a review: "live commands act
        // again", and the next once failed on the same damage).
        const check = runtime.db.pragma("quick_check", { simple: true });
        if (check !== "ok") {
          const { ConfigError } = await import("../../lib/errors.js");
          const file = runtime.db.name;
          throw new ConfigError(
            `the state database ${file} is damaged (quick_check: ${String(check)}): nothing confirmed; move it aside with its -wal and -shm files (e.g. \`mv ${file} ${file}.broken\`) and run \`hlbot journal rebuild\` again`,
            { file },
          );
        }
        confirmStateIdentity(runtime.db, config.state);
        runtime.journal.finishCycle(cycleId, "ok");
        ctx.stdout(
          `rebuilt the journal in ${config.state} from the venue for ${user}: ${twapRows} TWAP(s) and ${stakingRows} ` +
            `staking move(s) added as landed submissions (daily limits and budgets count them); ${pairs} remembered ` +
            "pair(s) forgotten. This journal is now confirmed as the state folder's: live commands act again.\n",
        );
        for (const [market, names] of shared)
          ctx.stderr(
            `hlbot: warning: ${names.join(", ")} all ${market} with a budget: the venue does not say which strategy placed a TWAP, ` +
              `so every ${market.replace(/^(\w+) (.*)$/, "$2 $1")} TWAP it shows counts against each of their budgets ` +
              "(raise a budgetUsd by what was not its strategy's).\n",
          );
      });
    });

  registerCompact(journal, ctx);

  journal
    .command("reset-nonces")
    .description(
      "set nonce counters stored beyond the venue's window (more than a day ahead of its clock) back to the venue's time",
    )
    .option("-c, --config <file>", "bot configuration (its `state` folder holds the nonce counters)")
    .action(async (opts: { config?: string }) => {
      await withRuntime(ctx, opts, async (runtime) => {
        const { ConfigError } = await import("../../lib/errors.js");
        await runtime.info.allMids({}); // any answer: its Date header is the venue's clock
        const venueNow = runtime.transport.lastServerDate()?.getTime();
        if (venueNow === undefined) {
          throw new ConfigError(
            "the venue's answer carried no Date header: its clock is unknown, nothing was changed",
          );
        }
        const store = runtime.nonces;
        const far = store.tooFarAhead(venueNow);
        const changed = store.resetAhead(venueNow);
        for (const f of far) {
          ctx.stdout(
            `${f.signer}: ${new Date(f.lastNonce).toISOString()} → ${new Date(venueNow).toISOString()} (venue time)\n`,
          );
        }
        ctx.stdout(
          changed === 0
            ? "no stored nonce is beyond the venue's window\n"
            : `reset ${changed} nonce counter(s)\n`,
        );
      });
    });
}

/** `hlbot journal compact`: prune as journal.keepDays does, then VACUUM; under the instance lock. */
function registerCompact(journal: Command, ctx: CliContext): void {
  journal
    .command("compact")
    .description(
      "delete cycles, their decisions and notification attempts older than --keep-days (default: the bot file's journal.keepDays), " +
        "as journal.keepDays does while hlbot runs, then give the space back to the disk (SQLite VACUUM); " +
        "needs the state folder alone (stop the daemon first). Submissions and what budgets read are kept",
    )
    .option("-c, --config <file>", "bot configuration (its `state` folder holds the journal)")
    .option(
      "--keep-days <days>",
      "keep this many days (at least 7; at least schedule.catchUp and a day is kept)",
    )
    .action(async (opts: { config?: string; keepDays?: string }) => {
      const { ConfigError } = await import("../../lib/errors.js");
      const { parseInteger } = await import("../options.js");
      const days = opts.keepDays === undefined ? undefined : parseInteger(opts.keepDays, "--keep-days", 7);
      const { loadBotConfig } = await import("../bot.js");
      const config = await loadBotConfig(ctx, opts);
      const { keepMs } = await import("../../engine/config/loader.js");
      const { DEFAULT_CATCH_UP_MS } = await import("../../engine/schedule.js");
      const catchUpMs = config.schedule?.catchUpMs ?? DEFAULT_CATCH_UP_MS;
      const keep = days === undefined ? config.journal?.keepMs : keepMs(days, catchUpMs);
      if (keep === undefined)
        throw new ConfigError(
          "give --keep-days, or set journal.keepDays in the bot file: nothing says how many days to keep",
          { file: config.file },
        );
      const { existsSync, mkdirSync, statSync } = await import("node:fs");
      const { stateDbPath } = await import("../../lib/stateDb.js");
      const file = stateDbPath(config.state);
      if (!existsSync(file)) {
        ctx.stdout(`no journal in ${config.state}: nothing to compact\n`);
        return;
      }
      const { acquireInstanceLock } = await import("../../engine/lock.js");
      mkdirSync(config.state, { recursive: true, mode: 0o700 });
      const lock = acquireInstanceLock(config.state, `hlbot journal compact --config ${config.file}`);
      try {
        const { openJournal } = await import("../../engine/journal.js");
        const size = () =>
          ["", "-wal"].reduce((n, x) => n + (existsSync(file + x) ? statSync(file + x).size : 0), 0);
        const before = size();
        const { journal, close } = await openJournal(config.state);
        const cutoff = Date.now() - keep;
        let gone: ReturnType<typeof journal.prune>;
        try {
          gone = journal.prune(cutoff);
          journal.vacuum();
        } finally {
          close();
        }
        const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;
        ctx.stdout(
          `compacted ${file}: ${mb(before)} → ${mb(size())}; deleted ${gone.cycles} cycle(s), ${gone.decisions} decision(s) and ` +
            `${gone.notifications} notification attempt(s) from before ${new Date(cutoff).toISOString()}\n`,
        );
      } finally {
        lock.release();
      }
    });
}

async function withRuntime(
  ctx: CliContext,
  opts: { config?: string; repairingState?: boolean },
  fn: (
    runtime: import("../../engine/runtime.js").Runtime,
    config: import("../../engine/config/loader.js").LoadedConfig,
  ) => Promise<void>,
): Promise<void> {
  const { loadBotConfig, botLogger } = await import("../bot.js");
  const config = await loadBotConfig(ctx, opts);
  const logger = await botLogger(ctx, config);
  const { mkdirSync } = await import("node:fs");
  const { acquireInstanceLock } = await import("../../engine/lock.js");
  mkdirSync(config.state, { recursive: true, mode: 0o700 });
  // Nothing else may act on this state folder while it is repaired.
  const lock = acquireInstanceLock(config.state, `hlbot journal --config ${config.file}`);
  try {
    const { openRuntime } = await import("../../engine/runtime.js");
    // dry-run: the key gives the account; nothing is signed or sent, and a lost journal only warns.
    const runtime = await openRuntime({
      config,
      env: ctx.env,
      mode: "dry-run",
      logger,
      ...(opts.repairingState ? { repairingState: true } : {}),
    });
    try {
      await fn(runtime, config);
    } finally {
      await runtime.close();
    }
  } finally {
    lock.release();
    await logger.flush();
  }
}
