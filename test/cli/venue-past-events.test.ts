// A docs trial: `hlbot venue` applied a scenario event dated before its start (a price jump) silently
// at once, where `simulate` refuses one dated before its run with the file and line. The venue now
// refuses it the same way, before it serves anything.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/build.js";
import { runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-venue-past-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("hlbot venue refuses an event dated before now with its file and line, before serving anything", async () => {
  const demo = readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8");
  const lines = demo.split("\n").length;
  const past = join(dir, "past.yaml");
  writeFileSync(
    past,
    `${demo.trimEnd()}\nevents:\n  - { at: "2025-01-02T00:00:00Z", type: price, pair: "@107", change: -0.25 }\n`,
  );
  const r = await runCli(["venue", "--scenario", past, "--port", "0"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toMatch(
    new RegExp(
      `past\\.yaml:${lines + 1}: events\\[0\\]\\.at: the price event at 2025-01-02T00:00:00\\.000Z is before the start of the run, [^:]+:[^:]+:[^ ]+: give it a later time, or an offset from the start like "2d"\n`,
    ),
  );
}, 30_000);

it("hlbot venue refuses a scenario that is not a regular file without reading it (a config trial: /dev/zero aborted it)", async () => {
  const r = await runCli(["venue", "--scenario", "/dev/zero", "--port", "0"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe("hlbot: /dev/zero: scenario: is not a regular file (a device, FIFO or socket)\n");
}, 30_000);
