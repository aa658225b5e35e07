// `hlbot status`: an overview of the account for a person: spot balances with USD values and weights,
// staking, delegations with validator names, health and locks, running TWAPs with progress, VIP status,
// referral state and rewards, multi-sig signers, sub-accounts and the staking link. Reads only; no key
// is needed when the account is given (--user or `account:` in the config).
//
// Each section is read on its own. A section whose query failed is shown as "not available (<query>
// failed)" (null in --json, and listed under `unavailable`) with a warning line on stderr; the rest is
// shown. Exit code: 0 when the spot balances were read (even if another section was not), 1 when they
// were not: without balances there is no account overview, and a script must not take it for one.
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("status")
    .description(
      "show the account: balances, staking, delegations, running TWAPs, fees, links. A section whose " +
        "query fails is named and skipped (warning on stderr); exit 1 only when the balances could not be read",
    )
    .option("-c, --config <file>", "bot configuration (network, base URL, account)")
    .option("--user <address>", "account to show (default: the config's account, else the signer's address)")
    .option("--base-url <url>", "send reads to this base URL instead of the configured one")
    .option("--json", "print the collected data as JSON on stdout")
    .action(async (opts: { config?: string; user?: string; baseUrl?: string; json?: boolean }) => {
      const { loadBotConfig, warnLeftOut } = await import("../bot.js");
      const { parseAddress } = await import("../options.js");
      // Reads only the bot file's network, URLs and account: a strategy file that does not load is
      // said (stderr), not a reason to hide the account and its running TWAPs.
      const config = await loadBotConfig(ctx, opts, { leaveOutBroken: true });
      await warnLeftOut(ctx, config);
      let account = opts.user === undefined ? config.account : parseAddress(opts.user, "--user");
      const fromKey = account === undefined;
      if (account === undefined) {
        const { loadSigner } = await import("../../venue/signing/signer.js");
        const { ConfigError } = await import("../../lib/errors.js");
        // Only the address is needed: say how to give it without a key.
        const signer = await loadSigner(config.wallet, ctx.env, {
          warn: (m) => ctx.stderr(`hlbot: warning: ${m}\n`),
        }).catch((err: unknown) => {
          if (err instanceof ConfigError)
            throw new ConfigError(
              `${err.message}; or name the account to show with --user 0x… (or \`account:\` in the bot file): no key is needed to read it`,
            );
          throw err;
        });
        account = signer.address;
      }
      const { collectStatus, formatStatus, unavailableLines, withPlacers } = await import("../status.js");
      const { configTransport } = await import("../../engine/transport.js");
      const { InfoClient } = await import("../../venue/info/client.js");
      const { stringifyJson } = await import("../../lib/json.js");
      const transport = configTransport(config, { baseUrl: opts.baseUrl });
      try {
        const warn = (message: string) => ctx.stderr(`hlbot: warning: ${message}\n`);
        const info = new InfoClient(transport, { onUnknown: warn });
        if (fromKey) {
          // The key's address: an API wallet holds nothing; its master's account is the one it trades.
          const { masterOfAgent } = await import("../../venue/exchange/authority.js");
          const master = await masterOfAgent(info, account).catch(() => undefined);
          if (master !== undefined) {
            ctx.stderr(
              `hlbot: the key ${account.toLowerCase()} is an API wallet of ${master}: showing ${master} (set \`account: ${master}\` in the bot file, or --user)\n`,
            );
            account = master;
          }
        }
        const status = await collectStatus(
          info,
          account.toLowerCase(),
          Date.now(),
          config.network,
          config.venue.rules.predictedAprNet,
          () => transport.latestAnswerDate()?.getTime(),
        );
        // The bot's own state beside the account's: is it stopped?
        const { killSwitchNotice } = await import("../../engine/killSwitch.js");
        // Only for the bot file's own account: its `account:`, or its key's (read when cheap). When whose
        // it is cannot be told (no `account:`, the key not readable: an operator without the key gives
        // --user with the bot's address), it is shown, saying whose switch it is.
        const { keyAddress } = await import("../bot.js");
        const botAccount =
          config.account ?? (opts.user === undefined ? account : await keyAddress(config, ctx.env));
        const own = botAccount === undefined || botAccount.toLowerCase() === account.toLowerCase();
        const notice = own ? killSwitchNotice(config.limits.killSwitchFile) : undefined;
        const killSwitch =
          notice === undefined
            ? null
            : botAccount === undefined
              ? `${notice} (the switch of ${config.file}, whose account is not known here)`
              : notice;
        // Who placed each running TWAP, from this bot's journal (its own account only).
        const shown = own
          ? await withPlacers(status, config.state, new Set(config.strategies.map((x) => x.name)))
          : status;
        ctx.stdout(
          opts.json
            ? `${stringifyJson({ ...shown, killSwitch }, 2)}\n`
            : `${killSwitch === null ? "" : `Kill switch: ${killSwitch}\n`}${formatStatus(shown, config.network)}`,
        );
        for (const line of unavailableLines(status)) ctx.stderr(`${line}\n`);
        if (status.coreUnavailable) ctx.exitCode = 1;
      } finally {
        await transport.close();
      }
    });
}
