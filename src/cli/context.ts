// What a command needs from the process, passed in so commands can be run in-process by tests with
// captured output. Commands write results to `stdout` and diagnostics to `stderr`, and report their
// outcome by returning an exit code or throwing a typed error (mapped to an exit code by main).
import type { Command } from "commander";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** True when stdout is a terminal (pretty output, progress bars). */
  isTTY: boolean;
  /** True when stderr is a terminal (where logs and progress bars go). */
  stderrIsTTY?: boolean;
}

export interface CliContext extends CliIo {
  /** Set by the global `--verbose` flag: stack traces and debug logs. */
  verbose: boolean;
  /** Colour on stderr (pretty logs): a terminal, no NO_COLOR, no --no-color. */
  colorStderr?: boolean;
  /** Exit code the command asked for (default 0). */
  exitCode: number;
}

/** Each module in `src/cli/commands/` exports one of these. Heavy modules are imported lazily inside actions. */
export interface CommandModule {
  register(program: Command, ctx: CliContext): void;
}
