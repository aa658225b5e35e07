// `hlbot status`: an overview of the account for a person: spot balances with USD values and weights,
// staking, delegations with validator names, health and locks, running TWAPs with progress, VIP status,
// referral state and rewards, multi-sig signers, sub-accounts and the staking link. Reads only; no key
// is needed when the account is given (--user or `account:` in the config).
import type { Command } from "commander";
import type { CliContext } from "../context.js";

export function register(program: Command, ctx: CliContext): void {
  program
    .command("status")
    .description("show the account: balances, staking, delegations, running TWAPs, fees, links")
    .option("-c, --config <file>", "bot configuration (network, base URL, account)")
    .option("--user <address>", "account to show (default: the config's account, else the signer's address)")
    .option("--base-url <url>", "send reads to this base URL instead of the configured one")
    .option("--json", "print the collected data as JSON on stdout")
    .action(async (opts: { config?: string; user?: string; baseUrl?: string; json?: boolean }) => {
      const { loadBotConfig } = await import("../bot.js");
      const { parseAddress } = await import("../options.js");
      const config = await loadBotConfig(ctx, opts);
      let account = opts.user === undefined ? config.account : parseAddress(opts.user, "--user");
      if (account === undefined) {
        const { loadSigner } = await import("../../venue/signing/signer.js");
        account = (
          await loadSigner(config.wallet, ctx.env, { warn: (m) => ctx.stderr(`hlbot: warning: ${m}\n`) })
        ).address;
      }
      const { collectStatus, formatStatus } = await import("../status.js");
      const { HttpTransport } = await import("../../venue/transport/http.js");
      const { InfoClient } = await import("../../venue/info/client.js");
      const { resolveEndpoints } = await import("../../venue/networks.js");
      const { stringifyJson } = await import("../../lib/json.js");
      const transport = new HttpTransport({
        endpoints: resolveEndpoints(config.network, opts.baseUrl ?? config.baseUrl, config.explorerUrl),
        timeoutMs: config.venue.timeoutMs,
      });
      try {
        const status = await collectStatus(new InfoClient(transport), account.toLowerCase(), Date.now());
        ctx.stdout(opts.json ? `${stringifyJson(status, 2)}\n` : formatStatus(status, config.network));
      } finally {
        await transport.close();
      }
    });
}
