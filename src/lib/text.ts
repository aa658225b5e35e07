// Text that reaches a terminal. Venue strings (validator names, token names, error texts) and anything
// else hlbot did not write itself may hold control characters: ESC sequences that clear the screen,
// set the window title or draw OSC 8 links, a CR that rewrites the line, a LF that forges a line of
// output, C1 controls (0x80-0x9f, which some terminals read as ESC [), and bidi overrides that show text
// in another order than it is. These helpers make every such character visible as a `\u00XX` escape
// instead: harmless on a terminal, and inside a JSON string exactly the same character (so JSON output
// stays valid and means the same).
// biome-ignore-all lint/suspicious/noControlCharactersInRegex: matching control characters is the point of this module.
import { Decimal } from "./decimal.js";

/** C0 controls but TAB and LF, DEL, C1 controls, and the bidi embedding/override/isolate marks. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same and LF and TAB: for a value that must stay on one line. */
const CONTROLS_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** A colour (SGR) sequence: ESC [ digits/semicolons m. Changes colours only. */
const SGR = /^\u001b\[[0-9;]{0,32}m/;

function visible(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * Text for a terminal: every control character except LF and TAB becomes a visible `\u00XX` escape.
 * With `allowColors`, colour sequences (ESC [ … m, as pino-pretty writes them) pass unchanged; every
 * other ESC sequence (screen clear, title, OSC links) is still escaped.
 */
export function escapeControls(text: string, options: { allowColors?: boolean } = {}): string {
  if (!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text))
    return text;
  if (!options.allowColors) return text.replace(CONTROLS, visible);
  return text.replace(CONTROLS, (c, offset: number) =>
    c === "\u001b" && SGR.test(text.slice(offset, offset + 40)) ? c : visible(c),
  );
}

/** A value shown inside one line (a name, a reason): every control character escaped, LF and TAB too. */
export function oneLine(text: string): string {
  return text.replace(CONTROLS_ONE_LINE, visible);
}

/** An address as people glance at it: its first 6 and last 4 characters ("0xb8f4…5bc5"). */
export function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}

/** A validator's net APR ("0.023618") as "2.362%" (rounded half away from zero, like the other
 * percentages, not cut: 2.3618% is 2.362%); "?" when unknown. */
export function netAprText(netApr: string | null, notEarning?: string | null): string {
  if (notEarning) return `0% (${notEarning}${netApr === null ? "" : `; ${netAprText(netApr)} when active`})`;
  return netApr === null
    ? "?"
    : `${new Decimal(netApr).times(100).toDecimalPlaces(3, Decimal.ROUND_HALF_UP).toFixed()}%`;
}

/** A span for a person: "45 min", "5 h", "3 d 4 h". */
export function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return ms % 60_000 === 0 ? `${minutes} min` : `${ms / 1000} s`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 24) return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** A word as a POSIX shell reads it back: kept bare when safe, else in single quotes. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
