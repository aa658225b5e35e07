// The HTTP face of the simulated venue: POST /info, /exchange and /explorer on 127.0.0.1. A thin layer:
// the request pipeline (`processRequest`) applies the per-IP rate limit, the fault injector and the
// 422 rule around VenueCore's answers, and is also callable in-process without a socket.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { deepFreeze, parseJson, stringifyJson } from "../lib/json.js";
import { INFO_METHODS } from "../venue/info/methods/index.js";
import { EXPLORER_WEIGHT, exchangeWeight } from "../venue/transport/weights.js";
import type { VenueCore } from "./core.js";
import { answerExchange } from "./exchange.js";
import { type Endpoint, type FaultDecision, NO_FAULT } from "./faults.js";
import { answerInfo, UNPROCESSABLE_BODY } from "./info.js";

const MAX_BODY_BYTES = 1 << 20;
const DEFAULT_INFO_WEIGHT = 20;

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
  /** Destroy the connection instead of answering (the request took effect). */
  drop: boolean;
  /** Real milliseconds to wait before answering. */
  latencyMs: number;
}

/** Body of a non-JSON fault: what a failing proxy in front of the venue might send. */
export const NON_JSON_BODY =
  "<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>";
/** Body of a schema-violating fault: valid JSON that matches no response schema. */
export const BAD_SCHEMA_BODY = '{"schemaViolation":true}';

function text(
  status: number,
  body: string,
  fault: FaultDecision,
  contentType = "text/plain; charset=utf-8",
): RawResponse {
  return { status, contentType, text: body, drop: false, latencyMs: fault.latencyMs };
}

function baseWeight(endpoint: Endpoint, body: unknown): number {
  if (endpoint === "exchange") return exchangeWeight(1);
  if (endpoint === "explorer") return EXPLORER_WEIGHT;
  const type = body !== null && typeof body === "object" ? (body as { type?: unknown }).type : undefined;
  if (typeof type === "string" && Object.hasOwn(INFO_METHODS, type))
    return INFO_METHODS[type as keyof typeof INFO_METHODS].weight;
  return DEFAULT_INFO_WEIGHT;
}

/**
 * Info bodies repeat exactly (a bot asks the same questions every cycle): each distinct text is parsed
 * once, frozen (answerInfo only reads it) and kept, up to INFO_BODIES_KEPT of them.
 */
const infoBodies = new Map<string, unknown>();
const INFO_BODIES_KEPT = 256;

function parseInfoBody(bodyText: string): unknown {
  const seen = infoBodies.get(bodyText);
  if (seen !== undefined) return seen;
  const body = deepFreeze(parseJson(bodyText));
  if (infoBodies.size >= INFO_BODIES_KEPT) infoBodies.clear();
  infoBodies.set(bodyText, body);
  return body;
}

/**
 * One request through the venue: rate limit → faults that refuse → deserialize (422) → answer →
 * per-item weight → faults that garble or drop the answer. `ip` keys the rate limit.
 */
export function processRequest(
  core: VenueCore,
  endpoint: Endpoint,
  bodyText: string,
  ip: string,
): RawResponse {
  core.catchUp();
  const now = core.now();
  let body: unknown;
  let parsed = true;
  try {
    body = endpoint === "exchange" ? parseJson(bodyText) : parseInfoBody(bodyText);
  } catch {
    parsed = false;
  }
  if (!core.rateLimiter.take(ip, baseWeight(endpoint, body), now))
    return text(429, "null", NO_FAULT, "application/json");
  const fault = core.faults.decide(endpoint);
  if (fault.rateLimit) return text(429, "null", fault, "application/json");
  if (fault.serverError) return text(500, "Internal Server Error", fault);
  if (!parsed) return text(422, UNPROCESSABLE_BODY, fault);

  let answer: unknown;
  let answerText: string | undefined;
  if (endpoint === "exchange") {
    const a = answerExchange(core, body);
    if (a.kind === "unprocessable") return text(422, UNPROCESSABLE_BODY, fault);
    answer = a.body;
  } else {
    const a = answerInfo(core, body, endpoint);
    if (a.kind === "unprocessable") return text(422, UNPROCESSABLE_BODY, fault);
    if (a.extraWeight > 0) core.rateLimiter.charge(ip, a.extraWeight, now);
    answer = a.body;
    answerText = a.text;
  }
  if (fault.drop) return { ...text(200, "", fault), drop: true };
  if (fault.nonJson) return text(200, NON_JSON_BODY, fault, "text/html; charset=utf-8");
  if (fault.badSchema) return text(200, BAD_SCHEMA_BODY, fault, "application/json");
  return text(200, answerText ?? stringifyJson(answer), fault, "application/json");
}

const ROUTES: Record<string, Endpoint> = {
  "/info": "info",
  "/exchange": "exchange",
  "/explorer": "explorer",
};

export interface VenueHttpServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `core` over HTTP on `host` (127.0.0.1) and `port` (0 = a free port). */
export async function serveVenue(
  core: VenueCore,
  opts: { port?: number; host?: string } = {},
): Promise<VenueHttpServer> {
  const host = opts.host ?? "127.0.0.1";
  const server: Server = createServer((req, res) => {
    handle(core, req, res).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end(`simulator error: ${e instanceof Error ? e.message : String(e)}`);
      } else {
        res.destroy();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function handle(core: VenueCore, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "") || "/";
  const endpoint = ROUTES[path];
  if (!endpoint) {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
    res.end("Not Found");
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { "content-type": "text/plain; charset=utf-8", allow: "POST" });
    res.end("Method Not Allowed");
    return;
  }
  const body = await readBody(req);
  if (body === undefined) {
    res.writeHead(413, { "content-type": "text/plain; charset=utf-8" });
    res.end("Payload Too Large");
    return;
  }
  const out = processRequest(core, endpoint, body, req.socket.remoteAddress ?? "unknown");
  const send = () => {
    if (out.drop) {
      req.socket.destroy();
      return;
    }
    // The Date header tells the venue's time: virtual time when the clock is virtual.
    res.writeHead(out.status, { "content-type": out.contentType, date: new Date(core.now()).toUTCString() });
    res.end(out.text);
  };
  if (out.latencyMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, out.latencyMs).unref());
  send();
}
