// `simulate --sweep --json` wrote the whole answer as one string: 360 runs of a minute-schedule bot went
// beyond V8's string limit ("Invalid string length") after 23 minutes of runs, and nothing was printed
// (a sweep trial). It is written a run at a time, and reads back as the same JSON.
import { expect, it } from "vitest";
import { writeSweepJson } from "../../src/cli/sweep.js";

const sample = {
  sweep: { file: "s.yaml", grid: [{ key: "limits.maxOrderUsd", values: [1000, 5000] }], note: "a\nb" },
  runs: [
    { rank: 1, point: 2, summary: { skipped: [{ reason: "within band", count: 3 }] } },
    { rank: 2, point: 1, error: 'quote "x"' },
  ],
};

it("writes JSON.stringify(json, null, 2) exactly, one write per run", () => {
  const parts: string[] = [];
  writeSweepJson(sample, (t) => parts.push(t));
  expect(parts.join("")).toBe(`${JSON.stringify(sample, null, 2)}\n`);
  expect(parts).toHaveLength(sample.runs.length + 2); // no string holds every run
  const none: string[] = [];
  writeSweepJson({ ...sample, runs: [] }, (t) => none.push(t));
  expect(none.join("")).toBe(`${JSON.stringify({ ...sample, runs: [] }, null, 2)}\n`);
});
