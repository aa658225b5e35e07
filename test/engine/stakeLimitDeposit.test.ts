// A user's trial (hlbot once against hlbot venue, maxStakeMovePerDay 500): the staking strategy moved
// 700 HYPE from spot into staking, the limit cut the delegations it funded, and the rest sat in staking
// undelegated, earning nothing (248 HYPE after two simulated days with a limit of 1). The deposit now
// moves only what the limits let the delegations take.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runSimulation } from "../../src/simulate/runner.js";
import { buildSummary } from "../../src/simulate/summary.js";
import { REPO_ROOT } from "../helpers/build.js";

const temp = mkdtempSync(join(tmpdir(), "hlbot-stake-limit-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

async function demoWithStakeLimit(maxStakeMovePerDay: number) {
  const text = readFileSync(join(REPO_ROOT, "config/demo.yaml"), "utf8")
    .replace("strategies: ./demo-strategies", `strategies: ${join(REPO_ROOT, "config/demo-strategies")}`)
    .replace(/maxStakeMovePerDay: \d+/, `maxStakeMovePerDay: ${maxStakeMovePerDay}`);
  const file = join(temp, `demo-${maxStakeMovePerDay}.yaml`);
  writeFileSync(file, text);
  const { record } = await runSimulation({ config: await loadConfig(file, {}), days: 2 });
  return buildSummary(record).staking;
}

describe("staking deposits under maxStakeMovePerDay", () => {
  it("leaves no more HYPE idle in staking than the account started with", async () => {
    const open = await demoWithStakeLimit(2000);
    // The demo account starts with 48 HYPE undelegated; the unlimited run stakes and delegates the rest.
    expect(open.deposits).toBeGreaterThan(0);
    expect(Number(open.end.idle)).toBeLessThanOrEqual(48);
    const tight = await demoWithStakeLimit(1);
    expect(tight.deposits).toBe(0);
    expect(Number(tight.end.idle)).toBeLessThanOrEqual(48);
  }, 60_000);
});
