// Notifier.close() journals every message it drops: the queued ones, and the one a lane holds (in flight,
// or waiting out minIntervalMs or a retry's back-off), which was lost with no journal row (a review). A
// process about to exit waits for a slow endpoint up to the request timeout.

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { type Channel, SendError, webhookChannel } from "../../src/engine/notify/channels.js";
import { flushWaitMs, type NotificationAttempt, Notifier } from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";

const ev = (n: number): NotifyEvent =>
  ({
    id: `id${n}`,
    type: "cycle.failed",
    time: new Date(0).toISOString(),
    account: "0x0",
    network: "testnet",
    title: `message ${n}`,
    text: "t",
    data: {},
  }) as unknown as NotifyEvent;

function setup(send: Channel["send"]) {
  const rows: NotificationAttempt[] = [];
  const channel: Channel = { name: "webhook", events: new Set(["cycle.failed"]), send };
  const n = new Notifier({
    channels: [channel],
    logger: pino({ level: "silent" }),
    log: { recordNotification: (a) => rows.push(a) },
    timeoutMs: 5_000,
    retries: 2,
    minIntervalMs: 1_000,
  });
  return { n, rows };
}

describe("Notifier.close() and the message a lane holds", () => {
  it("journals the in-flight message it aborts (a slow endpoint: 5 s timeout > once's 3 s wait)", async () => {
    const { n, rows } = setup(
      (_e, signal) =>
        new Promise((_r, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
    );
    n.notify(ev(1));
    const wait = flushWaitMs(n);
    expect(wait).toBe(6_000); // the interval and the request's own timeout of 5 s
    await n.flush(200); // shortened for the test
    n.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(rows.map((r) => `${r.title}:${r.outcome}`)).toContain("message 1:dropped");
  });

  it("journals the message waiting out minIntervalMs when it closes", async () => {
    const { n, rows } = setup(async () => 200);
    n.notify(ev(1));
    n.notify(ev(2));
    n.notify(ev(3));
    await n.flush(300); // message 1 sent; message 2 shifted out, waiting 1 s; message 3 queued
    n.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(rows.map((r) => `${r.title}:${r.outcome}`)).toEqual([
      "message 1:sent",
      "message 2:dropped",
      "message 3:dropped",
    ]);
  });
});

describe("close() and a message the endpoint may have (a review)", () => {
  it("a 503 then a slow 200 within timeoutMs: the endpoint has it, the journal says dropped / not sent", async () => {
    const rows: NotificationAttempt[] = [];
    const received: string[] = [];
    let attempt = 0;
    const channel: Channel = {
      name: "webhook",
      events: new Set(["cycle.failed"]),
      send: (e, signal) => {
        attempt++;
        if (attempt === 1)
          return new Promise((_r, reject) =>
            setTimeout(() => reject(new SendError("HTTP 503", true, 503)), 500),
          );
        received.push(e.title); // the endpoint has the message; its answer comes 4.8 s later (< 5 s timeout)
        return new Promise((resolve, reject) => {
          const t = setTimeout(() => resolve(200), 4_800);
          signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(new Error("aborted"));
          });
        });
      },
    };
    const n = new Notifier({
      channels: [channel],
      logger: pino({ level: "silent" }),
      log: { recordNotification: (a) => rows.push(a) },
      timeoutMs: 5_000,
      retries: 2,
      minIntervalMs: 1_000,
    });
    n.notify(ev(1));
    const wait = flushWaitMs(n); // as once.ts does
    await n.flush(wait);
    n.close();
    await new Promise((r) => setTimeout(r, 600));
    expect(received).toEqual(["message 1"]);
    // The endpoint has it: the journal says it may have arrived, not "not sent".
    expect(rows.map((r) => `${r.outcome}:${r.detail ?? ""}`)).toEqual([
      "failed:HTTP 503",
      "dropped:cut short when hlbot stopped: it may have arrived",
    ]);
  }, 15_000);

  it("a 200 status line with a slow body: journaled dropped, then sent, for one message", async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("o");
      setTimeout(() => res.end("k"), 2_000);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const rows: NotificationAttempt[] = [];
      const n = new Notifier({
        channels: [webhookChannel(`http://127.0.0.1:${port}/hook`, new Set(["cycle.failed"]))],
        logger: pino({ level: "silent" }),
        log: { recordNotification: (a) => rows.push(a) },
        timeoutMs: 5_000,
        retries: 0,
        minIntervalMs: 1_000,
      });
      n.notify(ev(1));
      await n.flush(500); // the close lands while the body is read (the same happens at flushWaitMs's cap)
      n.close();
      await new Promise((r) => setTimeout(r, 300));
      const outcomes = rows.map((r) => `${r.title}:${r.outcome}`);
      // One message, one final outcome.
      expect(outcomes).toEqual(["message 1:dropped"]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 15_000);

  it("one waiting out a retry after a timed-out attempt may have arrived too (a cron user's trial: it had)", async () => {
    const rows: NotificationAttempt[] = [];
    const channel: Channel = {
      name: "webhook",
      events: new Set(["cycle.failed"]),
      send: () =>
        new Promise((_r, reject) => setTimeout(() => reject(new SendError("timed out", true)), 100)),
    };
    const n = new Notifier({
      channels: [channel],
      logger: pino({ level: "silent" }),
      log: { recordNotification: (a) => rows.push(a) },
      timeoutMs: 5_000,
      retries: 2,
      minIntervalMs: 0,
      retryBaseMs: 5_000,
    });
    n.notify(ev(1));
    await n.flush(400); // the first attempt timed out; the retry waits 5 s
    n.close();
    expect(rows.map((r) => `${r.outcome}:${r.detail ?? ""}`)).toEqual([
      "failed:timed out",
      "dropped:cut short when hlbot stopped: it may have arrived",
    ]);
  });
});
