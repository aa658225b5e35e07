// A facts audit: a strategy's twap.minutes was bounded by a fixed 10,080 while the bot file's
// venue.twapMaxMinutes (the venue's maximum, unconfirmed, so configurable) may be raised to 43,200: a
// raised maximum could not be used. And a lowered one (1,440) let a strategy's 2,880-minute TWAP
// validate "ok", every TWAP then cut to 1,440 at run time. Both are checked against the bot file now.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ConfigIssuesError, issuesOf } from "../../../src/engine/config/issues.js";
import { loadConfig } from "../../../src/engine/config/loader.js";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function bot(venue: string, twap: string, extra = ""): string {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-twap-range-"));
  temps.push(dir);
  writeFileSync(
    join(dir, "bot.yaml"),
    `network: testnet\nmode: dry-run\nstate: ./state\nstrategies: [dca.yaml${extra ? ", other.yaml" : ""}]\n` +
      "limits:\n  maxOrderUsd: 1000\n  maxDailyNotionalUsd: 5000\n  maxStakeMovePerDay: 10\n" +
      `venue:\n${venue}`,
  );
  writeFileSync(
    join(dir, "dca.yaml"),
    "name: dca\nkind: twap-accumulate\nschedule: '0 0 * * *'\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 500\n" +
      `  twap:\n${twap}`,
  );
  if (extra) writeFileSync(join(dir, "other.yaml"), extra);
  return join(dir, "bot.yaml");
}

it("a raised venue.twapMaxMinutes is usable by a strategy", async () => {
  const c = await loadConfig(
    bot("  twapMaxMinutes: 20160\n", "    minutes: 20160\n    maxMinutes: 20160\n"),
    {},
  );
  const twap = (c.strategies[0]!.params as { twap: { minutes: number; maxMinutes: number } }).twap;
  expect([twap.minutes, twap.maxMinutes]).toEqual([20160, 20160]);
  expect(c.venue.rules.twapMaxMinutes).toBe(20160);
});

it("minutes or maxMinutes outside the bot file's venue range are refused at their line", async () => {
  const file = bot(
    "  twapMinMinutes: 10\n  twapMaxMinutes: 1440\n",
    "    minutes: 2880\n    maxMinutes: 4320\n",
  );
  const err = await loadConfig(file, {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigIssuesError);
  const issues = issuesOf(err as ConfigIssuesError).map((i) => [
    i.file.split("/").pop(),
    i.line,
    i.keyPath,
    i.message,
  ]);
  expect(issues).toEqual([
    [
      "dca.yaml",
      9,
      "params.twap.minutes",
      expect.stringMatching(/^2880 is above venue\.twapMaxMinutes \(1440\)/),
    ],
    [
      "dca.yaml",
      10,
      "params.twap.maxMinutes",
      expect.stringMatching(/^4320 is above venue\.twapMaxMinutes \(1440\)/),
    ],
  ]);

  const short = bot("  twapMinMinutes: 10\n", "    minutes: 5\n");
  const below = await loadConfig(short, {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(issuesOf(below as ConfigIssuesError).map((i) => [i.keyPath, i.message])).toEqual([
    ["params.twap.minutes", "5 is below venue.twapMinMinutes (10) in the bot file"],
  ]);
});

it("with leaveOutBroken (the daemon), such a strategy is left out with its issue; the others run", async () => {
  const other =
    "name: rebalance\nkind: twap-rebalance\nschedule: '0 * * * *'\nparams:\n  targets: {HYPE: 0.5, USDC: 0.5}\n  quote: USDC\n  band: 0.05\n  twap: {minutes: 60}\n";
  const file = bot("  twapMaxMinutes: 1440\n", "    minutes: 2880\n", other);
  const c = await loadConfig(file, {}, { leaveOutBroken: true });
  expect(c.strategies.map((s) => s.name)).toEqual(["rebalance"]);
  expect(c.leftOut?.map((i) => i.keyPath)).toEqual(["params.twap.minutes"]);
});
