// The `hlbot` command line. Commands live one per module in ./commands; this file wires them into
// commander, maps typed errors to exit codes (0 ok, 1 venue/runtime failure, 2 bad input or config)
// and prints one-line reasons (stack traces only with --verbose).
import { Command, CommanderError, Help, Option } from "commander";
import { colorWanted, paint } from "../lib/color.js";
import { damagedDatabaseAdvice, describeError, diskFullAdvice, exitCodeOf } from "../lib/errors.js";
import {
  guardArguments,
  maskKeyShaped,
  redact,
  redactOutput,
  registerSecretVariables,
  SecretArgumentError,
} from "../lib/secrets.js";
import { escapeControls } from "../lib/text.js";
import { packageVersion } from "../lib/version.js";
import * as completionCommand from "./commands/completion.js";
import * as configCommand from "./commands/config.js";
import * as dataCommand from "./commands/data.js";
import * as delegateCommand from "./commands/delegate.js";
import * as historyCommand from "./commands/history.js";
import * as infoCommand from "./commands/info.js";
import * as initCommand from "./commands/init.js";
import * as journalCommand from "./commands/journal.js";
import * as linkStakingCommand from "./commands/linkStaking.js";
import * as notifyCommand from "./commands/notify.js";
import * as onceCommand from "./commands/once.js";
import * as planCommand from "./commands/plan.js";
import * as runCommand from "./commands/run.js";
import * as simulateCommand from "./commands/simulate.js";
import * as stakeCommand from "./commands/stake.js";
import * as statusCommand from "./commands/status.js";
import * as stopCommand from "./commands/stop.js";
import * as twapCommand from "./commands/twap.js";
import * as txCommand from "./commands/tx.js";
import * as venueCommand from "./commands/venue.js";
import type { CliContext, CliIo, CommandModule } from "./context.js";

// One entry per command module. Keep the list sorted by the order commands appear in `--help`.
const COMMANDS: ReadonlyArray<CommandModule> = [
  initCommand,
  planCommand,
  onceCommand,
  runCommand,
  stopCommand,
  notifyCommand,
  statusCommand,
  historyCommand,
  journalCommand,
  infoCommand,
  txCommand,
  configCommand,
  completionCommand,
  delegateCommand,
  stakeCommand,
  twapCommand,
  linkStakingCommand,
  simulateCommand,
  venueCommand,
  dataCommand,
];

export function defaultIo(): CliIo {
  // `hlbot … | head` closes stdout early: the reader has what it wanted, so stop writing to it quietly
  // instead of crashing with an unhandled EPIPE. The command itself goes on (a daemon keeps running).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
    });
  }
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
  };
}

/** Flags naming a variable that holds a secret, and the variables read when they are not given. */
const SECRET_VARIABLE_FLAGS: Readonly<Record<string, string>> = {
  "--key-env": "HLBOT_PRIVATE_KEY",
  "--password-env": "HLBOT_KEYSTORE_PASSWORD",
};

function secretVariableNames(argv: readonly string[]): string[] {
  const names = Object.values(SECRET_VARIABLE_FLAGS);
  argv.forEach((arg, i) => {
    for (const flag of Object.keys(SECRET_VARIABLE_FLAGS)) {
      if (arg === flag && argv[i + 1] !== undefined) names.push(argv[i + 1]!);
      else if (arg.startsWith(`${flag}=`)) names.push(arg.slice(flag.length + 1));
    }
  });
  return names;
}

/** The bot file the command line names (`-c F`, `--config F`, `--config=F`), if any. */
function configArgument(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if ((arg === "-c" || arg === "--config") && argv[i + 1] !== undefined) return argv[i + 1];
    if (arg.startsWith("--config=")) return arg.slice("--config=".length);
  }
  return undefined;
}

/** Runs the CLI with `argv` (without node and script) and resolves to the process exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  // The variables the command line names (or the defaults) hold secrets before any command loads them:
  // an argument checked earlier must not be echoed back in an error. Only these: a transaction hash
  // exported in the environment is not a secret. (The bot file's wallet names are added by the loader.)
  registerSecretVariables(io.env, secretVariableNames(argv));
  // And those the bot file's wallet names, read from those lines alone: a command given --base-url or
  // --network, or whose file does not load, never loads the wallet (a security audit: `tx <key>` sent it).
  const { discoverConfigPath, preregisterWalletSecrets } = await import("../engine/config/discover.js");
  const configArg = configArgument(argv);
  // An empty --config is refused by the command itself (its error, its exit code).
  if (configArg?.trim() !== "") await preregisterWalletSecrets(discoverConfigPath(configArg, io.env), io.env);
  // A secret pasted into any argument (--amount, --validator, --base-url, `tx <hash>`, ...) is refused
  // before anything parses, prints or sends it.
  // Kept: a secret registered later (the bot file's wallet variables, a key file, a keystore's password)
  // is checked against them as it is read, before anything is sent.
  const pasted = guardArguments(argv);
  if (pasted !== -1) {
    io.stderr(`hlbot: ${new SecretArgumentError(pasted).message}\n`);
    guardArguments(undefined);
    return 2;
  }
  // Every text output passes here: venue strings (validator and token names, error texts) cannot clear
  // the screen, retitle the terminal, draw links or forge lines (src/lib/text.ts). Log colours survive.
  const colorOut = colorWanted(io.isTTY, io.env, argv);
  // And through the redaction filter (README, Safety): a secret registered while the command ran (the
  // keystore password) is not echoed back from an argument or a kill-switch reason (a security audit).
  const out = (text: string) => {
    const safe = escapeControls(redactOutput(text));
    io.stdout(colorOut ? paint(safe) : safe);
  };
  const errOut = (text: string) => io.stderr(escapeControls(redactOutput(text), { allowColors: true }));
  const ctx: CliContext = {
    ...io,
    stdout: out,
    stderr: errOut,
    verbose: argv.includes("--verbose"),
    colorStderr: colorWanted(
      io.stderrIsTTY ?? false,
      io.env,
      argv.filter((a) => a !== "--json"),
    ),
    exitCode: 0,
  };
  const program = new Command()
    .name("hlbot")
    .description("TWAP trading and HYPE staking bot for Hyperliquid, with an embedded venue simulator")
    .version(packageVersion(), "-V, --version")
    .option("--verbose", "print stack traces and debug logs")
    .option("--no-color", "no colours, even on a terminal (also: NO_COLOR=1)")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => out(s),
      writeErr: (s) => errOut(s),
      outputError: (s, write) => write(maskKeyShaped(redact(s))),
    })
    .exitOverride();
  program.enablePositionalOptions();
  for (const command of COMMANDS) command.register(program, ctx);
  for (const sub of program.commands) sub.exitOverride();
  // --verbose and --no-color are read from anywhere on the line (above), but positional options made
  // commander refuse them after the command (`hlbot simulate --verbose`: "unknown option", a config
  // trial): every command takes them too, and its help lists them as global options.
  const globals = (c: Command) => {
    for (const sub of c.commands) {
      sub.addOption(new Option("--verbose").hideHelp()).addOption(new Option("--no-color").hideHelp());
      sub.configureHelp({
        ...sub.configureHelp(),
        showGlobalOptions: true,
        // Not --version: only `hlbot --version` takes it.
        visibleGlobalOptions(cmd) {
          return Help.prototype.visibleGlobalOptions.call(this, cmd).filter((o) => o.long !== "--version");
        },
      });
      globals(sub);
    }
  };
  globals(program);

  try {
    await program.parseAsync(argv, { from: "user" });
    return ctx.exitCode;
  } catch (err) {
    if (err instanceof SecretArgumentError) {
      ctx.stderr(`hlbot: ${err.message}\n`);
      return 2;
    }
    if (err instanceof CommanderError) {
      // --help and --version are "errors" to commander; they are successes to us.
      if (err.exitCode === 0) return 0;
      return 2;
    }
    ctx.stderr(`hlbot: ${describeError(err)}\n`);
    if (ctx.verbose && err instanceof Error && err.stack) ctx.stderr(`${redact(err.stack)}\n`);
    // A damaged state database met after it opened (pages overwritten): a state problem, with its way out.
    const { lastOpenedStateDb } = await import("../lib/stateDb.js");
    const damaged =
      exitCodeOf(err) === 2
        ? undefined
        : damagedDatabaseAdvice(err, lastOpenedStateDb() ?? "hlbot.db (in the bot file's state folder)");
    if (damaged !== undefined) {
      ctx.stderr(`hlbot: ${damaged}\n`);
      return 2;
    }
    const full = diskFullAdvice(err, lastOpenedStateDb() ?? "the state folder");
    if (full !== undefined) ctx.stderr(`hlbot: ${full}\n`);
    return exitCodeOf(err);
  } finally {
    guardArguments(undefined);
  }
}
