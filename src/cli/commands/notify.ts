// `hlbot notify test`: sends one test message to each notification channel of a bot configuration
// and says, per channel, whether it arrived (the HTTP status) or why not. Exit 1 when any failed.
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { CONFIG_OPTION_HELP } from "../options.js";

interface NotifyTestOptions {
  config?: string;
}

export function register(program: Command, ctx: CliContext): void {
  const notify = program
    .command("notify")
    .description("notification channels (notify: in the bot file): webhook, Telegram, Discord");
  notify
    .command("test")
    .description("send one test message to each configured channel and report what each answered")
    .option("-c, --config <file>", CONFIG_OPTION_HELP)
    .action(async (opts: NotifyTestOptions) => {
      const { loadBotConfig, botLogger } = await import("../bot.js");
      const { ConfigError } = await import("../../lib/errors.js");
      const { displayPath } = await import("../../engine/config/loader.js");
      const config = await loadBotConfig(ctx, opts);
      const { channelsFromConfig, Notifier } = await import("../../engine/notify/notifier.js");
      const channels = channelsFromConfig(config.notify, ctx.env);
      if (channels.length === 0)
        throw new ConfigError(
          "no notification channel configured (add notify.webhook, notify.telegram or notify.discord)",
          {
            file: displayPath(config.file),
            keyPath: "notify",
          },
        );
      const logger = await botLogger(ctx, config);
      const attempts: Array<{
        channel: string;
        outcome: string;
        status?: number | undefined;
        detail?: string | undefined;
      }> = [];
      const notifier = new Notifier({
        channels,
        logger,
        log: { recordNotification: (a) => attempts.push(a) },
        timeoutMs: config.notify!.timeoutMs,
        retries: 0,
        minIntervalMs: 0,
      });
      const { testEvent } = await import("../../engine/notify/events.js");
      // The bot's account as its notices name it: `account:`, else the key's address when cheap to read.
      const { keyAddress } = await import("../bot.js");
      const account =
        config.account ??
        (await keyAddress(config, ctx.env).catch(() => undefined)) ??
        "(the signer's account)";
      notifier.notify(
        testEvent({
          account,
          network: config.network,
          now: Date.now(),
        }),
      );
      await notifier.flush(config.notify!.timeoutMs + 1_000);
      notifier.close();
      let failed = false;
      for (const c of channels) {
        const a = attempts.find((x) => x.channel === c.name);
        if (a?.outcome === "sent") ctx.stdout(`ok ${c.name}: delivered (HTTP ${a.status})\n`);
        else {
          failed = true;
          ctx.stdout(`FAILED ${c.name}: ${a?.detail ?? "no answer in time"}\n`);
        }
      }
      ctx.exitCode = failed ? 1 : 0;
      await logger.flush();
    });
}
