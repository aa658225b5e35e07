// A worker thread of `hlbot simulate --sweep` (started by sweep.ts from the built dist/): takes one run
// (a point on one seed) at a time as plain data, runs it with runSweepPoint (the code path of a plain
// `hlbot simulate`) and answers with the plain JSON outcome. An exception that escapes ends the thread;
// the sweep then fails that run only. The message `{ abort: true }` interrupts the run under way.
import { parentPort } from "node:worker_threads";
import { runSweepPoint, type SweepPointJob } from "./sweepPoint.js";

const port = parentPort;
if (!port) throw new Error("sweepWorker.js runs in a worker thread of hlbot simulate --sweep");
// An abort (Ctrl-C in the parent) stops the run between cycles, so the run's finally removes its
// throw-away state folder; a terminated thread would leave it in the temp folder.
let current: AbortController | undefined;
port.on("message", async (m: { id: number; job: SweepPointJob } | { abort: true }) => {
  if ("abort" in m) return current?.abort();
  current = new AbortController();
  port.postMessage({ id: m.id, outcome: await runSweepPoint(m.job, current.signal) });
});
