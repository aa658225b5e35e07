// The notification events hlbot knows and the shape of one event: plain data, shared by the config
// schema (which events a channel wants), the event builders and the channels.

export const NOTIFY_EVENTS = [
  "submission.accepted",
  "submission.rejected",
  "submission.unknown",
  "submission.reconciled",
  "twap.finished",
  "twap.cancelled",
  "cycle.failed",
  "cycle.recovered",
  "schedule.missed",
  "clock.stepped",
  "killswitch.engaged",
  "killswitch.released",
  "daemon.start",
  "daemon.stop",
  "strategies.refused",
  "strategies.resumed",
  "daily.summary",
  "test",
] as const;
export type NotifyEventType = (typeof NOTIFY_EVENTS)[number];

export interface NotifyEvent {
  /**
   * The same for every delivery of this event, a retry included: a receiver can drop repeats (a delivery
   * whose answer came late, as behind a journal another process kept locked, is sent again).
   */
  id: string;
  type: NotifyEventType;
  /** ISO time the event happened. */
  time: string;
  account: string;
  network: string;
  /** One line: what happened. */
  title: string;
  /** Details, a few lines at most. */
  text: string;
  /** The facts behind the text, for machines (webhook consumers). */
  data: Record<string, unknown>;
}
