// The shared path of every info query: validate the parameters (before any I/O), send them through the
// transport with the query's weight, and validate the answer. Each query is described once by an
// InfoMethodSpec in its own file under ./methods; nothing else talks to the info endpoint.
import type { z } from "zod";
import { BadResponseError, VenueError } from "../../lib/errors.js";
import { deepFreeze, MAX_JSON_DEPTH, parseJson, stringifyJson } from "../../lib/json.js";
import type { HttpTransport } from "../transport/http.js";
import { backoffDelayMs, withRetry } from "../transport/retry.js";
import { DEFAULT_PER_ITEM_WEIGHT, historyExtraWeight } from "../transport/weights.js";
import { collectUnknown, reportUnknown, type UnknownValueWarn } from "./tolerant.js";
import { parseRequest, parseResponse } from "./validate.js";

export interface InfoMethodSpec<
  Type extends string = string,
  Req extends z.ZodObject = z.ZodObject,
  Res extends z.ZodType = z.ZodType,
> {
  /** The wire `type`, case-sensitive. */
  type: Type;
  /** The exact wire body (strict: `type` literal, required fields, no unknown keys). */
  request: Req;
  /** The validated answer. Unknown extra fields are kept. */
  response: Res;
  /** Base IP weight. */
  weight: number;
  /** Extra weight per returned item for history queries (default 1/20; overridable on the transport). */
  perItemWeight?: number;
  endpoint: "info" | "explorer";
  /** Recognises an error envelope the venue answers with status 200 and returns its message. */
  errorEnvelope?: (raw: unknown) => string | undefined;
  /**
   * For an answer that is a JSON array of a fixed number of parts (a z.tuple), each part's schema, in
   * order (the tuple's own items). A part whose text is the same as in the last accepted answer of the
   * same query is not validated again: spotMetaAndAssetCtxs repeats its metadata (on mainnet the larger
   * part by far) while the contexts change with every read.
   */
  parts?: readonly z.ZodType[];
}

/** Parameters of a query: its request body without `type`, as the caller writes them. */
export type InfoParams<M extends InfoMethodSpec> = Omit<z.input<M["request"]>, "type">;
/** Validated result of a query. */
export type InfoResult<M extends InfoMethodSpec> = z.output<M["response"]>;

export function defineInfoMethod<Type extends string, Req extends z.ZodObject, Res extends z.ZodType>(
  spec: InfoMethodSpec<Type, Req, Res>,
): InfoMethodSpec<Type, Req, Res> {
  return spec;
}

/** Builds and validates the wire body of a query (lower-cases addresses). Throws ValidationError. */
export function buildInfoRequest<M extends InfoMethodSpec>(
  spec: M,
  params: InfoParams<M>,
): z.output<M["request"]> {
  const input = params === null || typeof params !== "object" ? params : { ...params, type: spec.type };
  return parseRequest(spec.request, input) as z.output<M["request"]>;
}

/**
 * Runs one query end to end. Throws ValidationError before I/O, VenueError subclasses after.
 *
 * Besides the transport's own retries (429, 5xx, network), a garbled answer (not JSON, or not the shape
 * the venue documents) is read once more after a short pause: it is most often a passing proxy or
 * load-balancer fault, and a read costs only request weight. A second garbled answer is reported. An
 * explicit error answer from the venue (the explorer's error envelope) is not read again.
 */
export async function runInfoQuery<M extends InfoMethodSpec>(
  transport: HttpTransport,
  spec: M,
  params: InfoParams<M>,
  signal?: AbortSignal,
  /** Where unknown values of tolerant fields are reported (default: a warning line on stderr). */
  onUnknown?: UnknownValueWarn,
): Promise<InfoResult<M>> {
  const request = builtRequest(spec, params);
  const attempts = Math.min(GARBLED_READ_ATTEMPTS, Math.max(1, transport.retryPolicy.attempts));
  const once = async () => {
    try {
      return await readOnce(transport, spec, request, signal, onUnknown);
    } catch (err) {
      if (err instanceof BadResponseError) transport.noteBadAnswer(spec.endpoint, err);
      throw err;
    }
  };
  return withRetry(once, {
    attempts,
    retryable: (err) => err instanceof BadResponseError && !(err instanceof VenueAnswerError),
    delayMs: (attempt) =>
      Math.min(GARBLED_RETRY_MAX_DELAY_MS, backoffDelayMs(transport.retryPolicy, attempt)),
    signal,
    sleep: transport.sleep,
  });
}

const GARBLED_READ_ATTEMPTS = 2;
const GARBLED_RETRY_MAX_DELAY_MS = 250;

/** The venue answered with an explicit error (not a garbled body): reading again will not help. */
class VenueAnswerError extends BadResponseError {}

/**
 * Request bodies already built, by query and parameters' text: a bot asks the same few questions every
 * cycle, and building one (its schema, lower-cased addresses) and serializing it cost more than the
 * rest of a read whose answer repeats. Pure: the same parameters always build the same body.
 */
const builtBodies = new WeakMap<InfoMethodSpec, Map<string, BuiltRequest>>();
/** Bodies kept per query (history queries vary by time; the oldest is forgotten beyond). */
const BUILT_BODIES_KEPT = 64;

interface BuiltRequest {
  body: Record<string, unknown>;
  /** `body` serialized: the bytes sent, and the answer memo's key. */
  text: string;
}

function builtRequest<M extends InfoMethodSpec>(spec: M, params: InfoParams<M>): BuiltRequest {
  if (params === null || typeof params !== "object") {
    const body = buildInfoRequest(spec, params) as Record<string, unknown>;
    return { body, text: stringifyJson(body) };
  }
  const key = stringifyJson(params);
  let bySpec = builtBodies.get(spec);
  if (bySpec === undefined) {
    bySpec = new Map();
    builtBodies.set(spec, bySpec);
  }
  const kept = bySpec.get(key);
  if (kept !== undefined) return kept;
  const body = deepFreeze(buildInfoRequest(spec, params) as Record<string, unknown>);
  const built = { body, text: stringifyJson(body) };
  if (bySpec.size >= BUILT_BODIES_KEPT) bySpec.delete(bySpec.keys().next().value as string);
  bySpec.set(key, built);
  return built;
}

async function readOnce<M extends InfoMethodSpec>(
  transport: HttpTransport,
  spec: M,
  request: BuiltRequest,
  signal: AbortSignal | undefined,
  onUnknown: UnknownValueWarn | undefined,
): Promise<InfoResult<M>> {
  // The transport's override is a new reading of the per-20 surcharge; a query charged on another
  // count (candleSnapshot, per 60) keeps its own.
  const perItem =
    spec.perItemWeight === undefined
      ? undefined
      : spec.perItemWeight === DEFAULT_PER_ITEM_WEIGHT
        ? (transport.perItemWeight ?? spec.perItemWeight)
        : spec.perItemWeight;
  const memo = answerMemo(transport, spec.type, request.text);
  let text: string | undefined;
  let raw: unknown;
  try {
    raw = await transport.read(request.body, {
      bodyText: request.text,
      weight: spec.weight,
      endpoint: spec.endpoint,
      signal,
      reuse: (answer) => {
        text = answer;
        const kept = memo.reusable(answer)?.raw;
        if (kept !== undefined || spec.parts === undefined) return kept;
        return partsParsed(answer, spec.parts.length, memo.lastParts);
      },
      extraWeight:
        perItem === undefined
          ? undefined
          : (result) => (Array.isArray(result) ? historyExtraWeight(result.length, perItem) : 0),
    });
  } catch (err) {
    // The transport does not know which query failed, and a cycle runs several at once: say which.
    if (err instanceof VenueError && !err.message.startsWith(`${spec.type}: `))
      err.message = `${spec.type}: ${err.message}`;
    throw err;
  }
  const same = text === undefined ? undefined : memo.reusable(text);
  if (same !== undefined && same.raw === raw) return same.result as InfoResult<M>;
  const url = spec.endpoint === "explorer" ? transport.endpoints.explorer : transport.endpoints.info;
  const envelope = spec.errorEnvelope?.(raw);
  if (envelope !== undefined) {
    throw new VenueAnswerError(`${spec.type} failed on the venue: ${envelope}`, [], { status: 200, url });
  }
  const meta = { what: spec.type, url, onUnknown };
  const result = (
    spec.parts !== undefined && text !== undefined
      ? parseInParts(spec.response, spec.parts, raw, text, memo, meta)
      : parseResponse(spec.response, raw, meta)
  ) as InfoResult<M>;
  if (text !== undefined) memo.accepted(text, raw, result);
  return result;
}

const PART_FAILED = Symbol("part failed");

/**
 * Validates a tuple answer part by part, taking a part whose text repeats the last accepted answer's
 * from that answer (frozen: it is handed out again). Any doubt (not an array of the parts' count, a part
 * that fails) validates the whole answer as one, which also gives the usual error naming every path.
 */
function parseInParts(
  schema: z.ZodType,
  parts: readonly z.ZodType[],
  raw: unknown,
  text: string,
  memo: AnswerMemo,
  meta: { what: string; url?: string; onUnknown?: UnknownValueWarn | undefined },
): unknown {
  const last = memo.lastParts;
  const texts =
    Array.isArray(raw) && raw.length === parts.length
      ? arrayParts(text, parts.length, last?.texts)
      : undefined;
  if (texts === undefined) return parseResponse(schema, raw, meta);
  const { result, unknown } = collectUnknown(() =>
    texts.map((partText, i) => {
      if (last !== undefined && last.texts[i] === partText) return last.results[i];
      const r = parts[i]!.safeParse((raw as unknown[])[i]);
      // Frozen before it is handed out: the same object is handed out again while its text repeats.
      return r.success ? deepFreeze(r.data) : PART_FAILED;
    }),
  );
  if (result.includes(PART_FAILED)) return parseResponse(schema, raw, meta);
  reportUnknown(meta.what, unknown, meta.onUnknown);
  memo.lastParts =
    text.length <= MEMO_MAX_TEXT ? { texts, raws: [...(raw as unknown[])], results: result } : undefined;
  return result;
}

/**
 * A tuple answer parsed part by part, a part whose text repeats the last accepted answer's taken as it
 * was parsed then (the metadata of spotMetaAndAssetCtxs, which also holds the digit runs that send the
 * whole text to the slower exact parser). Undefined (the transport parses the whole text, with its usual
 * errors) when nothing was accepted yet, the text is not an array of `count` parts or a part is not JSON.
 * Parts that each parse, between the array's brackets and separated by commas, make exactly the array
 * the whole text parses to.
 */
function partsParsed(text: string, count: number, last: AnswerMemo["lastParts"]): unknown[] | undefined {
  if (last === undefined || !bracketedByJsonSpace(text)) return undefined;
  const texts = arrayParts(text, count, last.texts);
  if (texts === undefined) return undefined;
  const raws: unknown[] = [];
  for (let i = 0; i < count; i++) {
    if (texts[i] === last.texts[i]) {
      raws.push(last.raws[i]);
      continue;
    }
    try {
      // One level less: the part sits inside the answer's array, and the whole answer has the limit.
      raws.push(parseJson(texts[i]!, { maxDepth: MAX_JSON_DEPTH - 1 }));
    } catch {
      return undefined;
    }
  }
  return raws;
}

/**
 * Whether only JSON whitespace (space, tab, line feed, carriage return) comes before the text's first
 * `[` and after its last `]`: arrayParts trims any control character there, which JSON does not allow.
 */
function bracketedByJsonSpace(text: string): boolean {
  let start = 0;
  while (start < text.length && isJsonSpace(text.charCodeAt(start))) start++;
  let end = text.length - 1;
  while (end > start && isJsonSpace(text.charCodeAt(end))) end--;
  return text.charCodeAt(start) === 0x5b && text.charCodeAt(end) === 0x5d;
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * The texts of the `count` elements of a JSON array text (whitespace around each kept), or undefined
 * when the text is not such an array. On text that is not valid JSON the parts may be anything: each is
 * then parsed (partsParsed) or the whole text already was (parseInParts). `known` holds the element texts this function gave for an earlier array (each a complete JSON value):
 * an element that starts with the same text followed by a comma is that same text (a complete value ends
 * where its own characters say, and in an array only a comma or the end can follow it). Only changed
 * elements are scanned; the last one is what is left.
 */
export function arrayParts(text: string, count: number, known?: readonly string[]): string[] | undefined {
  let pos = 0;
  while (pos < text.length && text.charCodeAt(pos) <= 0x20) pos++;
  let end = text.length - 1;
  while (end > pos && text.charCodeAt(end) <= 0x20) end--;
  if (text.charCodeAt(pos) !== 0x5b /* [ */ || text.charCodeAt(end) !== 0x5d /* ] */) return undefined;
  pos++;
  const parts: string[] = [];
  for (let i = 0; i < count - 1; i++) {
    const same = known?.[i];
    // Compared as a slice: startsWith walks a kilobyte of metadata char by char, many times slower.
    const stop =
      same !== undefined &&
      text.charCodeAt(pos + same.length) === 0x2c &&
      text.slice(pos, pos + same.length) === same
        ? pos + same.length
        : elementEnd(text, pos, end);
    if (stop < 0) return undefined;
    parts.push(text.slice(pos, stop));
    pos = stop + 1;
  }
  if (count > 0) parts.push(text.slice(pos, end));
  return parts;
}

/** Index of the comma that ends the array element starting at `from` (before `end`), or -1. */
function elementEnd(text: string, from: number, end: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* backslash */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b /* { */) depth++;
    else if (c === 0x5d || c === 0x7d /* } */) depth--;
    else if (c === 0x2c /* , */ && depth === 0) return i;
  }
  return -1;
}

/**
 * Answers that repeat. Most of what a cycle reads is the same from one cycle to the next (the spot
 * metadata, the fee schedule, the validators for hours, the balances between fills); parsing and
 * validating the same text again gives the same value. So the last accepted answer of each query
 * (type and request body) is remembered once its text came twice in a row (or at once, for a query
 * whose answers were seen to repeat), deep-frozen (the same value is
 * handed to every later caller, so none may change it), and the same text again is answered with that
 * value, unparsed and unvalidated. The request is still sent and charged every time: only the work on
 * an identical answer is saved. A query whose answer changes every time (allMids) is never kept, and
 * costs a string comparison.
 */
class AnswerMemo {
  private lastText: string | undefined;
  private kept: { text: string; raw: unknown; result: unknown } | undefined;
  /**
   * Set once a kept answer was handed out again: this query's answers repeat, so a changed one is kept
   * from its first reading (a TWAP history changes a few times a day and is read every cycle: kept only
   * from its second reading, each change cost two parses and validations of the whole history).
   */
  private repeats = false;
  /** The parts of the last accepted answer of a query with `parts`: their texts and validated values. */
  lastParts: { texts: string[]; raws: unknown[]; results: unknown[] } | undefined;

  /** The kept answer if `text` is its text. */
  reusable(text: string): { raw: unknown; result: unknown } | undefined {
    if (this.kept === undefined || this.kept.text !== text) return undefined;
    this.repeats = true;
    return this.kept;
  }

  accepted(text: string, raw: unknown, result: unknown): void {
    if (text.length > MEMO_MAX_TEXT) {
      this.lastText = undefined;
      return;
    }
    if ((text === this.lastText || this.repeats) && this.kept?.text !== text)
      this.kept = { text, raw: deepFreeze(raw), result: deepFreeze(result) };
    this.lastText = text;
  }
}

/**
 * Largest answer remembered (characters of JSON): the validator list is ~100 KB, the metadata less. With
 * MEMO_MAX_QUERIES it bounds what the memo holds (a long history download pages through many queries).
 */
const MEMO_MAX_TEXT = 512 * 1024;
/** Queries remembered per transport; the oldest is forgotten beyond (history queries vary by time). */
const MEMO_MAX_QUERIES = 32;
const memos = new WeakMap<HttpTransport, Map<string, AnswerMemo>>();

function answerMemo(transport: HttpTransport, type: string, bodyText: string): AnswerMemo {
  let byQuery = memos.get(transport);
  if (byQuery === undefined) {
    byQuery = new Map();
    memos.set(transport, byQuery);
  }
  const key = `${type}\u0000${bodyText}`;
  let memo = byQuery.get(key);
  if (memo === undefined) {
    memo = new AnswerMemo();
    byQuery.set(key, memo);
    if (byQuery.size > MEMO_MAX_QUERIES) byQuery.delete(byQuery.keys().next().value as string);
  }
  return memo;
}

/**
 * `make` of an answer, made once per answer object: the info client hands out the same frozen answer
 * while its text repeats (AnswerMemo), so what a caller derives from it (Decimals, the latest entry of
 * each TWAP) is made again only when the answer changed.
 */
export function perAnswer<A extends object, R>(make: (answer: A) => R): (answer: A) => R {
  const kept = new WeakMap<A, R>();
  return (answer) => {
    let made = kept.get(answer);
    if (made === undefined) {
      made = make(answer);
      kept.set(answer, made);
    }
    return made;
  };
}

export { DEFAULT_PER_ITEM_WEIGHT };
