// An operator's trial: the state database locked by another process (an operator's sqlite3 session in a
// transaction, a backup tool) for minutes. Every tick's scheduling failed with SQLITE_BUSY ("scheduling
// failed: database is locked" in the log), nothing ran, and /health stayed 200.
import type sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { BotMetrics, type MetricsServer } from "../../src/engine/metrics.js";
import type { Runtime } from "../../src/engine/runtime.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { get, settle, startMetricsDaemon } from "../helpers/metrics.js";

let bot: TestBot | undefined;
let runtime: Runtime | undefined;
let server: MetricsServer | undefined;
let clock: sinon.SinonFakeTimers | undefined;

afterEach(async () => {
  clock?.restore();
  await server?.close();
  await runtime?.close();
  await bot?.close();
  bot = runtime = server = clock = undefined;
});

describe("a locked journal", () => {
  it("turns /health unhealthy after several ticks in which nothing could run, and healthy again once it can", async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "dca",
          kind: "twap-accumulate",
          schedule: "* * * * *",
          params: { coin: "HYPE", side: "buy", amountUsd: 200, twap: { minutes: 30, randomize: false } },
        },
      ],
      fund: { USDC: "5000" },
      configExtra: { venue: { timeoutMs: 600_000, readAttempts: 2 } },
    });
    const metrics = new BotMetrics();
    const started = await startMetricsDaemon(bot, metrics);
    ({ runtime, clock, server } = started);
    const { ticks, daemon } = started;
    daemon.start();
    await settle(daemon, clock);
    const busy = () => {
      throw Object.assign(new Error("database is locked"), { name: "SqliteError", code: "SQLITE_BUSY" });
    };
    runtime.journal.slotStates = busy;
    runtime.journal.slotState = busy;
    for (let i = 0; i < 10; i++) {
      bot.sim.advance(60_000);
      ticks.get("dca")!(new Date(bot.sim.now()));
      await settle(daemon, clock);
    }
    expect(bot.sim.ledger({ kind: "twapPlaced", user: bot.address })).toHaveLength(0);
    const health = await get(server.port, "/health");
    expect(health.status).toBe(503);
    expect(health.body).toMatch(/cycles in a row failed; the last: scheduling failed: database is locked/);
    // Released: the next tick schedules and runs, and health is back.
    delete (runtime.journal as { slotStates?: unknown }).slotStates;
    delete (runtime.journal as { slotState?: unknown }).slotState;
    bot.sim.advance(60_000);
    ticks.get("dca")!(new Date(bot.sim.now()));
    await settle(daemon, clock);
    expect((await get(server.port, "/health")).status).toBe(200);
  });
});
