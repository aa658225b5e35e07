// `hlbot stake` / `hlbot unstake`: move HYPE from spot to staking (cDeposit, instant) or back through
// the unstaking queue (7 days on mainnet; cWithdraw). User-signed: needs the account's own key. Dry run unless --live.
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { addManualOptions, type ManualCommonOptions } from "../manualOptions.js";
import { parseAmountText } from "../options.js";

interface StakeOptions extends ManualCommonOptions {
  amount?: string;
}

export function register(program: Command, ctx: CliContext): void {
  const variants = [
    { name: "stake", type: "cDeposit", about: "move HYPE from spot to the staking balance (cDeposit)" },
    {
      name: "unstake",
      type: "cWithdraw",
      about:
        "move HYPE from staking back to spot, through the unstaking queue (7 days on mainnet; cWithdraw)",
    },
  ] as const;
  for (const variant of variants) {
    const command = program
      .command(variant.name)
      .description(variant.about)
      .requiredOption("--amount <hype>", "HYPE amount, at most 8 decimals");
    addManualOptions(command);
    command.action(async (options: StakeOptions) => {
      const { runManualAction } = await import("../manualAction.js");
      await runManualAction(ctx, { ...options, command }, () => ({
        type: variant.type,
        params: { amount: parseAmountText(options.amount, "--amount") },
      }));
    });
  }
}
