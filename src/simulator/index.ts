// The embedded venue simulator: a local Hyperliquid for tests, demos and simulations (like Anvil for
// Ethereum). `startSimulator` serves it over HTTP on 127.0.0.1; `createSimulator` gives the same handle
// without a socket (requests go through the same pipeline in-process, for `hlbot simulate`).
//
//   const sim = await startSimulator({ seed: 7 });          // virtual clock, demo scenario, testnet
//   const transport = createTransport({ network: "testnet", baseUrl: sim.url });
//   sim.advance(10 * 60_000);                                // ten virtual minutes, in milliseconds
//   await sim.stop();
import { type Decimal, fromWei } from "../lib/decimal.js";
import { parseJson, stringifyJson } from "../lib/json.js";
import type { Wire } from "../venue/transport/http.js";
import type { Clock } from "./clock.js";
import {
  type BalanceView,
  normalizeAddress,
  type SettingsInput,
  VenueCore,
  type VenueOptions,
} from "./core.js";
import type { MessageOverrides } from "./errors.js";
import type { Endpoint } from "./faults.js";
import { processRequest, type RawResponse, serveVenue, type VenueHttpServer } from "./http.js";
import type { LedgerEntry, LedgerKind } from "./ledger.js";
import type { RateLimitConfig } from "./ratelimit.js";
import { baselineDayVolume, type FaultsInput } from "./scenario.js";
import type { StakingAccount, Validator, ValidatorPatch } from "./staking.js";
import { type BookModel, bookModel, type Twap } from "./twap.js";

export interface SimulatorOptions extends VenueOptions {
  /** TCP port (0 or absent: a free port). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
}

export interface StakingView {
  undelegated: Decimal;
  delegations: { validator: string; amount: Decimal; lockedUntil: number }[];
  pendingWithdrawals: { amount: Decimal; initiatedAt: number; finalizesAt: number }[];
  raw: StakingAccount | undefined;
}

/** In-process answer: status, content type, and the body parsed as JSON when it is JSON. */
export interface LocalResponse {
  status: number;
  contentType: string;
  text: string;
  body: unknown;
  dropped: boolean;
}

export class Simulator {
  /** Base URL (`http://127.0.0.1:PORT`) when served over HTTP, else undefined. */
  readonly url: string | undefined;
  readonly port: number | undefined;

  constructor(
    /** The venue's internals, for the simulator's own tests; everything else uses the methods below. */
    readonly core: VenueCore,
    private readonly server: VenueHttpServer | undefined,
  ) {
    this.url = server?.url;
    this.port = server?.port;
  }

  get clock(): Clock {
    return this.core.clock;
  }

  get network(): VenueCore["network"] {
    return this.core.network;
  }

  get seed(): number {
    return this.core.seed;
  }

  now(): number {
    return this.core.now();
  }

  /** Virtual clock only: moves time forward, running every TWAP slice, reward and queue event due. */
  advance(ms: number): void {
    this.core.advance(ms);
  }

  advanceTo(t: number): void {
    this.core.advance(Math.max(0, t - this.now()));
  }

  // ---- in-process requests ---------------------------------------------------------------------

  /** Sends a body through the full pipeline (rate limit, faults, 422 rule) without a socket. */
  request(endpoint: Endpoint, body: unknown, ip = "in-process"): LocalResponse {
    const raw: RawResponse = processRequest(
      this.core,
      endpoint,
      typeof body === "string" ? body : stringifyJson(body),
      ip,
    );
    let parsed: unknown;
    try {
      parsed = raw.contentType.startsWith("application/json") ? parseJson(raw.text) : undefined;
    } catch {
      parsed = undefined;
    }
    return {
      status: raw.status,
      contentType: raw.contentType,
      text: raw.text,
      body: parsed,
      dropped: raw.drop,
    };
  }

  /**
   * The venue as a transport's wire (see HttpTransport's `wire`): each request goes through the same
   * pipeline as over HTTP (rate limit, faults, 422 rule) with no socket. A dropped connection fails as
   * a reset; the Date header carries the venue's (virtual) time. Latency faults are not waited for:
   * they are real time, which a virtual-clock run does not spend.
   */
  readonly wire: Wire = async ({ endpoint, bodyText }) => {
    const raw = processRequest(this.core, endpoint, bodyText, "in-process");
    if (raw.drop)
      throw Object.assign(new Error("socket hang up (simulated dropped connection)"), { code: "ECONNRESET" });
    return {
      status: raw.status,
      headers: { "content-type": raw.contentType, date: this.dateHeader(this.core.now()) },
      text: raw.text,
    };
  };

  private lastDate: { second: number; text: string } | undefined;
  // Amounts in staking change at rewards and moves; a run values them every sampled hour.
  private readonly hypeAmounts = new Map<bigint, Decimal>();

  /** HYPE wei as HYPE (the token's weiDecimals, 8 without one), kept per amount. */
  private hypeOf(wei: bigint): Decimal {
    let amount = this.hypeAmounts.get(wei);
    if (amount === undefined) {
      amount = fromWei(wei, this.core.hype?.weiDecimals ?? 8);
      if (this.hypeAmounts.size >= 1024) this.hypeAmounts.clear();
      this.hypeAmounts.set(wei, amount);
    }
    return amount;
  }

  /** The Date header at `now`: whole seconds, so the text is made again only when the second changes. */
  private dateHeader(now: number): string {
    const second = Math.floor(now / 1000);
    if (this.lastDate?.second !== second) this.lastDate = { second, text: new Date(now).toUTCString() };
    return this.lastDate.text;
  }

  info(body: Record<string, unknown>): unknown {
    return this.request("info", body).body;
  }

  exchange(body: Record<string, unknown>): unknown {
    return this.request("exchange", body).body;
  }

  // ---- inspection and control ------------------------------------------------------------------

  /** The scenario's name. */
  get scenarioName(): string {
    return this.core.scenario.name;
  }

  /** Tokens in venue order (by index). */
  tokens(): { name: string; index: number }[] {
    return this.core.markets.tokens.map((t) => ({ name: t.name, index: t.index }));
  }

  /** Spot pairs by venue name ("@107", or "PURR/USDC" for the canonical ones): tokens, index, mid now. */
  pairs(): { name: string; index: number; base: string; quote: string; mid: Decimal }[] {
    const markets = this.core.markets;
    return markets.pairs.map((p) => ({
      name: p.name,
      index: p.index,
      base: p.base.name,
      quote: p.quote.name,
      mid: markets.mid(p),
    }));
  }

  /** The book model each pair's TWAP slices fill against, by venue name (none: at the mid, no cost). */
  pairBooks(): Map<string, BookModel & { class: string; dayVolume: number }> {
    const out = new Map<string, BookModel & { class: string; dayVolume: number }>();
    for (const p of this.core.markets.pairs) {
      const book = p.config.book;
      if (!book) continue;
      const dayVolume = baselineDayVolume(p.config).toNumber();
      out.set(p.name, { class: book.class, ...bookModel(book), dayVolume });
    }
    return out;
  }

  balances(address: string): BalanceView[] {
    return this.core.balances(address);
  }

  balance(address: string, coin: string): BalanceView {
    return this.core.balance(address, coin);
  }

  fund(address: string, coin: string, amount: Decimal | string | number): void {
    this.core.fund(address, coin, amount);
  }

  /** Mid prices by pair name, as allMids answers. */
  prices(): Record<string, string> {
    return this.core.mids();
  }

  price(pair: string | number): Decimal {
    return this.core.price(pair);
  }

  setPrice(pair: string | number, px: Decimal | string | number): Decimal {
    return this.core.setPrice(pair, px);
  }

  setPairHalted(pair: string | number, halted: boolean): void {
    this.core.setPairHalted(pair, halted);
  }

  validators(): Validator[] {
    return this.core.staking.allValidators();
  }

  setValidator(address: string, patch: ValidatorPatch): void {
    this.core.setValidator(address, patch);
  }

  twaps(user?: string): Twap[] {
    return this.core.twaps.all(user === undefined ? undefined : normalizeAddress(user));
  }

  staking(address: string): StakingView {
    const user = normalizeAddress(address);
    const raw = this.core.staking.account(user);
    const hype = (wei: bigint) => this.hypeOf(wei);
    return {
      undelegated: hype(raw?.undelegated ?? 0n),
      delegations: [...(raw?.delegations.values() ?? [])].map((d) => ({
        validator: d.validator,
        amount: hype(d.amount),
        lockedUntil: d.lockedUntil,
      })),
      pendingWithdrawals: (raw?.pending ?? []).map((w) => ({
        amount: hype(w.amount),
        initiatedAt: w.initiatedAt,
        finalizesAt: w.finalizesAt,
      })),
      raw,
    };
  }

  /** Every effect applied so far (optionally filtered). */
  ledger(filter?: {
    kind?: LedgerKind | LedgerKind[];
    user?: string;
    since?: number;
  }): readonly LedgerEntry[] {
    return this.core.ledger.list(filter);
  }

  /** Replaces the fault configuration at run time (`{}` = no faults). */
  setFaults(faults: FaultsInput): void {
    this.core.faults.set(faults);
  }

  setRateLimit(config: RateLimitConfig | false): void {
    this.core.rateLimiter.configure(config);
  }

  /** Changes scenario settings at run time (nonce rules, TWAP limits, fees, …). */
  configure(settings: SettingsInput): void {
    this.core.configure(settings);
  }

  setMessages(overrides: MessageOverrides): void {
    this.core.setMessages(overrides);
  }

  /** Stops the HTTP server (if any) and the clock's timers. */
  async stop(): Promise<void> {
    await this.server?.close();
    this.core.close();
  }
}

/** A simulator served over HTTP on 127.0.0.1. */
export async function startSimulator(
  options: SimulatorOptions = {},
): Promise<Simulator & { url: string; port: number }> {
  const core = new VenueCore(options);
  try {
    const server = await serveVenue(core, { port: options.port, host: options.host });
    return new Simulator(core, server) as Simulator & { url: string; port: number };
  } catch (err) {
    core.close();
    throw err;
  }
}

/** A simulator without a socket (requests via `request`, `info`, `exchange`). */
export function createSimulator(options: VenueOptions = {}): Simulator {
  return new Simulator(new VenueCore(options), undefined);
}

export { DAY, HOUR, MINUTE, parseDuration, RealClock, SECOND, VirtualClock } from "./clock.js";
export type { BalanceView, SettingsInput, VenueOptions } from "./core.js";
export { VenueCore } from "./core.js";
export { DEFAULT_MESSAGES, type VenueMessages } from "./errors.js";
export type { Endpoint, FaultDecision } from "./faults.js";
export { BAD_SCHEMA_BODY, NON_JSON_BODY } from "./http.js";
export { UNPROCESSABLE_BODY } from "./info.js";
export type { LedgerEntry, LedgerKind } from "./ledger.js";
export type { RateLimitConfig } from "./ratelimit.js";
export {
  DEMO_SCENARIO_PATH,
  loadScenarioFile,
  pairName,
  parseScenarioObject,
  parseScenarioYaml,
  type Scenario,
  type ScenarioInput,
} from "./scenario.js";
