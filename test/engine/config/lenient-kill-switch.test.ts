// A review of `hlbot stop`'s fallback: it read a bot file with a YAML error as far as it parsed. An
// unclosed quote above the `state:` line swallowed that line, `state` read as absent, and the switch was
// engaged in the default state folder, not ./mystate where the daemon looks, exit 0. Refused instead.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lenientKillSwitch } from "../../../src/engine/config/loader.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("lenientKillSwitch on a file with a YAML error", () => {
  it("does not fall back to the default state folder when the state: line was swallowed by the error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "r21-ks-"));
    dirs.push(dir);
    const file = join(dir, "hlbot.yaml");
    writeFileSync(
      file,
      [
        "network: testnet",
        "strategies: ./strategies",
        "limits:",
        '  maxOrderUsd: "500',
        "  maxDailyNotionalUsd: 2000",
        "  maxStakeMovePerDay: 100",
        "state: ./mystate",
        "",
      ].join("\n"),
    );
    const found = await lenientKillSwitch(file, { HOME: join(dir, "home") });
    expect(found).toEqual({ why: expect.stringMatching(/hlbot\.yaml is not valid YAML \(/) });
  });
});
