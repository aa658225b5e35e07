// A review: a TWAP running at the start of a simulation (a fork carries the account's, a scenario's
// `twaps:`) was not in the run's new journal, so a budgeted DCA on its pair and side held for the whole
// run ("the venue shows 1 TWAP(s) … this state folder's journal does not have … hlbot journal rebuild"),
// long after it ended. Such TWAPs are written to the journal as a rebuild would: the DCA waits while one
// runs, counts it in its budget, then buys.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { createSimulator, parseScenarioObject } from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { latestTwapEntries, twapHasEnded } from "../../src/venue/info/methods/index.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { REPO_ROOT } from "../helpers/dist.js";

it("a budgeted DCA trades in a fork once the carried TWAP on its pair has ended", async () => {
  const config = await loadConfig(join(REPO_ROOT, "config/demo.yaml"), {});
  const dca = config.strategies.filter((s) => s.name === "hype-dca"); // budgetUsd: 1500, buys HYPE
  const base = parse(readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8"));
  const withTwap = {
    ...base,
    // a 60-minute HYPE buy placed 1 minute before the fork
    twaps: [
      {
        user: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
        pair: "@107",
        side: "buy",
        size: "20",
        minutes: 60,
        startedAgo: "1m",
        id: 1000,
      },
    ],
  };
  const dcaTwaps = async (scenario: unknown) => {
    const r = await runSimulation({
      config: { ...config, strategies: dca },
      scenario: scenario as never,
      scenarioFile: "fork",
      days: 3,
    });
    const s = buildSummary(r.record);
    return {
      placed: s.twaps.filter((t) => t.strategy === "hype-dca").length,
      skips: s.skipped
        .filter((k) => k.strategy === "hype-dca")
        .map((k) => `${k.count}x ${k.reason.slice(0, 80)}`),
    };
  };
  const without = await dcaTwaps(base);
  expect(without.placed).toBeGreaterThan(0); // without a carried TWAP: it buys
  const carried = await dcaTwaps(withTwap);
  // It waited for the carried TWAP, not for a rebuild; and counted it in its budget, as a live bot's
  // rebuilt journal does (a second fork trial: the fork's DCA spent its whole budget again).
  expect(carried.skips.join("\n")).not.toMatch(/journal does not have/);
  expect(carried.skips.join("\n")).toMatch(
    /a TWAP #1000 \(not placed by this bot\) is already running on HYPE\/USDC/,
  );
  expect(carried.placed).toBeGreaterThan(0);
  expect(carried.placed).toBeLessThan(without.placed);
  expect(carried.skips.join("\n")).toMatch(/budget used up/);
}, 120_000);

it("a fork's DCA counts what the account's TWAPs ended before the fork spent of its budget (a fork trial)", async () => {
  // The fork read only running TWAPs: one bought through the web UI an hour before, finished, was
  // forgotten, and the fork's DCA spent it again where a live bot's rebuilt journal counted it.
  const config = await loadConfig(join(REPO_ROOT, "config/demo.yaml"), {});
  const dca = config.strategies.filter((s) => s.name === "hype-dca"); // budgetUsd: 1500, buys HYPE
  const base = parse(readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8"));
  const me = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
  // The real account's history: a 30-minute HYPE buy of 20, run to its end before the fork.
  const past = parseScenarioObject({
    ...base,
    twaps: [{ user: me, pair: "@107", side: "buy", size: "20", minutes: 30, startedAgo: "1m", id: 900 }],
  });
  const venue = createSimulator({ scenario: past, seed: 1, clock: "virtual" });
  const info = new InfoClient(
    new HttpTransport({
      endpoints: {
        info: "http://v.invalid/info",
        exchange: "http://v.invalid/exchange",
        explorer: "http://v.invalid/explorer",
      },
      wire: venue.wire,
      budget: null,
    }),
  );
  venue.advance(40 * 60_000);
  const ended = latestTwapEntries(await info.twapHistory({ user: me as `0x${string}` })).filter((e) =>
    twapHasEnded(e),
  );
  expect(ended.map((e) => [e.twapId, e.status.status])).toEqual([[900, "finished"]]);
  const spent = Number(ended[0]!.state.executedNtl);
  expect(spent).toBeGreaterThan(400);
  const run = async (priorTwaps: typeof ended) => {
    const r = await runSimulation({
      config: { ...config, strategies: dca },
      scenario: base,
      scenarioFile: "fork",
      from: venue.now(),
      days: 10,
      priorTwaps,
    });
    const s = buildSummary(r.record);
    return {
      bought: s.twaps
        .filter((t) => t.strategy === "hype-dca")
        .reduce((a, t) => a + Number(t.executedNotional), 0),
      reasons: s.skipped.filter((k) => k.strategy === "hype-dca").map((k) => k.reason),
    };
  };
  const forgot = await run([]);
  const counted = await run(ended);
  expect(forgot.bought).toBeGreaterThan(1400); // the whole 1500 budget (to its last whole lot)
  expect(counted.bought).toBeLessThan(1500 - spent + 50);
  expect(counted.bought).toBeGreaterThan(1500 - spent - 200);

  // A TWAP cancelled after a few slices counts what it executed, not its whole size (a review: a
  // cancelled 40-HYPE order that filled 1.33 used up a 400-USD budget in the fork, not live).
  const big = createSimulator({
    scenario: parseScenarioObject({
      ...base,
      twaps: [{ user: me, pair: "@107", side: "buy", size: "400", minutes: 300, startedAgo: "1m", id: 901 }],
    }),
    seed: 1,
    clock: "virtual",
  });
  big.advance(10 * 60_000);
  expect(big.core.twaps.cancel(me, 10107, 901)).toBe(true);
  const bigInfo = new InfoClient(
    new HttpTransport({
      endpoints: {
        info: "http://v.invalid/info",
        exchange: "http://v.invalid/exchange",
        explorer: "http://v.invalid/explorer",
      },
      wire: big.wire,
      budget: null,
    }),
  );
  const cancelled = latestTwapEntries(await bigInfo.twapHistory({ user: me as `0x${string}` })).filter((e) =>
    twapHasEnded(e),
  );
  expect(cancelled.map((e) => [e.twapId, e.status.status])).toEqual([[901, "terminated"]]);
  const filled = Number(cancelled[0]!.state.executedNtl);
  expect(filled).toBeGreaterThan(0);
  expect(filled).toBeLessThan(500); // of an order worth about 10,000
  const afterCancel = await run(cancelled);
  expect(afterCancel.bought).toBeGreaterThan(1500 - filled - 200);
}, 180_000);
