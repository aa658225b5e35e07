// A skeptic's trial: `simulate --prices HYPE.csv` with the demo replayed HYPE from history while PURR kept
// the scenario's random walk, and the result swung from -430 to +297 USDC across seeds with nothing but
// "@107 replayed from …" in the header. The summary now names each pair that is not replayed and what its
// prices are instead.
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { formatSummary } from "../../src/simulate/format.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

it("names the pairs whose prices are the scenario's, not history, when another is replayed", async () => {
  const config = await loadConfig(join(REPO_ROOT, "config/demo.yaml"), {});
  const replay = await runSimulation({
    config,
    prices: [join(REPO_ROOT, "test/fixtures/candles/HYPE-1h-sample.csv")],
    days: 2,
    seed: 7,
  });
  const s = buildSummary(replay.record);
  expect(s.notReplayed).toContainEqual({
    pair: "PURR/USDC",
    path: expect.stringMatching(/^the scenario's random walk \(volatility [\d.]+ a year, seed 7\)$/),
  });
  expect(s.notReplayed.map((n) => n.pair)).not.toContain("HYPE/USDC");
  expect(formatSummary(s)).toMatch(
    /\n {2}PURR\/USDC is not replayed: its prices are the scenario's random walk/,
  );
  // Nothing replayed: nothing to say.
  const plain = buildSummary((await runSimulation({ config, days: 1, seed: 7 })).record);
  expect(plain.notReplayed).toEqual([]);
}, 60_000);
