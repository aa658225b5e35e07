// `hlbot stop` / `hlbot resume`: engage or release the kill switch of a bot configuration. While it is
// engaged nothing is submitted, by the bot or by manual commands, except cancellations of running
// TWAPs. `stop --cancel-twaps` (or `limits.killSwitchCancelRunning: true`) also cancels the account's
// running TWAPs now, through the engine's executor (journaled, strategy "kill-switch"). Neither needs
// the daemon to be stopped: the switch is a file the daemon checks before every cycle.
import { dirname } from "node:path";
import { type Command, Option } from "commander";
import type { LoadedConfig } from "../../engine/config/loader.js";
import type { CliContext } from "../context.js";
import { CONFIG_OPTION_HELP } from "../options.js";

interface StopOptions {
  config?: string;
  reason?: string;
  cancelTwaps?: boolean;
  dryRun?: boolean;
  live?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command("stop")
    .description(
      "engage the kill switch: nothing is submitted until `hlbot resume` (running TWAPs keep filling unless cancelled)",
    )
    .option("-c, --config <file>", CONFIG_OPTION_HELP)
    .option("--reason <text>", "why, written into the kill-switch file", "stopped with hlbot stop")
    .option(
      "--cancel-twaps",
      "also cancel the account's running TWAPs now (always done when limits.killSwitchCancelRunning is true); sent when the config says mode: live, or with --live",
    )
    .addOption(
      new Option(
        "--live",
        "send the cancellations even when the config says mode: dry-run (a TWAP placed by hand with --live runs whatever the mode)",
      ).conflicts("dryRun"),
    )
    .option("--dry-run", "engage the switch but only show the cancellations, whatever the config says")
    .action(async (opts: StopOptions) => {
      const { botLogger } = await import("../bot.js");
      const { dirname } = await import("node:path");
      const { engageKillSwitch } = await import("../../engine/killSwitch.js");
      let config: LoadedConfig;
      try {
        config = await switchConfig(ctx, opts);
      } catch (err) {
        // The bot file does not load here (a variable only the daemon's environment sets, a typo saved
        // while the daemon runs on the file it loaded): the brake still engages, at the path its `state:`
        // and `limits.killSwitchFile` lines name (a go-live trial's emergency stop engaged nothing).
        const { HlbotError, describeError } = await import("../../lib/errors.js");
        if (!(err instanceof HlbotError) || err.family !== "config") throw err;
        const found = await lenientSwitch(ctx, opts);
        if ("why" in found) {
          ctx.stderr(
            `hlbot: ${describeError(err)}
hlbot: the kill switch was NOT engaged: the bot file does not load, and ${found.why}. ` +
              "Engage it by hand: `touch <state folder>/STOP` (the folder the daemon uses: its bot file's state:, else $HLBOT_STATE_DIR, $STATE_DIRECTORY or ~/.local/state/hlbot)\n",
          );
          ctx.exitCode = 2;
          return;
        }
        engageKillSwitch(
          found.path,
          opts.reason ?? "stopped with hlbot stop",
          Date.now(),
          dirname(found.path) === found.state,
        );
        ctx.stderr(
          `hlbot: warning: ${describeError(err)}\n` +
            `hlbot: kill switch engaged: ${found.path} exists (read from the bot file's state: and limits.killSwitchFile lines alone, as the file does not load); nothing is submitted until \`hlbot resume\`\n` +
            `hlbot: ${await holderText(found.state)}\n` +
            (opts.cancelTwaps === true
              ? "hlbot: running TWAPs were NOT cancelled: that needs the bot file to load (fix it, then `hlbot stop --cancel-twaps`)\n"
              : "hlbot: running TWAPs are NOT cancelled and keep filling; fix the bot file, then `hlbot stop --cancel-twaps` to cancel them\n"),
        );
        ctx.exitCode = opts.cancelTwaps === true ? 1 : 0;
        return;
      }
      const path = config.limits.killSwitchFile;
      // The state folder is hlbot's own and may not exist yet; any other folder must (checked at load).
      engageKillSwitch(
        path,
        opts.reason ?? "stopped with hlbot stop",
        Date.now(),
        dirname(path) === config.state,
      );
      ctx.stderr(`hlbot: kill switch engaged: ${path} exists; nothing is submitted until \`hlbot resume\`\n`);
      ctx.stderr(`hlbot: ${await holderText(config.state, path)}\n`);
      const cancel = opts.cancelTwaps === true || config.limits.killSwitchCancelRunning;
      if (!cancel) {
        // Under a dry-run config only --live sends the cancels (a review: the advice alone sent none).
        const sends = (config.mode === "live" || opts.live === true) && opts.dryRun !== true;
        ctx.stderr(
          `hlbot: running TWAPs are NOT cancelled and keep filling; use \`hlbot stop --cancel-twaps${sends ? "" : " --live"}\` to cancel them\n`,
        );
        return;
      }
      const logger = await botLogger(ctx, config);
      const { openRuntime } = await import("../../engine/runtime.js");
      const { runCycle } = await import("../../engine/cycle.js");
      const { formatCycle } = await import("../report.js");
      const { displayPath } = await import("../../engine/config/loader.js");
      const live = (config.mode === "live" || opts.live === true) && opts.dryRun !== true;
      try {
        const runtime = await openRuntime({ config, env: ctx.env, mode: live ? "live" : "dry-run", logger });
        try {
          const report = await runCycle(runtime.cycleDeps(await runtime.facts()), {
            trigger: "stop",
            strategies: [],
            killSwitchActive: true,
            cancelRunning: true,
          });
          const unsigned = await import("../unsigned.js");
          if (!live) unsigned.unsignReportActions(report.actions, config.network);
          else unsigned.unsignSentActions(report.actions);
          const header = `stop for ${runtime.account} on ${config.network} (${live ? "live" : "dry run"}, cycle ${report.cycleId})`;
          ctx.stdout(
            report.decisions.length === 0
              ? `${header}\n  no running TWAP to cancel\n`
              : formatCycle(report, header),
          );
          // Shown, not sent: said in words, with the way to send them (an emergency stop under a dry-run
          // config left a TWAP placed by hand with --live filling, exit 0, a newcomer's trial).
          if (!live && report.decisions.length > 0)
            ctx.stderr(
              `hlbot: the running TWAPs above are NOT cancelled and keep filling (${opts.dryRun === true ? "--dry-run" : `${displayPath(config.file)} says mode: ${config.mode}`}): ` +
                "cancel them with `hlbot stop --cancel-twaps --live`\n",
            );
          const bad = report.actions.filter((a) => a.outcome === "rejected" || a.outcome === "unknown");
          // Running TWAPs whose cancel could not be sent (no id, a pair hlbot does not know): they keep
          // filling, so not a success either (a seller's trial read exit 0 while two sales ran on).
          const waiting = report.decisions.filter((d) => d.guard === "skipped").length;
          if (live && waiting > 0)
            ctx.stderr(
              `hlbot: ${waiting} running TWAP${waiting === 1 ? " was" : "s were"} not cancelled by this stop (reasons above: one hlbot cannot cancel must be cancelled by hand); check with \`hlbot status\`\n`,
            );
          // Cancels asked for and not sent (not --dry-run): not a success for a script's `stop && …`.
          const unsent = !live && opts.dryRun !== true && report.decisions.length > 0;
          ctx.exitCode = bad.length > 0 || unsent || (live && waiting > 0) ? 1 : 0;
        } finally {
          await runtime.close();
        }
      } finally {
        await logger.flush();
      }
    });

  program
    .command("resume")
    .description("release the kill switch: remove whatever is at limits.killSwitchFile")
    .option("-c, --config <file>", CONFIG_OPTION_HELP)
    .action(async (opts: { config?: string }) => {
      let config: LoadedConfig;
      try {
        config = await switchConfig(ctx, opts);
      } catch (err) {
        // Refused, as releasing the brake on a file that does not load should be, but saying where the
        // switch is and that it stays engaged (a docs trial read only the file's error).
        const { HlbotError } = await import("../../lib/errors.js");
        if (!(err instanceof HlbotError) || err.family !== "config") throw err;
        const found = await lenientSwitch(ctx, opts);
        const where = "why" in found ? "" : ` at ${found.path}`;
        throw Object.assign(err, {
          message: `${err.message}; the kill switch${where} stays engaged: fix the bot file and run \`hlbot resume\` again, or remove ${"why" in found ? "the switch" : found.path} by hand`,
        });
      }
      const { releaseKillSwitch } = await import("../../engine/killSwitch.js");
      const path = config.limits.killSwitchFile;
      const was = releaseKillSwitch(path);
      ctx.stderr(
        was
          ? `hlbot: kill switch released: ${path} removed; submissions resume at the next cycle\n`
          : `hlbot: the kill switch was not engaged (nothing at ${path})\n`,
      );
    });
}

/** The kill switch of the bot file `stop` and `resume` act on, read leniently (its file does not load). */
async function lenientSwitch(ctx: CliContext, opts: { config?: string }) {
  const { discoverConfigPath, resolveConfigPath, lenientKillSwitch } = await import(
    "../../engine/config/loader.js"
  );
  const file = discoverConfigPath(opts.config, ctx.env) ?? resolveConfigPath(opts.config, ctx.env);
  return lenientKillSwitch(file, ctx.env);
}

/**
 * The bot file whose kill switch `stop` and `resume` act on. When none is named or found (--config,
 * $HLBOT_CONFIG, ./hlbot.yaml, ~/.config/hlbot/config.yaml), the fallback (a checkout's or the
 * package's config/default.yaml) is used with a warning: a daemon started with `--config
 * /etc/hlbot/bot.yaml` reads another switch (a trial's `hlbot stop` in an emergency stopped nothing).
 */
async function switchConfig(ctx: CliContext, opts: { config?: string }): Promise<LoadedConfig> {
  const { discoverConfigPath, resolveConfigPath, loadConfig, displayPath } = await import(
    "../../engine/config/loader.js"
  );
  const found = discoverConfigPath(opts.config, ctx.env);
  const file = found ?? resolveConfigPath(opts.config, ctx.env);
  const { noteShadowedConfig } = await import("../bot.js");
  await noteShadowedConfig(ctx, opts.config);
  // The brake needs the bot file only: a strategy file half-edited (the likely moment for an emergency)
  // is left out with a warning instead of refusing to stop.
  const config = await loadConfig(file, ctx.env, { leaveOutBroken: true });
  const { warnLeftOut } = await import("../bot.js");
  await warnLeftOut(ctx, config);
  if (found === undefined)
    ctx.stderr(
      `hlbot: WARNING: no bot file named or found (--config, $HLBOT_CONFIG, ./hlbot.yaml, ~/.config/hlbot/config.yaml): ` +
        `using ${displayPath(file)}, whose kill switch is ${config.limits.killSwitchFile}. A bot started with another file ` +
        "(e.g. --config /etc/hlbot/bot.yaml) does not read it: give that file with --config.\n",
    );
  return config;
}

/** Which hlbot, if any, holds the state folder now: the one the switch stops at its next cycle. */
async function holderText(stateDir: string, switchFile?: string): Promise<string> {
  const { instanceLockHolder } = await import("../../engine/lock.js");
  try {
    const h = instanceLockHolder(stateDir);
    // A switch file outside the state folder (limits.killSwitchFile) stops every bot that names it,
    // whatever its state folder: "does not stop it" was false for a switch shared on purpose.
    const shared = switchFile !== undefined && dirname(switchFile) !== stateDir;
    if (!h.held)
      return (
        `no hlbot holds the state folder ${stateDir} right now (a daemon holds it while it runs; a cron-run ` +
        "`once` while it runs): " +
        (shared
          ? `a bot whose limits.killSwitchFile is ${switchFile} stops too, whatever its state folder; one with another switch file does not`
          : "if your bot runs with another bot file or state folder, this switch does not stop it")
      );
    return h.holder
      ? `\`${h.holder.command}\` (pid ${h.holder.pid} on ${h.holder.hostname}) holds ${stateDir} and reads this switch before each cycle`
      : `an hlbot process holds ${stateDir} and reads this switch before each cycle`;
  } catch (err) {
    return `could not tell which hlbot holds ${stateDir}: ${(err as Error).message}`;
  }
}
