// Logging with pino: JSON lines by default, pretty when asked (or `auto` on a terminal). Every line
// passes through `redact` on its way out, so a key that slipped into a log field is still removed.
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { dirname } from "node:path";
import pino, { type Logger } from "pino";
import { redact } from "./secrets.js";

export type LogFormat = "json" | "pretty" | "auto";
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface LogOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** Also append JSON lines to this file. */
  file?: string;
  /** Where human/JSON output goes (default: stderr, so stdout stays clean for command results). */
  stream?: NodeJS.WritableStream;
  /** Whether `stream` is a terminal (decides `auto`). */
  isTTY?: boolean;
  /** Colour the pretty output (default: when `stream` is a terminal). */
  colorize?: boolean;
  /** The time lines are dated with (default the wall clock; a simulation's virtual clock). */
  clock?: () => number;
}

export type { Logger };

interface Flushable {
  flush(): Promise<void>;
}

export interface Reopenable {
  /** Reopens `file` (after logrotate moved it; the daemon calls it on SIGUSR2). No-op without a file. */
  reopen(): void;
}

/** Creates a logger whose every output line is redacted. `flush()` waits for the file stream to drain. */
export async function createLogger(options: LogOptions = {}): Promise<Logger & Flushable & Reopenable> {
  const level = options.level ?? "info";
  const out = options.stream ?? process.stderr;
  const tty = options.isTTY ?? Boolean((out as { isTTY?: boolean }).isTTY);
  const pretty = options.format === "pretty" || (options.format !== "json" && tty);

  let terminal: NodeJS.WritableStream = out;
  if (pretty) {
    // Imported lazily: pino-pretty is only needed on a terminal.
    const { default: pinoPretty } = await import("pino-pretty");
    const prettyStream = pinoPretty({
      destination: out as never,
      sync: true,
      colorize: options.colorize ?? tty,
      translateTime: "SYS:standard",
    });
    terminal = prettyStream as unknown as NodeJS.WritableStream;
  }
  let file: WriteStream | undefined;
  /** (Re)opens the log file for appending; after logrotate moved it away, a new one is created. */
  const openFile = (path: string): void => {
    // The log usually lives in the state folder, which may not exist yet: create it as the state
    // database would (private). A file that still cannot be written must not bring the process down
    // (an unhandled stream error would): say so once on the terminal and go on without it.
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    } catch {
      // Reported by the stream's error below.
    }
    const stream = createWriteStream(path, { flags: "a", mode: 0o600 });
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (file === stream) file = undefined;
      terminal.write(
        `${JSON.stringify({ level: "warn", time: new Date().toISOString(), msg: redact(`cannot write the log file ${path} (${err.code ?? err.message}); logging to the terminal only`) })}\n`,
      );
    });
    file = stream;
  };
  if (options.file) openFile(options.file);

  const sink = {
    write(line: string) {
      const clean = redact(line);
      terminal.write(clean);
      file?.write(clean);
    },
  };
  // Level names ("warn"), not pino's numbers (40): what log shippers and people grep for.
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp:
        options.clock === undefined
          ? pino.stdTimeFunctions.isoTime
          : () => `,"time":"${new Date(options.clock!()).toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    sink,
  ) as Logger & Flushable & Reopenable;
  logger.reopen = () => {
    if (!options.file) return;
    const old = file;
    openFile(options.file);
    old?.end();
  };
  logger.flush = () =>
    new Promise<void>((resolve) => {
      if (!file) return resolve();
      file.end(() => resolve());
      // A stream that failed meanwhile never calls back; do not wait for it forever.
      file.once("error", () => resolve());
    });
  return logger;
}

/** A logger that discards everything (tests, library use without logging). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
