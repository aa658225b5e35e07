// `hlbot info <type>`: one info query against the venue (or a simulator via --base-url), printed as the
// validated JSON answer. Bad arguments exit 2 before anything is sent; venue and network failures exit
// 1 with a one-line reason. The venue modules are imported inside the action so `hlbot --help` stays
// fast; the table below (kept equal to the registry by a test) is all `--help` needs.
import type { Command } from "commander";
import { ValidationError, type ValidationIssue } from "../../lib/errors.js";
import { redact } from "../../lib/secrets.js";
import type { CliContext } from "../context.js";

type Flag = "--user" | "--token-id" | "--hash" | "--dex" | "--req";

interface TypeHelp {
  /** Flags the query takes; optional ones are marked. */
  args: ReadonlyArray<{ flag: Flag; required: boolean }>;
  summary: string;
}

const user = [{ flag: "--user", required: true }] as const;

/** The info types and their arguments, as `--help` shows them. */
export const INFO_HELP: Readonly<Record<string, TypeHelp>> = {
  tokenDetails: {
    args: [{ flag: "--token-id", required: true }],
    summary: "supply, prices and genesis of a spot token",
  },
  referral: { args: user, summary: "referrer, referral rewards and referrer stage" },
  spotClearinghouseState: {
    args: [...user, { flag: "--dex", required: false }],
    summary: "spot balances",
  },
  delegatorHistory: { args: user, summary: "staking events (delegate, cDeposit, withdrawal)" },
  validatorSummaries: { args: [], summary: "all validators: stake, commission, uptime, APR" },
  subAccounts2: { args: user, summary: "sub-accounts with perp and spot state (null if none)" },
  userToMultiSigSigners: { args: user, summary: "multi-sig signers and threshold (null if none)" },
  txDetails: { args: [{ flag: "--hash", required: true }], summary: "one transaction by hash (explorer)" },
  isVip: { args: user, summary: "VIP flag (true, false or null)" },
  spotMeta: { args: [], summary: "spot tokens and pairs" },
  allMids: { args: [{ flag: "--dex", required: false }], summary: "mid price of every coin" },
  spotMetaAndAssetCtxs: { args: [], summary: "spot tokens and pairs with prices and volumes" },
  delegations: { args: user, summary: "stake per validator with lock expiry" },
  delegatorSummary: { args: user, summary: "delegated, undelegated, pending withdrawals" },
  delegatorRewards: { args: user, summary: "staking rewards" },
  twapHistory: { args: user, summary: "TWAP orders with state and status (timeMs in ms)" },
  userTwapSliceFills: { args: user, summary: "fills of TWAP suborders" },
  openOrders: {
    args: [...user, { flag: "--dex", required: false }],
    summary: "resting orders (perp and spot)",
  },
  userFees: { args: user, summary: "fee rates, schedule, volume and staking link" },
  userRole: { args: user, summary: "account kind: missing, user, vault, agent, subAccount" },
  candleSnapshot: {
    args: [{ flag: "--req", required: true }],
    summary: "OHLCV candles (≤5000; see `hlbot data fetch`)",
  },
};

const PLACEHOLDER: Readonly<Record<Flag, string>> = {
  "--user": "ADDR",
  "--token-id": "ID",
  "--hash": "HASH",
  "--dex": "NAME",
  "--req": "JSON",
};

/** Request field ↔ command-line flag. */
export const FLAG_OF_FIELD: Readonly<Record<string, Flag>> = {
  user: "--user",
  tokenId: "--token-id",
  hash: "--hash",
  dex: "--dex",
  req: "--req",
};

interface InfoOptions {
  user?: string;
  tokenId?: string;
  hash?: string;
  dex?: string;
  req?: string;
  network?: string;
  baseUrl?: string;
  explorerUrl?: string;
  timeout?: string;
}

function typesHelp(): string {
  const width = Math.max(...Object.keys(INFO_HELP).map((t) => t.length));
  const lines = Object.entries(INFO_HELP).map(([type, help]) => {
    const args = help.args
      .map((a) => (a.required ? `${a.flag} ${PLACEHOLDER[a.flag]}` : `[${a.flag} ${PLACEHOLDER[a.flag]}]`))
      .join(" ");
    return `  ${type.padEnd(width)}  ${args.padEnd(24)}  ${help.summary}`;
  });
  return [
    "",
    "Query types and their arguments:",
    ...lines,
    "",
    "Addresses are 0x + 40 hex digits, token ids 0x + 32, transaction hashes 0x + 64.",
    "--req is candleSnapshot's request as JSON: coin (a pair's venue name), interval, startTime and",
    "optional endTime in unix ms; `hlbot data fetch` pages through longer histories into a file.",
    "With --base-url every query (txDetails included) is posted to {base}/info.",
    "Exit codes: 0 success, 2 bad input (nothing sent), 1 venue or network failure.",
  ].join("\n");
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command("info")
    .description("run one info query and print the validated answer as JSON")
    .argument("<type>", "query type (listed below)")
    .option("--user <address>", "user address (0x + 40 hex digits)")
    .option("--token-id <id>", "token id from spotMeta (0x + 32 hex digits)")
    .option("--hash <hash>", "transaction hash (0x + 64 hex digits)")
    .option("--dex <name>", 'perp dex name ("" is the main dex)')
    .option("--req <json>", 'candleSnapshot request, e.g. \'{"coin":"@107","interval":"1h","startTime":0}\'')
    .option(
      "--network <name>",
      "mainnet or testnet (default: the bot file's network (one that does not load is refused), else testnet)",
    )
    .option("--base-url <url>", "send every request to this base URL instead (e.g. the simulator)")
    .option("--explorer-url <url>", "post explorer queries (txDetails) to this URL instead")
    .option("--timeout <ms>", "per-request timeout in milliseconds (default 10000)")
    .addHelpText("after", typesHelp())
    .action(async (type: string, options: InfoOptions) => {
      await runInfo(type, options, ctx);
    });
}

async function runInfo(type: string, options: InfoOptions, ctx: CliContext): Promise<void> {
  const help = INFO_HELP[type];
  if (!help) {
    const { didYouMean } = await import("../../engine/config/issues.js");
    const guess = didYouMean(type, Object.keys(INFO_HELP));
    throw new ValidationError([
      {
        path: "type",
        message: `unknown info type ${JSON.stringify(type)}${guess === undefined ? "" : ` (did you mean "${guess}"?)`}; one of: ${Object.keys(INFO_HELP).join(", ")}`,
      },
    ]);
  }
  const given: Record<string, string | undefined> = {
    user: options.user,
    tokenId: options.tokenId,
    hash: options.hash,
    dex: options.dex,
    req: options.req,
  };
  const accepted = new Set(help.args.map((a) => a.flag));
  const params: Record<string, unknown> = {};
  const misplaced: ValidationIssue[] = [];
  for (const [field, value] of Object.entries(given)) {
    if (value === undefined) continue;
    const flag = FLAG_OF_FIELD[field]!;
    if (!accepted.has(flag)) misplaced.push({ path: flag, message: `not used by ${type}` });
    // A hash-shaped argument that is in fact the signing key must not travel to the venue.
    else if (redact(value) !== value)
      misplaced.push({ path: flag, message: "this is a secret (the signing key), not a query argument" });
    else if (field === "req") params[field] = parseReqFlag(value);
    else params[field] = value;
  }
  if (misplaced.length > 0) throw new ValidationError(misplaced);
  const timeoutMs = options.timeout === undefined ? undefined : parseTimeout(options.timeout);

  const [
    { parseNetworkName, resolveEndpoints },
    { INFO_METHODS, isInfoType },
    query,
    { createTransport },
    json,
  ] = await Promise.all([
    import("../../venue/networks.js"),
    import("../../venue/info/methods/index.js"),
    import("../../venue/info/query.js"),
    import("../../venue/transport/factory.js"),
    import("../../lib/json.js"),
  ]);
  if (!isInfoType(type)) throw new ValidationError([{ path: "type", message: `unknown info type ${type}` }]);
  const { botFileVenue } = await import("../bot.js");
  const fromFile = await botFileVenue(ctx, options);
  const network = parseNetworkName(options.network ?? fromFile?.network ?? "testnet", "--network");
  const baseUrl = options.baseUrl ?? fromFile?.baseUrl;
  const explorerUrl = options.explorerUrl ?? fromFile?.explorerUrl;
  resolveEndpoints(network, baseUrl, explorerUrl); // bad URLs are refused here, first
  const spec = INFO_METHODS[type];
  // Validate the whole request before a transport exists: bad input never reaches the network.
  try {
    query.buildInfoRequest(spec, params as never);
  } catch (err) {
    if (err instanceof ValidationError) throw asFlagError(err);
    throw err;
  }

  const transport = createTransport({
    network,
    baseUrl,
    explorerUrl,
    timeoutMs,
  });
  try {
    const result = await query.runInfoQuery(transport, spec, params as never);
    ctx.stdout(`${redact(json.stringifyJson(result, 2))}\n`);
  } finally {
    await transport.close();
  }
}

function parseTimeout(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value <= 0) {
    throw new ValidationError([
      {
        path: "--timeout",
        message: `expected a positive number of milliseconds, got ${JSON.stringify(text)}`,
      },
    ]);
  }
  return value;
}

/** Renames request fields to the flags the user typed (`user` → `--user`). */
function asFlagError(err: ValidationError): ValidationError {
  return new ValidationError(
    err.issues.map((i) => {
      const [head, ...rest] = i.path.split(".");
      const flag = head === undefined ? undefined : FLAG_OF_FIELD[head];
      return { path: flag ? [flag, ...rest].join(".") : i.path, message: i.message };
    }),
    { cause: err },
  );
}

/** The JSON object of `--req` (candleSnapshot's nested request). */
function parseReqFlag(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([
      { path: "--req", message: `expected a JSON object, got ${JSON.stringify(text)}` },
    ]);
  }
}
