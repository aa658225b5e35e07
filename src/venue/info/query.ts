// The shared path of every info query: validate the parameters (before any I/O), send them through the
// transport with the query's weight, and validate the answer. Each query is described once by an
// InfoMethodSpec in its own file under ./methods; nothing else talks to the info endpoint.
import type { z } from "zod";
import { BadResponseError, VenueError } from "../../lib/errors.js";
import type { HttpTransport } from "../transport/http.js";
import { DEFAULT_PER_ITEM_WEIGHT, historyExtraWeight } from "../transport/weights.js";
import { parseRequest, parseResponse } from "./validate.js";

export interface InfoMethodSpec<
  Type extends string = string,
  Req extends z.ZodObject = z.ZodObject,
  Res extends z.ZodType = z.ZodType,
> {
  /** The wire `type`, case-sensitive. */
  type: Type;
  /** One line for `hlbot info --help`. */
  summary: string;
  /** The exact wire body (strict: `type` literal, required fields, no unknown keys). */
  request: Req;
  /** The validated answer. Unknown extra fields are kept. */
  response: Res;
  /** Base IP weight (reference §6.4). */
  weight: number;
  /** Extra weight per returned item for history queries (default 1/20; overridable on the transport). */
  perItemWeight?: number;
  endpoint: "info" | "explorer";
  /** Recognises an error envelope the venue answers with status 200 and returns its message. */
  errorEnvelope?: (raw: unknown) => string | undefined;
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

/** Runs one query end to end. Throws ValidationError before I/O, VenueError subclasses after. */
export async function runInfoQuery<M extends InfoMethodSpec>(
  transport: HttpTransport,
  spec: M,
  params: InfoParams<M>,
  signal?: AbortSignal,
): Promise<InfoResult<M>> {
  const body = buildInfoRequest(spec, params) as Record<string, unknown>;
  const perItem =
    spec.perItemWeight === undefined ? undefined : (transport.perItemWeight ?? spec.perItemWeight);
  let raw: unknown;
  try {
    raw = await transport.read(body, {
      weight: spec.weight,
      endpoint: spec.endpoint,
      signal,
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
  const url = spec.endpoint === "explorer" ? transport.endpoints.explorer : transport.endpoints.info;
  const envelope = spec.errorEnvelope?.(raw);
  if (envelope !== undefined) {
    throw new BadResponseError(`${spec.type} failed on the venue: ${envelope}`, [], { status: 200, url });
  }
  return parseResponse(spec.response, raw, { what: spec.type, url }) as InfoResult<M>;
}

export { DEFAULT_PER_ITEM_WEIGHT };
