// A rewriting HTTP proxy on 127.0.0.1 in front of the embedded simulator: every request goes to the
// simulator unchanged, and the answer to an info query can be rewritten by its wire `type`, so a test
// can make the "venue" answer what the real one sends and the simulator does not model (a sub-account
// in "dexAbstraction" mode, a referral stage added later, a broken field). Everything else (exchange
// actions, other queries) passes through untouched. Records the info `type`s it saw.
//
//   const proxy = await startVenueProxy(sim.url, {
//     subAccounts2: (answer) => [{ ...(answer as object[])[0], abstraction: "dexAbstraction" }],
//   });
//   ... baseUrl: proxy.url ...
//   await proxy.close();
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parseJson, stringifyJson } from "../../src/lib/json.js";

/** Returns the answer to send instead (any JSON), given the simulator's answer and the request body. */
export type AnswerRewrite = (answer: unknown, request: Record<string, unknown>) => unknown;

export interface VenueProxy {
  url: string;
  /** Info query types in arrival order. */
  seen: string[];
  /** Replaces the rewrites (by info `type`). */
  setRewrites(rewrites: Record<string, AnswerRewrite>): void;
  close(): Promise<void>;
}

export async function startVenueProxy(
  upstream: string,
  initial: Record<string, AnswerRewrite> = {},
): Promise<VenueProxy> {
  let rewrites = initial;
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const upstreamRes = await fetch(`${upstream}${req.url ?? ""}`, {
          method: req.method ?? "POST",
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          ...(req.method === "GET" || req.method === "HEAD" ? {} : { body }),
        });
        let text = await upstreamRes.text();
        let request: Record<string, unknown> | undefined;
        try {
          request = body === "" ? undefined : (parseJson(body) as Record<string, unknown>);
        } catch {
          request = undefined;
        }
        const type = typeof request?.type === "string" ? request.type : undefined;
        if (type !== undefined && req.url?.startsWith("/info")) {
          seen.push(type);
          const rewrite = rewrites[type];
          if (rewrite && upstreamRes.status === 200)
            text = stringifyJson(rewrite(parseJson(text), request!)) ?? "null";
        }
        // The venue's Date header passed on, as a proxy in front of the venue would (hlbot reads the
        // venue's clock from it); without one, this server would send its own.
        const date = upstreamRes.headers.get("date");
        res.writeHead(upstreamRes.status, {
          "content-type": upstreamRes.headers.get("content-type") ?? "application/json",
          "content-length": String(Buffer.byteLength(text)),
          ...(date === null ? {} : { date }),
        });
        res.end(text);
      })().catch((err: unknown) => {
        res.statusCode = 599;
        res.end(`venue proxy failed: ${String(err)}`);
      });
    });
  });
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
    seen,
    setRewrites(next) {
      rewrites = next;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
