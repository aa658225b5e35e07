// A scenario trial: a pair halted on the venue stand-in (its market context answers midPx: null; every
// TWAP slice is skipped "halted"). The demo's PURR rebalancer sent a new TWAP at every hourly run (24
// in a day), each filling nothing, and the summary said "0 slices (42 skipped)" with no reason, as for a
// TWAP starved of balance. The bot now holds TWAPs on a pair whose book the venue does not show, and the
// summary gives each TWAP's skip reasons.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { formatSummary } from "../../src/simulate/format.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary, type SimulationSummary } from "../../src/simulate/summary.js";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

const START = Date.parse("2025-01-01T00:00:00Z");
const HOUR = 3_600_000;
let s: SimulationSummary;
let text: string;
let decisions: Array<{ at: number; strategy: string; reason: string }>;

beforeAll(async () => {
  const file = join(scratchDir("hlbot-halt-"), "halted.yaml");
  // Halted from the start for 12 hours, then again for 2 hours at 13:10 (a 20-minute TWAP placed at 13:00 runs).
  writeFileSync(
    file,
    `${readFileSync(DEMO_SCENARIO_PATH, "utf8")}\nevents:\n` +
      `  - { at: 0s, type: pair, pair: "PURR/USDC", halted: true }\n` +
      `  - { at: 12h, type: pair, pair: "PURR/USDC", halted: false }\n` +
      `  - { at: 790m, type: pair, pair: "PURR/USDC", halted: true }\n` +
      `  - { at: 910m, type: pair, pair: "PURR/USDC", halted: false }\n`,
  );
  const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
  const r = await runSimulation({ config, scenarioFile: file, days: 1 });
  s = buildSummary(r.record);
  text = formatSummary(s);
  decisions = r.record.cycles.flatMap((c) =>
    c.decisions.map((d) => ({ at: c.at, strategy: String(d.strategy), reason: String(d.reason) })),
  );
}, 120_000);

it("places no TWAP on a pair the venue shows without a book, and says why", () => {
  const purr = s.twaps.filter((t) => t.label === "PURR/USDC");
  // Not one per hourly run into the halted book (24 before).
  expect(purr.filter((t) => Date.parse(t.placedAt) < START + 12 * HOUR)).toEqual([]);
  const held = decisions.filter((d) => d.at < START + 12 * HOUR && /PURR\/USDC has no book/.test(d.reason));
  expect(held.length).toBeGreaterThan(0);
  // It trades again once the venue shows a book.
  expect(purr.length).toBeGreaterThan(0);
});

it("gives each TWAP's skipped slices with the venue's reason", () => {
  const skipped = s.twaps.filter((t) => t.skippedSlices > 0);
  for (const t of skipped) {
    expect(Object.values(t.skipReasons).reduce((a, b) => a + b, 0)).toBe(t.skippedSlices);
  }
  const halted = skipped.filter((t) => (t.skipReasons.halted ?? 0) > 0);
  expect(halted.length).toBeGreaterThan(0);
  expect(text).toMatch(/slices \(\d+ skipped: \d+ halted/);
});
