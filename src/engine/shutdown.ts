// How a long-running process (`hlbot run`) stops: one AbortController aborted by the first stop request
// (SIGINT or SIGTERM, an uncaught exception, or the process's own decision, e.g. a lost instance lock),
// which the daemon listens to and then gives its running cycle the grace period to finish; a second
// SIGINT/SIGTERM exits at once with 128 + the signal's number (130, 143). Things to undo on the way out
// are added as they are opened and closed in the opposite order, each failure logged and the rest still
// closed. The signal handlers are removed only after that, so a second signal during the cleanup still
// exits at once. A promise nobody awaited that fails is logged, never a reason to stop.
import { constants } from "node:os";
import type { Logger } from "pino";
import { describeError } from "../lib/errors.js";

/** A process event's listener: the signal's name, the rejection's reason or the exception. */
type Listener = (arg: unknown) => void;

/** What the shutdown listens to and exits through: the process, or a stand-in in tests. */
export interface ShutdownHost {
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
  exit(code: number): void;
  readonly platform: NodeJS.Platform;
}

/** Why the process is stopping. */
export type StopCause =
  | { kind: "signal"; signal: NodeJS.Signals }
  | { kind: "exception"; error: unknown }
  | { kind: "request"; reason: string };

export interface ShutdownOptions {
  logger: Logger;
  /** How long a running cycle may take to finish after the first stop request (passed to `onStop`). */
  graceMs: number;
  host?: ShutdownHost;
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** The exit code of a process ended by `signal` (128 + its number, as a shell reports it). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

export class Shutdown {
  readonly graceMs: number;
  private readonly logger: Logger;
  private readonly host: ShutdownHost;
  private readonly controller = new AbortController();
  private readonly cleanups: Array<{ what: string; run: () => unknown }> = [];
  private readonly handlers: Array<{ event: string; listener: Listener }> = [];
  private stopSignal: NodeJS.Signals | undefined;
  private failed = false;

  constructor(o: ShutdownOptions) {
    this.logger = o.logger;
    this.graceMs = o.graceMs;
    this.host = o.host ?? process;
  }

  /** Aborted by the first stop request; its reason is the StopCause. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once an uncaught exception (or a stop requested as a failure) means the exit is not clean. */
  get crashed(): boolean {
    return this.failed;
  }

  /** Runs `fn` with the grace period at the first stop request (at once when one was made already). */
  onStop(fn: (graceMs: number, cause: StopCause) => unknown): void {
    const run = () => void fn(this.graceMs, this.signal.reason as StopCause);
    if (this.signal.aborted) run();
    else this.signal.addEventListener("abort", run, { once: true });
  }

  /** Something to undo on the way out; closed last added first. */
  add(what: string, run: () => unknown): void {
    this.cleanups.push({ what, run });
  }

  /** Asks the process to stop (the first request wins); `failed` makes its exit unclean. */
  stop(cause: StopCause, o: { failed?: boolean } = {}): void {
    if (o.failed) this.failed = true;
    if (!this.signal.aborted) this.controller.abort(cause);
  }

  /**
   * Installs the handlers of SIGINT/SIGTERM and of process-level failures, plus `extra` signal handlers
   * (SIGHUP, SIGUSR2: not on Windows, which has no such signals).
   */
  listen(extra: Partial<Record<NodeJS.Signals, () => void>> = {}): void {
    const onStopSignal = (arg: unknown) => {
      const signal = arg as NodeJS.Signals;
      if (this.stopSignal !== undefined) {
        this.logger.error({ signal }, `second ${signal}: exiting now, without waiting for the running cycle`);
        this.host.exit(signalExitCode(signal));
        return;
      }
      this.stopSignal = signal;
      this.logger.info(
        { signal, graceMs: this.graceMs },
        `${signal}: stopping; a running cycle has ${this.graceMs} ms to finish`,
      );
      this.stop({ kind: "signal", signal });
    };
    const onRejection = (reason: unknown) => {
      // A promise nobody awaited failed: a bug, but not one that may stop the bot silently or at all.
      this.logger.error(
        { err: describeError(reason) },
        `unhandled promise rejection (please report): ${describeError(reason)}`,
      );
    };
    const onException = (err: unknown) => {
      this.logger.fatal(
        { err: describeError(err) },
        `uncaught exception (please report): ${describeError(err)}; stopping`,
      );
      this.stop({ kind: "exception", error: err }, { failed: true });
    };
    for (const s of STOP_SIGNALS) this.handle(s, onStopSignal);
    if (this.host.platform !== "win32")
      for (const [s, fn] of Object.entries(extra)) if (fn) this.handle(s, fn);
    this.handle("unhandledRejection", onRejection);
    this.handle("uncaughtException", onException);
  }

  /** Closes what was added, last first, then removes the handlers. */
  async close(): Promise<void> {
    for (const { what, run } of this.cleanups.splice(0).reverse()) {
      try {
        await run();
      } catch (err) {
        this.logger.error({ err: describeError(err) }, `while closing ${what}: ${describeError(err)}`);
      }
    }
    for (const { event, listener } of this.handlers.splice(0)) this.host.off(event, listener);
  }

  private handle(event: string, listener: Listener): void {
    this.host.on(event, listener);
    this.handlers.push({ event, listener });
  }
}
