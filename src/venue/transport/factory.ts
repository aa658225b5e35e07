// The one place a transport to the venue is built: every command and the bot's runtime give it
// the same settings (network, base and explorer URLs, timeout, read attempts, response cap, weight per
// minute) from the bot file and the command line, and it turns them into endpoints, a retry policy and a
// weight budget. What only one caller has (the simulator's in-process wire, the daemon's metrics
// observers, simulate's disabled budget) is passed as hooks beside the settings.
import { type NetworkName, resolveEndpoints } from "../networks.js";
import { WeightBudget } from "./budget.js";
import { HttpTransport, type ResponseEvent, type RetryEvent, type Wire } from "./http.js";

/** Where requests go and how they are bounded; undefined = the transport's default. */
export interface TransportSettings {
  network: NetworkName;
  /** Every request to {baseUrl}/info and {baseUrl}/exchange instead of the network's API. */
  baseUrl?: string | undefined;
  /** Full URL explorer queries (txDetails) are posted to. */
  explorerUrl?: string | undefined;
  /** Per-request timeout in ms (default 10 000). */
  timeoutMs?: number | undefined;
  /** Attempts per read, the first included (default 4). */
  readAttempts?: number | undefined;
  /** Largest response body read, in bytes (default 64 MiB). */
  maxResponseBytes?: number | undefined;
  /** IP weight budget per minute of this transport (default 1200). */
  weightPerMinute?: number | undefined;
}

export interface TransportHooks {
  /** Requests go through this instead of HTTP (the simulator's in-process venue; see HttpTransport). */
  wire?: Wire | undefined;
  /** Replaces the budget built from weightPerMinute; `null` disables it (simulate: time there is virtual). */
  budget?: WeightBudget | null | undefined;
  /** Told how long a request waited for the budget (metrics). */
  onBudgetWait?: ((waitedMs: number) => void) | undefined;
  /** Called after every HTTP exchange (metrics, the venue clock). */
  onResponse?: ((event: ResponseEvent) => void) | undefined;
  /** Called before each retry of a read. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** How to wait between attempts (simulate: its virtual clock; default real time). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

export function createTransport(settings: TransportSettings, hooks: TransportHooks = {}): HttpTransport {
  const endpoints = resolveEndpoints(settings.network, settings.baseUrl, settings.explorerUrl);
  const budget =
    hooks.budget !== undefined
      ? hooks.budget
      : new WeightBudget({
          ...(settings.weightPerMinute !== undefined ? { capacity: settings.weightPerMinute } : {}),
          ...(hooks.onBudgetWait ? { onWait: hooks.onBudgetWait } : {}),
        });
  return new HttpTransport({
    endpoints,
    budget,
    ...(hooks.wire ? { wire: hooks.wire } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.readAttempts !== undefined ? { retry: { attempts: settings.readAttempts } } : {}),
    ...(settings.maxResponseBytes !== undefined ? { maxResponseBytes: settings.maxResponseBytes } : {}),
    ...(hooks.onResponse ? { onResponse: hooks.onResponse } : {}),
    ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}),
    ...(hooks.sleep ? { sleep: hooks.sleep } : {}),
  });
}
