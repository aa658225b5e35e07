// Colour on a terminal, and only there: off when the output is not a TTY, when NO_COLOR is set to
// anything (no-color.org), with --no-color, and for --json output. Colours mark the words a person
// scans a plan or a run for; the text is the same without them.

const RESET = "\u001b[0m";
const RED = "\u001b[31m";
const GREEN = "\u001b[32m";
const YELLOW = "\u001b[33m";

/** Whether to colour a stream: a terminal, NO_COLOR unset or empty, no --no-color flag. */
export function colorWanted(
  isTTY: boolean,
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[],
): boolean {
  if (!isTTY || argv.includes("--no-color") || argv.includes("--json")) return false;
  const noColor = env.NO_COLOR;
  return noColor === undefined || noColor === "";
}

const MARKS: Array<[RegExp, string]> = [
  [/\b(REJECTED|FAILED|UNKNOWN|LIVE)\b/g, RED],
  [/\b(BLOCKED|blocked|reduced|deferred|missed)\b/g, YELLOW],
  [/\b(accepted|allowed|ok)\b/g, GREEN],
];

/** `text` with the outcome words coloured. */
export function paint(text: string): string {
  let out = text;
  for (const [pattern, color] of MARKS) out = out.replace(pattern, (word) => `${color}${word}${RESET}`);
  return out;
}
