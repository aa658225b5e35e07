// `hlbot data fetch`: downloads a spot pair's candle history through the venue's candleSnapshot query
// into a candle file (src/simulator/candles.ts: the CSV `readCandleFile` reads and `hlbot simulate
// --prices` replays; prices and volume copied verbatim from the venue).
//
// The venue answers at most CANDLE_PAGE_LIMIT (5000) candles a request, so the range is walked forward
// in windows of at most --page-size candles aligned on candle boundaries, each next request starting
// after the last candle's close; after an empty window one request over the rest of the range finds
// where the candles begin (the venue keeps only its most recent 5000). The transport waits for the IP weight budget before each request
// (20, plus 1 per 60 candles answered) and retries 429, 5xx and network failures. Only closed candles
// are written (by the venue's clock, its Date header), in time order, each page appended as it
// arrives with a final newline: after an interruption or a failure the file holds whole rows only (a
// cut last line is dropped), and running the same command again continues after its last row
// without duplicating it; Ctrl-C (exit 130) and a failure (exit 1) both say what the file keeps and
// print that command. A candle the reader would refuse (a price not positive, high or low not the
// extremes, a fraction of a candle after the previous row) stops the download as a bad answer, so
// every file written is one a replay can read.
import type { Command } from "commander";
import { noSuchDayNote, parseDateTime, parseUtcDateTime } from "../../lib/dateTime.js";
import { ConfigError, ValidationError } from "../../lib/errors.js";
import { maskKeyShaped, redact } from "../../lib/secrets.js";
import { shellWord } from "../../lib/text.js";
import type { VenueCandle } from "../../simulator/candles.js";
import type { CliContext } from "../context.js";
import { stderrBar } from "../progress.js";

export interface FetchOptions {
  coin: string;
  interval: string;
  from: string;
  to?: string;
  network: string;
  baseUrl?: string;
  out?: string;
  pageSize: string;
  timeout?: string;
}

const DAY_MS = 86_400_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A time flag: YYYY-MM-DD (UTC midnight; with `endOfDay`, the day's last millisecond), an ISO date-time
 * (UTC unless it names a zone), or unix milliseconds.
 */
export function parseTimeFlag(text: string, flag: string, endOfDay = false): number {
  const value = text.trim();
  let ms: number;
  if (/^\d+$/.test(value)) ms = Number(value);
  else if (DATE_ONLY.test(value)) ms = parseDateTime(`${value}T00:00:00Z`) + (endOfDay ? DAY_MS - 1 : 0);
  // A date-time: UTC unless it names a zone, by the one rule of every time flag and scenario.
  else ms = parseUtcDateTime(value);
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new ValidationError([
      {
        path: flag,
        message: `expected a date (2025-01-31), an ISO date-time or unix milliseconds, got ${JSON.stringify(text)}${noSuchDayNote(value)}`,
      },
    ]);
  return ms;
}

/** A coin as a file-name part: anything but letters, digits, dot, dash and underscore becomes "_". */
export function fileSafe(coin: string): string {
  return coin.replace(/[^A-Za-z0-9._-]/g, "_");
}

export function register(program: Command, ctx: CliContext): void {
  const data = program.command("data").description("download market data from the venue (price history)");
  data
    .command("fetch")
    .description(
      "download a spot pair's candles (candleSnapshot) into a candle file for simulate --prices; " +
        "running it again continues the file",
    )
    .requiredOption(
      "--coin <name>",
      'a token (HYPE: its pair quoted in USDC) or a pair ("@107", "PURR/USDC", "HYPE/USDC")',
    )
    .requiredOption("--interval <i>", "candle length: 1m 3m 5m 15m 30m 1h 2h 4h 8h 12h 1d 3d 1w 1M")
    .requiredOption("--from <time>", "first candle's open: YYYY-MM-DD (UTC), an ISO date-time or unix ms")
    .option("--to <time>", "last candle's open (a date includes its whole day; default: the venue's now)")
    .option("--network <name>", "mainnet or testnet", "mainnet")
    .option("--base-url <url>", "send every request to this base URL instead (e.g. `hlbot venue`)")
    .option(
      "--out <file>",
      "candle file (default: candles/<coin>-<interval>-<network>.csv, or -<host_port>.csv with --base-url)",
    )
    .option("--page-size <n>", "candles per window requested, 1 to 5000", "5000")
    .option("--timeout <ms>", "per-request timeout in milliseconds (default 10000)")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  hlbot data fetch --coin HYPE --interval 1h --from 2025-01-01 --to 2025-06-30",
        "  hlbot simulate --prices candles/HYPE-1h-mainnet.csv --days 30",
        "",
        "The file: the header coin,interval,time_ms,time_iso,open,high,low,close,volume,trades, then one",
        "row per closed candle in time order (coin is the pair's venue name, time_ms its open time in",
        "unix ms UTC; prices, base volume and trade count as the venue sent them).",
        "Run the same command again after an interruption: it keeps the rows and continues after the",
        "last one. The venue keeps only the most recent 5000 candles of a pair and interval: after an",
        "empty window one request over the rest of the range finds where they begin, and the command",
        "says so when the first candle is later than --from.",
        "Exit codes: 0 done, 2 bad input (nothing sent, or an unknown coin), 1 venue or network failure or",
        "no candle in the range, 130 interrupted by Ctrl-C. After 1 or 130 the file keeps the rows written so",
        "far; stderr says how many, up to which time, and the command that continues it.",
      ].join("\n"),
    )
    .action(async (options: FetchOptions) => {
      await runFetch(options, ctx);
    });
}

async function runFetch(options: FetchOptions, ctx: CliContext): Promise<void> {
  const [{ parseNetworkName, resolveEndpoints }, { InfoClient }, { createTransport }, cs, files, errors] =
    await Promise.all([
      import("../../venue/networks.js"),
      import("../../venue/info/client.js"),
      import("../../venue/transport/factory.js"),
      import("../../venue/info/methods/candleSnapshot.js"),
      import("../../simulator/candles.js"),
      import("../../lib/errors.js"),
    ]);
  const { existsSync, mkdirSync, readFileSync, appendFileSync, writeFileSync, truncateSync, rmSync } =
    await import("node:fs");
  const { dirname, join } = await import("node:path");

  // Every flag is checked before anything is sent.
  const interval = options.interval.trim();
  if (!cs.isCandleInterval(interval))
    throw new ValidationError([
      { path: "--interval", message: `expected one of ${cs.CANDLE_INTERVALS.join(", ")}, got ${interval}` },
    ]);
  const coinArg = options.coin.trim();
  if (coinArg === "")
    throw new ValidationError([{ path: "--coin", message: "expected a token or pair name" }]);
  const fromMs = parseTimeFlag(options.from, "--from");
  const toFlag = options.to === undefined ? undefined : parseTimeFlag(options.to, "--to", true);
  if (toFlag !== undefined && toFlag < fromMs)
    throw new ValidationError([{ path: "--to", message: "is before --from" }]);
  const pageSize = Number(options.pageSize);
  if (!/^\d+$/.test(options.pageSize.trim()) || pageSize < 1 || pageSize > cs.CANDLE_PAGE_LIMIT)
    throw new ValidationError([
      { path: "--page-size", message: `expected 1 to ${cs.CANDLE_PAGE_LIMIT}, got ${options.pageSize}` },
    ]);
  let timeoutMs: number | undefined;
  if (options.timeout !== undefined) {
    timeoutMs = Number(options.timeout);
    if (!/^\d+$/.test(options.timeout.trim()) || !(timeoutMs > 0))
      throw new ValidationError([
        { path: "--timeout", message: `expected a positive number of milliseconds, got ${options.timeout}` },
      ]);
  }
  const network = parseNetworkName(options.network, "--network");
  // Checked before any file is touched (a bad --base-url is exit 2); the transport resolves them again.
  resolveEndpoints(network, options.baseUrl);
  // Named by where the candles come from: a file of a local venue must never be mistaken for (or
  // resumed by a fetch of) the real network's history.
  const source = options.baseUrl === undefined ? network : fileSafe(new URL(options.baseUrl).host);
  const out = options.out ?? join("candles", `${fileSafe(coinArg)}-${interval}-${source}.csv`);
  // The path as echoed: a key-shaped run in a typed --out is never printed (src/lib/secrets.ts).
  const outShown = maskKeyShaped(out);

  // Resume: keep the file's whole rows and continue after the last one (checked before anything is sent).
  let existing: import("../../simulator/candles.js").CandleFile | undefined;
  const text = existsSync(out) ? readFileSync(out, "utf8") : "";
  if (text.trim() !== "" && text.trim() !== files.CANDLE_CSV_HEADER) {
    // Only a candle file's last line is ever cut: any other file (a typo, tab completion onto a key file
    // or a keystore, one line without a final newline) is refused below untouched (a security audit: a
    // key file was emptied).
    const candleFile =
      text.startsWith(`${files.CANDLE_CSV_HEADER}\n`) || text.startsWith(`${files.CANDLE_CSV_HEADER}\r\n`);
    if (candleFile && !text.endsWith("\n")) {
      // Cut while a page was being written: its last row is incomplete.
      truncateSync(out, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
      ctx.stderr(`hlbot data fetch: dropped the incomplete last line of ${outShown}\n`);
    }
    existing = files.readCandleFile(out);
  }

  // Ctrl-C stops the download between (or during) requests instead of killing the process, so the
  // person is told what the file keeps and the exact command that continues it (exit 130). A second
  // Ctrl-C kills as usual.
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  const resume = resumeCommand(options, out);
  /** The one message of a download that stopped early (a failure or Ctrl-C), with what the file holds. */
  const stoppedAt = (how: string, rows: number, last: number | undefined) =>
    rows === 0
      ? `hlbot data fetch: ${how} before any candle was written; no file kept. Run the same command again to start over: ${resume}\n`
      : `hlbot data fetch: ${how}; ${outShown} keeps ${rows} candles` +
        (last === undefined ? "" : ` up to ${iso(last)}`) +
        `. Run the same command again to continue: ${resume}\n`;
  let created = false;

  const transport = createTransport({
    network,
    baseUrl: options.baseUrl,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  process.once("SIGINT", onSigint);
  try {
    const client = new InfoClient(transport);
    let coin: string;
    try {
      coin = await resolvePair(client, coinArg, interrupt.signal);
    } catch (err) {
      if (!interrupt.signal.aborted) throw err;
      const kept = existing?.candles.length ?? 0;
      ctx.stderr(stoppedAt("interrupted", kept, existing?.candles[kept - 1]?.t));
      ctx.exitCode = 130;
      return;
    }
    if (existing && (existing.coin !== coin || existing.interval !== interval))
      throw new ValidationError([
        {
          path: "--out",
          message: `${outShown} holds ${existing.coin} ${existing.interval} candles, not ${coin} ${interval}`,
        },
      ]);
    if (!existing) {
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${files.CANDLE_CSV_HEADER}\n`);
      created = true;
    }
    const kept = existing?.candles.length ?? 0;
    let firstT = existing?.candles[0]?.t;
    let lastT = existing?.candles[kept - 1]?.t;
    /** The venue's clock (its Date header, whole seconds), else ours. */
    const venueNow = () => transport.lastServerDate()?.getTime() ?? Date.now();
    const toMs = toFlag ?? venueNow();
    const startMs = lastT === undefined ? fromMs : Math.max(fromMs, cs.nextCandleOpen(interval, lastT));
    ctx.stderr(
      lastT === undefined
        ? `hlbot data fetch: ${coin}${coin === coinArg ? "" : ` (${coinArg})`} ${interval} candles from ` +
            `${iso(fromMs)} to ${iso(toMs)} → ${outShown}\n`
        : `hlbot data fetch: ${outShown} has ${kept} candles up to ${iso(lastT)}; continuing after it\n`,
    );

    const progress =
      ctx.stderrIsTTY === true && process.stderr.isTTY
        ? await progressBar(Math.max(1, Math.min(toMs, venueNow()) - startMs))
        : undefined;
    let added = 0;
    let cursor = startMs;
    /** An empty window was followed by a look over the rest of the range (see below). */
    let probed = false;
    try {
      while (cursor <= Math.min(toMs, venueNow())) {
        if (interrupt.signal.aborted) break;
        // A window of pageSize whole candles from the one holding the cursor.
        let end = cs.candleOpen(interval, cursor);
        for (let i = 0; i < pageSize; i++) end = cs.nextCandleOpen(interval, end);
        const endTime = Math.min(end - 1, toMs);
        const page: VenueCandle[] = [
          ...(await client.candleSnapshot(
            { req: { coin, interval, startTime: cursor, endTime } },
            interrupt.signal,
          )),
        ];
        page.sort((a, b) => a.t - b.t);
        const now = venueNow();
        const closeOf = (c: VenueCandle) => c.T ?? cs.nextCandleOpen(interval, c.t) - 1;
        const rows: string[] = [];
        for (const c of page) {
          if (c.t < fromMs || c.t > toMs || (lastT !== undefined && c.t <= lastT) || closeOf(c) >= now)
            continue;
          // A row a fraction of a candle after the last one would make the file one the reader refuses.
          const fault =
            lastT !== undefined && files.candlesBetween(interval, lastT, c.t) === undefined
              ? `it opens ${c.t - lastT} ms after the candle of ${iso(lastT)}, not a whole number of ${interval} candles`
              : rowFault(c, files.candleFault);
          if (fault)
            throw new errors.BadResponseError(
              `candleSnapshot: the ${coin} ${interval} candle of ${iso(c.t)} is not one a replay can use: ${fault}`,
            );
          rows.push(files.candleCsvLine(coin, interval, c));
          lastT = c.t;
          firstT ??= c.t;
        }
        if (rows.length > 0) appendFileSync(out, `${rows.join("\n")}\n`);
        added += rows.length;
        const lastClose = page.reduce((m, c) => Math.max(m, closeOf(c)), Number.NEGATIVE_INFINITY);
        cursor = lastClose >= cursor ? lastClose + 1 : endTime + 1;
        if (page.length > 0) probed = false;
        else if (!probed && cursor <= Math.min(toMs, venueNow())) {
          // An empty window (before the pair's history, or older than the venue keeps): one request over
          // the rest of the range says where the candles begin, instead of walking every empty window.
          // Nothing between the cursor and the first candle it answers exists, whether the venue answers
          // the earliest candles of a range or keeps only the latest.
          probed = true;
          const rest = await client.candleSnapshot(
            { req: { coin, interval, startTime: cursor, endTime: toMs } },
            interrupt.signal,
          );
          const next = rest.reduce(
            (m, c) => (c.t >= cursor ? Math.min(m, c.t) : m),
            Number.POSITIVE_INFINITY,
          );
          cursor = Number.isFinite(next) ? next : toMs + 1;
        }
        progress?.update(Math.min(cursor, toMs) - startMs, kept + added);
      }
    } catch (err) {
      progress?.stop();
      if (!interrupt.signal.aborted) {
        if (created && kept + added === 0) rmSync(out, { force: true });
        ctx.stderr(stoppedAt("stopped", kept + added, lastT));
        throw err;
      }
    }
    progress?.stop();
    if (interrupt.signal.aborted) {
      // Pages are appended whole (synchronously), so the file ends on a whole row whenever this lands.
      if (created && kept + added === 0) rmSync(out, { force: true });
      ctx.stderr(stoppedAt("interrupted", kept + added, lastT));
      ctx.exitCode = 130;
      return;
    }

    const total = kept + added;
    if (total === 0) {
      // A file of no candles is not a candle file (simulate --prices refuses it): none is left behind,
      // and the exit code tells a script that nothing was fetched.
      if (!existing) rmSync(out, { force: true });
      ctx.stderr(
        `hlbot data fetch: no closed ${coin} ${interval} candles from ${iso(fromMs)} to ${iso(toMs)}; no file written\n`,
      );
      ctx.exitCode = 1;
      return;
    }
    if (kept === 0 && firstT !== undefined && firstT - fromMs >= cs.CANDLE_INTERVAL_MS[interval])
      ctx.stderr(
        `note: the first candle opens at ${iso(firstT)}, later than --from: the venue keeps only the most ` +
          `recent ${cs.CANDLE_PAGE_LIMIT} candles of a pair and interval, or the pair did not trade before\n`,
      );
    // The venue may leave candles out (an outage, a pair that did not trade): said here, as simulate will.
    let written: import("../../simulator/candles.js").CandleFile;
    try {
      written = files.readCandleFile(out);
    } catch (err) {
      // The venue's own candles that a replay would refuse (one gap length almost every time: read as a
      // longer interval). The download is kept and said; not "bad input" (exit 2: nothing was sent).
      if (!(err instanceof ConfigError)) throw err;
      ctx.stderr(
        `hlbot data fetch: ${total} candles kept in ${outShown}, but simulate --prices would refuse the file: ${err.message}. ` +
          `These are the venue's own ${interval} candles: the pair traded in so regular a pattern (never in two candles in a row) that its file cannot be told from a longer interval's; ` +
          `a finer or coarser --interval may replay\n`,
      );
      ctx.exitCode = 1;
      return;
    }
    const gaps = files.candleGapWarning(written);
    if (gaps !== undefined) ctx.stderr(`note: ${gaps}\n`);
    ctx.stdout(
      `${total} candles (${added} new) of ${coin} ${interval}, ${iso(firstT!)} to ${iso(lastT!)} → ${outShown}\n`,
    );
  } finally {
    process.off("SIGINT", onSigint);
    await transport.close();
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The command that continues this download: the flags as given, defaults left out, and --out always
 * (the file it continues, even when it was the default name).
 */
export function resumeCommand(options: FetchOptions, out: string): string {
  const flags: Array<[string, string | undefined]> = [
    ["--coin", options.coin],
    ["--interval", options.interval],
    ["--from", options.from],
    ["--to", options.to],
    ["--network", options.network === "mainnet" ? undefined : options.network],
    // A credential in the URL (user:password@) is shown as [REDACTED]: never printed back.
    ["--base-url", options.baseUrl === undefined ? undefined : redact(options.baseUrl)],
    ["--page-size", options.pageSize === "5000" ? undefined : options.pageSize],
    ["--timeout", options.timeout],
    ["--out", out],
  ];
  return [
    "hlbot data fetch",
    ...flags.filter(([, v]) => v !== undefined).map(([f, v]) => `${f} ${shellWord(v!)}`),
  ].join(" ");
}

/** Why a candle cannot be written (the reader's rules), or undefined. */
function rowFault(
  c: VenueCandle,
  pricesFault: (p: { o: number; h: number; l: number; c: number }) => string | undefined,
): string | undefined {
  const p = { o: Number(c.o), h: Number(c.h), l: Number(c.l), c: Number(c.c) };
  for (const [name, v] of Object.entries(p))
    if (!(Number.isFinite(v) && v > 0)) return `${name}: expected a positive price, got ${JSON.stringify(v)}`;
  if (c.v !== undefined && !(Number(c.v) >= 0)) return `v: expected a non-negative volume, got ${c.v}`;
  if (c.n !== undefined && !(Number.isInteger(c.n) && c.n >= 0))
    return `n: expected a trade count, got ${JSON.stringify(c.n)}`;
  return pricesFault(p);
}

/**
 * The pair's venue name for `--coin`: a pair name ("@107", "PURR/USDC") as the venue lists it, "BASE/QUOTE"
 * by its tokens, a token name (HYPE) through spotMeta to its pair quoted in USDC (token index 0).
 */
async function resolvePair(
  client: import("../../venue/info/client.js").InfoClient,
  coin: string,
  signal: AbortSignal,
): Promise<string> {
  const meta = await client.spotMeta({}, signal);
  if (meta.universe.some((p) => p.name === coin)) return coin;
  if (coin.startsWith("@") || coin.includes("/")) {
    const [base, quote] = coin.split("/");
    const b = meta.tokens.find((t) => t.name === base);
    const q = meta.tokens.find((t) => t.name === quote);
    const pair =
      b && q ? meta.universe.find((p) => p.tokens[0] === b.index && p.tokens[1] === q.index) : undefined;
    if (pair) return pair.name;
    throw new ValidationError([{ path: "--coin", message: `no spot pair named ${coin} on the venue` }]);
  }
  const token =
    meta.tokens.find((t) => t.name === coin) ??
    meta.tokens.find((t) => t.name.toLowerCase() === coin.toLowerCase());
  if (!token) throw new ValidationError([{ path: "--coin", message: `no spot token or pair named ${coin}` }]);
  const pair = meta.universe.find((p) => p.tokens[0] === token.index && p.tokens[1] === 0);
  if (!pair)
    throw new ValidationError([
      { path: "--coin", message: `${token.name} has no pair quoted in USDC; name the pair instead` },
    ]);
  return pair.name;
}

/** A progress bar on stderr (only used when stderr is a terminal). */
async function progressBar(
  totalMs: number,
): Promise<{ update: (doneMs: number, rows: number) => void; stop: () => void }> {
  const bar = await stderrBar("downloading |{bar}| {percentage}% | {rows} candles");
  bar.start(totalMs, 0, { rows: 0 });
  let stopped = false;
  return {
    update(doneMs, rows) {
      bar.update(Math.max(0, Math.min(doneMs, totalMs)), { rows });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
