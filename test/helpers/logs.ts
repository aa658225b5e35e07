// A pino logger that keeps every line it writes, parsed, for tests that check what was logged.
import pino from "pino";

export type LogLine = Record<string, unknown> & { msg: string; level: number };

export function captureLogger() {
  const lines: LogLine[] = [];
  /** Each line as written (JSON.parse keeps only the last of a key given twice). */
  const raw: string[] = [];
  const logger = pino(
    { level: "debug", base: undefined },
    {
      write: (s: string) => {
        raw.push(s);
        lines.push(JSON.parse(s));
      },
    },
  );
  /** The lines logged at warn level. */
  const warnings = () => lines.filter((l) => l.level === 40);
  return { logger, lines, raw, warnings };
}
