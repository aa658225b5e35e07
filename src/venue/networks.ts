// Network profiles: where requests go, and which chain signatures are made for. The two are separate on
// purpose: `--base-url` redirects every request (to the simulator, a proxy) but keeps the network's
// signing chain, so a body built for testnet is signed for testnet wherever it is sent.
import { ValidationError } from "../lib/errors.js";

export type NetworkName = "mainnet" | "testnet";

export interface NetworkProfile {
  name: NetworkName;
  apiUrl: string;
  /** The explorer host that serves `txDetails` on the real venue. */
  explorerUrl: string;
  /** `hyperliquidChain` of user-signed actions. */
  hyperliquidChain: "Mainnet" | "Testnet";
  /** `source` of the L1 phantom agent. */
  l1Source: "a" | "b";
  /**
   * Default `signatureChainId` of user-signed actions (the EIP-712 domain chain). Any value is valid
   * as long as the domain uses the same one; these are the ones the venue's own front end uses.
   */
  signatureChainId: `0x${string}`;
}

export const NETWORKS: Readonly<Record<NetworkName, NetworkProfile>> = {
  mainnet: {
    name: "mainnet",
    apiUrl: "https://api.hyperliquid.xyz",
    explorerUrl: "https://rpc.hyperliquid.xyz/explorer",
    hyperliquidChain: "Mainnet",
    l1Source: "a",
    signatureChainId: "0xa4b1",
  },
  testnet: {
    name: "testnet",
    apiUrl: "https://api.hyperliquid-testnet.xyz",
    explorerUrl: "https://rpc.hyperliquid-testnet.xyz/explorer",
    hyperliquidChain: "Testnet",
    l1Source: "b",
    signatureChainId: "0x66eee",
  },
};

export interface Endpoints {
  info: string;
  exchange: string;
  /** Where `txDetails` (and other explorer queries) are posted. */
  explorer: string;
}

export function parseNetworkName(value: string, field = "network"): NetworkName {
  if (value === "mainnet" || value === "testnet") return value;
  throw new ValidationError([
    { path: field, message: `expected "mainnet" or "testnet", got ${JSON.stringify(value)}` },
  ]);
}

/** Appends a path segment to a base URL, keeping any path prefix and query string the base has. */
export function joinUrl(base: string, segment: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${segment}`;
  return url.toString();
}

/**
 * Endpoints for a network, or for a custom base URL. With a custom base, every info query goes to
 * `{base}/info`, `txDetails` included (what the venue's docs say, and what the simulator serves), and
 * actions to `{base}/exchange`. `explorerUrl` (the full URL explorer queries are posted to) overrides
 * that for `txDetails`: the real explorer lives on another host than the API.
 */
export function resolveEndpoints(network: NetworkName, baseUrl?: string, explorerUrl?: string): Endpoints {
  if (explorerUrl !== undefined) checkHttpUrl(explorerUrl, "explorerUrl");
  if (baseUrl !== undefined) {
    checkHttpUrl(baseUrl, "baseUrl");
    const endpoint = endpointSuffix(baseUrl);
    if (endpoint !== undefined)
      throw new ValidationError([{ path: "baseUrl", message: baseUrlEndpointMessage(endpoint) }]);
    const info = joinUrl(baseUrl, "info");
    return { info, exchange: joinUrl(baseUrl, "exchange"), explorer: explorerUrl ?? info };
  }
  const profile = NETWORKS[network];
  return {
    info: joinUrl(profile.apiUrl, "info"),
    exchange: joinUrl(profile.apiUrl, "exchange"),
    explorer: explorerUrl ?? profile.explorerUrl,
  };
}

/**
 * The endpoint a base URL already ends in ("/info", "/exchange"): hlbot appends them, so such a base
 * posted to /info/info (a config trial copied `hlbot venue`'s banner and met a bare 404 at its first query).
 */
export function endpointSuffix(baseUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
  return /\/(info|exchange)$/i.exec(path)?.[0];
}

export function baseUrlEndpointMessage(endpoint: string): string {
  return `ends in ${endpoint}: give the base URL without it (http://127.0.0.1:3001, not http://127.0.0.1:3001${endpoint}); hlbot adds /info and /exchange itself`;
}

function checkHttpUrl(url: string, path: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not echoed past its scheme when it holds an "@": a password with "/" in it ("https://u:p/w@host")
    // does not parse, and the redaction filter, which reads URLs, would not see it as one (a security audit).
    const shown = url.includes("@") ? `${/^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? ""}[REDACTED]` : url;
    throw new ValidationError([{ path, message: `not a valid URL: ${JSON.stringify(shown)}` }]);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ValidationError([{ path, message: `expected an http(s) URL, got ${parsed.protocol}` }]);
  }
}
