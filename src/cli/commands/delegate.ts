// `hlbot delegate` / `hlbot undelegate`: move HYPE between the staking balance and a validator
// (tokenDelegate, user-signed: needs the account's own key). Dry run unless --live.
import type { Command } from "commander";
import type { CliContext } from "../context.js";
import { addManualOptions, type ManualCommonOptions } from "../manualOptions.js";
import { parseAddress, parseAmountText } from "../options.js";

interface DelegateOptions extends ManualCommonOptions {
  validator?: string;
  amount?: string;
}

export function register(program: Command, ctx: CliContext): void {
  for (const isUndelegate of [false, true]) {
    const command = program
      .command(isUndelegate ? "undelegate" : "delegate")
      .description(
        isUndelegate
          ? "undelegate HYPE from a validator back to the staking balance (tokenDelegate)"
          : "delegate HYPE from the staking balance to a validator (tokenDelegate)",
      )
      .requiredOption("--validator <address>", "validator address")
      .requiredOption("--amount <hype>", "HYPE amount, at most 8 decimals");
    addManualOptions(command);
    command.action(async (options: DelegateOptions) => {
      const { runManualAction } = await import("../manualAction.js");
      await runManualAction(ctx, { ...options, command }, () => ({
        type: "tokenDelegate",
        params: {
          validator: parseAddress(options.validator, "--validator"),
          amount: parseAmountText(options.amount, "--amount"),
          isUndelegate,
        },
      }));
    });
  }
}
