// `hlbot once`: one pass of the scheduler and exit (the cron entry point). It first checks the guards
// of running TWAPs (src/engine/guards.ts), then runs, one cycle per slot instant, the strategies whose
// cron slot is due (src/engine/scheduler.ts: the latest slot since the one each last acted in, within
// the catch-up window), and says which it skipped as not due and which slots were missed. Submits when
// the configuration says `mode: live` (and --dry-run is not given). Exit 0 when every intent was
// accepted or skipped with a reason, 1 when any was rejected or left unknown (or a cycle or a strategy
// failed), 2 for configuration errors: a bot file that does not load stops everything; a strategy file
// that does not load stops the strategies but not the TWAP guards; one naming a market the venue does
// not list is left out and the rest still runs.
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { CONFIG_OPTION_HELP } from "../options.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("once")
    .description(
      "run the strategies whose cron slot is due now (and check running TWAPs' guards), then exit (for cron); submits only when the config says mode: live",
    )
    .option("-c, --config <file>", CONFIG_OPTION_HELP)
    .option("--dry-run", "never submit, whatever the config says")
    .option("--json", "print each action as one JSON line on stdout, then one summary line")
    .option(
      "--quiet",
      "print nothing for a pass with nothing to tell (no action, failure, missed slot, ended TWAP or engaged kill switch), and leave the configuration's warnings to `config validate`: for cron mail (--json lines are always printed)",
    )
    .addHelpText(
      "after",
      "\nA strategy acts only in a cron slot that is due: the latest slot since it last acted, at most\n" +
        "`schedule.catchUp` old (default 2h). A new strategy's slots count from the first time hlbot sees it.\n" +
        "Call it often enough that a call falls within the catch-up window after every slot, e.g. every 15\n" +
        "minutes: a daily call at 00:00 never runs a daily 08:30 slot (it is 15.5 h old by then).\n" +
        "A strategy file that does not load stops the strategies (exit 2); the guards of running TWAPs still\n" +
        "run. Exit 0: done; 1: something failed, refused or unknown; 2: a configuration error, or the\n" +
        "state folder is in use by another hlbot (an overlapping call); 130: stopped by a signal.",
    )
    .action(async (opts: { config?: string; dryRun?: boolean; json?: boolean; quiet?: boolean }) => {
      const { loadBotConfig, botLogger } = await import("../bot.js");
      // A strategy file that does not load (half-edited, a typo) stops the strategies, not the pass: the
      // guards of running TWAPs still run (with the limits of the files that loaded), exit 2. No strategy
      // runs, as they share the account (a review: without the staking file, a rebalancer no longer
      // counted staked HYPE and bought it all back). The bot file itself must load.
      const config = await loadBotConfig(ctx, opts, { leaveOutBroken: true });
      const { formatIssue } = await import("../../engine/config/issues.js");
      const { displayPath } = await import("../../engine/config/loader.js");
      const configIssues = [...(config.leftOut ?? [])];
      for (const issue of configIssues)
        ctx.stderr(
          `hlbot: error: ${formatIssue(issue)} (this strategy file does not load: no strategy runs until it does; the guards of running TWAPs still run)\n`,
        );
      const noneEnabled = configIssues.length === 0 && !config.strategies.some((s) => s.enabled);
      if (noneEnabled) {
        const issue = {
          file: displayPath(config.file),
          line: undefined,
          keyPath: "strategies",
          message:
            "no enabled strategy to run (no strategy file found or loaded, or none with `enabled: true`): only the guards of running TWAPs are checked",
        };
        configIssues.push(issue);
        ctx.stderr(`hlbot: error: ${formatIssue(issue)}\n`);
      }
      const logger = await botLogger(ctx, config);
      const { openInstance } = await import("../../engine/instance.js");
      const { oncePass, iso, lostSlots, missedCauses } = await import("../../engine/scheduler.js");
      const { deferralReason, failedRuns, landedSince, troubledActions, unprocessedOnly } = await import(
        "../../engine/cycle.js"
      );
      const { DEFAULT_CATCH_UP_MS } = await import("../../engine/schedule.js");
      const { duration } = await import("../../lib/text.js");
      const { skewText } = await import("../../venue/clockSkew.js");
      const { scheduledStrategies } = await import("../../engine/daemon.js");
      const { stringifyJson } = await import("../../lib/json.js");
      const { formatCycle, actionLines } = await import("../report.js");
      const { killSwitchNotice } = await import("../../engine/killSwitch.js");
      const live = config.mode === "live" && !opts.dryRun;
      // Ctrl-C (or SIGTERM) lets the request in flight finish and sends nothing new but cancels; a
      // strategy that sent nothing stays due for the next call (one that sent is settled: no second
      // action in its slot). A second one exits at once (the journal reconciles what was in flight).
      const stopping = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => {
        if (stopping.signal.aborted) process.exit(130);
        stopping.abort(new Error(`${signal}: stopping`));
        ctx.stderr(
          `hlbot once: ${signal}: stopping after the request in flight; nothing new is sent (again to exit at once)\n`,
        );
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      try {
        const { ConfigError, describeError } = await import("../../lib/errors.js");
        const { LockHeldError } = await import("../../engine/lock.js");
        // The one --json summary line, of a pass or of one that could not start (same fields).
        const summaryLine = (at: number, account: string | null, rest: Record<string, unknown>) =>
          `${stringifyJson({ summary: { at: iso(at), account, network: config.network, mode: live ? "live" : "dry-run", ...rest } })}\n`;
        // --json promises a summary line even when nothing could run (the venue unreachable).
        const unstartedLine = (at: number, account: string | null, err: unknown) =>
          summaryLine(at, account, {
            ran: [],
            notDue: [],
            leftOut: configIssues.map((i) => formatIssue(i)),
            missed: [],
            watch: { checked: 0, cancelled: 0 },
            ended: [],
            killSwitch: killSwitchNotice(config.limits.killSwitchFile) ?? null,
            error: describeError(err),
            failed: 1,
            // Another hlbot held the state folder (an overlapping cron call): try later, nothing is broken.
            ...(err instanceof LockHeldError ? { busy: true } : {}),
          });
        // A pass that could not start: the venue's error, but exit 2 when a configuration problem was
        // said above (the thing to fix first; cron monitoring tells the two apart by the code).
        const failWith = (err: unknown): void => {
          if (configIssues.length === 0 || stopping.signal.aborted) throw err;
          ctx.stderr(`hlbot: ${describeError(err)}\n`);
          ctx.exitCode = 2;
        };
        let instance: Awaited<ReturnType<typeof openInstance>>;
        try {
          instance = await openInstance({
            config,
            env: ctx.env,
            mode: live ? "live" : "dry-run",
            logger,
            command: `hlbot once --config ${config.file}`,
            ...(opts.quiet ? { quietConfigWarnings: true } : {}),
          });
        } catch (err) {
          // The venue can fail before the journal opens (an API wallet's role is asked first): the pass is
          // still a failed cycle row and, with notify, told as below; the --json summary line too.
          const { VenueError } = await import("../../lib/errors.js");
          // The account as far as it is known without the venue (a busy state folder's line said null: a
          // scripter's wrapper of several accounts could not tell whose pass it was).
          const { keyAddress } = await import("../bot.js");
          const account =
            config.account?.toLowerCase() ??
            (await keyAddress(config, ctx.env).catch(() => undefined)) ??
            null;
          if (!(err instanceof VenueError)) {
            // The key, the keystore or the state folder unusable: the --json summary line says so too.
            if (opts.json) ctx.stdout(unstartedLine(Date.now(), account, err));
            throw err;
          }
          await recordUnopenedPass(ctx, config, logger, err, live);
          if (opts.json) ctx.stdout(unstartedLine(Date.now(), account, err));
          ctx.stderr(`${UNSTARTED_NOTE}\n`);
          return failWith(err);
        }
        const { runtime } = instance;
        try {
          // A strategy naming a market the venue does not list is left out (its errors are printed and
          // the exit is 2); the others run, and the TWAP watch and kill-switch cancels with them.
          const { unknownMarkets } = await import("../../engine/strategies/markets.js");
          let facts: Awaited<ReturnType<typeof runtime.facts>>;
          let unknown: Awaited<ReturnType<typeof unknownMarkets>>;
          try {
            facts = await runtime.facts();
            unknown = await unknownMarkets(runtime.info, config.strategies, {
              warn: (m) => logger.warn(m),
              floorTokens: config.limits.keepOnSpot?.keys(),
              botFile: config.file,
            });
          } catch (err) {
            // A configuration the venue refutes (a key that is an API wallet acting as its own account):
            // its own message, exit 2, not "the venue could not be read".
            if (err instanceof ConfigError) return failWith(err);
            // Under cron nothing else remembers the outage: a failed cycle row (history shows the gap)
            // and, with notify configured, cycle.failed at the first failed pass and every tenth.
            await recordUnstartedPass(ctx, config, logger, err, {
              journal: runtime.journal,
              account: runtime.account,
              mode: runtime.exchange?.mode ?? "unsigned",
              now: runtime.clock(),
            });
            if (opts.json) ctx.stdout(unstartedLine(runtime.clock(), runtime.account, err));
            ctx.stderr(`${UNSTARTED_NOTE}\n`);
            return failWith(err);
          }
          const strategies =
            configIssues.length > 0
              ? []
              : scheduledStrategies(config.strategies).filter((s) => !unknown.strategies.has(s.name));
          const deps = runtime.cycleDeps(facts);
          const now = runtime.clock();
          const mode = live ? "live" : "dry run";
          // The state folder in every header: two folders for one account (a bot file without `state:`
          // run from a shell and from cron with different environments) keep two journals (a cron trial).
          const onceFor = `once for ${runtime.account} on ${config.network} (${mode}, state ${config.state}`;
          const out: string[] = [];
          let bad = 0;

          // Per strategy, its cycles that failed in a row before this pass: one that works tells the recovery.
          const failedBefore = new Map(
            strategies.map((s) => [s.name, runtime.journal.failedInARow("once", s.name)] as const),
          );
          // Of those, the runs of whole failed cycles (the venue not answering): a pass with nothing due ends
          // them; a strategy's own failed runs end only when it runs and works (a review: a held DCA whose
          // slot left schedule.catchUp was told "recovered", exit 0, and never bought).
          // Only a streak made of failed cycles alone: one with a failed run of the strategy in it (held for
          // the clock, then the venue down) is not ended by a pass with nothing due (a review).
          const cycleFailedBefore = new Map(
            strategies.map((s) => {
              const cycles = runtime.journal.failedInARow("once", s.name, 1_000, false);
              return [s.name, cycles === failedBefore.get(s.name) ? cycles : 0] as const;
            }),
          );
          const anyFailedBefore = [...cycleFailedBefore.values()].some((n) => n > 0);
          // Read before the pass writes its cycles: TWAPs that ended since are told below.
          const { endedOwnTwaps, twapEndsSince } = await import("../../engine/twapEnds.js");
          const twapEndsFrom = twapEndsSince(runtime.journal, runtime.account);
          const pass = await oncePass(deps, strategies, {
            disabled: config.strategies.filter((s) => !s.enabled),
            ...(config.schedule ? { catchUpMs: config.schedule.catchUpMs } : {}),
            readSignal: stopping.signal,
            // The guards as the files that loaded state them, whether or not strategies run.
            watchStrategies: scheduledStrategies(config.strategies),
          });
          const { plan, runs } = pass;
          // Stopped before they ran (SIGINT, SIGTERM during the reads): due, and said so, not "not due".
          const stoppedNames = pass.stopped.flatMap((g) =>
            g.strategies.map((x) => `${x.name} (slot ${iso(g.slot)})`),
          );
          // The kill switch's cancels (limits.killSwitchCancelRunning) run inside a cycle: when no strategy
          // ran in this pass (none due, or a strategy file that does not load) they run in one of their
          // own, as `hlbot stop --cancel-twaps` does (a review: with a broken file nothing cancelled).
          let stopReport: Awaited<ReturnType<typeof import("../../engine/cycle.js").runCycle>> | undefined;
          let stopError: string | undefined;
          if (
            runs.length === 0 &&
            config.limits.killSwitchCancelRunning &&
            killSwitchNotice(config.limits.killSwitchFile) !== undefined &&
            !stopping.signal.aborted
          ) {
            const { runCycle } = await import("../../engine/cycle.js");
            try {
              stopReport = await runCycle(deps, {
                trigger: "once",
                strategies: [],
                killSwitchActive: true,
                cancelRunning: true,
              });
            } catch (err) {
              stopError = describeError(err);
            }
          }
          // The venue answers again: one ok row of each strategy whose streak was whole failed cycles and
          // that did not run ends the journal's run of failed passes (one that ran journals its cycle), so
          // the recovery is told once, with the others' (a cron user's outage was told recovered twice,
          // the second time for a strategy that was not due).
          const ranNames = new Set(runs.flatMap((r) => r.group.strategies.map((s) => s.name)));
          const outageOver = strategies.filter(
            (s) => (cycleFailedBefore.get(s.name) ?? 0) > 0 && !ranNames.has(s.name),
          );
          // Nothing in this pass failed: no cycle, no strategy's run (held for the clock, threw), no
          // strategy whose every send went unprocessed, no kill-switch cancel cycle (a review: a DCA held
          // for the clock right after an outage was covered by "cycles work again").
          const passWorked =
            pass.watch.error === undefined &&
            stopError === undefined &&
            runs.every(
              (r) =>
                r.error === undefined &&
                (r.report === undefined ||
                  (failedRuns(r.report).length === 0 && unprocessedOnly(r.report).length === 0)),
            );
          if (anyFailedBefore && outageOver.length > 0 && passWorked) {
            const { newCycleId } = await import("../../engine/journal.js");
            const id = newCycleId(now);
            runtime.journal.startCycle({
              id,
              trigger: "once",
              mode: runtime.exchange?.mode ?? "unsigned",
              account: runtime.account,
              strategies: outageOver.map((s) => s.name),
            });
            runtime.journal.finishCycle(id, "ok");
          }
          // TWAPs this bot placed that ended since the last pass that worked (a cron user was never told a
          // DCA's TWAP finished, nor what it filled): each said once, here and by notify.
          let ended: Awaited<ReturnType<typeof endedOwnTwaps>> = [];
          if (live && !stopping.signal.aborted) {
            try {
              ended = await endedOwnTwaps({
                info: runtime.info,
                journal: runtime.journal,
                account: runtime.account,
                now: runtime.clock(),
                since: twapEndsFrom,
                reports: [pass.watch.report, stopReport, ...runs.map((r) => r.report)],
                signal: stopping.signal,
              });
            } catch (err) {
              // Only a notice: the TWAPs stay untold and are asked about at the next pass.
              logger.warn({ err: describeError(err) }, "could not read which TWAPs ended");
            }
          }
          const killSwitch = killSwitchNotice(config.limits.killSwitchFile);
          // Strategies whose slots went by with nothing run for them (said with the fix below).
          const lostMissed = lostSlots(plan);
          const lost = new Set(lostMissed.map((m) => m.strategy));
          // What is known of why (a send it waited for, held each time until the slot was too old).
          const heldReason = missedCauses(runtime.journal, runtime.account, lostMissed);
          await notifyOnce(ctx, config, runtime, logger, pass, {
            ended,
            lostMissed,
            missedCauses: heldReason,
            failedBefore,
            cycleFailedBefore,
            passWorked,
            ...(stopReport ? { stopReport } : {}),
          });
          // A dry run prints unsigned requests, never a live order (#17.6; `plan --sign` prints signed ones).
          if (!live) {
            const { unsignReportActions } = await import("../unsigned.js");
            for (const rep of [pass.watch.report, stopReport, ...runs.map((r) => r.report)])
              if (rep) unsignReportActions(rep.actions, config.network);
          } else {
            // Live: what was sent, without its signature (cron logs travel; the journal keeps it).
            const { unsignSentActions } = await import("../unsigned.js");
            for (const rep of [pass.watch.report, stopReport, ...runs.map((r) => r.report)])
              if (rep) unsignSentActions(rep.actions);
          }
          /** Submissions of a report refused, or still unknown after the pass (the exit code's 1). */
          const troubled = (report: import("../../engine/cycle.js").CycleReport) =>
            troubledActions(report, runtime.journal, runtime.account).length;
          const w = pass.watch;
          const watch = {
            checked: w.checked,
            // A cancel whose lost answer a later cycle of this pass found landed counts too (a cron
            // user's log said "0 cancelled" for a cancel the venue had made).
            cancelled:
              w.report?.actions.filter(
                (a) =>
                  a.action === "twapCancel" &&
                  (a.outcome === "accepted" ||
                    (a.outcome === "unknown" && landedSince(a, runtime.journal, runtime.account))),
              ).length ?? 0,
            ...(w.report ? { cycle: w.report.cycleId } : {}),
            ...(w.error ? { error: w.error } : {}),
            ...(w.reconciled
              ? {
                  reconciled: w.reconciled.map((r) => ({
                    submission: r.submissionId,
                    strategy: r.strategy,
                    action: r.actionType,
                    verdict: r.verdict,
                  })),
                }
              : {}),
          };
          if (w.error) {
            bad++;
            if (!opts.json) out.push(`TWAP watch failed: ${w.error}\n`);
          }
          // Lost answers the watch settled before it looked: said as a cycle says them.
          if (!opts.json)
            for (const r of w.reconciled ?? [])
              out.push(
                `TWAP watch: reconciled submission #${r.submissionId} (${r.strategy}, ${r.actionType}): ${r.verdict}, ${r.detail}\n`,
              );
          if (w.report) {
            bad += troubled(w.report);
            if (opts.json) out.push(actionLines(w.report));
            else out.push(formatCycle(w.report, `TWAP watch (${mode}, cycle ${w.report.cycleId})`));
          }
          if (stopError !== undefined) {
            bad++;
            if (!opts.json) out.push(`kill switch cancels failed: ${stopError}\n`);
          }
          if (stopReport && stopReport.decisions.length > 0) {
            bad += troubled(stopReport);
            if (opts.json) out.push(actionLines(stopReport));
            else out.push(formatCycle(stopReport, `kill switch (${mode}, cycle ${stopReport.cycleId})`));
          }
          for (const r of runs) {
            const header = `${onceFor}, slot ${iso(r.group.slot)}${r.report ? `, cycle ${r.report.cycleId}` : ""})`;
            if (r.report) {
              bad += troubled(r.report);
              // A strategy that threw while deciding failed its run (its slot stays due).
              bad += failedRuns(r.report).length;
              if (opts.json) out.push(actionLines(r.report));
              else out.push(formatCycle(r.report, header));
              if (!opts.json && r.deferred.length > 0)
                out.push(`  deferred (the slot stays due): ${r.deferred.join(", ")}\n`);
            } else {
              bad++;
              if (!opts.json)
                out.push(`${header}\n  FAILED: ${r.error} (the slot stays due within the catch-up window)\n`);
            }
          }
          // Each ended TWAP as its notice says it (text line, --json average price).
          const { twapEndedEvent } = await import("../../engine/notify/events.js");
          const at = { account: runtime.account, network: config.network, now };
          if (opts.json) {
            out.push(
              summaryLine(now, runtime.account, {
                ran: runs.map((r) => ({
                  slot: iso(r.group.slot),
                  strategies: r.group.strategies.map((s) => s.name),
                  cycle: r.report?.cycleId,
                  acted: r.acted,
                  deferred: r.deferred,
                  // Why each deferred strategy left its slot due (held for a price, rate limited, ...).
                  deferredReasons: r.deferred.map((name) => ({
                    strategy: name,
                    reason: r.report ? deferralReason(r.report, name) : "its slot stays due",
                  })),
                  actions: r.report?.actions.length ?? 0,
                  // Decisions the risk limits or the kill switch stopped: nothing was sent for them.
                  blocked: (r.report?.decisions ?? [])
                    .filter((d) => d.guard === "blocked")
                    .map((d) => ({
                      strategy: d.decision.strategy,
                      reason: d.guardReason ?? d.decision.reason,
                    })),
                  ...(r.error ? { error: r.error } : {}),
                })),
                ...(stoppedNames.length > 0 ? { stopped: stoppedNames } : {}),
                notDue: plan.notDue.map((n) => ({
                  strategy: n.strategy,
                  reason: n.reason,
                  next: n.next === undefined ? undefined : iso(n.next),
                })),
                // Strategies left out: a file that does not load, a market the venue does not list (see stderr).
                leftOut: [...configIssues, ...unknown.issues].map((i) => formatIssue(i)),
                missed: plan.missed.map((m) => ({
                  strategy: m.strategy,
                  count: m.count,
                  latest: m.latest === undefined ? undefined : iso(m.latest),
                  // No later slot of it ran either: nothing was done for it (schedule.missed).
                  nothingRan: lost.has(m.strategy),
                  // What is known of why: the send it waited for, or held each time (its latest reason).
                  ...(heldReason.has(m.strategy) ? { cause: heldReason.get(m.strategy) } : {}),
                })),
                watch,
                ended: ended.map((t) => ({
                  // twapId as everywhere else (status, webhooks, history); `twap` kept for older scripts.
                  twapId: t.twapId,
                  twap: t.twapId,
                  strategy: t.strategy,
                  status: t.status,
                  pair: t.coin,
                  side: t.side,
                  size: t.size.toFixed(),
                  executedSize: t.executedSize.toFixed(),
                  executedNotional: t.executedNotional.toFixed(),
                  averagePrice: twapEndedEvent(at, t).data.averagePrice ?? null,
                })),
                killSwitch: killSwitch ?? null,
                clockSkewMs: plan.clockSkewMs ?? null,
                failed: bad,
              }),
            );
          } else {
            if (runs.length === 0)
              out.push(
                noneEnabled
                  ? `${onceFor}): no enabled strategy to run; only the guards of running TWAPs were checked\n`
                  : configIssues.length > 0
                    ? // Not "no strategy is due": none ran because a file does not load (a docs trial; a cron
                      // log's reader took the bot for idle).
                      `${onceFor}): NO STRATEGY RAN: ${configIssues.length === 1 ? "a strategy file does not load" : `${configIssues.length} strategy files do not load`} (see the errors on stderr); only the guards of running TWAPs were checked\n`
                    : unknown.issues.length > 0 && strategies.length === 0
                      ? `${onceFor}): NO STRATEGY RAN: every strategy names a market the venue does not list (see the errors on stderr)\n`
                      : stoppedNames.length > 0
                        ? `${onceFor}): stopped before the due strategies ran: ${stoppedNames.join(", ")} (their slots stay due)\n`
                        : `${onceFor}): no strategy is due\n`,
              );
            if (killSwitch !== undefined) out.push(`  kill switch ${killSwitch}\n`);
            // Said also when nothing is due (a disaster trial's clock 10 minutes behind read "no strategy
            // is due" alone): the schedule follows the local clock.
            if (runs.length === 0 && plan.clockSkewMs !== undefined)
              out.push(
                `  the local clock is ${skewText(plan.clockSkewMs)} the venue's, more than schedule.maxClockSkew: slots follow the local clock, so a strategy due now holds until it is corrected. Synchronise it (NTP)\n`,
              );
            if (runs.length > 0)
              for (const n of stoppedNames) out.push(`  ${n}: stopped before it ran (its slot stays due)\n`);
            for (const n of plan.notDue) out.push(`  ${n.strategy}: skipped, ${n.reason}\n`);
            for (const m of plan.missed)
              out.push(
                `  ${m.strategy}: missed ${m.count} slot${m.count === 1 ? "" : "s"}` +
                  `${m.latest === undefined ? "" : ` (latest ${iso(m.latest)})`}, older than the catch-up window or superseded` +
                  // Nothing ran for it: say how to stop missing them (a daily call hours after a daily slot).
                  (heldReason.has(m.strategy)
                    ? `: nothing was done for it: ${heldReason.get(m.strategy)}`
                    : lost.has(m.strategy)
                      ? `: nothing ran for it; call \`hlbot once\` within schedule.catchUp (${duration(config.schedule?.catchUpMs ?? DEFAULT_CATCH_UP_MS)}) after each slot, or raise it`
                      : "") +
                  "\n",
              );
            if (watch.checked > 0)
              out.push(
                `  TWAP watch: ${watch.checked} guarded TWAP(s) checked, ${watch.cancelled} cancelled\n`,
              );
            for (const t of ended) {
              const e = twapEndedEvent(at, t);
              out.push(`  ${e.title}; ${e.text}\n`);
            }
          }
          // --quiet: the whole report when the pass has anything to tell, else nothing (cron mails output).
          const told =
            bad > 0 ||
            plan.missed.length > 0 ||
            ended.length > 0 ||
            stoppedNames.length > 0 ||
            killSwitch !== undefined ||
            configIssues.length + unknown.issues.length > 0 ||
            (w.reconciled?.length ?? 0) > 0 ||
            [w.report, stopReport, ...runs.map((r) => r.report)].some((r) => (r?.actions.length ?? 0) > 0);
          if (opts.json || !opts.quiet || told) ctx.stdout(out.join(""));
          for (const issue of unknown.issues)
            ctx.stderr(`hlbot: error: ${formatIssue(issue)} (this strategy was left out)\n`);
          ctx.exitCode = stopping.signal.aborted
            ? 130
            : unknown.issues.length + configIssues.length > 0
              ? 2
              : bad > 0
                ? 1
                : 0;
        } finally {
          await instance.close();
        }
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await logger.flush();
      }
    });
}

/**
 * Under cron there is no daemon to remember anything: `once` tells each answered (or lost) submission
 * and each failed cycle of its pass, then gives the queue its pace (flushWaitMs: 3 to 30 s) before the
 * process exits.
 */
async function notifyOnce(
  ctx: CliContext,
  config: import("../../engine/config/loader.js").LoadedConfig,
  runtime: import("../../engine/runtime.js").Runtime,
  logger: import("pino").Logger,
  pass: Awaited<ReturnType<typeof import("../../engine/scheduler.js").oncePass>>,
  o: {
    /** Per strategy, its cycles that failed in a row before this pass. */
    failedBefore: ReadonlyMap<string, number>;
    /** Of `failedBefore`, the runs of whole failed cycles: a pass that worked ends those. */
    cycleFailedBefore: ReadonlyMap<string, number>;
    /** Nothing in this pass failed (no cycle, run, unprocessed send, kill-switch cycle or watch). */
    passWorked: boolean;
    /** The kill switch's own cancel cycle, when one ran. */
    stopReport?: import("../../engine/cycle.js").CycleReport;
    /** TWAPs this bot placed that ended since the last pass that worked. */
    ended: readonly import("../../engine/twapEnds.js").EndedOwnTwap[];
    /** The pass's slots that went by with nothing done (lostSlots), and what is known of why. */
    lostMissed: ReturnType<typeof import("../../engine/scheduler.js").lostSlots>;
    missedCauses: ReadonlyMap<string, string>;
  },
): Promise<void> {
  if (!config.notify) return;
  const { failedBefore, cycleFailedBefore, passWorked, stopReport } = o;
  const { createNotifier, flushWaitMs } = await import("../../engine/notify/notifier.js");
  const {
    submissionEvents,
    reconciledEvents,
    cycleFailedEvent,
    cycleRecoveredEvent,
    scheduleMissedEvent,
    toldAgain,
    twapEndedEvent,
    killSwitchEvent,
  } = await import("../../engine/notify/events.js");
  const { killSwitchEngaged } = await import("../../engine/killSwitch.js");
  const { failedRuns, failedRunsText, unprocessedOnly } = await import("../../engine/cycle.js");
  const { DEFAULT_CATCH_UP_MS } = await import("../../engine/schedule.js");
  const notifier = createNotifier(config.notify, ctx.env, logger, runtime.journal);
  if (!notifier) return;
  const at = { account: runtime.account, network: config.network, now: runtime.clock() };
  for (const e of reconciledEvents(at, pass.watch.reconciled ?? [])) notifier.notify(e);
  for (const t of o.ended) notifier.notify(twapEndedEvent(at, t));
  // The kill switch engaged or released since the last pass (the journal remembers what was told): a
  // cron user's webhook got neither (only the daemon told them). Engaged at the first pass is told too.
  const switchFile = config.limits.killSwitchFile;
  const engaged = switchFile === undefined ? undefined : killSwitchEngaged(switchFile);
  if (switchFile !== undefined && engaged !== undefined) {
    const told = runtime.journal.swapKillSwitchTold(engaged);
    if (told === undefined ? engaged : told !== engaged)
      notifier.notify(killSwitchEvent(at, engaged, switchFile));
  }
  for (const report of [pass.watch.report, stopReport, ...pass.runs.map((r) => r.report)])
    if (report)
      for (const e of submissionEvents(at, report, (name) =>
        runtime.journal.unprocessedInARow(runtime.account, name),
      ))
        notifier.notify(e);
  // Slots that went by with no run at all (a daily call hours after a daily slot): each told once.
  // A dry run keeps its own slot memory: its misses are not the bot's (a preview told a false alarm).
  const lost = runtime.exchange?.mode === "live" ? o.lostMissed : [];
  if (lost.length > 0)
    notifier.notify(
      scheduleMissedEvent(at, lost, config.schedule?.catchUpMs ?? DEFAULT_CATCH_UP_MS, o.missedCauses),
    );
  // Failed cycles of this pass: told at the first failed pass in a row and every RETELL_EVERY-th, as
  // passes that could not start are (cron may call every minute through an outage).
  // Counted per strategy (its cycles failed in a row), as a pass runs several cycles.
  // A strategy that threw while deciding, or was held (the clock), failed its run in a cycle that ran:
  // told as a failed cycle, as the daemon tells it (a cron user's notify said nothing of it).
  const failing = pass.runs.flatMap((r) => {
    if (r.error !== undefined)
      return [{ names: r.group.strategies.map((s) => s.name), error: r.error, run: false }];
    const threw = r.report ? failedRuns(r.report) : [];
    if (threw.length === 0) return [];
    return [
      { names: [...new Set(threw.map((d) => d.decision.strategy))], error: failedRunsText(threw), run: true },
    ];
  });
  for (const f of failing) {
    const inARow = Math.max(1, ...f.names.map((n) => runtime.journal.failedInARow("once", n)));
    // A strategy's own run failing (held for the clock, threw) after a streak of whole failed cycles (the
    // venue down) is a new trouble: told at once, not counted on as the outage's (a review: a DCA held
    // for the clock right after an outage lost its day's buy with no word).
    const newTrouble = f.run && f.names.some((n) => (cycleFailedBefore.get(n) ?? 0) > 0);
    if (toldAgain(inARow) || newTrouble) notifier.notify(cycleFailedEvent(at, f.names, f.error, inARow));
  }
  // Recovered: the strategies that had failed and whose cycle (or the pass, nothing being due) worked,
  // the watch included.
  if (pass.watch.error === undefined) {
    const failedNames = new Set(failing.flatMap((f) => f.names));
    const recovered = [...failedBefore].filter(([name, n]) => n > 0 && !failedNames.has(name));
    // Ran and worked: not one whose every send went unprocessed (rate limited: nothing happened).
    const unprocessed = new Set(pass.runs.flatMap((r) => (r.report ? unprocessedOnly(r.report) : [])));
    const ran = new Set(
      pass.runs.flatMap((r) => r.group.strategies.map((s) => s.name)).filter((n) => !unprocessed.has(n)),
    );
    // Those that ran and worked, and, in a pass where nothing failed, those whose streak was whole
    // failed cycles (the venue answers again) whether or not they were due.
    const told = recovered.filter(
      ([name]) => ran.has(name) || (passWorked && (cycleFailedBefore.get(name) ?? 0) > 0),
    );
    if (told.length > 0)
      notifier.notify(
        cycleRecoveredEvent(
          at,
          told.map(([name]) => name),
          Math.max(...told.map(([, n]) => n)),
        ),
      );
  }
  await notifier.flush(flushWaitMs(notifier));
  notifier.close();
}

/**
 * A pass that could not start (the venue did not answer its first reads): one failed cycle row, so
 * `hlbot history` shows it, and with notify configured cycle.failed at the first such pass in a row and
 * every RETELL_EVERY-th (cron may call every minute). Its own failure to write or tell is logged, never
 * hides the pass's error.
 */
/** Said on stderr when a pass could not read the venue (a cron user saw only the failed query's name). */
const UNSTARTED_NOTE =
  "hlbot once: the venue could not be read, so no strategy ran and nothing was sent; the strategies due now " +
  "stay due and run at the next `hlbot once` while their slot is within schedule.catchUp (`hlbot history` shows the failed pass)";

async function recordUnstartedPass(
  ctx: CliContext,
  config: import("../../engine/config/loader.js").LoadedConfig,
  logger: import("pino").Logger,
  err: unknown,
  at: { journal: import("../../engine/journal.js").Journal; account: string; mode: string; now: number },
): Promise<void> {
  const { describeError } = await import("../../lib/errors.js");
  const { newCycleId } = await import("../../engine/journal.js");
  const { scheduledStrategies } = await import("../../engine/daemon.js");
  const error = `the pass could not start: ${describeError(err)}`;
  const strategies = scheduledStrategies(config.strategies).map((s) => s.name);
  try {
    at.journal.recordUnstartedCycle(
      { id: newCycleId(at.now), trigger: "once", mode: at.mode, account: at.account, strategies },
      error,
    );
    // Passes that could not start, in a row (whatever strategies their rows name): a strategy not due at
    // the pass that worked in between kept the earlier outage's count, and a new outage went untold
    // until its tenth pass (a cron user's trial).
    const inARow = Math.max(1, at.journal.failedInARow("once"));
    const { cycleFailedEvent, toldAgain } = await import("../../engine/notify/events.js");
    if (!config.notify || !toldAgain(inARow)) return;
    const { createNotifier, flushWaitMs } = await import("../../engine/notify/notifier.js");
    const notifier = createNotifier(config.notify, ctx.env, logger, at.journal);
    if (!notifier) return;
    notifier.notify(
      cycleFailedEvent(
        { account: at.account, network: config.network, now: at.now },
        strategies,
        error,
        inARow,
      ),
    );
    await notifier.flush(flushWaitMs(notifier));
    notifier.close();
  } catch (e) {
    logger.warn({ err: describeError(e) }, "could not journal or tell the failed pass");
  }
}

/**
 * A pass whose instance could not open for a venue error (no runtime, no journal yet): the same row
 * and notice, written under the state folder's lock when no other hlbot holds it (one that does will
 * journal its own passes).
 */
async function recordUnopenedPass(
  ctx: CliContext,
  config: import("../../engine/config/loader.js").LoadedConfig,
  logger: import("pino").Logger,
  err: unknown,
  live: boolean,
): Promise<void> {
  const { acquireInstanceLock } = await import("../../engine/lock.js");
  const { openStateDb } = await import("../../lib/stateDb.js");
  const { Journal } = await import("../../engine/journal.js");
  let lock: ReturnType<typeof acquireInstanceLock>;
  try {
    lock = acquireInstanceLock(config.state, `hlbot once --config ${config.file}`);
  } catch {
    return;
  }
  try {
    const db = await openStateDb({ dir: config.state });
    try {
      // A folder first used on another network is not this bot's: its journal is left alone.
      const { claimStateNetwork } = await import("../../lib/stateDb.js");
      if (claimStateNetwork(db, config.network) !== undefined) return;
      await recordUnstartedPass(ctx, config, logger, err, {
        journal: new Journal(db),
        account:
          config.account ??
          (await (await import("../bot.js")).keyAddress(config, ctx.env)) ??
          "(unknown: the venue did not answer)",
        mode: live ? "live" : "dry-run",
        now: Date.now(),
      });
    } finally {
      db.close();
    }
  } catch (e) {
    const { describeError } = await import("../../lib/errors.js");
    logger.warn({ err: describeError(e) }, "could not journal the failed pass");
  } finally {
    lock.release();
  }
}
