// An exiting holder's trial: "did I get more per HYPE than selling it all at the start?" The summary
// showed only the average and a buy-and-hold comparison (the wrong yardstick for an exit: −85,927 read as
// a loss where the bot sold at 26.77 against 25 at the start). Each pair's row now says its mid at the
// start and the average against it, in the trader's favour for either side.
import { beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { formatSummary } from "../../src/simulate/format.js";
import { renderReport } from "../../src/simulate/report.js";
import { runSimulation, type SimulationRecord } from "../../src/simulate/runner.js";
import { buildSummary, type SimulationSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

let record: SimulationRecord;
let s: SimulationSummary;
beforeAll(async () => {
  const config = await loadConfig(`${REPO_ROOT}/config/default.yaml`, {});
  record = (await runSimulation({ config, days: 2 })).record;
  s = buildSummary(record);
}, 120_000);

it("gives each pair's mid at the start and the average against it, + in the trader's favour", () => {
  const start = (token: string) => record.start.prices[token]!;
  const hype = s.trades.find((t) => t.label === "HYPE/USDC" && t.side === "sell")!;
  const purr = s.trades.find((t) => t.label === "PURR/USDC" && t.side === "buy")!;
  expect(hype.startMid).toBe(start("HYPE").div(start("USDC")).toString());
  expect(purr.startMid).toBe(start("PURR").div(start("USDC")).toString());
  const pct = (x: number) => `${x >= 0 ? "+" : "-"}${Math.abs(x * 100).toFixed(2)}%`;
  // A sale above the start mid is better; a buy below it is.
  const sold = Number(hype.averagePrice) / Number(hype.startMid) - 1;
  const bought = 1 - Number(purr.averagePrice) / Number(purr.startMid);
  const text = formatSummary(s);
  expect(text).toMatch(
    new RegExp(`HYPE/USDC sell .*start mid ${hype.startMid} \\(${pct(sold).replace("+", "\\+")}\\)`),
  );
  expect(text).toMatch(
    new RegExp(`PURR/USDC buy .*start mid ${purr.startMid} \\(${pct(bought).replace("+", "\\+")}\\)`),
  );
  expect(text).toContain(
    "+ means the average was better than trading it all at that mid: higher for a sale, lower for a buy",
  );
  expect(renderReport({ summary: s, record })).toContain('<th class="num">start mid</th>');
});
