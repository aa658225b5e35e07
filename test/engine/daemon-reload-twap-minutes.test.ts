// A review: the TWAP-length check against the bot file's venue.twapMinMinutes..twapMaxMinutes ran only
// at start-up (loadConfig): the daemon's SIGHUP reload (loadStrategySet) took a length start-up refuses,
// then cut every TWAP to the maximum at run time.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { loadStrategySet } from "../../src/engine/daemon.js";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const dca = (minutes: number) =>
  "name: dca\nkind: twap-accumulate\nschedule: '0 0 * * *'\nparams:\n  coin: HYPE\n  side: buy\n  amountUsd: 500\n" +
  `  twap:\n    minutes: ${minutes}\n`;

it("SIGHUP reload refuses a twap.minutes above the bot file's venue.twapMaxMinutes, as start-up does", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-reload-minutes-"));
  temps.push(dir);
  writeFileSync(
    join(dir, "bot.yaml"),
    "network: testnet\nmode: dry-run\nstate: ./state\nstrategies: [dca.yaml]\n" +
      "limits:\n  maxOrderUsd: 1000\n  maxDailyNotionalUsd: 5000\n  maxStakeMovePerDay: 10\n" +
      "venue:\n  twapMaxMinutes: 1440\n",
  );
  writeFileSync(join(dir, "dca.yaml"), dca(60));
  const config = await loadConfig(join(dir, "bot.yaml"), {});
  // The same edit start-up refuses:
  writeFileSync(join(dir, "dca.yaml"), dca(2880));
  await expect(loadConfig(join(dir, "bot.yaml"), {})).rejects.toThrow(/above venue\.twapMaxMinutes/);
  // ...is taken by a SIGHUP reload of the running daemon:
  await expect(loadStrategySet(config, {})).rejects.toThrow(/above venue\.twapMaxMinutes/);
});
