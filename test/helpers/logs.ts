// A pino logger that keeps every line it writes, parsed, for tests that check what was logged.
import pino from "pino";

export type LogLine = Record<string, unknown> & { msg: string; level: number };

export function captureLogger() {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "debug", base: undefined },
    { write: (s: string) => lines.push(JSON.parse(s)) },
  );
  /** The lines logged at warn level. */
  const warnings = () => lines.filter((l) => l.level === 40);
  return { logger, lines, warnings };
}
