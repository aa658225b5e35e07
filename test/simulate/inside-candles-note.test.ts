// A history trial: the demo DCA (at :30) decided halfway through every replayed 1h candle, on a path drawn
// through the candle's open, extremes and close, told nowhere. simulate says which strategies do.
import { expect, it } from "vitest";
import { replayNotes } from "../../src/simulate/format.js";
import type { ReplayedPrices } from "../../src/simulate/runner.js";

const T0 = Date.UTC(2025, 0, 1);
const replayed = (interval: string): ReplayedPrices => ({
  file: "HYPE.csv",
  coin: "@107",
  interval,
  candles: 24,
  first: T0,
  last: T0 + 23 * 3_600_000,
  end: T0 + 24 * 3_600_000,
  gaps: { count: 0, missing: 0, largest: undefined } as never,
  gapSpans: [],
});
const strategies = [
  { name: "dca", schedule: "30 0,12 * * *" },
  { name: "rebalance", schedule: "0 * * * *" },
  { name: "staking", schedule: "15 */6 * * *" },
];
const inside = (interval: string) =>
  replayNotes({ from: T0, to: T0 + 86_400_000, strategies }, [replayed(interval)]).filter((l) =>
    l.includes("decide"),
  );

it("names the strategies that decide inside the replayed candles, and only those", () => {
  expect(inside("1h")).toEqual([
    expect.stringMatching(
      /^hlbot: dca \("30 0,12 \* \* \*"\), staking \("15 \*\/6 \* \* \*"\) decide inside the 1h candles of @107: /,
    ),
  ]);
  // On 15-minute candles the DCA's :30 and the staking's :15 are candle opens; nothing to say.
  expect(inside("15m")).toEqual([]);
  // Daily candles: all three decide inside them.
  expect(inside("1d")[0]).toMatch(/^hlbot: dca .*, rebalance .*, staking .* decide inside the 1d candles/);
  // One-minute candles: nothing is inside a candle for a schedule by the minute.
  expect(inside("1m")).toEqual([]);
  // Only the run's slots: a monthly DCA whose next slot is after the run is not named (a review).
  const monthly = replayNotes(
    {
      from: T0 + 86_400_000,
      to: T0 + 11 * 86_400_000,
      strategies: [{ name: "monthly", schedule: "30 0 1 * *" }],
    },
    [replayed("1h")],
  );
  expect(monthly.filter((l) => l.includes("decide"))).toEqual([]);
});
