// `hlbot link-staking`: link a trading account and a staking account (linkStakingUser). The trading
// account requests with --user = the staking account; the staking account then finalizes with
// --finalize and --user = the trading account. The link is permanent. User-signed. Dry run unless --live.
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { addManualOptions, type ManualCommonOptions } from "../manualOptions.js";
import { parseAddress } from "../options.js";

interface LinkOptions extends ManualCommonOptions {
  user?: string;
  finalize?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  const command = program
    .command("link-staking")
    .description(
      "request (trading account) or finalize (staking account) a permanent staking link (linkStakingUser)",
    )
    .requiredOption(
      "--user <address>",
      "the other account: the staking account, or with --finalize the trading account",
    )
    .option("--finalize", "finalize a link the trading account requested (sent by the staking account)");
  addManualOptions(command);
  command.action(async (options: LinkOptions) => {
    const { runManualAction } = await import("../manualAction.js");
    const user = parseAddress(options.user, "--user");
    const { isPlaceholderAddress } = await import("../../engine/config/fields.js");
    const { ValidationError } = await import("../../lib/errors.js");
    if (isPlaceholderAddress(user))
      throw new ValidationError([
        { path: "--user", message: `${user} is a placeholder, not an account: a staking link is permanent` },
      ]);
    // Said before anything is signed, live or not: this one cannot be undone.
    ctx.stderr(
      "hlbot: warning: a staking link is PERMANENT once the staking account finalizes it, and gives the staking account control of the trading account's funds\n",
    );
    await runManualAction(ctx, { ...options, command }, () => ({
      type: "linkStakingUser",
      params: { user, isFinalize: options.finalize === true },
    }));
  });
}
