// A scenario trial: a scenario whose `prices:` names a candle file that is missing or that the
// replay refuses (rows out of order) failed with "prices.@107: Invalid input": the candle file's own
// reason (file not found; its line) was lost in the union of price-path shapes. `--prices FILE` with the
// same file names the cause and the line. Expected: the same message through a scenario.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { parseScenarioYaml } from "../../src/simulator/scenario.js";
import { REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

const HYPE_PATH = '  "@107": { start: "25.0", drift: 0.0, volatility: 0.8 }\n';

function scenarioNaming(candles: string, dir: string): string {
  const text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  expect(text).toContain(HYPE_PATH);
  const file = join(dir, "sc.yaml");
  writeFileSync(file, text.replace(HYPE_PATH, `  "@107": { candles: ${candles} }\n`));
  return file;
}

function errorOf(file: string): string {
  try {
    parseScenarioYaml(readFileSync(file, "utf8"), file);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
}

it("says why a scenario's candle file cannot be used (missing file)", () => {
  const dir = scratchDir("hlbot-review-candles-");
  const msg = errorOf(scenarioNaming("missing.csv", dir));
  expect(msg).toMatch(/missing\.csv|no such file|cannot read/);
});

it("says why a scenario's candle file cannot be used (rows out of order, with its line)", () => {
  const dir = scratchDir("hlbot-review-candles-");
  mkdirSync(join(dir, "c"), { recursive: true });
  const rows = readFileSync(`${REPO_ROOT}/test/fixtures/candles/HYPE-1h-sample.csv`, "utf8").split("\n");
  writeFileSync(join(dir, "c", "dup.csv"), [rows[0], rows[1], rows[2], rows[1], ""].join("\n"));
  const msg = errorOf(scenarioNaming("c/dup.csv", dir));
  expect(msg).toMatch(/not after the previous row|sorted and unique/);
});
