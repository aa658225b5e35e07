// A scripted HTTP server on 127.0.0.1 for tests that talk to real sockets (no stubbing of the HTTP
// client). Every request is recorded (method, path, headers, body, parsed JSON, arrival time by
// Date.now(), so fake clocks show up) before the script decides the reply. Replies can be JSON (bigint
// written as exact digits), raw text, a delay, a dropped connection, a truncated body or no answer.
//
//   const server = await startHttpServer([{ status: 500 }, { json: { ok: true } }]);
//   ... new HttpTransport({ endpoints: resolveEndpoints("testnet", server.url) }) ...
//   expect(server.requests).toHaveLength(2);
//   await server.close();
//
// A script is either one function `(request, index) => Reply` or an array of replies used in order
// (the last one repeats). Delays use the real timers captured when this module loads, so the server
// keeps working while a test has installed sinon fake timers.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseJson, stringifyJson } from "../../src/lib/json.js";

const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/info`. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `body` parsed as JSON (bigint-safe), or undefined when it is not JSON. */
  json: unknown;
  /** Date.now() when the request body was complete (faked when the test fakes Date). */
  receivedAt: number;
  /** Client port of the connection: equal ports mean a reused (keep-alive) connection. */
  remotePort: number | undefined;
}

export interface Reply {
  /** Default 200. */
  status?: number;
  /** Extra headers. `content-type` defaults to application/json for `json`, text/plain for `text`. */
  headers?: Record<string, string>;
  /** Send no Date header (Node's server adds one by default). */
  noDate?: boolean;
  /** Serialized with stringifyJson (so `null` sends the literal null, bigint exact digits). */
  json?: unknown;
  /** Raw body, sent as is. Ignored when `json` is set. */
  text?: string;
  /** Real milliseconds to wait before answering. */
  delayMs?: number;
  /**
   * - `reset`: destroy the connection without any response.
   * - `truncate`: announce the full length, send half of the body, then destroy the connection.
   * - `hang`: never answer (until the server is closed).
   */
  fault?: "reset" | "truncate" | "hang";
}

export type ReplyScript = ((request: RecordedRequest, index: number) => Reply | Promise<Reply>) | Reply[];

export interface TestHttpServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replaces the script (and restarts array scripts at their first reply). */
  setScript(script: ReplyScript): void;
  /** Resolves once at least `count` requests arrived; rejects after `timeoutMs` real milliseconds. */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpServer(script: ReplyScript = [{ json: null }]): Promise<TestHttpServer> {
  let current = script;
  let scriptStart = 0;
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const sockets = new Set<Socket>();
  const pendingTimers = new Set<ReturnType<typeof setTimeout>>();

  const notify = () => {
    for (const w of [...waiters]) {
      if (requests.length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };

  const pick = async (req: RecordedRequest, index: number): Promise<Reply> => {
    if (typeof current === "function") return current(req, index);
    const list = current;
    if (list.length === 0) return { json: null };
    return list[Math.min(index - scriptStart, list.length - 1)]!;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = body === "" ? undefined : parseJson(body);
      } catch {
        json = undefined;
      }
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body,
        json,
        receivedAt: Date.now(),
        remotePort: req.socket.remotePort,
      };
      const index = requests.length;
      requests.push(recorded);
      notify();
      void (async () => {
        const reply = await pick(recorded, index);
        if (reply.delayMs) {
          await new Promise<void>((resolve) => {
            const t = realSetTimeout(() => {
              pendingTimers.delete(t);
              resolve();
            }, reply.delayMs);
            pendingTimers.add(t);
          });
        }
        respond(res, reply);
      })().catch((err: unknown) => {
        res.statusCode = 599;
        res.end(`test server script failed: ${String(err)}`);
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setScript(next) {
      current = next;
      scriptStart = requests.length;
    },
    waitForRequests(count, timeoutMs = 5_000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            realClearTimeout(timer);
            resolve();
          },
        };
        const timer = realSetTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`expected ${count} requests within ${timeoutMs} ms, saw ${requests.length}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    async close() {
      for (const t of pendingTimers) realClearTimeout(t);
      pendingTimers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function respond(res: ServerResponse, reply: Reply): void {
  if (reply.fault === "hang") return;
  if (reply.fault === "reset") {
    res.socket?.destroy();
    return;
  }
  let body = "";
  let contentType = "text/plain; charset=utf-8";
  if ("json" in reply) {
    body = stringifyJson(reply.json) ?? "";
    contentType = "application/json";
  } else if (reply.text !== undefined) {
    body = reply.text;
  }
  const headers: Record<string, string> = { "content-type": contentType, ...reply.headers };
  const bytes = Buffer.from(body, "utf8");
  if (reply.noDate === true) res.sendDate = false;
  res.writeHead(reply.status ?? 200, { ...headers, "content-length": String(bytes.length) });
  if (reply.fault === "truncate") {
    res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
    return;
  }
  res.end(bytes);
}
