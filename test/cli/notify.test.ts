// Notifications end to end: `hlbot run` (the built CLI, a child process) against a simulator, with a
// webhook receiver and a Telegram stand-in answering and a Discord stand-in that never answers. The
// working channels get the start, the accepted TWAP and the stop; the dead one costs the cycles
// nothing; every attempt is in the journal. `hlbot notify test` reports each channel's answer.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { Journal } from "../../src/engine/journal.js";
import type { NotifyEvent } from "../../src/engine/notify/types.js";
import { openStateDb } from "../../src/lib/stateDb.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { REBALANCE } from "../helpers/bot.js";
import { BIN, ensureBuilt } from "../helpers/dist.js";
import { startHttpServer, type TestHttpServer } from "../helpers/httpServer.js";
import { startRewritingProxy } from "../helpers/rewritingProxy.js";

const TOKEN = "777:telegram-secret";
let sim: (Simulator & { url: string }) | undefined;
let receiver: TestHttpServer;
let dead: TestHttpServer;
const work = mkdtempSync(join(tmpdir(), "hlbot-notify-cli-"));

beforeAll(async () => {
  ensureBuilt(["cli/main.js", "cli/commands/notify.js", "engine/notify/notifier.js"]);
  sim = await startSimulator({ clock: "real", rateLimit: false });
  receiver = await startHttpServer((r) =>
    r.path === "/refused" ? { status: 401, json: {} } : { json: { ok: true } },
  );
  dead = await startHttpServer([{ fault: "hang" }]);
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await dead?.close();
  await sim?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** One `hlbot once` of a bot file (as cron runs it): its exit code and stderr. */
async function runOnce(bot: { config: string; env: Record<string, string> }) {
  const proc = spawn(process.execPath, [BIN, "once", "--config", bot.config], { env: bot.env });
  let err = "";
  proc.stderr.on("data", (d: Buffer) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  return { code, err };
}

function botFile(
  name: string,
  notify: Record<string, unknown>,
): { config: string; state: string; env: Record<string, string>; address: string } {
  const dir = join(work, name);
  mkdirSync(join(dir, "strategies"), { recursive: true });
  const wallet = Wallet.createRandom();
  writeFileSync(
    join(dir, "strategies", "rebalance.yaml"),
    stringify({ ...REBALANCE, schedule: "* * * * * *" }),
  );
  const config = join(dir, "bot.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      baseUrl: sim!.url,
      mode: "live",
      wallet: { privateKeyEnv: "HLBOT_TEST_KEY" },
      strategies: "./strategies",
      state: "./state",
      // These tests may schedule strategies by the second.
      schedule: { allowSeconds: true },
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 100000 },
      log: { level: "info", format: "json" },
      notify,
    }),
  );
  return {
    config,
    state: join(dir, "state"),
    address: wallet.address.toLowerCase(),
    env: {
      PATH: process.env.PATH ?? "",
      HLBOT_TEST_KEY: wallet.privateKey,
      TG_TOKEN: TOKEN,
      DISCORD_URL: `${dead.url}/api/webhooks/1/discord-secret`,
    },
  };
}

async function until(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const events = (path: string) =>
  receiver.requests.filter((r) => r.path === path).map((r) => r.json as NotifyEvent);
const texts = () =>
  receiver.requests.filter((r) => r.path.startsWith("/bot")).map((r) => (r.json as { text: string }).text);

describe("notifications from hlbot run", () => {
  it("tells start, accepted TWAP and stop to the live channels; a dead one does not slow the cycles", async () => {
    const bot = botFile("run", {
      timeoutMs: 2000,
      retries: 0,
      minIntervalMs: 0,
      webhook: { url: `${receiver.url}/hook` },
      telegram: { botTokenEnv: "TG_TOKEN", chatId: 42, apiUrl: receiver.url },
      discord: { webhookUrlEnv: "DISCORD_URL" },
    });
    sim!.fund(bot.address, "HYPE", "1000");
    sim!.fund(bot.address, "USDC", "5000");
    const proc: ChildProcess = spawn(process.execPath, [BIN, "run", "--config", bot.config], {
      env: bot.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (d: Buffer) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => proc.on("close", (code) => resolve(code)));
    try {
      await until("the accepted TWAP on the webhook", () =>
        events("/hook").some((e) => e.type === "submission.accepted"),
      );
      expect(events("/hook")[0]).toMatchObject({
        type: "daemon.start",
        account: bot.address,
        network: "testnet",
      });
      const accepted = events("/hook").find((e) => e.type === "submission.accepted")!;
      // What was sent, from the request itself (the reason may lead with a size the limits reduced).
      expect(accepted.title).toMatch(
        /^rebalance: twapOrder sell [\d.]+ HYPE \(HYPE\/USDC, asset 10107\) over \d+ min \(TWAP \d+\) accepted$/,
      );
      expect(accepted.data).toMatchObject({
        strategy: "rebalance",
        action: "twapOrder",
        outcome: "accepted",
        sent: expect.stringMatching(/^sell [\d.]+ HYPE \(HYPE\/USDC, asset 10107\) over \d+ min$/),
      });
      await until("the same on Telegram", () => texts().some((t) => /twapOrder .* accepted/.test(t)));
      expect(texts()[0]).toMatch(/^hlbot \(testnet 0x[0-9a-f]{4}…[0-9a-f]{4}\): daemon started \(live\)/);
      // Discord never answers (2-s timeout); the cycles that ran meanwhile took their usual time.
      expect(dead.requests.length).toBeGreaterThan(0);
      const cycles = stderr
        .split("\n")
        .filter((l) => l.includes('"cycle ok'))
        .map((l) => JSON.parse(l) as { ms: number });
      expect(cycles.length).toBeGreaterThan(0);
      for (const c of cycles) expect(c.ms).toBeLessThan(1500);
      // Discord's first attempt gives up after its 2-s timeout: stopped before, the daemon journals it as
      // dropped at shutdown, not timed out. Waited for by its warning (a fixed 2.5 s was not always enough
      // on a loaded machine), journaled just before it.
      await until("Discord's attempt to time out", () =>
        stderr.includes("notification to discord not delivered"),
      );
    } finally {
      proc.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(events("/hook").at(-1)).toMatchObject({ type: "daemon.stop", title: "daemon stopped (exit 0)" });
    expect(stderr).not.toContain("telegram-secret");
    expect(stderr).not.toContain("discord-secret");
    const db = await openStateDb({ dir: bot.state });
    try {
      const rows = new Journal(db).recentNotifications(100);
      expect(
        rows.some(
          (r) => r.channel === "webhook" && r.event === "submission.accepted" && r.outcome === "sent",
        ),
      ).toBe(true);
      expect(
        rows.some((r) => r.channel === "discord" && r.outcome === "gave-up" && r.detail === "timed out"),
      ).toBe(true);
      expect(JSON.stringify(rows)).not.toMatch(/secret/);
    } finally {
      db.close();
    }
  }, 60_000);

  it("hlbot once (cron) tells the submissions of its pass before it exits", async () => {
    const bot = botFile("once", { minIntervalMs: 0, webhook: { url: `${receiver.url}/hook-once` } });
    writeFileSync(
      join(bot.config, "..", "strategies", "rebalance.yaml"),
      stringify({ ...REBALANCE, schedule: "*/2 * * * * *" }),
    );
    sim!.fund(bot.address, "HYPE", "1000");
    sim!.fund(bot.address, "USDC", "5000");
    const once = () => runOnce(bot);
    // The first call only sees the strategy (its slots start then); the next slot is at most 2 s away.
    expect((await once()).code).toBe(0);
    await new Promise((r) => setTimeout(r, 2100));
    const second = await once();
    expect(second.code, second.err).toBe(0);
    expect(events("/hook-once").map((e) => e.type)).toEqual(["submission.accepted"]);
  }, 60_000);

  it("hlbot once (cron) tells schedule.missed when a strategy's slot went by with nothing run for it, once per slot", async () => {
    const bot = botFile("once-missed", { minIntervalMs: 0, webhook: { url: `${receiver.url}/hook-missed` } });
    writeFileSync(
      join(bot.config, "..", "strategies", "rebalance.yaml"),
      stringify({ ...REBALANCE, schedule: "*/6 * * * * *" }),
    );
    // A one-second window: a call 1 to 6 s after a slot (every 6 s) finds it too old to run, and no later
    // one due yet.
    writeFileSync(
      bot.config,
      readFileSync(bot.config, "utf8").replace("allowSeconds: true", "allowSeconds: true\n  catchUp: 1s"),
    );
    const once = () => runOnce(bot);
    expect((await once()).code).toBe(0); // first sight: the slots start now
    // 2.5 s after the next slot: room for a slow process start on a loaded machine.
    await new Promise((r) => setTimeout(r, 6_000 - (Date.now() % 6_000) + 2_500));
    const late = await once();
    expect(late.code, late.err).toBe(0);
    await until("the schedule.missed event", () => events("/hook-missed").length > 0);
    const [missed] = events("/hook-missed");
    expect(missed).toMatchObject({
      type: "schedule.missed",
      title: expect.stringMatching(/^rebalance missed (a slot|slots): nothing was done for it$/),
      data: { strategies: ["rebalance"], catchUpMs: 1000 },
    });
    expect(missed?.text).toMatch(/hlbot did not look within schedule\.catchUp \(1 s\) after them/);
    expect(missed?.text).toMatch(/or their runs failed \(the venue unreachable\) or waited/);
    // Told once: the next call does not tell that slot again (on a loaded machine it may find a later
    // slot lost too: never the same one twice).
    expect((await once()).code).toBe(0);
    const latest = events("/hook-missed").map((e) => (e.data.missed as Array<{ latest: string }>)[0]?.latest);
    expect(new Set(latest).size).toBe(latest.length);
  }, 60_000);

  it("hlbot once (cron) journals a pass the venue did not answer, tells the first failed pass, then the recovery", async () => {
    const bot = botFile("once-down", { minIntervalMs: 0, webhook: { url: `${receiver.url}/hook-down` } });
    const up = readFileSync(bot.config, "utf8");
    // The venue down: nothing listens on port 1 (one attempt per read, so each pass fails fast).
    writeFileSync(
      bot.config,
      `${up.replace(sim!.url, "http://127.0.0.1:1")}venue: { readAttempts: 1, timeoutMs: 2000 }\n`,
    );
    const once = () => runOnce(bot);
    expect((await once()).code).toBe(1);
    expect((await once()).code).toBe(1);
    // Each pass is a failed cycle in the journal (history shows the outage); the first is told.
    const db = await openStateDb({ dir: bot.state });
    try {
      const journal = new Journal(db);
      const cycles = journal.recentCycles(10);
      expect(cycles.map((c) => [c.trigger, c.status])).toEqual([
        ["once", "failed"],
        ["once", "failed"],
      ]);
      expect(cycles[0]?.error).toMatch(/^the pass could not start: .*127\.0\.0\.1:1/);
      expect(journal.failedInARow("once")).toBe(2);
    } finally {
      db.close();
    }
    expect(events("/hook-down").map((e) => [e.type, e.data.failures])).toEqual([["cycle.failed", 1]]);
    // The venue back: the pass that works says so.
    writeFileSync(bot.config, up);
    const back = await once();
    expect(back.code, back.err).toBe(0);
    expect(events("/hook-down").map((e) => e.type)).toEqual(["cycle.failed", "cycle.recovered"]);
    expect(events("/hook-down")[1]?.title).toMatch(/after 2 failed$/);
  }, 60_000);

  it("hlbot once (cron) tells cycle.failed when its strategy is held (a clock 3 h ahead), then the recovery; history says FAILED", async () => {
    const bot = botFile("once-held", { minIntervalMs: 0, webhook: { url: `${receiver.url}/hook-held` } });
    const proxy = await startRewritingProxy(sim!.url);
    try {
      writeFileSync(
        join(bot.config, "..", "strategies", "rebalance.yaml"),
        stringify({ ...REBALANCE, schedule: "*/2 * * * * *" }),
      );
      writeFileSync(bot.config, readFileSync(bot.config, "utf8").replace(sim!.url, proxy.url));
      sim!.fund(bot.address, "HYPE", "1000");
      sim!.fund(bot.address, "USDC", "5000");
      // The venue's Date 3 hours behind: the local clock reads as 3 h ahead of it.
      proxy.rewriteDate(() => new Date(Date.now() - 3 * 3_600_000).toUTCString());
      const once = () => runOnce(bot);
      expect((await once()).code).toBe(0); // first sight: the slots start now
      await new Promise((r) => setTimeout(r, 2100));
      const held = await once();
      expect(held.code, held.err).toBe(1);
      expect(events("/hook-held").map((e) => [e.type, e.data.failures])).toEqual([["cycle.failed", 1]]);
      expect(events("/hook-held")[0]?.text).toMatch(/rebalance: holding: the local clock is about 3 h ahead/);
      await new Promise((r) => setTimeout(r, 2100));
      expect((await once()).code).toBe(1);
      // Told at the first failure in a row (and every tenth), not at each pass.
      expect(events("/hook-held").map((e) => [e.type, e.data.failures])).toEqual([["cycle.failed", 1]]);
      const history = spawnSync(process.execPath, [BIN, "history", "--config", bot.config], {
        env: bot.env,
        encoding: "utf8",
      });
      expect(history.stdout).toMatch(/once\/live {2}ok {2}1 decisions \(1 failed\), 0 sent/);
      expect(history.stdout).toMatch(/once {2}FAILED: holding: the local clock/);
      // Corrected: the next pass works and says so.
      proxy.clear();
      await new Promise((r) => setTimeout(r, 2100));
      const back = await once();
      expect(back.code, back.err).toBe(0);
      // The rebalancer trades once working (submission.accepted between them).
      const cycleEvents = events("/hook-held").filter((e) => e.type.startsWith("cycle."));
      expect(cycleEvents.map((e) => e.type)).toEqual(["cycle.failed", "cycle.recovered"]);
      expect(cycleEvents[1]?.title).toMatch(/\(rebalance\) after 2 failed$/);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it("hlbot once (cron) does not tell a held strategy recovered when its slot leaves catchUp with nothing due (a review)", async () => {
    const bot = botFile("once-held-catchup", {
      minIntervalMs: 0,
      webhook: { url: `${receiver.url}/hook-held-cu` },
    });
    const proxy = await startRewritingProxy(sim!.url);
    try {
      writeFileSync(
        join(bot.config, "..", "strategies", "rebalance.yaml"),
        stringify({ ...REBALANCE, schedule: "*/20 * * * * *" }),
      );
      writeFileSync(
        bot.config,
        readFileSync(bot.config, "utf8")
          .replace(sim!.url, proxy.url)
          .replace("allowSeconds: true", "allowSeconds: true\n  catchUp: 6s")
          .concat("venue: { readAttempts: 1, timeoutMs: 2000 }\n"),
      );
      sim!.fund(bot.address, "HYPE", "1000");
      sim!.fund(bot.address, "USDC", "5000");
      proxy.rewriteDate(() => new Date(Date.now() - 3 * 3_600_000).toUTCString());
      const once = () => runOnce(bot);
      expect((await once()).code).toBe(0); // first sight
      // Just after the next slot: held for the clock, a failed run.
      await new Promise((r) => setTimeout(r, 20_000 - (Date.now() % 20_000) + 300));
      const held = await once();
      expect(held.code, held.err).toBe(1);
      // Then a pass the venue does not answer (a review: a failed cycle in the streak made the next pass
      // with nothing due tell "recovered").
      const slot = Math.floor(Date.now() / 20_000) * 20_000;
      proxy.target = "http://127.0.0.1:9";
      expect((await once()).code).toBe(1);
      proxy.target = sim!.url;
      // 8 s after that slot (catchUp 6 s), the next 12 s away: nothing due, the clock still 3 h off.
      await new Promise((r) => setTimeout(r, Math.max(0, slot + 8_000 - Date.now())));
      await once();
      const types = events("/hook-held-cu").map((e) => e.type);
      expect(types).toContain("cycle.failed");
      expect(types).not.toContain("cycle.recovered");
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it("hlbot once (cron) tells a new outage after a recovery, also when a strategy was not due in between (a cron user's trial)", async () => {
    const bot = botFile("once-down-again", {
      minIntervalMs: 0,
      webhook: { url: `${receiver.url}/hook-again` },
    });
    // A second strategy due once a day: not due at the pass that works between the two outages.
    writeFileSync(
      join(bot.config, "..", "strategies", "daily.yaml"),
      stringify({
        name: "daily",
        kind: "twap-accumulate",
        schedule: "0 0 * * *",
        params: { coin: "PURR", quote: "USDC", side: "buy", amountUsd: 100, twap: { minutes: 30 } },
      }),
    );
    writeFileSync(
      join(bot.config, "..", "strategies", "rebalance.yaml"),
      stringify({ ...REBALANCE, schedule: "*/2 * * * * *" }),
    );
    const up = readFileSync(bot.config, "utf8");
    const down = `${up.replace(sim!.url, "http://127.0.0.1:1")}venue: { readAttempts: 1, timeoutMs: 2000 }\n`;
    const once = () => runOnce(bot);
    const first = await once();
    expect(first.code, first.err).toBe(0); // first sight
    writeFileSync(bot.config, down);
    expect((await once()).code).toBe(1);
    expect((await once()).code).toBe(1);
    writeFileSync(bot.config, up);
    await new Promise((r) => setTimeout(r, 2100)); // the rebalancer's next slot: it runs, "daily" does not
    const back = await once();
    expect(back.code, back.err).toBe(0);
    writeFileSync(bot.config, down);
    expect((await once()).code).toBe(1);
    const types = events("/hook-again")
      .map((e) => e.type)
      .filter((t) => t.startsWith("cycle."));
    expect(types).toEqual(["cycle.failed", "cycle.recovered", "cycle.failed"]);
  }, 60_000);

  it("hlbot notify test says what each channel answered and exits 1 when one failed", async () => {
    const bot = botFile("test", {
      webhook: { url: `${receiver.url}/hook-test` },
      telegram: { botTokenEnv: "TG_TOKEN", chatId: 42, apiUrl: receiver.url },
      discord: { webhookUrlEnv: "DISCORD_URL" },
    });
    const env = { ...bot.env, DISCORD_URL: `${receiver.url}/refused` };
    // Not spawnSync: the stand-in servers live in this process and must keep answering.
    const proc = spawn(process.execPath, [BIN, "notify", "test", "--config", bot.config], { env });
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    proc.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    const status = await new Promise<number | null>((resolve) => proc.on("close", resolve));
    const r = { stdout, stderr, status };
    expect(r.stdout).toContain("ok webhook: delivered (HTTP 200)");
    expect(r.stdout).toContain("ok telegram: delivered (HTTP 200)");
    expect(r.stdout).toContain("FAILED discord: HTTP 401");
    expect(r.status).toBe(1);
    expect(events("/hook-test")).toEqual([expect.objectContaining({ type: "test" })]);
    expect(r.stdout + r.stderr).not.toContain("telegram-secret");
  });
});
