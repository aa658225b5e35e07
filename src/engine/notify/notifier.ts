// Sends notifications in the background. `notify()` only queues: a dead or slow endpoint never delays
// or fails a cycle. Each channel has its own queue and worker: one message at a time, at most one per
// `minIntervalMs` (the services' own limits: Telegram about one message per second per chat, Discord
// a few per second per webhook), each request bounded by `timeoutMs`, a timeout, network error, 5xx or
// 429 retried up to `retries` times (waiting what a 429 asks), every attempt journaled with its outcome.
// A full queue drops its oldest message and says so. Secrets (tokens in URLs) are registered with the
// redactor when the channels are built and never put in a message or an error.
import type { Logger } from "pino";
import { ConfigError, describeError } from "../../lib/errors.js";
import { redact, registerSecret } from "../../lib/secrets.js";
import { linkSignals } from "../../lib/signals.js";
import type { NotifyConfig } from "../config/loader.js";
import { type Channel, discordChannel, SendError, telegramChannel, webhookChannel } from "./channels.js";
import { NOTIFY_EVENTS, type NotifyEvent, type NotifyEventType } from "./types.js";

/** One send attempt, as the journal keeps it. */
export interface NotificationAttempt {
  time: number;
  channel: string;
  event: NotifyEventType;
  title: string;
  attempt: number;
  /** sent; failed (will retry); gave-up; dropped (queue full, or hlbot stopped first). */
  outcome: "sent" | "failed" | "gave-up" | "dropped";
  status?: number | undefined;
  detail?: string | undefined;
}

export interface NotificationLog {
  recordNotification(a: NotificationAttempt): void;
}

export interface NotifierOptions {
  channels: readonly Channel[];
  logger: Logger;
  log?: NotificationLog | undefined;
  timeoutMs?: number;
  retries?: number;
  minIntervalMs?: number;
  /** First wait before a retry, doubling (default 1 s). */
  retryBaseMs?: number;
  /** Longest queue per channel (default 100). */
  maxQueue?: number;
  clock?: () => number;
}

interface Lane {
  channel: Channel;
  queue: NotifyEvent[];
  busy: boolean;
  nextAt: number;
  /** The event being delivered (sending, or waiting out the interval or a retry's back-off). */
  current?: NotifyEvent | undefined;
  /** Whether `current` is in flight now (sent, no answer yet): cut short, it may have arrived. */
  sending?: boolean;
  /** Attempts of `current` made so far: one that timed out or failed may have arrived too. */
  tried?: number;
}

export class Notifier {
  private readonly lanes: Lane[];
  private readonly o: Required<Omit<NotifierOptions, "log" | "channels">> & {
    log: NotificationLog | undefined;
  };
  private readonly closing = new AbortController();
  private readonly idleWaiters: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(o: NotifierOptions) {
    this.lanes = o.channels.map((channel) => ({ channel, queue: [], busy: false, nextAt: 0 }));
    this.o = {
      logger: o.logger,
      log: o.log,
      timeoutMs: o.timeoutMs ?? 5000,
      retries: o.retries ?? 2,
      minIntervalMs: o.minIntervalMs ?? 1000,
      retryBaseMs: o.retryBaseMs ?? 1000,
      maxQueue: o.maxQueue ?? 100,
      clock: o.clock ?? Date.now,
    };
  }

  /** Whether any channel wants this kind of event (so callers can skip building it). */
  wants(type: NotifyEventType): boolean {
    return this.lanes.some((l) => l.channel.events.has(type));
  }

  get channelNames(): string[] {
    return this.lanes.map((l) => l.channel.name);
  }

  /** Queues the event for every channel that wants it, and returns at once. */
  notify(event: NotifyEvent): void {
    if (this.closing.signal.aborted) return;
    for (const lane of this.lanes) {
      if (!lane.channel.events.has(event.type)) continue;
      if (lane.queue.length >= this.o.maxQueue) {
        const dropped = lane.queue.shift()!;
        this.record(lane, dropped, 0, "dropped", undefined, "queue full");
        this.o.logger.warn(
          { channel: lane.channel.name },
          `notification queue full: dropped "${dropped.title}"`,
        );
      }
      lane.queue.push(event);
      if (!lane.busy) void this.drain(lane);
    }
  }

  /** Resolves when every queue is empty, or after `maxMs` (what is left is then given up). */
  async flush(maxMs: number): Promise<void> {
    if (this.idle()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * The most a caller about to exit should wait for the queues to empty: each channel's queue at its
   * minimum interval, and `perMessageMs` for each message's own answer (`once` waited 3 s whatever was
   * queued, and a pass's fourth message, a cycle.failed, was lost: a review).
   */
  drainEstimateMs(perMessageMs: number): number {
    // Each message at the channel's pace, and its answer within the request timeout (a slow endpoint
    // takes up to it: a review's one message to a hanging endpoint was cut at 3 s of a 5-s timeout).
    const each = this.o.minIntervalMs + Math.max(perMessageMs, this.o.timeoutMs);
    return Math.max(0, ...this.lanes.map((l) => (l.queue.length + (l.busy ? 1 : 0)) * each));
  }

  /** Stops sending: requests in flight are aborted, queued messages dropped (journaled and logged). */
  close(): void {
    this.closing.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const lane of this.lanes) {
      // The one being delivered too: in flight (it may have arrived), or waiting out the interval or a
      // retry's back-off (a review: it vanished without a row).
      if (lane.current !== undefined && (lane.sending || (lane.tried ?? 0) > 0)) {
        // A review: one that had arrived was journaled "not sent".
        this.record(
          lane,
          lane.current,
          0,
          "dropped",
          undefined,
          "cut short when hlbot stopped: it may have arrived",
        );
        this.o.logger.warn(
          { channel: lane.channel.name },
          `notification cut short when hlbot stopped (it may have arrived): "${lane.current.title}"`,
        );
      }
      // Not tried yet (waiting out the interval): not sent.
      const waiting =
        lane.current !== undefined && !lane.sending && !((lane.tried ?? 0) > 0) ? [lane.current] : [];
      lane.current = undefined;
      for (const dropped of [...waiting, ...lane.queue.splice(0)]) {
        this.record(lane, dropped, 0, "dropped", undefined, "not sent before hlbot stopped");
        this.o.logger.warn(
          { channel: lane.channel.name },
          `notification not sent before hlbot stopped: dropped "${dropped.title}"`,
        );
      }
    }
    this.wakeIdle();
  }

  private idle(): boolean {
    return this.lanes.every((l) => !l.busy && l.queue.length === 0);
  }

  private wakeIdle(): void {
    if (!this.idle() && !this.closing.signal.aborted) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private async drain(lane: Lane): Promise<void> {
    lane.busy = true;
    try {
      while (lane.queue.length > 0 && !this.closing.signal.aborted) {
        const event = lane.queue.shift()!;
        lane.current = event;
        lane.tried = 0;
        await this.deliver(lane, event);
        lane.current = undefined;
      }
    } finally {
      lane.busy = false;
      this.wakeIdle();
    }
  }

  private async deliver(lane: Lane, event: NotifyEvent): Promise<void> {
    const attempts = 1 + this.o.retries;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.sleep(lane.nextAt - this.o.clock());
      if (this.closing.signal.aborted) return;
      // The timeout is a timer of ours, not AbortSignal.timeout: inside AbortSignal.any nothing else
      // holds that signal, Node may collect it before it fires (nodejs/node#57736), and a channel that
      // never answered then held its lane for good (a flaky test: 1 run in 4, no timeout in 15 s).
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new DOMException("The operation timed out.", "TimeoutError")),
        this.o.timeoutMs,
      );
      // Not AbortSignal.any either: this.closing lives as long as the notifier (src/lib/signals.ts).
      const linked = linkSignals(this.closing.signal, timeout.signal);
      const signal = linked.signal!;
      let wait = 0;
      try {
        lane.sending = true;
        lane.tried = attempt;
        let status: number;
        try {
          status = await lane.channel.send(event, signal);
        } finally {
          // Also when send throws before returning a promise (a review: the timer was left running).
          clearTimeout(timer);
          linked.release();
          lane.sending = false;
        }
        lane.nextAt = this.o.clock() + this.o.minIntervalMs;
        // Closed while it was read: close() journaled it already (a review: "dropped" then "sent").
        if (this.closing.signal.aborted) return;
        this.record(lane, event, attempt, "sent", status);
        return;
      } catch (err) {
        lane.nextAt = this.o.clock() + this.o.minIntervalMs;
        if (this.closing.signal.aborted) return;
        const e = err instanceof SendError ? err : new SendError(describeError(err), false);
        const last = attempt === attempts || !e.retryable;
        this.record(lane, event, attempt, last ? "gave-up" : "failed", e.status, e.message);
        if (last) {
          this.o.logger.warn(
            { channel: lane.channel.name, event: event.type, attempts: attempt },
            `notification to ${lane.channel.name} not delivered: ${e.message}`,
          );
          return;
        }
        wait = Math.max(this.o.retryBaseMs * 2 ** (attempt - 1), e.retryAfterMs ?? 0);
      }
      await this.sleep(wait);
    }
  }

  private record(
    lane: Lane,
    event: NotifyEvent,
    attempt: number,
    outcome: NotificationAttempt["outcome"],
    status?: number,
    detail?: string,
  ): void {
    try {
      this.o.log?.recordNotification({
        time: this.o.clock(),
        channel: lane.channel.name,
        event: event.type,
        title: redact(event.title),
        attempt,
        outcome,
        status,
        detail: detail === undefined ? undefined : redact(detail),
      });
    } catch (err) {
      // The journal failing is the cycle's problem to report, not the notifier's to crash on.
      this.o.logger.debug({ err: describeError(err) }, "notification attempt not journaled");
    }
  }
}

/** Every event but `test` (which only `hlbot notify test` sends, to every channel). */
const ALL_EVENTS: readonly NotifyEventType[] = NOTIFY_EVENTS.filter((e) => e !== "test");

function eventsOf(list: readonly NotifyEventType[] | undefined): Set<NotifyEventType> {
  return new Set<NotifyEventType>([...(list ?? ALL_EVENTS), "test"]);
}

function secretFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  what: string,
): string {
  const value = env[name]?.trim();
  if (!value)
    throw new ConfigError(`environment variable ${name} is not set: it must hold the ${what} (notify)`);
  // Not checked against the command line: `once` reads the channels after its pass has sent.
  registerSecret(value, { checkArguments: false });
  return value;
}

/**
 * The configured channels, their secrets read from the environment (and registered with the redactor).
 * A missing variable is an error naming it: a configured channel that cannot send must not be silent.
 */
export function channelsFromConfig(
  config: NotifyConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Channel[] {
  if (!config) return [];
  const out: Channel[] = [];
  if (config.webhook) {
    const url = config.webhook.url ?? secretFromEnv(env, config.webhook.urlEnv!, "webhook URL");
    if (config.webhook.urlEnv !== undefined) registerSecret(url, { checkArguments: false });
    out.push(webhookChannel(url, eventsOf(config.webhook.events)));
  }
  if (config.telegram) {
    const token = secretFromEnv(env, config.telegram.botTokenEnv, "Telegram bot token");
    out.push(
      telegramChannel(
        { apiUrl: config.telegram.apiUrl, token, chatId: String(config.telegram.chatId) },
        eventsOf(config.telegram.events),
      ),
    );
  }
  if (config.discord) {
    const url = secretFromEnv(env, config.discord.webhookUrlEnv, "Discord webhook URL");
    out.push(discordChannel(url, eventsOf(config.discord.events)));
  }
  return out;
}

/** A notifier for the configured channels, or undefined when none is configured. */
export function createNotifier(
  config: NotifyConfig | undefined,
  env: Readonly<Record<string, string | undefined>>,
  logger: Logger,
  log?: NotificationLog,
): Notifier | undefined {
  const channels = channelsFromConfig(config, env);
  if (channels.length === 0) return undefined;
  return new Notifier({
    channels,
    logger,
    log,
    timeoutMs: config!.timeoutMs,
    retries: config!.retries,
    minIntervalMs: config!.minIntervalMs,
  });
}

/**
 * How long a process about to exit waits for its notifications: what is queued at each channel's pace
 * (about a second per message), at least 3 s, at most 30 s (cron's next call is not held up for long).
 */
export function flushWaitMs(notifier: Pick<Notifier, "drainEstimateMs">): number {
  return Math.min(30_000, Math.max(3_000, notifier.drainEstimateMs(1_000)));
}
