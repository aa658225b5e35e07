// A hostile venue for tests: an HTTP proxy on 127.0.0.1 in front of a real venue (the in-process
// simulator) that can rewrite answers, hold requests back and release them later. It reproduces what
// a compromised or broken venue, a man in the middle or a glitching load balancer does to hlbot:
// wrong prices, swapped metadata, answers lost while the request was applied (or is applied later).
//
//   const proxy = await startRewritingProxy();
//   bot = await startTestBot({ ..., configExtra: { baseUrl: proxy.url } });
//   proxy.target = bot.sim.url;
//   proxy.rewriteInfo("allMids", (mids) => ({ ...mids, "@107": "0.2" }));
//   ... run a cycle: hlbot sees HYPE at 0.2 ...
//   await proxy.close();
//
// `target` may be set after the proxy starts (the simulator of a test bot starts with the bot).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseJson, stringifyJson } from "../../src/lib/json.js";

export interface ProxiedRequest {
  /** `/info` or `/exchange` (the path of the request). */
  path: string;
  /** The request body exactly as received. */
  body: string;
  /** `body` parsed (bigint-safe), or undefined when it is not JSON. */
  json: unknown;
}

/** What happens to an /exchange request the proxy holds back. */
export interface HeldRequest extends ProxiedRequest {
  /** Forwards the held body to the venue now; resolves the venue's answer (the client never sees it). */
  release(): Promise<{ status: number; json: unknown }>;
}

export type InfoRewriter = (response: unknown, request: ProxiedRequest) => unknown;

export interface RewritingProxy {
  url: string;
  /** Base URL of the real venue, e.g. the simulator's. */
  target: string | undefined;
  /** Every request seen, in arrival order. */
  requests: ProxiedRequest[];
  /** Requests held back by `holdExchange`, oldest first. */
  held: HeldRequest[];
  /** Rewrites the answers to `/info` requests of `type` (until `clear`). Several rewriters chain. */
  rewriteInfo(type: string, rewrite: InfoRewriter): void;
  /** Rewrites the answers to `/exchange` requests the venue answered 200 (until `clear`). */
  rewriteExchange(rewrite: InfoRewriter): void;
  /** Rewrites the `Date` header of every answer (e.g. to show another venue clock). */
  rewriteDate(rewrite: (venueDate: string | undefined) => string | undefined): void;
  /**
   * Holds back the next /exchange requests that `match` accepts (default: every one): they are not
   * forwarded, and the client's connection is reset, so it cannot know whether they were applied.
   */
  holdExchange(match?: (request: ProxiedRequest) => boolean): void;
  /**
   * Answers every /exchange request with this HTTP status without forwarding it (a proxy's or a WAF's
   * 403, a wrong path's 404): the venue never sees it. Undefined forwards again.
   */
  refuseExchange(status: number | undefined): void;
  /** Answers HTTP 500 to `times` info queries of `type`, after letting the next `after` of them through. */
  failInfo(type: string, times: number, after?: number): void;
  /** Removes every rewriter, hold and refuse rule (held requests stay held). */
  clear(): void;
  close(): Promise<void>;
}

export async function startRewritingProxy(target?: string): Promise<RewritingProxy> {
  const infoRewriters = new Map<string, InfoRewriter[]>();
  const exchangeRewriters: InfoRewriter[] = [];
  let dateRewriter: ((venueDate: string | undefined) => string | undefined) | undefined;
  let holdRule: ((request: ProxiedRequest) => boolean) | undefined;
  let refuseStatus: number | undefined;
  const infoFailures = new Map<string, { after: number; times: number }>();
  const sockets = new Set<Socket>();

  const forward = async (path: string, body: string) => {
    if (!proxy.target) throw new Error("rewriting proxy: no target set");
    const res = await fetch(`${proxy.target}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    return { status: res.status, date: res.headers.get("date") ?? undefined, text: await res.text() };
  };

  const server: Server = createServer((req: IncomingMessage, res) => {
    // Node adds its own Date header unless told not to: the venue's (or the rewritten) one must win.
    res.sendDate = false;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = parseJson(body);
        } catch {
          json = undefined;
        }
        const request: ProxiedRequest = { path: req.url ?? "/", body, json };
        proxy.requests.push(request);
        if (request.path.startsWith("/exchange") && holdRule?.(request)) {
          proxy.held.push({
            ...request,
            async release() {
              const answer = await forward(request.path, body);
              return { status: answer.status, json: safeParse(answer.text) };
            },
          });
          req.socket.destroy(); // the client sees a reset: the outcome is unknown to it
          return;
        }
        const infoType = (json as { type?: unknown } | undefined)?.type;
        const failing = typeof infoType === "string" ? infoFailures.get(infoType) : undefined;
        if (request.path.startsWith("/info") && failing !== undefined && failing.times > 0) {
          if (failing.after > 0) failing.after--;
          else {
            failing.times--;
            res.writeHead(500, { "content-type": "text/plain" });
            res.end("internal error");
            return;
          }
        }
        if (request.path.startsWith("/exchange") && refuseStatus !== undefined) {
          res.writeHead(refuseStatus, { "content-type": "text/html" });
          res.end(`<html><body>${refuseStatus}</body></html>`);
          return;
        }
        let answer: { status: number; date: string | undefined; text: string };
        try {
          answer = await forward(request.path, body);
        } catch (err) {
          res.writeHead(502, { "content-type": "text/plain" });
          res.end(`proxy: ${(err as Error).message}`);
          return;
        }
        let text = answer.text;
        const type = (json as { type?: unknown } | undefined)?.type;
        const rewriters = request.path.startsWith("/exchange")
          ? exchangeRewriters
          : request.path.startsWith("/info") && typeof type === "string"
            ? infoRewriters.get(type)
            : [];
        if (rewriters && rewriters.length > 0 && answer.status === 200) {
          let value = safeParse(text);
          for (const rewrite of rewriters) value = rewrite(value, request);
          text = stringifyJson(value);
        }
        const date = dateRewriter ? dateRewriter(answer.date) : answer.date;
        res.writeHead(answer.status, {
          "content-type": "application/json",
          ...(date === undefined ? {} : { date }),
        });
        res.end(text);
      })();
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const proxy: RewritingProxy = {
    url: `http://127.0.0.1:${port}`,
    target,
    requests: [],
    held: [],
    rewriteInfo(type, rewrite) {
      const list = infoRewriters.get(type) ?? [];
      list.push(rewrite);
      infoRewriters.set(type, list);
    },
    rewriteExchange(rewrite) {
      exchangeRewriters.push(rewrite);
    },
    rewriteDate(rewrite) {
      dateRewriter = rewrite;
    },
    holdExchange(match = () => true) {
      holdRule = match;
    },
    refuseExchange(status) {
      refuseStatus = status;
    },
    failInfo(type, times, after = 0) {
      infoFailures.set(type, { after, times });
    },
    clear() {
      infoRewriters.clear();
      exchangeRewriters.length = 0;
      dateRewriter = undefined;
      holdRule = undefined;
      refuseStatus = undefined;
      infoFailures.clear();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

function safeParse(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}
