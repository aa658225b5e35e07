// The one HTTP path to the venue. Reads (info, explorer) are budgeted against the IP weight limit,
// time-limited, abortable and retried on transient failures; writes (POST /exchange) are sent exactly
// once, because only the exchange layer can know whether repeating a signed action is safe. Every
// failure surfaces as a typed VenueError; no response body, however malformed, crashes the caller.
import { Agent, type Dispatcher, request } from "undici";
import {
  BadResponseError,
  type HlbotError,
  HttpStatusError,
  InternalError,
  NetworkError,
  type NetworkErrorKind,
  RateLimitError,
  ResponseTooLargeError,
  ServerError,
  UnprocessableError,
  VenueError,
} from "../../lib/errors.js";
import { JsonDepthError, parseJson, stringifyJson } from "../../lib/json.js";
import type { Endpoints } from "../networks.js";
import { WeightBudget } from "./budget.js";
import {
  abortedError,
  parseRetryAfter,
  type RetryPolicy,
  resolveRetryPolicy,
  retryDelayMs,
  shouldRetry,
  sleep,
  withRetry,
} from "./retry.js";

export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * Largest response body read by default: 64 MiB. The venue's largest answers (validatorSummaries,
 * long histories) are a few MB; a body beyond this is broken or hostile, and reading it whole would
 * only fill memory (14 reads of 300 MB took ~4 GB).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Reported before each retry of a read (for logs and tests); the delay is about to be waited. */
export interface RetryEvent {
  /** The attempt that just failed, counting from 1. */
  attempt: number;
  delayMs: number;
  error: VenueError;
  url: string;
}

/** What one HTTP exchange with the venue took, reported after it ends (for latency and error metrics). */
export interface ResponseEvent {
  endpoint: "info" | "exchange" | "explorer";
  /** Wall time from sending the request to the end of the answer (or the failure), in ms. */
  ms: number;
  /** HTTP status, when an answer arrived. */
  status?: number;
  /** The typed failure (non-2xx status, timeout, reset, abort), when the request failed. */
  error?: HlbotError;
  /**
   * Set when the exchange itself was reported already and this tells what its answer turned out to be
   * (a 2xx body that is not JSON or not the documented shape): no latency to observe.
   */
  answerOnly?: boolean;
}

/**
 * One request/answer exchange without a socket: `hlbot simulate` hands the embedded venue's request
 * pipeline to the transport this way. Everything around it (budget, retries, status classification,
 * JSON parsing, the Date header, observers) is the same code as over HTTP. A wire throws for a lost
 * connection; the transport turns anything but a VenueError into a NetworkError.
 */
export type Wire = (request: {
  endpoint: "info" | "exchange" | "explorer";
  url: string;
  bodyText: string;
  signal?: AbortSignal;
}) => Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>;

export interface HttpTransportOptions {
  endpoints: Endpoints;
  /** Replaces the HTTP request itself (see Wire); undefined = HTTP through undici. */
  wire?: Wire;
  /** Per-request timeout (connect + headers + body), default 10 000 ms. */
  timeoutMs?: number;
  /**
   * How the transport waits between read attempts (default: real time, abortable). A simulation in
   * virtual time passes one that moves its clock instead, so a retry meets the venue later, as it would.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Retry policy of reads: attempts (default 4 in total), baseDelayMs, maxDelayMs, jitter, maxRetryAfterMs. */
  retry?: Partial<RetryPolicy>;
  /** IP weight budget shared by every request of this transport. Default: 1200 per 60 s. `null` disables. */
  budget?: WeightBudget | null;
  userAgent?: string;
  /**
   * Weight charged per item returned by history queries (default 1/20, i.e. +1 per 20 items; the venue's
   * increment is unconfirmed). Read by the info client's methods.
   */
  perItemWeight?: number;
  /** Called before each retry of a read. */
  onRetry?: (event: RetryEvent) => void;
  /** Called after every HTTP exchange, retries included (an observer: its exceptions are ignored). */
  onResponse?: (event: ResponseEvent) => void;
  /** Source of jitter in [0, 1); defaults to Math.random. */
  random?: () => number;
  /** Idle keep-alive time of pooled connections (default 30 000 ms). */
  keepAliveTimeoutMs?: number;
  /** Largest response body read, in bytes (default 64 MiB); a larger one fails with ResponseTooLargeError. */
  maxResponseBytes?: number;
}

export interface ReadOptions {
  /** IP weight of the request, waited for in the budget before each attempt. */
  weight: number;
  /** Extra weight known only from the result (per-item surcharge of history queries). */
  extraWeight?: (result: unknown) => number;
  endpoint?: "info" | "explorer";
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Sees the answer's text before it is parsed and may return the value it parses to (the caller
   * remembered the same text earlier): parsing is skipped. Undefined: parse as usual.
   */
  reuse?: (text: string) => unknown;
  /** `body` already serialized by the caller (the same bytes stringifyJson gives): not serialized again. */
  bodyText?: string;
}

export interface ExchangeOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** IP weight of this POST: 1 unless batched (see `exchangeWeight`). */
  weight?: number;
}

export interface ExchangeResponse {
  status: number;
  /** Parsed JSON (bigint-safe), or undefined for an empty body. */
  body: unknown;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  url: string;
}

export class HttpTransport {
  readonly endpoints: Endpoints;
  readonly timeoutMs: number;
  readonly retryPolicy: RetryPolicy;
  /** How this transport waits between attempts (see the `sleep` option). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly budget: WeightBudget | null;
  readonly perItemWeight: number | undefined;
  readonly maxResponseBytes: number;
  private readonly userAgent: string;
  private readonly onRetry: ((event: RetryEvent) => void) | undefined;
  private readonly onResponse: ((event: ResponseEvent) => void) | undefined;
  private readonly random: () => number;
  // One Agent keeps one keep-alive pool per origin (info and explorer are different hosts on the venue).
  private readonly agent: Agent;
  private serverDate: Date | undefined;
  private serverDateText: string | undefined;
  /** Whether the latest answer carried a Date header hlbot could read. */
  private latestDated = false;
  private closed = false;
  private readonly wire: Wire | undefined;

  constructor(options: HttpTransportOptions) {
    this.endpoints = options.endpoints;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError(`timeoutMs must be > 0, got ${this.timeoutMs}`);
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    if (!(Number.isSafeInteger(this.maxResponseBytes) && this.maxResponseBytes > 0))
      throw new RangeError(`maxResponseBytes must be a positive integer, got ${this.maxResponseBytes}`);
    this.retryPolicy = resolveRetryPolicy(options.retry);
    this.sleep = options.sleep ?? sleep;
    this.budget = options.budget === undefined ? new WeightBudget() : options.budget;
    this.perItemWeight = options.perItemWeight;
    this.userAgent = options.userAgent ?? "hlbot";
    this.onRetry = options.onRetry;
    this.onResponse = options.onResponse;
    this.random = options.random ?? Math.random;
    this.wire = options.wire;
    this.agent = new Agent({
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      // Our own AbortSignal bounds the whole request; undici's separate timers would only race it.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  /**
   * Info or explorer read. Waits for budget, then POSTs `body` as JSON; retries 429, 5xx and network
   * failures with backoff (or the server's Retry-After) up to the policy's attempts. Resolves to the
   * parsed JSON (integers beyond 2^53 as bigint). Throws RateLimitError, ServerError, NetworkError,
   * UnprocessableError, HttpStatusError or BadResponseError.
   */
  async read(body: Record<string, unknown>, opts: ReadOptions): Promise<unknown> {
    const endpoint = opts.endpoint ?? "info";
    const url = endpoint === "explorer" ? this.endpoints.explorer : this.endpoints.info;
    const text = opts.bodyText ?? stringifyJson(body);
    const policy = this.retryPolicy;
    return withRetry(
      async () => {
        if (this.budget) await this.budget.acquire(opts.weight, opts.signal);
        const raw = await this.send(endpoint, url, text, opts.signal, opts.timeoutMs);
        const result = opts.reuse?.(raw.text) ?? parseSuccess(raw);
        if (result === undefined) {
          throw new BadResponseError("empty response body", [], { status: raw.status, url });
        }
        const extra = opts.extraWeight?.(result) ?? 0;
        if (this.budget && extra > 0) this.budget.charge(extra);
        return result;
      },
      {
        attempts: policy.attempts,
        retryable: shouldRetry,
        delayMs: (attempt, err) => retryDelayMs(policy, attempt, err, this.random),
        onRetry: (attempt, delayMs, err) =>
          this.onRetry?.({ attempt, delayMs, error: err as VenueError, url }),
        signal: opts.signal,
        sleep: this.sleep,
      },
    );
  }

  /**
   * Exactly one POST of an already-serialized body to /exchange; never retried here. Charges weight 1
   * (or `opts.weight`). Resolves `{status, body}` for a 2xx answer; throws the typed error otherwise.
   */
  async exchange(bodyText: string, opts: ExchangeOptions = {}): Promise<ExchangeResponse> {
    const url = this.endpoints.exchange;
    if (this.budget) await this.budget.acquire(opts.weight ?? 1, opts.signal);
    const raw = await this.send("exchange", url, bodyText, opts.signal, opts.timeoutMs);
    return { status: raw.status, body: parseSuccess(raw) };
  }

  /** The Date header of the most recent response that carried one (for the clock-skew check at start-up). */
  lastServerDate(): Date | undefined {
    return this.serverDate;
  }

  /**
   * The latest answer's Date, or undefined when it carried none: an earlier answer's date, read against
   * a later local time, would age into a false skew (a review: answers without the header made a correct
   * clock look minutes ahead, and every strategy held).
   */
  latestAnswerDate(): Date | undefined {
    return this.latestDated ? this.serverDate : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.agent.close();
  }

  /** One HTTP exchange with timeout and abort, returning any status; classifies non-2xx statuses. */
  private async send(
    endpoint: ResponseEvent["endpoint"],
    url: string,
    bodyText: string,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<RawResponse> {
    if (!this.onResponse) return this.sendOnce(endpoint, url, bodyText, signal, timeoutMs);
    const started = performance.now();
    try {
      const raw = await this.sendOnce(endpoint, url, bodyText, signal, timeoutMs);
      this.report({ endpoint, ms: performance.now() - started, status: raw.status });
      return raw;
    } catch (err) {
      const error = err as HlbotError & { status?: number };
      const status = error.status;
      this.report({
        endpoint,
        ms: performance.now() - started,
        ...(status === undefined ? {} : { status }),
        error,
      });
      throw err;
    }
  }

  /**
   * A 2xx answer its caller could not use (not JSON, not the documented shape: BadResponseError), told
   * to the observers so the venue-errors metric counts it (only transport failures were counted, and an
   * answer of garbage at status 200 left the alert on venue errors silent).
   */
  noteBadAnswer(endpoint: ResponseEvent["endpoint"], error: HlbotError): void {
    this.report({ endpoint, ms: 0, status: 200, error, answerOnly: true });
  }

  private report(event: ResponseEvent): void {
    try {
      this.onResponse?.(event);
    } catch {
      // An observer must not change the outcome of a request.
    }
  }

  private async sendOnce(
    endpoint: ResponseEvent["endpoint"],
    url: string,
    bodyText: string,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<RawResponse> {
    if (this.closed) throw new InternalError("HttpTransport used after close()");
    if (signal?.aborted) throw abortedError(signal, url);
    if (this.wire) {
      let raw: RawResponse;
      try {
        const answer = await this.wire(
          signal ? { endpoint, url, bodyText, signal } : { endpoint, url, bodyText },
        );
        raw = { status: answer.status, headers: answer.headers, text: answer.text, url };
      } catch (err) {
        if (err instanceof VenueError) throw err;
        throw networkErrorFrom(err, url);
      }
      this.noteDate(raw.headers.date);
      return checkStatus(raw);
    }
    const controller = new AbortController();
    let timedOut = false;
    const limit = timeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${limit} ms`));
    }, limit);
    const onCallerAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onCallerAbort, { once: true });
    let raw: RawResponse;
    try {
      const res = await request(url, {
        method: "POST",
        dispatcher: this.agent,
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "user-agent": this.userAgent,
        },
        body: bodyText,
        signal: controller.signal,
      });
      const text = await readCapped(res, this.maxResponseBytes, url);
      raw = { status: res.statusCode, headers: res.headers, text, url };
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw err;
      if (signal?.aborted) throw abortedError(signal, url);
      if (timedOut)
        throw new NetworkError(
          "timeout",
          `no response from ${url} within ${limit} ms`,
          { url },
          { cause: err },
        );
      throw networkErrorFrom(err, url);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCallerAbort);
    }
    this.noteDate(raw.headers.date);
    return checkStatus(raw);
  }

  private noteDate(header: string | string[] | undefined): void {
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) {
      this.latestDated = false;
      return;
    }
    // The header changes once a second: the same text as the last readable one is the same date.
    if (value === this.serverDateText) {
      this.latestDated = true;
      return;
    }
    const parsed = new Date(value);
    this.latestDated = !Number.isNaN(parsed.getTime());
    if (!this.latestDated) return;
    this.serverDateText = value;
    this.serverDate = parsed;
  }
}

/**
 * The body as text, refusing one larger than `max` bytes: at once when Content-Length says so, else as
 * soon as the bytes read pass it. The connection is dropped either way (the rest is never read).
 */
async function readCapped(res: Dispatcher.ResponseData, max: number, url: string): Promise<string> {
  const declared = Number(headerValue(res.headers["content-length"]));
  const tooLarge = () => new ResponseTooLargeError(max, { status: res.statusCode, url });
  if (Number.isFinite(declared) && declared > max) {
    res.body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > max) {
      res.body.destroy();
      throw tooLarge();
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

function checkStatus(raw: RawResponse): RawResponse {
  const { status, text, url } = raw;
  if (status >= 200 && status < 300) return raw;
  const retryAfterMs = parseRetryAfter(raw.headers["retry-after"]);
  if (status === 429) throw new RateLimitError({ url, retryAfterMs });
  if (status === 422) throw new UnprocessableError(text, { url });
  if (status >= 500) throw new ServerError(status, text, { url, retryAfterMs });
  throw new HttpStatusError(status, text, { url });
}

/** Parses a 2xx body whatever its content type claims: JSON if it is JSON, undefined if empty. */
function parseSuccess(raw: RawResponse): unknown {
  if (raw.text.trim() === "") return undefined;
  try {
    return parseJson(raw.text);
  } catch (err) {
    if (err instanceof JsonDepthError) {
      throw new BadResponseError(`response ${err.message}`, [], { status: raw.status, url: raw.url });
    }
    const type = headerValue(raw.headers["content-type"]) ?? "no content-type";
    const preview = raw.text.replace(/\s+/g, " ").slice(0, 80);
    throw new BadResponseError(`response is not JSON (${type}): ${preview}`, [], {
      status: raw.status,
      url: raw.url,
    });
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

const RESET_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_RES_CONTENT_LENGTH_MISMATCH",
  "UND_ERR_REQ_CONTENT_LENGTH_MISMATCH",
]);
const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** Failures before the connection carried a byte of the request: nothing was sent. */
const NOT_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/**
 * A TLS handshake failure: the request is written only after the handshake, so nothing was sent.
 * OpenSSL's codes (`ERR_SSL_WRONG_VERSION_NUMBER` for a plain-HTTP port, `EPROTO`), Node's
 * (`ERR_TLS_CERT_ALTNAME_INVALID`) and certificate verification codes.
 */
function isTlsHandshakeCode(code: string): boolean {
  return (
    code === "EPROTO" ||
    code.startsWith("ERR_SSL_") ||
    code.startsWith("ERR_TLS_") ||
    code.startsWith("CERT_") ||
    code.endsWith("_CERT") ||
    code.includes("SELF_SIGNED") ||
    code.startsWith("UNABLE_TO_")
  );
}

/** Maps an undici/socket failure to a NetworkError kind from its error code (or its cause's). */
function networkErrorFrom(err: unknown, url: string): NetworkError {
  const code = errorCode(err);
  let kind: NetworkErrorKind = "connection";
  if (code && RESET_CODES.has(code)) kind = "reset";
  else if (code && TIMEOUT_CODES.has(code)) kind = "timeout";
  const tls = code !== undefined && isTlsHandshakeCode(code);
  const notSent = kind === "connection" && code !== undefined && (NOT_CONNECTED_CODES.has(code) || tls);
  const reason = (err instanceof Error ? err.message : String(err)) || code || "unknown error";
  const what =
    kind === "reset"
      ? "connection reset"
      : kind === "timeout"
        ? "timed out"
        : tls
          ? "TLS handshake failed (is it an https:// URL to a plain-HTTP port, or a bad certificate?)"
          : "connection failed";
  const detail = code && !reason.includes(code) ? `${code}: ${reason}` : reason;
  return new NetworkError(kind, `${what} (${url}): ${detail}`, { url, notSent }, { cause: err });
}

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "UND_ERR") return code;
    // AggregateError from happy-eyeballs connects carries the real errors in `errors`.
    const inner = (current as { errors?: unknown[] }).errors?.[0];
    current = inner ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}
