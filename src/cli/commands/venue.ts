// `hlbot venue`: runs the embedded venue simulator standalone, in real time, on 127.0.0.1, so hlbot or
// any other Hyperliquid client can be pointed at it with a base URL. Prints the URL as the first line of
// stdout; SIGINT or SIGTERM stop it cleanly (exit 0). Bad flags exit 2 before anything starts.
import type { Command } from "commander";
import { ValidationError, type ValidationIssue } from "../../lib/errors.js";
import { ADDRESS_PATTERN } from "../../venue/constants.js";
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

/** Parses one `--fund ADDR:COIN=AMOUNT[,COIN=AMOUNT…]` value. */
export function parseFund(value: string): FundSpec[] {
  const issues: ValidationIssue[] = [];
  const colon = value.indexOf(":");
  const address = colon < 0 ? value : value.slice(0, colon);
  if (!ADDRESS.test(address))
    issues.push({
      path: "--fund",
      message: `expected ADDR:COIN=AMOUNT with a 0x address, got ${JSON.stringify(value)}`,
    });
  const out: FundSpec[] = [];
  const list = colon < 0 ? "" : value.slice(colon + 1);
  if (colon >= 0 && list.trim() === "")
    issues.push({ path: "--fund", message: `no COIN=AMOUNT after ${address}` });
  for (const part of list.split(",").filter((p) => p.trim() !== "")) {
    const [coin, amount, extra] = part.split("=").map((s) => s.trim());
    if (!coin || amount === undefined || extra !== undefined || !AMOUNT.test(amount)) {
      issues.push({
        path: "--fund",
        message: `expected COIN=AMOUNT (a plain decimal), got ${JSON.stringify(part)}`,
      });
      continue;
    }
    out.push({ address: address.toLowerCase(), coin, amount });
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return out;
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
      "interface to listen on (default 127.0.0.1; 0.0.0.0 inside a container, so other containers reach it)",
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
        "Point a client at the printed URL (e.g. `hlbot info spotMeta --base-url <url>`).",
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

      const { startSimulator } = await import("../../simulator/index.js");
      const sim = await startSimulator({
        clock: "real",
        network,
        ...(options.scenario === undefined ? {} : { scenario: options.scenario }),
        ...(seed === undefined ? {} : { seed }),
        ...(port === undefined ? {} : { port }),
        host,
      });
      try {
        for (const f of funds) sim.fund(f.address, f.coin, f.amount);
      } catch (err) {
        await sim.stop();
        throw err;
      }
      ctx.stdout(`${sim.url}\n`);
      ctx.stderr(
        `hlbot venue: simulating ${sim.scenarioName} (${network} signatures, seed ${sim.seed}); ` +
          `POST ${sim.url}/info, /exchange, /explorer. Ctrl-C to stop.\n`,
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
