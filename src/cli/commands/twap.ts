// `hlbot twap buy|sell` and `hlbot twap-cancel`: one spot TWAP order or its cancellation (L1-signed,
// so an API wallet may sign, also for a sub-account or vault with --vault). The asset id is resolved
// from spotMeta: 10000 + the index of the pair whose tokens are [the coin's token, USDC]; --asset
// skips that lookup, and with --sz-decimals as well a dry run needs no network at all (offline signing).
// Whenever spotMeta is read, what the flags say must agree with it: --coin and --asset naming different
// pairs, or a --sz-decimals other than the token's, are refused (a wrong-token order, a size the venue
// would cut differently).
import { Argument, type Command } from "commander";
import { ValidationError } from "../../lib/errors.js";
import { SPOT_ASSET_OFFSET } from "../../venue/constants.js";
import type { SpotMetaResponse } from "../../venue/info/methods/spotMeta.js";
import type { CliContext } from "../context.js";
import { addManualOptions, type ManualCommonOptions } from "../manualOptions.js";
import { parseAddress, parseAmountText, parseInteger } from "../options.js";

/** Spot asset ids are 10000 + the pair's index. */
export { SPOT_ASSET_OFFSET };

/** USDC is spot token 0 on both networks; looked up by name first in case that ever changes. */
const QUOTE_TOKEN = "USDC";

export interface SpotAsset {
  asset: number;
  /** Size precision of the base token. */
  szDecimals: number;
  /** The venue's pair name ("PURR/USDC", "@107"). */
  pair: string;
  /** The base token's name. */
  base: string;
}

/**
 * Finds the spot asset for a coin symbol (its pair against USDC), or describes an asset id. Given both,
 * they must name the same pair: --asset does not silently win over --coin.
 */
export function resolveSpotAsset(meta: SpotMetaResponse, by: { coin?: string; asset?: number }): SpotAsset {
  if (by.asset !== undefined && by.coin !== undefined && by.coin !== "") {
    const fromAsset = resolveSpotAsset(meta, { asset: by.asset });
    const fromCoin = resolveSpotAsset(meta, { coin: by.coin });
    if (fromAsset.asset !== fromCoin.asset) {
      throw new ValidationError([
        {
          path: "--coin/--asset",
          message: `--coin ${by.coin} is ${fromCoin.pair} (asset ${fromCoin.asset}) but --asset ${by.asset} is ${fromAsset.base} (${fromAsset.pair}); give one of them, or two that name the same market`,
        },
      ]);
    }
    return fromAsset;
  }
  const tokenByIndex = new Map(meta.tokens.map((t) => [t.index, t]));
  if (by.asset !== undefined) {
    const pair = meta.universe.find((p) => p.index === by.asset! - SPOT_ASSET_OFFSET);
    const base = pair ? tokenByIndex.get(pair.tokens[0]) : undefined;
    if (!pair || !base) {
      throw new ValidationError([
        { path: "--asset", message: `no spot pair has asset id ${by.asset} in spotMeta` },
      ]);
    }
    return { asset: by.asset, szDecimals: base.szDecimals, pair: pair.name, base: base.name };
  }
  const coin = by.coin ?? "";
  const exact = meta.tokens.filter((t) => t.name === coin);
  const folded =
    exact.length > 0 ? exact : meta.tokens.filter((t) => t.name.toLowerCase() === coin.toLowerCase());
  if (folded.length !== 1) {
    throw new ValidationError([
      {
        path: "--coin",
        message:
          folded.length === 0
            ? `no spot token named ${JSON.stringify(coin)} in spotMeta`
            : `${JSON.stringify(coin)} matches several spot tokens; use the exact name or --asset`,
      },
    ]);
  }
  const token = folded[0]!;
  const quoteIndex = meta.tokens.find((t) => t.name === QUOTE_TOKEN)?.index ?? 0;
  const pair = meta.universe.find((p) => p.tokens[0] === token.index && p.tokens[1] === quoteIndex);
  if (!pair) {
    throw new ValidationError([
      { path: "--coin", message: `no ${token.name}/${QUOTE_TOKEN} spot pair in spotMeta` },
    ]);
  }
  return {
    asset: SPOT_ASSET_OFFSET + pair.index,
    szDecimals: token.szDecimals,
    pair: pair.name,
    base: token.name,
  };
}

interface TwapOptions extends ManualCommonOptions {
  coin?: string;
  asset?: string;
  szDecimals?: string;
  size?: string;
  minutes?: string;
  randomize?: boolean;
  reduceOnly?: boolean;
  vault?: string;
  twapId?: string;
}

function addCommon(command: Command): void {
  command
    .option("--coin <symbol>", "spot token symbol, e.g. HYPE (traded against USDC)")
    .option(
      "--asset <id>",
      "asset id (10000 + spot pair index); with --coin as well, both must name the same pair",
    )
    .option("--vault <address>", "act for this sub-account or vault (vaultAddress)");
  addManualOptions(command);
}

/** A --sz-decimals that is not the token's: the venue would cut the size at other decimals. */
function szDecimalsIssue(given: number, venue: { base: string; pair: string; szDecimals: number }) {
  return {
    path: "--sz-decimals",
    message: `${given} differs from spotMeta's szDecimals ${venue.szDecimals} for ${venue.base} (${venue.pair}); drop --sz-decimals (it is read from the venue) or give ${venue.szDecimals}`,
  };
}

function assetArgs(options: TwapOptions): { coin?: string; asset?: number } {
  const asset =
    options.asset === undefined ? undefined : parseInteger(options.asset, "--asset", SPOT_ASSET_OFFSET);
  if (asset === undefined && (options.coin === undefined || options.coin.trim() === "")) {
    throw new ValidationError([{ path: "--coin", message: "give --coin SYMBOL or --asset ID" }]);
  }
  const coin = options.coin?.trim();
  return { coin: coin === "" ? undefined : coin, asset };
}

export function register(program: Command, ctx: CliContext): void {
  const twap = program
    .command("twap")
    .description("place a spot TWAP order (twapOrder): one slice every 30 s for --minutes")
    .addArgument(new Argument("<side>", "buy or sell").choices(["buy", "sell"]))
    .requiredOption(
      "--size <n>",
      "total size in base units; truncated (never rounded up) to the token's szDecimals",
    )
    .requiredOption("--minutes <m>", "duration in minutes (at least 5)")
    .option("--randomize", "randomize slice timing and size")
    .option("--reduce-only", "reduce-only")
    .option(
      "--sz-decimals <n>",
      "size decimals of the token, for signing offline: with --asset, a dry run reads no spotMeta (unchecked then); refused when it differs from spotMeta's wherever that is read (--coin, --live, a bot config)",
    );
  addCommon(twap);
  twap.action(async (side: "buy" | "sell", options: TwapOptions) => {
    const { runManualAction } = await import("../manualAction.js");
    await runManualAction(ctx, { ...options, command: twap }, async ({ info, note }) => {
      const by = assetArgs(options);
      const size = parseAmountText(options.size, "--size");
      const minutes = parseInteger(options.minutes ?? "", "--minutes", 1);
      const vault = options.vault === undefined ? undefined : parseAddress(options.vault, "--vault");
      let szDecimals =
        options.szDecimals === undefined ? undefined : parseInteger(options.szDecimals, "--sz-decimals");
      let asset = by.asset;
      // --asset with --sz-decimals needs no lookup; any other combination reads spotMeta, and then the
      // flags must agree with it. (Where no lookup is made, the engine checks when it values the order.)
      if (asset === undefined || szDecimals === undefined || by.coin !== undefined) {
        const resolved = resolveSpotAsset(await info().spotMeta(), by);
        if (szDecimals !== undefined && szDecimals !== resolved.szDecimals)
          throw new ValidationError([szDecimalsIssue(szDecimals, resolved)]);
        asset = resolved.asset;
        szDecimals = resolved.szDecimals;
        note(
          `${resolved.base} (${resolved.pair}): asset ${resolved.asset}, szDecimals ${resolved.szDecimals}`,
        );
      }
      const { parseDecimal, toWireDecimal, truncateDecimals } = await import("../../lib/decimal.js");
      const requested = parseDecimal(size, "--size");
      const truncated = truncateDecimals(requested, szDecimals);
      if (!truncated.gt(0)) {
        // Refused here, naming the flag, rather than announced as "truncated to 0" and refused later.
        throw new ValidationError([
          {
            path: "--size",
            message: `${toWireDecimal(requested)} is less than one lot (${szDecimals} decimal places)`,
          },
        ]);
      }
      if (!truncated.eq(requested)) {
        note(
          `size ${toWireDecimal(requested)} truncated to ${toWireDecimal(truncated)} (${szDecimals} decimals)`,
        );
      }
      return {
        type: "twapOrder",
        params: {
          asset,
          isBuy: side === "buy",
          size,
          szDecimals,
          minutes,
          randomize: options.randomize === true,
          reduceOnly: options.reduceOnly === true,
        },
        vaultAddress: vault,
      };
    });
  });

  const cancel = program
    .command("twap-cancel")
    .description("cancel a running TWAP order (twapCancel)")
    .requiredOption("--twap-id <n>", "the twapId returned when the TWAP was placed");
  addCommon(cancel);
  cancel.action(async (options: TwapOptions) => {
    const { runManualAction } = await import("../manualAction.js");
    await runManualAction(ctx, { ...options, command: cancel }, async ({ info }) => {
      const by = assetArgs(options);
      const twapId = parseInteger(options.twapId ?? "", "--twap-id");
      const vault = options.vault === undefined ? undefined : parseAddress(options.vault, "--vault");
      // Given --coin (alone or with --asset, which must then agree), the pair comes from spotMeta.
      const asset = by.coin === undefined ? by.asset! : resolveSpotAsset(await info().spotMeta(), by).asset;
      return { type: "twapCancel", params: { asset, twapId }, vaultAddress: vault };
    });
  });
}
