// Scenarios for tests that start a simulator with a market at a given price. A price set by hand after
// the start (`sim.setPrice`) is a move the venue's previous-day price shows (a 25 → 40 jump is 60% above
// it, and the bot's price check holds every trade for a day); a market that has been at a price since
// before the start is a scenario whose path starts there.
import { readFileSync } from "node:fs";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { parseScenarioYaml, type Scenario } from "../../src/simulator/scenario.js";

const HYPE_PATH = '  "@107": { start: "25.0", drift: 0.0, volatility: 0.8 }\n';

/** The bundled demo scenario with HYPE/USDC (@107) at `px` from the start instead of 25. */
export function demoWithHypeAt(px: string): Scenario {
  const text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  if (!text.includes(HYPE_PATH))
    throw new Error("the demo scenario's HYPE/USDC path changed: update test/helpers/scenario.ts");
  return parseScenarioYaml(
    text.replace(HYPE_PATH, `  "@107": { start: "${px}", drift: 0.0, volatility: 0.8 }\n`),
    DEMO_SCENARIO_PATH,
  );
}
