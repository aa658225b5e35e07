// Scenarios for tests that start a simulator with a market at a given price. A price set by hand after
// the start (`sim.setPrice`) is a move the venue's previous-day price shows (a 25 → 40 jump is 60% above
// it, and the bot's price check holds every trade for a day); a market that has been at a price since
// before the start is a scenario whose path starts there.
import { readFileSync } from "node:fs";
import { DEMO_SCENARIO_PATH } from "../../src/simulator/index.js";
import { parseScenarioYaml, type Scenario } from "../../src/simulator/scenario.js";

const HYPE_PATH = '  "@107": { start: "25.0", drift: 0.0, volatility: 0.8 }\n';

/**
 * The bundled demo scenario with HYPE/USDC (@107) at `px` from the start instead of 25; `volatility` 0
 * keeps it there (a test on a real clock that reads exact prices).
 */
export function demoWithHypeAt(px: string, volatility = 0.8): Scenario {
  const text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  if (!text.includes(HYPE_PATH))
    throw new Error("the demo scenario's HYPE/USDC path changed: update test/helpers/scenario.ts");
  return parseScenarioYaml(
    text.replace(HYPE_PATH, `  "@107": { start: "${px}", drift: 0.0, volatility: ${volatility} }\n`),
    DEMO_SCENARIO_PATH,
  );
}

/**
 * The bundled demo scenario's text with HYPE/USDC (@107) on `points` ([time, price], e.g. ["90m", "22"]),
 * stepping from one to the next: a price path a test reads exactly.
 */
export function demoWithHypeSteps(points: ReadonlyArray<readonly [string, string]>): string {
  const text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  if (!text.includes(HYPE_PATH))
    throw new Error("the demo scenario's HYPE/USDC path changed: update test/helpers/scenario.ts");
  const lines = points.map(([at, px]) => `      - { at: ${at}, px: "${px}" }\n`).join("");
  return text.replace(HYPE_PATH, `  "@107":\n    interpolate: step\n    points:\n${lines}`);
}

/**
 * The bundled demo scenario with a FOO token and a FOO/HYPE pair (index 200, asset 10200) at `fooInHype`,
 * and HYPE/USDC on `hype` (day, price) points, linear (default: the demo's random path): a pair quoted in
 * a token that is not a dollar.
 */
export function demoWithFooHype(o: { fooInHype?: string; hype?: Array<[number, number]> } = {}): string {
  let text = readFileSync(DEMO_SCENARIO_PATH, "utf8");
  const edit = (from: string, to: string) => {
    if (!text.includes(from))
      throw new Error(`the demo scenario changed: update test/helpers/scenario.ts (${from.trim()})`);
    text = text.replace(from, to);
  };
  edit(
    "    fullName: Unit Bitcoin\n",
    "    fullName: Unit Bitcoin\n  - { name: FOO, index: 300, szDecimals: 1, weiDecimals: 8 }\n",
  );
  edit(
    "  - { index: 142, base: UBTC, quote: USDC, book: { class: medium } }\n",
    "  - { index: 142, base: UBTC, quote: USDC, book: { class: medium } }\n  - { index: 200, base: FOO, quote: HYPE, book: { class: deep } }\n",
  );
  const foo = `  "@200": { start: "${o.fooInHype ?? "2.0"}", drift: 0.0, volatility: 0.01 }\n`;
  if (o.hype === undefined) edit(HYPE_PATH, HYPE_PATH + foo);
  else {
    const points = o.hype.map(([d, px]) => `      - { at: ${d}d, px: "${px}" }`).join("\n");
    edit(HYPE_PATH, `  "@107":\n    interpolate: linear\n    points:\n${points}\n${foo}`);
  }
  return text;
}
