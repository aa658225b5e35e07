// The daemon's shutdown (src/engine/shutdown.ts) against a stand-in process, with sinon fake timers for
// the grace period: the first SIGINT/SIGTERM asks the work to stop with the grace period, a second one
// exits at once with 128 + its number; cleanups close last first, a failing one is logged and the rest
// still close; the handlers go only after the cleanups; an uncaught exception stops and marks the exit
// unclean, an unhandled rejection is only logged.
import { EventEmitter } from "node:events";
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { Shutdown, type ShutdownHost, type StopCause, signalExitCode } from "../../src/engine/shutdown.js";
import { captureLogger } from "../helpers/logs.js";

/** Through the global setTimeout, so sinon's fake timers drive it. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

class FakeProcess extends EventEmitter implements ShutdownHost {
  readonly exits: number[] = [];
  constructor(readonly platform: NodeJS.Platform = "linux") {
    super();
  }
  exit(code: number): void {
    this.exits.push(code);
  }
}

/** Stands in for the daemon: its running cycle takes `cycleMs`, and it is aborted after `graceMs`. */
function fakeWork(cycleMs: number) {
  let result: { clean: boolean } | undefined;
  const stop = async (graceMs: number) => {
    const finished = sleep(cycleMs).then(() => true);
    const graceOver = sleep(graceMs).then(() => false);
    result = { clean: await Promise.race([finished, graceOver]) };
  };
  return { stop, result: () => result };
}

let clock: sinon.SinonFakeTimers | undefined;
afterEach(() => {
  clock?.restore();
  clock = undefined;
});

describe("Shutdown", () => {
  it("gives the running work the grace period on SIGTERM, then closes last added first", async () => {
    clock = sinon.useFakeTimers();
    const { logger, lines } = captureLogger();
    const host = new FakeProcess();
    const shutdown = new Shutdown({ logger, graceMs: 30_000, host });
    const closed: string[] = [];
    shutdown.add("the journal", () => void closed.push("journal"));
    shutdown.add("the metrics endpoint", async () => {
      await sleep(10);
      closed.push("metrics");
    });
    const work = fakeWork(5_000);
    const causes: StopCause[] = [];
    let stopped: Promise<void> | undefined;
    shutdown.onStop((grace, cause) => {
      causes.push(cause);
      stopped = work.stop(grace);
    });
    shutdown.listen();
    expect(host.listenerCount("SIGTERM")).toBe(1);
    expect(shutdown.signal.aborted).toBe(false);

    host.emit("SIGTERM", "SIGTERM");
    expect(shutdown.signal.aborted).toBe(true);
    expect(causes).toEqual([{ kind: "signal", signal: "SIGTERM" }]);
    expect(lines.map((l) => l.msg)).toContain("SIGTERM: stopping; a running cycle has 30000 ms to finish");
    await clock.tickAsync(4_999);
    expect(work.result()).toBeUndefined();
    await clock.tickAsync(1);
    await stopped;
    expect(work.result()).toEqual({ clean: true });
    expect(shutdown.crashed).toBe(false);

    const closing = shutdown.close();
    // Handlers stay until everything is closed: a second signal during the cleanup still exits at once.
    expect(host.listenerCount("SIGTERM")).toBe(1);
    await clock.tickAsync(10);
    await closing;
    expect(closed).toEqual(["metrics", "journal"]);
    for (const e of ["SIGINT", "SIGTERM", "SIGHUP", "unhandledRejection", "uncaughtException"])
      expect(host.listenerCount(e)).toBe(0);
    expect(host.exits).toEqual([]);
  });

  it("aborts work that outlasts the grace period", async () => {
    clock = sinon.useFakeTimers();
    const host = new FakeProcess();
    const shutdown = new Shutdown({ logger: captureLogger().logger, graceMs: 1_000, host });
    const work = fakeWork(60_000);
    let stopped: Promise<void> | undefined;
    shutdown.onStop((grace) => {
      stopped = work.stop(grace);
    });
    shutdown.listen();
    host.emit("SIGINT", "SIGINT");
    await clock.tickAsync(1_000);
    await stopped;
    expect(work.result()).toEqual({ clean: false });
    await shutdown.close();
  });

  it("exits at once on a second signal, with 128 + that signal's number", async () => {
    const { logger, lines } = captureLogger();
    const host = new FakeProcess();
    const shutdown = new Shutdown({ logger, graceMs: 30_000, host });
    let stops = 0;
    shutdown.onStop(() => void stops++);
    shutdown.listen();
    host.emit("SIGTERM", "SIGTERM");
    expect(host.exits).toEqual([]);
    host.emit("SIGTERM", "SIGTERM");
    expect(host.exits).toEqual([143]);
    host.emit("SIGINT", "SIGINT");
    expect(host.exits).toEqual([143, 130]);
    expect(stops).toBe(1);
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual([
      "second SIGTERM: exiting now, without waiting for the running cycle",
      "second SIGINT: exiting now, without waiting for the running cycle",
    ]);
    expect(signalExitCode("SIGINT")).toBe(130);
    expect(signalExitCode("SIGTERM")).toBe(143);
    await shutdown.close();
  });

  it("logs a failing cleanup and still closes the others", async () => {
    const { logger, lines } = captureLogger();
    const shutdown = new Shutdown({ logger, graceMs: 0, host: new FakeProcess() });
    const closed: string[] = [];
    shutdown.add("first", () => void closed.push("first"));
    shutdown.add("broken", () => {
      throw new Error("boom");
    });
    shutdown.add("last", () => void closed.push("last"));
    await shutdown.close();
    expect(closed).toEqual(["last", "first"]);
    expect(lines.some((l) => l.level === 50 && l.msg === "while closing broken: boom")).toBe(true);
    await shutdown.close(); // nothing left: closing twice does nothing
    expect(closed).toEqual(["last", "first"]);
  });

  it("stops on an uncaught exception (an unclean exit), and only logs an unhandled rejection", async () => {
    const { logger, lines } = captureLogger();
    const host = new FakeProcess();
    const shutdown = new Shutdown({ logger, graceMs: 100, host });
    const causes: StopCause[] = [];
    shutdown.onStop((_grace, cause) => void causes.push(cause));
    shutdown.listen();
    host.emit("unhandledRejection", new Error("lost promise"));
    expect(shutdown.signal.aborted).toBe(false);
    expect(lines.at(-1)?.msg).toBe("unhandled promise rejection (please report): lost promise");
    const error = new Error("bug");
    host.emit("uncaughtException", error);
    expect(causes).toEqual([{ kind: "exception", error }]);
    expect(shutdown.crashed).toBe(true);
    expect(lines.at(-1)).toMatchObject({
      level: 60,
      msg: "uncaught exception (please report): bug; stopping",
    });
    // A signal after it is still the first signal: it stops (already stopping), it does not exit.
    host.emit("SIGTERM", "SIGTERM");
    expect(host.exits).toEqual([]);
    await shutdown.close();
  });

  it("a stop the process asks for itself (a lost lock) runs the stop callback once, even one added late", async () => {
    const shutdown = new Shutdown({ logger: captureLogger().logger, graceMs: 5, host: new FakeProcess() });
    shutdown.stop({ kind: "request", reason: "instance lock lost" }, { failed: true });
    shutdown.stop({ kind: "request", reason: "again" });
    const seen: Array<[number, StopCause]> = [];
    shutdown.onStop((grace, cause) => void seen.push([grace, cause]));
    expect(seen).toEqual([[5, { kind: "request", reason: "instance lock lost" }]]);
    expect(shutdown.crashed).toBe(true);
  });

  it("installs the extra signal handlers, except on Windows", async () => {
    const unix = new FakeProcess("linux");
    const a = new Shutdown({ logger: captureLogger().logger, graceMs: 0, host: unix });
    let reloads = 0;
    a.listen({ SIGHUP: () => void reloads++ });
    unix.emit("SIGHUP", "SIGHUP");
    expect(reloads).toBe(1);
    expect(a.signal.aborted).toBe(false);
    await a.close();
    expect(unix.listenerCount("SIGHUP")).toBe(0);

    const windows = new FakeProcess("win32");
    const b = new Shutdown({ logger: captureLogger().logger, graceMs: 0, host: windows });
    b.listen({ SIGHUP: () => void reloads++ });
    expect(windows.listenerCount("SIGHUP")).toBe(0);
    expect(windows.listenerCount("SIGTERM")).toBe(1);
    await b.close();
  });
});
