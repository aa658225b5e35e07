// The README is a contract: its configuration reference is generated from the schemas and must match
// them, and every YAML example it ships (config/, strategies/) must load.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, loadStrategyFile, strategyFilesIn } from "../../src/engine/config/loader.js";
import { embedReference } from "../../src/engine/config/reference.js";

const ROOT = join(import.meta.dirname, "../..");

describe("README", () => {
  it("embeds the configuration reference exactly as the schemas generate it (run `npm run docs`)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(embedReference(readme)).toBe(readme);
  });

  it("names the quick-start commands", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const cmd of ["npm install", "npm start", "npm test"]) expect(readme).toContain(cmd);
  });

  it("ships example configurations that load", async () => {
    const env = { HLBOT_STRATEGIES: join(ROOT, "strategies") };
    for (const file of ["config/default.yaml", "config/docker.yaml"]) {
      const config = await loadConfig(join(ROOT, file), env);
      expect(config.strategies.length).toBeGreaterThan(0);
    }
    const files = await strategyFilesIn(join(ROOT, "strategies"));
    const kinds = new Set<string>();
    for (const f of files) kinds.add((await loadStrategyFile(f, env)).kind);
    expect([...kinds].sort()).toEqual([
      "link-staking",
      "twap-accumulate",
      "twap-rebalance",
      "validator-staking",
    ]);
  });
});
