// The venue transport of a bot configuration: the bot file's network, URLs and `venue:` bounds, with
// what the command line overrides (--base-url, --explorer-url, --timeout, --network). Every command that
// has a bot file reaches the venue through this, so a weight budget or a timeout set there holds for
// `status`, the manual actions and `simulate --fork` as for the bot itself.
import type { NetworkName } from "../venue/networks.js";
import { createTransport, type TransportHooks, type TransportSettings } from "../venue/transport/factory.js";
import type { HttpTransport } from "../venue/transport/http.js";
import type { LoadedConfig } from "./config/loader.js";

export interface TransportFlags {
  /**
   * Another network than the bot file's (`simulate --fork --network`): the file's baseUrl and
   * explorerUrl, which belong to its own network, no longer apply.
   */
  network?: NetworkName | undefined;
  baseUrl?: string | undefined;
  explorerUrl?: string | undefined;
  timeoutMs?: number | undefined;
}

export function transportSettings(config: LoadedConfig, flags: TransportFlags = {}): TransportSettings {
  const ownNetwork = flags.network === undefined;
  return {
    network: flags.network ?? config.network,
    baseUrl: flags.baseUrl ?? (ownNetwork ? config.baseUrl : undefined),
    explorerUrl: flags.explorerUrl ?? (ownNetwork ? config.explorerUrl : undefined),
    timeoutMs: flags.timeoutMs ?? config.venue.timeoutMs,
    readAttempts: config.venue.readAttempts,
    maxResponseBytes: config.venue.maxResponseBytes,
    weightPerMinute: config.venue.weightPerMinute,
  };
}

/** A transport for this configuration (see createTransport); the caller closes it. */
export function configTransport(
  config: LoadedConfig,
  flags: TransportFlags = {},
  hooks: TransportHooks = {},
): HttpTransport {
  return createTransport(transportSettings(config, flags), hooks);
}
