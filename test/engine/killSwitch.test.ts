// The kill switch fails closed (issue #17.7) and, with killSwitchCancelRunning, stops running TWAPs
// (issue #12, case 6): tested on real files and against the simulator.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { runCycle } from "../../src/engine/cycle.js";
import {
  engageKillSwitch,
  killSwitchNotice,
  killSwitchState,
  releaseKillSwitch,
} from "../../src/engine/killSwitch.js";
import { killSwitchEvent } from "../../src/engine/notify/events.js";
import { killSwitchActive } from "../../src/engine/runtime.js";
import { ConfigError } from "../../src/lib/errors.js";
import { REBALANCE, startTestBot, type TestBot } from "../helpers/bot.js";
import { type RewritingProxy, startRewritingProxy } from "../helpers/rewritingProxy.js";

const dirs: string[] = [];
let bot: TestBot | undefined;
let proxy: RewritingProxy | undefined;
afterEach(async () => {
  await bot?.close();
  await proxy?.close();
  bot = undefined;
  proxy = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "hlbot-ks-"));
  dirs.push(d);
  return d;
}

describe("killSwitchState fails closed", () => {
  it("is off only when nothing is at the path and its folder exists", () => {
    const d = tempDir();
    expect(killSwitchState(join(d, "STOP")).engaged).toBe(false);
  });

  it.each([
    ["an empty file", (p: string) => writeFileSync(p, "")],
    [
      "a file nobody may read",
      (p: string) => {
        writeFileSync(p, "stop");
        chmodSync(p, 0o000);
      },
    ],
    ["a dangling symlink", (p: string) => symlinkSync(join(p, "..", "nowhere"), p)],
    ["a folder", (p: string) => mkdirSync(p)],
  ])("%s at the path means stopped", (_what, make) => {
    const path = join(tempDir(), "STOP");
    make(path);
    const state = killSwitchState(path);
    expect(state.engaged).toBe(true);
    expect(state.detail).toContain(path);
    expect(releaseKillSwitch(path)).toBe(true);
    expect(killSwitchState(path).engaged).toBe(false);
  });

  it("a folder with files in it stays engaged, and resume says what to do (a raw ENOTEMPTY told nothing: a docs trial)", () => {
    const path = join(tempDir(), "STOP");
    mkdirSync(path);
    writeFileSync(join(path, "note.txt"), "kept");
    expect(() => releaseKillSwitch(path)).toThrow(
      /STOP is a folder with files in it, so the kill switch stays engaged: .* remove it yourself \(rm -r /,
    );
    expect(killSwitchState(path).engaged).toBe(true);
    expect(readFileSync(join(path, "note.txt"), "utf8")).toBe("kept");
  });

  it("a path in a folder that does not exist is a configuration error, not 'off'", () => {
    const path = join(tempDir(), "missing", "STOP");
    expect(() => killSwitchState(path)).toThrow(ConfigError);
  });

  it("a path that cannot be examined (a file where its folder should be) means stopped", () => {
    const d = tempDir();
    writeFileSync(join(d, "plain"), "");
    expect(killSwitchState(join(d, "plain", "STOP"))).toMatchObject({ engaged: true });
  });
});

describe("engaging an engaged kill switch", () => {
  it("keeps the time it was first engaged and adds the second reason", () => {
    const path = join(tempDir(), "STOP");
    const t0 = Date.parse("2026-11-26T20:00:00Z");
    engageKillSwitch(path, "checking the fills", t0);
    engageKillSwitch(path, "still checking", t0 + 60 * 60_000);
    expect(killSwitchNotice(path)).toMatch(
      /^engaged since 2026-11-26T20:00:00\.000Z \(checking the fills; again at 2026-11-26T21:00:00\.000Z: still checking\)/,
    );
  });
});

describe("what is at the kill switch path is never read if it is not a stop record", () => {
  it("a FIFO is engaged at once, without blocking (a review: reading it froze the daemon and SIGTERM)", () => {
    const path = join(tempDir(), "STOP");
    execFileSync("mkfifo", [path]);
    // Opening a FIFO to read waits for a writer: this returned only once one came.
    expect(killSwitchNotice(path)).toMatch(/^engaged: something exists at .*STOP; nothing is submitted/);
    expect(killSwitchEvent({ account: "0xabc", network: "testnet", now: 0 }, true, path).text).toMatch(
      /^engaged: something exists at/,
    );
  });

  it("a symlink, or a file far larger than a record, is engaged without being read", () => {
    const dir = tempDir();
    const target = join(dir, "record.json");
    writeFileSync(target, `${JSON.stringify({ stoppedAt: "2026-11-26T20:00:00.000Z", reason: "x" })}\n`);
    const link = join(dir, "STOP");
    symlinkSync(target, link);
    expect(killSwitchNotice(link)).toMatch(/^engaged: a symlink exists at/);
    const big = join(dir, "BIG");
    writeFileSync(big, JSON.stringify({ stoppedAt: "t", reason: "y".repeat(100_000) }));
    expect(killSwitchNotice(big)).toMatch(/^engaged: a file exists at/);
  });

  it("a stoppedAt written by hand that looks like a key is masked", () => {
    const path = join(tempDir(), "STOP");
    writeFileSync(path, JSON.stringify({ stoppedAt: `0x${"ab".repeat(32)}`, reason: "by hand" }));
    expect(killSwitchNotice(path)).not.toContain("ab".repeat(32));
  });
});

describe("the bot configuration", () => {
  function writeBot(dir: string, killSwitchFile: string): string {
    writeFileSync(join(dir, "s.yaml"), stringify({ ...REBALANCE, name: "s", schedule: "0 * * * *" }));
    const file = join(dir, "bot.yaml");
    writeFileSync(
      file,
      stringify({
        network: "testnet",
        strategies: ["s.yaml"],
        state: "./state",
        limits: { maxOrderUsd: 100, maxDailyNotionalUsd: 1000, maxStakeMovePerDay: 10, killSwitchFile },
      }),
    );
    return file;
  }

  it("refuses a kill-switch path whose folder does not exist, naming the key", async () => {
    const dir = tempDir();
    const err = await loadConfig(writeBot(dir, "./nowhere/STOP"), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toMatch(/folder .*nowhere does not exist/);
    expect(JSON.stringify(err)).toMatch(/killSwitchFile/);
  });

  it("accepts one in the state folder before that folder is created, and killSwitchActive uses lstat", async () => {
    const dir = tempDir();
    const config = await loadConfig(writeBot(dir, "./state/STOP"), {});
    mkdirSync(join(dir, "state"));
    expect(killSwitchActive(config)).toBe(false);
    symlinkSync(join(dir, "gone"), config.limits.killSwitchFile);
    expect(killSwitchActive(config)).toBe(true);
  });
});

describe("a cycle with the kill switch engaged", () => {
  it("blocks every intent when the switch is a dangling symlink (it used to count as off)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    symlinkSync(join(bot.dir, "nowhere"), bot.runtime.config.limits.killSwitchFile);
    const report = await runCycle(bot.runtime.cycleDeps(await bot.runtime.facts()), {
      trigger: "once",
      strategies: bot.runtime.strategies(),
    });
    expect(report.actions).toHaveLength(0);
    expect(report.decisions.map((d) => d.guard)).toEqual(["blocked"]);
    expect(report.decisions[0]?.decision.reason).toMatch(/kill switch/);
  });

  it("with killSwitchCancelRunning, cancels the running TWAP (journaled) and places nothing new", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      limits: { killSwitchCancelRunning: true },
    });
    bot.sim.setPrice("@107", "40");
    const deps = () => bot!.runtime.cycleDeps({ multiSig: null });
    const first = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    expect(first.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
    const twapId = first.actions[0]?.twapId;
    bot.sim.advance(5 * 60_000);

    writeFileSync(bot.runtime.config.limits.killSwitchFile, "stopped by the test");
    const second = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    expect(second.actions.map((a) => [a.strategy, a.action, a.outcome])).toEqual([
      ["kill-switch", "twapCancel", "accepted"],
    ]);
    expect(second.actions[0]?.reason).toMatch(
      new RegExp(`kill switch engaged.*cancel the running sell TWAP ${twapId}`),
    );
    expect(bot.sim.ledger().filter((e) => e.kind === "twapPlaced")).toHaveLength(1);
    const rows = bot.runtime.journal.recentSubmissions(5);
    expect(rows.map((r) => [r.strategy, r.actionType, r.status])).toContainEqual([
      "kill-switch",
      "twapCancel",
      "accepted",
    ]);

    // The TWAP is no longer running: the next cycle has nothing to cancel and still sends nothing.
    bot.sim.advance(60_000);
    const third = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    expect(third.actions).toHaveLength(0);
  });

  it("engaged while the cycle reads the account, it stops the sends that follow (read again before each)", async () => {
    proxy = await startRewritingProxy();
    bot = await startTestBot({
      mode: "live",
      strategies: [REBALANCE],
      fund: { HYPE: "1000", USDC: "5000" },
      configExtra: { baseUrl: proxy.url },
    });
    proxy.target = bot.sim.url;
    bot.sim.setPrice("@107", "40");
    const file = bot.runtime.config.limits.killSwitchFile;
    // `hlbot stop` while this cycle reads the balances: a review's case (the order went out).
    proxy.rewriteInfo("spotClearinghouseState", (answer) => {
      engageKillSwitch(file, "emergency", Date.now());
      return answer;
    });
    const deps = () => bot!.runtime.cycleDeps({ multiSig: null });
    const report = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    expect(report.actions).toHaveLength(0);
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
    const skipped = report.decisions.find((d) => d.decision.kind === "skip");
    expect(skipped?.decision.reason).toMatch(/; not sent: the kill switch was engaged during this cycle/);
    // Deferred: resumed, the slot's order goes out.
    proxy.clear();
    releaseKillSwitch(file);
    const resumed = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    expect(resumed.actions.map((a) => [a.action, a.outcome])).toEqual([["twapOrder", "accepted"]]);
  });

  it("without it, the running TWAP is left alone (the switch only blocks new submissions)", async () => {
    bot = await startTestBot({ mode: "live", strategies: [REBALANCE], fund: { HYPE: "1000", USDC: "5000" } });
    bot.sim.setPrice("@107", "40");
    const deps = () => bot!.runtime.cycleDeps({ multiSig: null });
    await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    writeFileSync(bot.runtime.config.limits.killSwitchFile, "");
    bot.sim.advance(5 * 60_000);
    const report = await runCycle(deps(), { trigger: "once", strategies: bot.runtime.strategies() });
    expect(report.actions).toHaveLength(0);
  });
});
