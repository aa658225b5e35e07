// `hlbot history` echoes what was typed (--strategy) in its warning: a pasted key is never repeated.
// The built CLI as a real process, with a bot file and state folder of its own.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openJournal } from "../../src/engine/journal.js";
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

describe("history of a folder with rows of two accounts", () => {
  it("names each row's account (a sub-account's manual TWAP read as the master's)", async () => {
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
    const master = "0x1111111111111111111111111111111111111111";
    const sub = "0x5555555555555555555555555555555555555555";
    const { journal, close } = await openJournal(join(dir, "state"));
    try {
      journal.startCycle({
        id: "c-master",
        trigger: "once",
        mode: "dry-run",
        account: master,
        strategies: [],
      });
      journal.finishCycle("c-master", "ok");
      journal.startCycle({ id: "c-sub", trigger: "manual", mode: "dry-run", account: sub, strategies: [] });
      journal.finishCycle("c-sub", "ok");
    } finally {
      close();
    }
    const run = await hlbot(["history", "--config", bot]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /c-master {2}once\/dry-run {2}for 0x1111111111111111111111111111111111111111 {2}ok/,
    );
    expect(run.stdout).toMatch(
      /c-sub {2}manual\/dry-run {2}for 0x5555555555555555555555555555555555555555 {2}ok/,
    );
  });
});
