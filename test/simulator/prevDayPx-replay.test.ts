// A replay's previous-day price is the candles' own a day earlier, also in the run's first day: the first
// day's rule (a path with no price a day before the start gives its start's) must not hide a real move in
// the day before --from from the bot's previous-day price check (a review: it read 40 where the candles
// said 20).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { CANDLE_CSV_HEADER } from "../../src/simulator/candles.js";
import { createSimulator, loadScenarioFile } from "../../src/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";
import { testScenario } from "../simulator/fixtures.js";

const HOUR = 3_600_000;
const T = Date.UTC(2025, 0, 1);

it("a replay's previous-day price is the candles' price a day earlier, also in the run's first day", () => {
  const dir = scratchDir("hlbot-prevday-replay-");
  // 48 hourly candles: flat at 20 for the first day, then 40 from hour 24 on (a doubling the day before).
  const rows: string[] = [];
  for (let h = 0; h < 48; h++) {
    const px = h < 24 ? 20 : 40;
    rows.push(`@107,1h,${T + h * HOUR},x,${px},${px},${px},${px},1,1`);
  }
  writeFileSync(join(dir, "h.csv"), `${CANDLE_CSV_HEADER}\n${rows.join("\n")}\n`);
  writeFileSync(
    join(dir, "s.json.yaml"),
    JSON.stringify(testScenario({ prices: { "@107": { candles: "h.csv" } as never } })),
  );
  // As `hlbot simulate --prices h.csv --from <T+30h>` starts it.
  const sim = createSimulator({
    scenario: loadScenarioFile(join(dir, "s.json.yaml")),
    startTime: T + 30 * HOUR,
  });
  const pair = sim.core.markets.pair("@107")!;
  expect(sim.price("@107").toString()).toBe("40");
  // On the venue, at T+30h the previous-day price is the one at T+6h: 20 (the mid doubled in a day).
  expect(sim.core.markets.prevDayPx(pair).toString()).toBe("20");
});
