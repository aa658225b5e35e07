// `hlbot venue`: runs the embedded venue simulator standalone, in real time, on 127.0.0.1, so hlbot or
// any other Hyperliquid client can be pointed at it with a base URL. Prints the URL as the first line of
// stdout; SIGINT or SIGTERM stop it cleanly (exit 0). Bad flags exit 2 before anything starts; a port
// in use (or a host it cannot listen on) is one line naming --port (--host), exit 1.

import type { Command } from "commander";
import { parse as parseYaml } from "yaml";
import { HlbotError, ValidationError, type ValidationIssue } from "../../lib/errors.js";
import { MAX_SCENARIO_BYTES, readRegularTextFile } from "../../lib/readText.js";
import { ADDRESS_PATTERN } from "../../venue/constants.js";
import { nextCandleOpen } from "../../venue/info/methods/candleSnapshot.js";
import type { CliContext } from "../context.js";

interface VenueOptions {
  port?: string;
  host: string;
  scenario?: string;
  seed?: string;
  network: string;
  fund: string[];
}

export interface FundSpec {
  address: string;
  coin: string;
  amount: string;
}

const ADDRESS = ADDRESS_PATTERN;
const AMOUNT = /^\d+(\.\d+)?$/;
/** What one --fund value looks like, repeated in every error about it. */
const FUND_FORM = "ADDR:COIN=AMOUNT[,COIN=AMOUNT…] (e.g. 0xf39f…2266:HYPE=1000,USDC=5000)";

/** One --fund value is wrong: the issue names the option, the expected form, the value and why. */
function fundIssue(value: string, why: string): ValidationIssue {
  return { path: "--fund", message: `expected ${FUND_FORM}, got ${JSON.stringify(value)}: ${why}` };
}

/** Parses one `--fund ADDR:COIN=AMOUNT[,COIN=AMOUNT…]` value. */
export function parseFund(value: string): FundSpec[] {
  const issues: ValidationIssue[] = [];
  const colon = value.indexOf(":");
  const address = (colon < 0 ? value : value.slice(0, colon)).trim();
  if (!ADDRESS.test(address))
    issues.push(fundIssue(value, `ADDR ${JSON.stringify(address)} is not 0x followed by 40 hex digits`));
  const out: FundSpec[] = [];
  const list = colon < 0 ? "" : value.slice(colon + 1);
  // An address alone (no colon) used to fund nothing without a word.
  if (list.trim() === "" && issues.length === 0)
    issues.push(fundIssue(value, "no COIN=AMOUNT after the address"));
  for (const part of list.split(",").filter((p) => p.trim() !== "")) {
    const [coin, amount, extra] = part.split("=").map((s) => s.trim());
    if (!coin || amount === undefined || extra !== undefined)
      issues.push(fundIssue(value, `${JSON.stringify(part.trim())} is not COIN=AMOUNT`));
    else if (!AMOUNT.test(amount))
      issues.push(
        fundIssue(value, `the ${coin} amount ${JSON.stringify(amount)} is not a plain decimal (1000, 0.5)`),
      );
    else out.push({ address: address.toLowerCase(), coin, amount });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
}

/** The --fund coins the scenario has no token for, as one issue per value (checked before funding). */
export function unknownFundCoins(values: readonly string[], tokens: readonly string[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const value of values) {
    const unknown = parseFund(value)
      .map((f) => f.coin)
      .filter((coin) => !tokens.includes(coin));
    if (unknown.length > 0)
      issues.push(
        fundIssue(
          value,
          `${unknown.join(", ")} ${unknown.length === 1 ? "is not a token" : "are not tokens"} of the scenario (${tokens.join(", ")})`,
        ),
      );
  }
  return issues;
}

/**
 * The one-line error for a port or host the venue cannot listen on (Node's listen error codes), naming
 * the option that changes it; undefined for any other failure.
 */
export function listenProblem(err: unknown, host: string, port: number | undefined): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = port === undefined || port === 0 ? host : `${host}:${port}`;
  if (code === "EADDRINUSE")
    return `cannot listen on ${where}: port ${port} is already in use (another hlbot venue?); choose another with --port N, or leave --port out for a free one`;
  if (code === "EACCES")
    return `cannot listen on ${where}: not permitted (ports below 1024 need privileges); choose another with --port N, or leave --port out for a free one`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return `cannot listen on ${where}: ${host} is not an address of this machine; choose another with --host (default 127.0.0.1)`;
  return undefined;
}

/** The venue could not listen on the port or host asked for. Exit code 1, like other runtime failures. */
export class ListenError extends HlbotError {
  readonly code = "LISTEN";
  readonly family = "internal";
}

function parseIntFlag(value: string | undefined, flag: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > max)
    throw new ValidationError([
      { path: flag, message: `expected an integer from 0 to ${max}, got ${JSON.stringify(value)}` },
    ]);
  return Number(value);
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command("venue")
    .description(
      "run the venue simulator standalone (a local Hyperliquid, on 127.0.0.1 unless --host, real time)",
    )
    .option("--port <n>", "TCP port (default: a free port)")
    .option(
      "--host <addr>",
      "interface to listen on (0.0.0.0 inside a container, so other containers reach it)",
      "127.0.0.1",
    )
    .option("--scenario <file>", "scenario YAML (default: the bundled config/scenarios/demo.yaml)")
    .option("--seed <n>", "seed of prices, randomised TWAPs and faults (default: the scenario's)")
    .option("--network <name>", "which chain's signatures to accept: mainnet or testnet", "testnet")
    .option(
      "--fund <spec>",
      "credit spot balances: ADDR:COIN=AMOUNT[,COIN=AMOUNT…] (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .addHelpText(
      "after",
      "\nExample:\n  hlbot venue --port 8547 --fund 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266:HYPE=1000,USDC=5000\n" +
        "Point a client at the printed URL (e.g. `hlbot info spotMeta --base-url <url>`).\n" +
        "Exit codes: 0 stopped by Ctrl-C or SIGTERM, 2 bad flags or scenario (nothing started), " +
        "1 cannot listen on --port/--host (in use, not permitted) or another failure.",
    )
    .action(async (options: VenueOptions) => {
      const port = parseIntFlag(options.port, "--port", 65_535);
      const seed = parseIntFlag(options.seed, "--seed", 2 ** 32 - 1);
      const { parseNetworkName } = await import("../../venue/networks.js");
      const network = parseNetworkName(options.network, "--network");
      const funds = options.fund.flatMap(parseFund);
      const host = options.host.trim();
      if (host === "")
        throw new ValidationError([{ path: "--host", message: "expected an address to listen on" }]);
      // A key pasted here (64 hex digits, the key not in this command's environment to be recognised)
      // would be echoed by the listen error: refused without it (a security audit).
      if (/^(0x)?[0-9a-f]{64}$/i.test(host))
        throw new ValidationError([
          {
            path: "--host",
            message: "expected an address to listen on, got 64 hex digits (a private key?); not echoed",
          },
        ]);

      const { startSimulator } = await import("../../simulator/index.js");
      const startedAt = Date.now();
      // TWAP ids from this start's second on, unless the scenario numbers them: a venue restarted under a
      // running bot numbered its TWAPs from 1000 again, and the bot took a new TWAP for an old one of the
      // same id (an operator's trial: a running TWAP reconciled "did not land", credited to another
      // strategy, its end never told). The real venue's ids are never reused.
      const numbered = options.scenario !== undefined && numbersTwaps(options.scenario);
      const sim = await startSimulator({
        clock: "real",
        network,
        ...(numbered ? {} : { settings: { twapIdStart: Math.floor(startedAt / 1000) } }),
        ...(options.scenario === undefined ? {} : { scenario: options.scenario }),
        ...(seed === undefined ? {} : { seed }),
        ...(port === undefined ? {} : { port }),
        host,
      }).catch((err: unknown) => {
        const problem = listenProblem(err, host, port);
        throw problem === undefined ? err : new ListenError(problem, { cause: err });
      });
      try {
        // An event dated before now is refused with its file and line, as simulate refuses one before its
        // run (a docs trial: the venue applied a past price jump silently at start).
        const { checkEventsNotBefore } = await import("../../simulator/scenario.js");
        checkEventsNotBefore(sim.core.scenario, startedAt, options.scenario ?? "scenario", "");
        const unknown = unknownFundCoins(
          options.fund,
          sim.tokens().map((t) => t.name),
        );
        if (unknown.length > 0) throw new ValidationError(unknown);
        for (const f of funds) sim.fund(f.address, f.coin, f.amount);
      } catch (err) {
        await sim.stop();
        throw err;
      }
      ctx.stdout(`${sim.url}\n`);
      // Candle files the scenario replays: their gaps are said once, as simulate says them.
      const { candleGapWarning } = await import("../../simulator/candles.js");
      for (const path of Object.values(sim.core.scenario.prices)) {
        if (!path || !("candles" in path)) continue;
        const gaps = candleGapWarning(path.candles);
        if (gaps !== undefined) ctx.stderr(`warning: ${gaps}\n`);
        // The venue runs on this machine's clock: candles that ended before it started give it no moving
        // price, only their last close (a history trial: not said, which read as a replay).
        const c = path.candles;
        const end = nextCandleOpen(c.interval, c.candles[c.candles.length - 1]!.t);
        if (end <= startedAt)
          ctx.stderr(
            `warning: the ${c.interval} candles of ${c.coin} (${c.file}) end ${new Date(end).toISOString()}, before now: this venue runs on this machine's clock, so ${c.coin}'s price holds their last close (candleSnapshot still serves them as history). To replay them, use hlbot simulate (--prices, or the scenario's prices:)\n`,
          );
      }
      ctx.stderr(
        `hlbot venue: simulating ${sim.scenarioName} (${network} signatures, seed ${sim.seed}); ` +
          `base URL ${sim.url} (give it as --base-url or baseUrl: hlbot posts to its /info and /exchange). Ctrl-C to stop.\n`,
      );
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        const stop = (s: NodeJS.Signals) => {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
          resolve(s);
        };
        process.on("SIGINT", stop);
        process.on("SIGTERM", stop);
      });
      await sim.stop();
      ctx.stderr(`hlbot venue: stopped (${signal})\n`);
    });
}

/** Whether a scenario file sets its own TWAP ids (settings.twapIdStart); one that cannot be read is the loader's to refuse. */
function numbersTwaps(file: string): boolean {
  try {
    // The key itself, not the word (a review: a comment naming it turned the numbering off).
    // Checked as the loader reads it: `--scenario /dev/zero` was read here until the process aborted.
    const doc = parseYaml(readRegularTextFile(file, MAX_SCENARIO_BYTES, { prefix: "scenario: " })) as {
      settings?: { twapIdStart?: unknown };
    } | null;
    return doc?.settings?.twapIdStart !== undefined;
  } catch {
    return false;
  }
}
