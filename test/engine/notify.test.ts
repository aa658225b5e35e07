// Notifications against HTTP servers on 127.0.0.1 standing in for a webhook receiver, Telegram's Bot
// API and a Discord webhook: the request shapes, retries of what may pass on another try (5xx, 429 with
// the wait it asks, timeouts) and no retry of what will not (401), the per-channel rate limit, a full
// queue, a dead endpoint that never delays the caller, every attempt journaled, and no token anywhere.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { CycleReport } from "../../src/engine/cycle.js";
import { Journal } from "../../src/engine/journal.js";
import {
  cycleFailedEvent,
  daemonEvent,
  submissionEvents,
  testEvent,
} from "../../src/engine/notify/events.js";
import {
  channelsFromConfig,
  flushWaitMs,
  type NotificationAttempt,
  Notifier,
} from "../../src/engine/notify/notifier.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { ConfigError } from "../../src/lib/errors.js";
import { openStateDb } from "../../src/lib/stateDb.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";

const TOKEN = "123456:AAE-secret-telegram-token";
const DISCORD_PATH = "/api/webhooks/42/discord-secret-token";
const silent = pino({ level: "silent" });
const servers: TestHttpServer[] = [];
const dir = mkdtempSync(join(tmpdir(), "hlbot-notify-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(...args: Parameters<typeof startHttpServer>): Promise<TestHttpServer> {
  const s = await startHttpServer(...args);
  servers.push(s);
  return s;
}

const ctx = {
  account: "0x00000000000000000000000000000000000000aa",
  network: "testnet",
  now: Date.UTC(2026, 10, 25),
};

function event(title: string, type: NotifyEvent["type"] = "cycle.failed"): NotifyEvent {
  return {
    id: `id-${title}`,
    type,
    time: new Date(ctx.now).toISOString(),
    account: ctx.account,
    network: "testnet",
    title,
    text: "details",
    data: { n: 1 },
  };
}

function config(url: string, extra: Record<string, unknown> = {}) {
  return {
    timeoutMs: 2000,
    retries: 2,
    minIntervalMs: 0,
    webhook: { url: `${url}/hook` },
    telegram: { botTokenEnv: "TG_TOKEN", chatId: -1001234, apiUrl: url },
    discord: { webhookUrlEnv: "DISCORD_URL" },
    ...extra,
  };
}

function memoryLog(): { attempts: NotificationAttempt[]; recordNotification(a: NotificationAttempt): void } {
  const attempts: NotificationAttempt[] = [];
  return { attempts, recordNotification: (a) => attempts.push(a) };
}

describe("notification channels", () => {
  it("POST what each service expects: JSON event, Telegram sendMessage, Discord content without mentions", async () => {
    const s = await server([{ json: { ok: true } }]);
    const env = { TG_TOKEN: TOKEN, DISCORD_URL: `${s.url}${DISCORD_PATH}` };
    const log = memoryLog();
    const n = new Notifier({
      channels: channelsFromConfig(config(s.url), env),
      logger: silent,
      log,
      minIntervalMs: 0,
    });
    n.notify(testEvent(ctx));
    await n.flush(5000);
    n.close();
    const byPath = new Map(s.requests.map((r) => [r.path, r]));
    expect([...byPath.keys()].sort()).toEqual(
      ["/api/webhooks/42/discord-secret-token", `/bot${TOKEN}/sendMessage`, "/hook"].sort(),
    );
    for (const r of s.requests) {
      expect(r.method).toBe("POST");
      expect(r.headers["content-type"]).toBe("application/json");
    }
    expect(byPath.get("/hook")!.json).toMatchObject({
      type: "test",
      account: ctx.account,
      network: "testnet",
      title: "test message from `hlbot notify test`",
      time: "2026-11-25T00:00:00.000Z",
    });
    expect(byPath.get(`/bot${TOKEN}/sendMessage`)!.json).toEqual({
      chat_id: "-1001234",
      text: "hlbot (testnet 0x0000…00aa): test message from `hlbot notify test`\nIf you read this, notifications reach you.",
      disable_web_page_preview: true,
    });
    expect(byPath.get(DISCORD_PATH)!.json).toEqual({
      content:
        "hlbot (testnet 0x0000…00aa): test message from `hlbot notify test`\nIf you read this, notifications reach you.",
      allowed_mentions: { parse: [] },
    });
    expect(log.attempts.map((a) => [a.channel, a.outcome, a.status]).sort()).toEqual([
      ["discord", "sent", 200],
      ["telegram", "sent", 200],
      ["webhook", "sent", 200],
    ]);
  });

  it("each channel gets only the events it asked for", async () => {
    const s = await server([{ json: {} }]);
    const cfg = config(s.url, {
      telegram: undefined,
      discord: undefined,
      webhook: { url: `${s.url}/hook`, events: ["twap.finished"] },
    });
    const n = new Notifier({ channels: channelsFromConfig(cfg, {}), logger: silent, minIntervalMs: 0 });
    n.notify(event("a failure", "cycle.failed"));
    n.notify(event("a TWAP ended", "twap.finished"));
    await n.flush(5000);
    n.close();
    expect(s.requests.map((r) => (r.json as NotifyEvent).title)).toEqual(["a TWAP ended"]);
  });

  it("retries a 5xx and a 429 (waiting what Telegram asks), gives up on a 401 at once; every attempt journaled", async () => {
    const s = await server((r, i) => {
      if (r.path === "/hook") return i === 0 ? { status: 502 } : { json: {} };
      if (r.path.startsWith("/bot"))
        return s.requests.filter((x) => x.path.startsWith("/bot")).length === 1
          ? { status: 429, json: { ok: false, error_code: 429, parameters: { retry_after: 0.3 } } }
          : { json: { ok: true } };
      return { status: 401, json: { message: "Invalid Webhook Token" } };
    });
    const db = await openStateDb({ dir: join(dir, "journal") });
    const journal = new Journal(db);
    try {
      const env = { TG_TOKEN: TOKEN, DISCORD_URL: `${s.url}${DISCORD_PATH}` };
      const n = new Notifier({
        channels: channelsFromConfig(config(s.url), env),
        logger: silent,
        log: journal,
        retryBaseMs: 50,
        minIntervalMs: 0,
      });
      n.notify(cycleFailedEvent(ctx, ["dca"], "cycle failed", 1));
      await n.flush(5000);
      n.close();
      // The webhook's retry carries the event's id as the first attempt did: a receiver drops repeats
      // (an operator's trial: a journal locked elsewhere had deliveries that did arrive sent again).
      const hooks = s.requests.filter((r) => r.path === "/hook").map((r) => (r.json as NotifyEvent).id);
      expect(hooks).toHaveLength(2);
      expect(hooks[0]).toMatch(/^[0-9a-f]{20}$/);
      expect(hooks[1]).toBe(hooks[0]);
      expect(cycleFailedEvent({ ...ctx, now: ctx.now + 1 }, ["dca"], "cycle failed", 1).id).not.toBe(
        hooks[0],
      );
      const tg = s.requests.filter((r) => r.path.startsWith("/bot"));
      expect(tg).toHaveLength(2);
      expect(tg[1]!.receivedAt - tg[0]!.receivedAt).toBeGreaterThanOrEqual(290);
      expect(s.requests.filter((r) => r.path === DISCORD_PATH)).toHaveLength(1);
      const rows = journal.recentNotifications(20).reverse();
      const of = (c: string) =>
        rows.filter((r) => r.channel === c).map((r) => [r.attempt, r.outcome, r.status]);
      expect(of("webhook")).toEqual([
        [1, "failed", 502],
        [2, "sent", 200],
      ]);
      expect(of("telegram")).toEqual([
        [1, "failed", 429],
        [2, "sent", 200],
      ]);
      expect(of("discord")).toEqual([[1, "gave-up", 401]]);
      // The tokens in the Telegram path and the Discord URL are nowhere in the journal.
      expect(JSON.stringify(rows)).not.toContain("secret");
    } finally {
      db.close();
    }
  });

  it("keeps at least minIntervalMs between two messages to one channel", async () => {
    const s = await server([{ json: {} }]);
    const cfg = config(s.url, { telegram: undefined, discord: undefined });
    const n = new Notifier({ channels: channelsFromConfig(cfg, {}), logger: silent, minIntervalMs: 150 });
    for (const t of ["one", "two", "three"]) n.notify(event(t));
    await n.flush(5000);
    n.close();
    expect(s.requests.map((r) => (r.json as NotifyEvent).title)).toEqual(["one", "two", "three"]);
    for (let i = 1; i < 3; i++)
      expect(s.requests[i]!.receivedAt - s.requests[i - 1]!.receivedAt).toBeGreaterThanOrEqual(140);
  });

  it("a dead endpoint never delays the caller: notify returns at once, the attempt times out in the background", async () => {
    const s = await server([{ fault: "hang" }]);
    const cfg = config(s.url, { telegram: undefined, discord: undefined, timeoutMs: 200, retries: 1 });
    const log = memoryLog();
    const n = new Notifier({
      channels: channelsFromConfig(cfg, {}),
      logger: silent,
      log,
      timeoutMs: 200,
      retries: 1,
      retryBaseMs: 10,
      minIntervalMs: 0,
    });
    const started = performance.now();
    for (let i = 0; i < 50; i++) n.notify(event(`event ${i}`));
    expect(performance.now() - started).toBeLessThan(20);
    await s.waitForRequests(1, 2000);
    await new Promise((r) => setTimeout(r, 500));
    n.close();
    expect(log.attempts.slice(0, 2).map((a) => [a.attempt, a.outcome, a.detail])).toEqual([
      [1, "failed", "timed out"],
      [2, "gave-up", "timed out"],
    ]);
  });

  it("a process about to exit waits for what is queued at the channel's pace; what close() drops is journaled (a review: once lost a pass's fourth message)", async () => {
    const told: string[] = [];
    const db = await openStateDb({ dir: join(dir, "journal-drain") });
    const journal = new Journal(db);
    try {
      const make = () =>
        new Notifier({
          channels: [
            {
              name: "record",
              events: new Set(["cycle.failed"]),
              send: async (e) => {
                told.push(e.title);
                return 200;
              },
            },
          ],
          logger: silent,
          log: journal,
          minIntervalMs: 300,
        });
      const n = make();
      for (const t of ["a", "b", "c", "d", "e"]) n.notify(event(t));
      expect(flushWaitMs(n)).toBeGreaterThanOrEqual(5 * 1300);
      await n.flush(flushWaitMs(n));
      n.close();
      expect(told).toEqual(["a", "b", "c", "d", "e"]);
      const m = make();
      for (const t of ["f", "g", "h"]) m.notify(event(t));
      m.close();
      const dropped = journal
        .recentNotifications(20)
        .filter((r) => r.outcome === "dropped")
        .map((r) => r.detail);
      expect(dropped.length).toBeGreaterThanOrEqual(2);
      expect(dropped.every((e) => e === "not sent before hlbot stopped")).toBe(true);
    } finally {
      db.close();
    }
  });

  it("a full queue drops its oldest message and journals it", async () => {
    const s = await server([{ fault: "hang" }]);
    const cfg = config(s.url, { telegram: undefined, discord: undefined });
    const log = memoryLog();
    const n = new Notifier({
      channels: channelsFromConfig(cfg, {}),
      logger: silent,
      log,
      maxQueue: 2,
      timeoutMs: 5000,
    });
    for (const t of ["first", "second", "third", "fourth"]) n.notify(event(t));
    n.close();
    // "second" was dropped for "fourth"; at close, "first" (in flight), "third" and "fourth" (queued).
    expect(log.attempts.filter((a) => a.outcome === "dropped").map((a) => [a.title, a.detail])).toEqual([
      ["second", "queue full"],
      ["first", "not sent before hlbot stopped"],
      ["third", "not sent before hlbot stopped"],
      ["fourth", "not sent before hlbot stopped"],
    ]);
  });

  it("a configured channel whose secret is missing is a ConfigError naming the variable", () => {
    expect(() =>
      channelsFromConfig(config("http://127.0.0.1:9"), { DISCORD_URL: "http://127.0.0.1:9/x" }),
    ).toThrow(ConfigError);
    expect(() =>
      channelsFromConfig(config("http://127.0.0.1:9"), { DISCORD_URL: "http://127.0.0.1:9/x" }),
    ).toThrow(/TG_TOKEN is not set: it must hold the Telegram bot token/);
  });
});

describe("submission notices say what was sent", () => {
  it("an unknown cancel says it is sent again, not 'not resent' (a review); a cycle.failed says the slot stays due", () => {
    const report = {
      cycleId: "c1",
      reconciled: [],
      actions: [
        {
          strategy: "dca",
          action: "twapCancel",
          reason: "cancel TWAP #7: mid rose above the buy ceiling",
          guard: "allowed",
          outcome: "unknown",
          request: { action: { type: "twapCancel", a: 10107, t: 7 } },
        },
      ],
    } as unknown as CycleReport;
    const [unknown] = submissionEvents({ account: "0xabc", network: "testnet", now: 0 }, report);
    expect(unknown?.title).toMatch(/outcome UNKNOWN \(being reconciled; sent again while the TWAP runs/);
    expect(cycleFailedEvent(ctx, ["dca"], "dca: holding", 1).text).toMatch(
      /did nothing in this run; their slot stays due and is tried again \(the daemon backs off; under cron, at the next `hlbot once`/,
    );
  });

  it("a staking move reduced by the limits is named by the amount in its request, not the one its reason leads with", () => {
    const report = {
      cycleId: "c1",
      reconciled: [],
      actions: [
        {
          strategy: "hype-staking",
          action: "tokenDelegate",
          reason: "delegate 750 HYPE to ValiDAO; reduced from 750 to 300 HYPE by maxStakeMovePerDay",
          guard: "reduced",
          outcome: "accepted",
          request: {
            action: {
              type: "tokenDelegate",
              validator: "0xb8f45222a3246a2b0104696a1df26842007c5bc5",
              isUndelegate: false,
              wei: 30_000_000_000,
            },
          },
        },
        {
          strategy: "hype-staking",
          action: "cDeposit",
          reason: "move 1500 idle spot HYPE into staking; reduced from 1500 to 300 HYPE",
          guard: "reduced",
          outcome: "accepted",
          request: { action: { type: "cDeposit", wei: 30_000_000_000 } },
        },
      ],
    } as unknown as CycleReport;
    const events = submissionEvents({ account: "0xabc", network: "testnet", now: 0 }, report);
    expect(events.map((e) => e.title)).toEqual([
      "hype-staking: tokenDelegate 300 HYPE to 0xb8f4…5bc5 accepted",
      "hype-staking: cDeposit 300 HYPE accepted",
    ]);
    expect(events[0]?.data).toMatchObject({ sent: "300 HYPE to 0xb8f4…5bc5" });
    // And as fields, the validator in full (a scripter's receiver had them only inside `sent`).
    expect(events[0]?.data).toMatchObject({
      amount: "300",
      token: "HYPE",
      validator: "0xb8f45222a3246a2b0104696a1df26842007c5bc5",
      isUndelegate: false,
    });
    expect(events[1]?.data).toMatchObject({ amount: "300", token: "HYPE" });
  });

  it("a refusal by hlbot itself (nothing sent) is not told as the venue's (a recovery trial: a clock a day ahead)", () => {
    const report = {
      cycleId: "c3",
      reconciled: [],
      actions: [
        {
          strategy: "staking",
          action: "cDeposit",
          reason: "move 5 idle spot HYPE into staking",
          guard: "allowed",
          outcome: "rejected",
          request: {},
          detail: "not sent: the local clock is 24.0 h ahead of the venue's (Date header)",
          notSent: true,
        },
        {
          strategy: "dca",
          action: "twapOrder",
          reason: "buy",
          guard: "allowed",
          outcome: "rejected",
          request: {
            action: { type: "twapOrder", twap: { a: 10107, b: true, s: "1", r: false, m: 30, t: false } },
          },
          detail: "Insufficient spot balance",
        },
      ],
    } as unknown as CycleReport;
    const events = submissionEvents({ account: "0xabc", network: "testnet", now: 0 }, report);
    expect(events[0]?.title).toBe("staking: cDeposit REJECTED by hlbot, not sent");
    expect(events[0]?.text).toContain("hlbot: not sent: the local clock is 24.0 h ahead");
    expect(events[1]?.title).toMatch(/REJECTED by the venue$/);
    expect(events[1]?.text).toContain("venue: Insufficient spot balance");
  });

  it("a submission left unknown and reconciled later is followed up: landed or not", () => {
    const report = {
      cycleId: "c2",
      actions: [],
      reconciled: [
        {
          submissionId: 9,
          strategy: "dca",
          actionType: "twapOrder",
          verdict: "absent",
          detail: "not on the venue and expired",
        },
        {
          submissionId: 21,
          strategy: "dca",
          actionType: "twapOrder",
          verdict: "landed",
          detail: "TWAP 1014 found in twapHistory",
        },
        {
          submissionId: 22,
          strategy: "dca",
          actionType: "twapOrder",
          verdict: "unresolved",
          detail: "may still land",
        },
      ],
    } as unknown as CycleReport;
    const events = submissionEvents({ account: "0xabc", network: "testnet", now: 0 }, report);
    expect(events.map((e) => [e.type, e.title])).toEqual([
      ["submission.reconciled", "dca: twapOrder #9 did not land: nothing happened"],
      ["submission.reconciled", "dca: twapOrder #21 LANDED: it took effect"],
    ]);
  });
});

describe("daemon.stop", () => {
  it("says why the daemon stopped, not only its exit code (a recovery trial got 'daemon stopped (exit 1)' after a full disk)", () => {
    const c = {
      account: "0x1111111111111111111111111111111111111111",
      network: "testnet",
      now: Date.UTC(2026, 10, 27),
    };
    const e = daemonEvent(c, "stop", {
      mode: "live",
      exitCode: 1,
      why: "the state database in ./state failed: database or disk is full",
    });
    expect(e.title).toBe("daemon stopped (exit 1)");
    expect(e.text).toBe("the state database in ./state failed: database or disk is full");
    expect(daemonEvent(c, "stop", { mode: "live", exitCode: 0 }).text).toBe("");
  });
});
