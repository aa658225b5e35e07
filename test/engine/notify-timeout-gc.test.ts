// A notification channel that never answers must give up after timeoutMs. The timeout was
// AbortSignal.timeout inside AbortSignal.any: nothing else held that signal, a garbage collection could
// collect it before it fired (nodejs/node#57736), and the lane then waited for good (notify.test.ts's
// dead Discord channel never timed out in about 1 run in 4). The collections are forced here.
import v8 from "node:v8";
import vm from "node:vm";
import pino from "pino";
import { expect, it } from "vitest";
import { type Channel, SendError } from "../../src/engine/notify/channels.js";
import { type NotificationAttempt, Notifier } from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

it("gives up on a channel that never answers after timeoutMs, whatever the garbage collector does", async () => {
  const rows: NotificationAttempt[] = [];
  const hang: Channel["send"] = (_e, signal) =>
    new Promise((_r, reject) =>
      signal.addEventListener("abort", () => reject(new SendError("timed out", true)), { once: true }),
    );
  const n = new Notifier({
    channels: [{ name: "discord", events: new Set(["cycle.failed"]), send: hang }],
    logger: pino({ level: "silent" }),
    log: { recordNotification: (a) => rows.push(a) },
    timeoutMs: 300,
    retries: 0,
    minIntervalMs: 0,
  });
  n.notify({
    id: "id1",
    type: "cycle.failed",
    time: new Date(0).toISOString(),
    account: "0x0",
    network: "testnet",
    title: "message 1",
    text: "t",
    data: {},
  } as unknown as NotifyEvent);
  const end = performance.now() + 3_000;
  while (!rows.some((r) => r.outcome === "gave-up") && performance.now() < end) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  n.close();
  expect(rows.map((r) => [r.channel, r.outcome, r.detail])).toEqual([["discord", "gave-up", "timed out"]]);
});
