// Helpers of the metrics tests: scrape the daemon's HTTP endpoint on 127.0.0.1, read one sample of the
// Prometheus text format, and let a daemon under sinon fake timers finish its run.
import { request } from "node:http";
import type sinon from "sinon";
import type { Daemon } from "../../src/engine/daemon.js";

/** Captured before any test installs fake timers. */
export const realSetTimeout = globalThis.setTimeout;

export function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method: "GET" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** The value of one sample line of the Prometheus text format, e.g. `name{a="b"}`. */
export function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Lets the daemon's run finish, moving fake time on whenever it waits (weight budget, retry delays). */
export async function settle(d: Daemon, c: sinon.SinonFakeTimers): Promise<void> {
  let idle = false;
  void d.idle().then(() => {
    idle = true;
  });
  while (!idle) {
    await new Promise((r) => realSetTimeout(r, 10));
    if (!idle) await c.tickAsync(1_000);
  }
}
