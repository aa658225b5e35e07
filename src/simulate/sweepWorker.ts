// A worker thread of `hlbot simulate --sweep` (started by sweep.ts from the built dist/): takes one run
// (a point on one seed) at a time as plain data, runs it with runSweepPoint (the code path of a plain
// `hlbot simulate`) and answers with the plain JSON outcome. An exception that escapes ends the thread;
// the sweep then fails that run only.
import { parentPort } from "node:worker_threads";
import { runSweepPoint, type SweepPointJob } from "./sweepPoint.js";

const port = parentPort;
if (!port) throw new Error("sweepWorker.js runs in a worker thread of hlbot simulate --sweep");
port.on("message", async (m: { id: number; job: SweepPointJob }) => {
  port.postMessage({ id: m.id, outcome: await runSweepPoint(m.job) });
});
