// `hlbot history` echoes what was typed (--strategy) in its warning: a pasted key is never repeated.
// The built CLI as a real process, with a bot file and state folder of its own.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildOnce, REPO_ROOT } from "../helpers/build.js";

let dir: string;
beforeAll(() => buildOnce(), 120_000);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "hlbot-history-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function hlbot(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "bin/hlbot.js"), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("history --strategy", () => {
  it("masks a pasted private key in the warning, as every other command does", async () => {
    // A user's trial: `hlbot history --strategy 0x<64 hex>` printed the key back unmasked.
    const bot = join(dir, "hlbot.yaml");
    writeFileSync(
      bot,
      [
        "network: testnet",
        "mode: dry-run",
        `strategies: ${join(REPO_ROOT, "strategies/twap-accumulate.yaml")}`,
        "state: ./state",
        "limits: { maxOrderUsd: 1000, maxDailyNotionalUsd: 5000, maxStakeMovePerDay: 100 }",
        "",
      ].join("\n"),
    );
    const pasted = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
    for (const extra of [[], ["--json"]]) {
      const run = await hlbot(["history", "--config", bot, "--strategy", pasted, ...extra]);
      expect(run.code).toBe(0);
      expect(`${run.stdout}${run.stderr}`.toLowerCase()).not.toContain(pasted.slice(2));
      expect(run.stderr).toContain('no decision of strategy "[64 hex digits]"');
    }
  });
});
