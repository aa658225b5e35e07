// A limit tester's trial: a daily limit's reason said "the rest TWAPs it did not place (by hand, another
// bot or state folder)" when the only TWAP was the bot's own, valued by the venue at today's mid after a
// rise (600 USD decided at 25, 648 at 27). The reason now says whose the venue's extra usage is.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { demoWithHypeSteps } from "../helpers/scenario.js";
import { scratchDir } from "../helpers/scratch.js";

it("a daily limit reached through the bot's own TWAP revalued by the venue does not blame others", async () => {
  const dir = scratchDir("hlbot-own-usage-");
  const scenario = join(dir, "scenario.yaml");
  writeFileSync(
    scenario,
    demoWithHypeSteps([
      ["0s", "25"],
      ["30m", "27"],
    ]),
  );
  const dca = (name: string, coin: string, schedule: string, minutes: number) => {
    const file = join(dir, `${name}.yaml`);
    writeFileSync(
      file,
      stringify({
        name,
        kind: "twap-accumulate",
        schedule,
        params: { coin, side: "buy", amountUsd: 600, twap: { minutes, randomize: false } },
      }),
    );
    return file;
  };
  const bot = join(dir, "bot.yaml");
  writeFileSync(
    bot,
    stringify({
      network: "testnet",
      mode: "dry-run",
      strategies: [dca("a-hype", "HYPE", "0 0 * * *", 120), dca("b-purr", "PURR", "45 0 * * *", 30)],
      limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 1000, maxStakeMovePerDay: 1000 },
      log: { level: "silent" },
    }),
  );
  const { record } = await runSimulation({
    config: await loadConfig(bot, {}),
    scenarioFile: scenario,
    days: 0.05,
  });
  const reasons = record.cycles.flatMap((c) =>
    c.decisions.filter((d) => d.strategy === "b-purr").map((d) => String(d.reason)),
  );
  const limited = reasons.find((r) => r.includes("maxDailyNotionalUsd 1000"));
  expect(limited).toMatch(
    /as the venue values this bot's own TWAPs \(what filled at its cost, the rest at today's mid\); 600 USD by its journal/,
  );
  expect(limited).not.toMatch(/did not place/);
}, 60_000);
