// linkSignals replaces AbortSignal.any for signals made from long-lived ones (the daemon's, a notifier's
// closing signal): Node 20 keeps a WeakRef per AbortSignal.any call in each source, never pruned
// (nodejs/node#55351); a memory investigation found one entry per cycle, 120,000 after 83 days.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { linkSignals } from "../../src/lib/signals.js";

/** What a source signal keeps of the signals made from it: its listeners, and Node's dependants set if it has one. */
function traces(signal: AbortSignal): number {
  const dependants = Object.getOwnPropertySymbols(signal).find((s) => s.description === "kDependantSignals");
  const set =
    dependants === undefined
      ? undefined
      : (signal as unknown as Record<symbol, { size?: number }>)[dependants];
  return getEventListeners(signal, "abort").length + (set?.size ?? 0);
}

describe("linkSignals", () => {
  it("aborts with the reason of whichever source aborts first", () => {
    for (const first of [0, 1]) {
      const sources = [new AbortController(), new AbortController()];
      const { signal } = linkSignals(sources[0]!.signal, sources[1]!.signal);
      expect(signal?.aborted).toBe(false);
      sources[first]!.abort(`reason ${first}`);
      sources[1 - first]!.abort("later");
      expect(signal?.aborted).toBe(true);
      expect(signal?.reason).toBe(`reason ${first}`);
    }
  });

  it("is aborted at once when a source already is, and passes a lone signal through", () => {
    const done = new AbortController();
    done.abort("stopping");
    const { signal } = linkSignals(new AbortController().signal, done.signal);
    expect([signal?.aborted, signal?.reason]).toEqual([true, "stopping"]);
    const only = new AbortController().signal;
    expect(linkSignals(undefined, only).signal).toBe(only);
    expect(linkSignals(undefined, undefined).signal).toBeUndefined();
  });

  it("once released, leaves nothing in a long-lived source after 10,000 uses, and no longer follows it", () => {
    const daemon = new AbortController();
    const reads = new AbortController();
    for (let i = 0; i < 10_000; i++) linkSignals(daemon.signal, reads.signal).release();
    expect([traces(daemon.signal), traces(reads.signal)]).toEqual([0, 0]);
    const { signal, release } = linkSignals(daemon.signal, reads.signal);
    release();
    daemon.abort("stop");
    expect(signal?.aborted).toBe(false);
    // What AbortSignal.any leaves, for comparison (the test would not tell otherwise).
    const other = new AbortController();
    for (let i = 0; i < 100; i++) AbortSignal.any([other.signal, reads.signal]);
    if (process.versions.node.startsWith("20.")) expect(traces(other.signal)).toBeGreaterThan(0);
  });
});
