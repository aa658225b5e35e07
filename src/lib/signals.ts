// Combining abort signals without AbortSignal.any: Node keeps, in each source signal, a WeakRef to every
// signal made from it, and never prunes them on Node 20 (nodejs/node#55351). The daemon's signals and a
// notifier's closing signal live as long as the process: one entry per cycle or per notification, for
// good (a memory investigation: 120,000 entries per signal after 83 days of a per-minute strategy).

/**
 * A signal aborted, with the first reason, when any of `signals` is (undefined when none is given), and
 * `release` to unlink it from them once the work it guards is over (call it in a `finally`).
 */
export function linkSignals(...signals: Array<AbortSignal | undefined>): {
  signal: AbortSignal | undefined;
  release: () => void;
} {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return { signal: present[0], release: () => {} };
  const linked = new AbortController();
  const aborted = present.find((s) => s.aborted);
  if (aborted !== undefined) {
    linked.abort(aborted.reason);
    return { signal: linked.signal, release: () => {} };
  }
  const release = (): void => {
    for (const s of present) s.removeEventListener("abort", onAbort);
  };
  function onAbort(this: AbortSignal): void {
    release();
    linked.abort(this.reason);
  }
  for (const s of present) s.addEventListener("abort", onAbort, { once: true });
  return { signal: linked.signal, release };
}
