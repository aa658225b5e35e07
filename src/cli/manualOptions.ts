// Options of the manual action commands beyond the common ones: the bot configuration whose kill
// switch and limits apply (--config), and --sign, which prints a signed body in dry run. Kept free of
// heavy imports: it is loaded for `--help`.
import type { Command } from "commander";
import {
  addBotFileNetworkOptions,
  addLiveOption,
  addOutputOptions,
  addSignerOptions,
  addStateOption,
  type RawCommonOptions,
} from "./options.js";

/** Help text of `--sign`: says in words what a signed body is. */
export const SIGN_OPTION_HELP =
  "dry run: print the SIGNED body instead of the unsigned one; WARNING: anyone who has that output can execute it on the venue without your key";

/**
 * Every manual command's options: the network (the bot file's by default), the signer, the state
 * folder, the output, --live, the bot file and --sign.
 */
export function addManualOptions(command: Command): Command {
  for (const add of [
    addBotFileNetworkOptions,
    addSignerOptions,
    addStateOption,
    addOutputOptions,
    addLiveOption,
  ])
    add(command);
  return command
    .option(
      "-c, --config <file>",
      "bot configuration whose kill switch, limits and state folder apply (default: $HLBOT_CONFIG, else ./hlbot.yaml, else ~/.config/hlbot/config.yaml; with none found no amount limits apply)",
    )
    .option("--sign", SIGN_OPTION_HELP)
    .addHelpText("after", MANUAL_EXIT_CODES);
}

/** What a manual command's exit code says (a scripter found them in no manual command's help). */
const MANUAL_EXIT_CODES = [
  "",
  "Exit codes: 0 accepted by the venue, or a dry run printed; 2 bad input or configuration (nothing",
  "signed, nothing sent); 1 refused by hlbot (kill switch, a limit), rejected by the venue, the venue",
  "unreachable, or an outcome unknown (it may have landed: never send it again by hand, the next live",
  'command reconciles it). With --json, stdout holds one line whose "status" tells them apart.',
].join("\n");

/** Raw values of a manual command's options. */
export interface ManualCommonOptions extends RawCommonOptions {
  config?: string;
  sign?: boolean;
  /** The commander command, for the journal's reason (the command as typed); set by the caller. */
  command?: Command;
}
