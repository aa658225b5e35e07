// A simulation runs on the demo holdings with a demo key, whatever `account:` the bot file names: a user
// who simulated a sub-account's bot file saw staking moves and rewards that `run` refuses for it, and
// nothing said the run was not of their account (a review of the simulations).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { accountCaveat, formatSummary, onePricePath } from "../../src/simulate/format.js";
import { renderReport } from "../../src/simulate/report.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";
import { scratchDir } from "../helpers/scratch.js";

const SUB = "0x1111111111111111111111111111111111111111";

describe("a bot file naming its account, simulated", () => {
  it("says the run is not of that account and what the venue would refuse it", async () => {
    const dir = scratchDir("hlbot-sim-account-");
    writeFileSync(
      join(dir, "bot.yaml"),
      `network: testnet\naccount: "${SUB}"\nstrategies: ${REPO_ROOT}/config/demo-strategies\nstate: ./state\nlimits:\n  maxOrderUsd: 5000\n  maxDailyNotionalUsd: 20000\n  maxStakeMovePerDay: 2000\n`,
    );
    const config = await loadConfig(join(dir, "bot.yaml"), {});
    const { record } = await runSimulation({ config, days: 0.25 });
    const summary = buildSummary(record);
    expect(summary.configAccount).toBe(SUB);
    const text = formatSummary(summary);
    expect(text).toContain(
      "not the bot file's account 0x1111…1111: its holdings are not read (--fork starts from them)",
    );
    expect(text).toContain("a sub-account, a vault or an API wallet cannot stake");
    expect(text).toContain("one price path (seed 42)");
    const html = renderReport({ summary, record });
    expect(html).toContain("Not the bot file&#39;s account 0x1111…1111: its holdings are not read");
    expect(html).toContain("One price path (seed 42)");

    // Forked from it: its holdings ran, its signing did not (the line a review missed under --fork).
    expect(accountCaveat(SUB, SUB)).toMatch(
      /^the bot file's account 0x1111…1111, forked, but signed for by a demo key: .*cannot stake\)$/,
    );
    expect(onePricePath({ forkedFrom: SUB, replayed: [] })).toBe(false);

    const demo = buildSummary(
      (await runSimulation({ config: await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {}), days: 0.25 }))
        .record,
    );
    expect(demo.configAccount).toBeNull();
    expect(formatSummary(demo)).not.toContain("not the bot file's account");
  }, 60_000);
});
