// Where notifications go: a generic JSON webhook, Telegram (Bot API sendMessage) and Discord (an
// incoming webhook). Each channel turns one event into one HTTP POST and says whether a failure is
// worth retrying. Request shapes follow the services' public docs:
//   Telegram: POST {api}/bot<token>/sendMessage with {chat_id, text} (core.telegram.org/bots/api#sendmessage);
//     a 429 carries parameters.retry_after in seconds.
//   Discord: POST <webhook url> with {content} (at most 2000 characters; discord.com/developers/docs/resources/webhook);
//     a 429 carries retry_after in seconds.
import { request as undiciRequest } from "undici";
import type { NotifyEvent, NotifyEventType } from "./types.js";

/** Why one send failed, and whether another attempt may succeed. */
export class SendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The service asked to wait this long (429). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "SendError";
  }
}

export interface Channel {
  /** "webhook", "telegram", "discord". */
  readonly name: string;
  readonly events: ReadonlySet<NotifyEventType>;
  /** One POST; resolves with the HTTP status, throws SendError. */
  send(event: NotifyEvent, signal: AbortSignal): Promise<number>;
}

const DISCORD_MAX = 2000;
const TELEGRAM_MAX = 4096;

/**
 * The message as people read it: a title line and the details, named by network and account (a
 * multi-account trial's bots for a master and a sub-account, with the same strategy names, sent
 * alerts no one could tell apart; only the webhook's JSON named them).
 */
export function plainText(event: NotifyEvent, max: number): string {
  const a = event.account;
  const who = /^0x[0-9a-f]{40}$/i.test(a) ? `${a.slice(0, 6)}…${a.slice(-4)}` : a;
  const text = `hlbot (${event.network} ${who}): ${event.title}${event.text ? `\n${event.text}` : ""}`;
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

async function post(
  url: string,
  body: unknown,
  signal: AbortSignal,
): Promise<{ status: number; text: string }> {
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    res = await undiciRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "hlbot" },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    const timedOut = signal.aborted;
    // The URL may hold a token (Telegram's path, a Discord webhook): never in the message.
    throw new SendError(
      timedOut ? "timed out" : `network error (${(err as { code?: string }).code ?? "failed"})`,
      true,
    );
  }
  const text = await res.body.text().catch(() => "");
  return { status: res.statusCode, text };
}

function retryAfterMs(text: string, fromTelegram: boolean): number | undefined {
  try {
    const json = JSON.parse(text) as { retry_after?: unknown; parameters?: { retry_after?: unknown } };
    const seconds = fromTelegram ? json.parameters?.retry_after : json.retry_after;
    return typeof seconds === "number" && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
  } catch {
    return undefined;
  }
}

function check(status: number, text: string, telegram = false): number {
  if (status >= 200 && status < 300) return status;
  if (status === 429)
    throw new SendError("HTTP 429 (rate limited)", true, status, retryAfterMs(text, telegram));
  // 5xx and 408 may pass on another try; other 4xx will not (a wrong token, chat or URL).
  throw new SendError(`HTTP ${status}`, status >= 500 || status === 408, status);
}

export function webhookChannel(url: string, events: ReadonlySet<NotifyEventType>): Channel {
  return {
    name: "webhook",
    events,
    async send(event, signal) {
      const { status, text } = await post(url, event, signal);
      return check(status, text);
    },
  };
}

export function telegramChannel(
  o: { apiUrl: string; token: string; chatId: string },
  events: ReadonlySet<NotifyEventType>,
): Channel {
  const url = `${o.apiUrl.replace(/\/+$/, "")}/bot${o.token}/sendMessage`;
  return {
    name: "telegram",
    events,
    async send(event, signal) {
      const { status, text } = await post(
        url,
        { chat_id: o.chatId, text: plainText(event, TELEGRAM_MAX), disable_web_page_preview: true },
        signal,
      );
      return check(status, text, true);
    },
  };
}

export function discordChannel(webhookUrl: string, events: ReadonlySet<NotifyEventType>): Channel {
  return {
    name: "discord",
    events,
    async send(event, signal) {
      // No mentions from message text: a validator named "@everyone" must not ping a server.
      const { status, text } = await post(
        webhookUrl,
        { content: plainText(event, DISCORD_MAX), allowed_mentions: { parse: [] } },
        signal,
      );
      return check(status, text);
    },
  };
}
