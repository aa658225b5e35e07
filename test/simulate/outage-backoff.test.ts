// A DCA's trial: through a 3-hour outage of the exchange endpoint (HTTP 500) over its daily slot, each
// send ended unknown, was reconciled absent and reopened the slot, and the DCA sent again at once: a
// send every 2 minutes, 61 unknown submissions (each a notice and a reconciliation) for one slot. What
// proved absent is retried after the back-off of a failed run, counted by the sends lost in the slot.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { REPO_ROOT } from "../helpers/build.js";

const dir = mkdtempSync(join(tmpdir(), "hlbot-outage-backoff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PURR DCA on `schedule` (TWAPs of `minutes`) through the demo scenario with `event` added, for `days`. */
async function runThrough(folder: string, event: string, schedule: string, minutes: number, days: number) {
  const demo = readFileSync(join(REPO_ROOT, "config/scenarios/demo.yaml"), "utf8");
  const sub = join(dir, folder);
  mkdirSync(join(sub, "strategies"), { recursive: true });
  writeFileSync(join(sub, "scenario.yaml"), `${demo}\nevents:\n  - ${event}\n`);
  writeFileSync(
    join(sub, "strategies", "dca.yaml"),
    `name: purr-dca\nkind: twap-accumulate\nschedule: "${schedule}"\nparams: { coin: PURR, side: buy, amountUsd: 150, twap: { minutes: ${minutes} } }\n`,
  );
  writeFileSync(
    join(sub, "bot.yaml"),
    "network: testnet\nmode: dry-run\nstrategies: ./strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 5000\n  maxDailyNotionalUsd: 20000\n  maxStakeMovePerDay: 2000\n",
  );
  const config = await loadConfig(join(sub, "bot.yaml"), {});
  return runSimulation({ config, scenarioFile: join(sub, "scenario.yaml"), days });
}

it("sends found absent in an outage are retried with a back-off, not every two minutes", async () => {
  const result = await runThrough(
    "daily",
    "{ at: 1d8h30m, type: outage, for: 3h, endpoint: exchange }",
    "0 9 * * *",
    120,
    3,
  );
  const sends = result.record.cycles.flatMap((c) =>
    c.decisions
      .filter((d) => d.kind === "twapOrder" && d.outcome !== undefined)
      .map((d) => ({ at: c.at, outcome: d.outcome })),
  );
  const day = (n: number) => Date.UTC(2025, 0, 1 + n);
  const inOutage = sends.filter((s) => s.at >= day(1) && s.at < day(2));
  // 09:00 to 11:00 (the catch-up window) inside the outage: none lands, and the sends space out
  // (1, 2, 4, 8, 16, 30 minutes after each is found absent), not one every two minutes (61 before).
  expect(inOutage.every((s) => s.outcome === "unknown")).toBe(true);
  expect(inOutage.length).toBeGreaterThanOrEqual(3);
  expect(inOutage.length).toBeLessThanOrEqual(12);
  const gaps = inOutage.slice(1).map((s, i) => s.at - inOutage[i]!.at);
  expect(gaps.at(-1)!).toBeGreaterThan(gaps[0]!);
  // The days around it buy once each.
  expect(sends.filter((s) => s.at < day(1)).map((s) => s.outcome)).toEqual(["accepted"]);
  expect(sends.filter((s) => s.at >= day(2)).map((s) => s.outcome)).toEqual(["accepted"]);
}, 120_000);

it("the back-off after lost sends ends a minute before the next slot: an hourly DCA buys once the venue is back", async () => {
  // A review: after six losses the hold of an hourly DCA ran to 10:02; the exchange was back at 09:55
  // and the 09:00 buy was lost to the 10:00 slot.
  const result = await runThrough(
    "hourly",
    "{ at: 1d9h, type: outage, for: 55m, endpoint: exchange }",
    "0 * * * *",
    30,
    2,
  );
  expect(result.record.missed).toEqual([]);
  const nine = Date.UTC(2025, 0, 2, 9);
  const accepted = result.record.cycles.flatMap((c) =>
    c.decisions.filter((d) => d.kind === "twapOrder" && d.outcome === "accepted").map(() => c.at),
  );
  // The 09:00 slot's buy goes out after the outage (09:55) and before 10:00.
  expect(accepted.filter((at) => at >= nine + 55 * 60_000 && at < nine + 60 * 60_000)).toHaveLength(1);
}, 120_000);
