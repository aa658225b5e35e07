// Notifier.close() journals every message it drops: the queued ones, and the one a lane holds (in flight,
// or waiting out minIntervalMs or a retry's back-off), which was lost with no journal row (a review). A
// process about to exit waits for a slow endpoint up to the request timeout.
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { Channel } from "../../src/engine/notify/channels.js";
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
