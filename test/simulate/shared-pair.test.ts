// Two DCAs buying one pair on one schedule both buy at every slot. A rule tried in review ("one new TWAP
// per pair per cycle") deferred the second behind the first, whose 40-minute TWAP outlasted every retry
// of the slot: the second DCA never bought once in a day, with only "deferred" and "missed" to say so.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("two strategies buying one pair on one schedule", () => {
  it("both buy at every hourly slot of a day with 40-minute TWAPs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hlbot-shared-pair-"));
    dirs.push(dir);
    const files = ["dca-a", "dca-b"].map((name) => {
      const file = join(dir, `${name}.yaml`);
      const params = { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 40, randomize: false } };
      writeFileSync(file, stringify({ name, kind: "twap-accumulate", schedule: "0 * * * *", params }));
      return file;
    });
    const bot = join(dir, "bot.yaml");
    writeFileSync(
      bot,
      stringify({
        network: "testnet",
        strategies: files,
        state: "./state",
        limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 100_000, maxStakeMovePerDay: 2000 },
      }),
    );
    const { record } = await runSimulation({ config: await loadConfig(bot, {}), days: 1 });
    const bought = (name: string) =>
      record.cycles
        .flatMap((c) => c.decisions)
        .filter((d) => d.strategy === name && d.kind === "twapOrder" && d.outcome === "accepted").length;
    expect(bought("dca-a")).toBe(24);
    expect(bought("dca-b")).toBe(24);
    expect(record.missed.filter((m) => m.strategy === "dca-b")).toEqual([]);
  }, 60_000);
});
