// One schedule for every run mode (issue #12 cases 1 and 5): the same configuration on the same
// simulated venue makes exactly the same decisions at the same virtual times whether it runs under the
// daemon (`run`, node-cron on sinon fake timers), under `simulate`, or as `once` called every 15 minutes
// by cron. Demo configuration and scenario: every schedule falls on a quarter hour.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sinon from "sinon";
import { afterEach, describe, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { Daemon, scheduledStrategies } from "../../src/engine/daemon.js";
import { openRuntime, type Runtime } from "../../src/engine/runtime.js";
import { oncePass } from "../../src/engine/scheduler.js";
import { silentLogger } from "../../src/lib/log.js";
import { adoptDemoAccount, demoSigner } from "../../src/simulate/demoAccount.js";
import { runSimulation } from "../../src/simulate/runner.js";
import {
  DEMO_SCENARIO_PATH,
  loadScenarioFile,
  type Simulator,
  startSimulator,
} from "../../src/simulator/index.js";
import { REPO_ROOT } from "../helpers/build.js";

const MINUTE = 60_000;
const STEP = 15 * MINUTE;
const DAY = 24 * 60 * MINUTE;

interface DemoBot {
  sim: Simulator;
  runtime: Runtime;
  from: number;
  close(): Promise<void>;
}

const open: DemoBot[] = [];
let clock: sinon.SinonFakeTimers | undefined;
afterEach(async () => {
  clock?.restore();
  clock = undefined;
  for (const b of open.splice(0)) await b.close();
});

/** The demo account on the demo scenario, as `simulate` sets it up, with a state folder of its own. */
async function demoBot(config: LoadedConfig): Promise<DemoBot> {
  const scenario = loadScenarioFile(DEMO_SCENARIO_PATH);
  const seed = scenario.seed;
  const from = scenario.settings.startTime ?? Date.UTC(2025, 0, 1);
  const signer = demoSigner(seed);
  adoptDemoAccount(scenario, signer.address);
  const sim = await startSimulator({
    scenario,
    seed,
    network: config.network,
    clock: "virtual",
    startTime: from,
  });
  const state = mkdtempSync(join(tmpdir(), "hlbot-equivalence-"));
  const runtime = await openRuntime({
    config: {
      ...config,
      account: undefined,
      state,
      // The kill switch lives in the bot's own (temporary) state folder, as the loader would put it.
      limits: { ...config.limits, killSwitchFile: join(state, "STOP") },
    },
    env: {},
    mode: "live",
    logger: silentLogger(),
    clock: () => sim.now(),
    signer,
    budget: null,
    baseUrl: sim.url,
  });
  // As simulate does: the bot was started just before `from`, so a slot at `from` is due.
  for (const s of config.strategies) runtime.journal.slotState(runtime.account, s.name, from - 1);
  const bot = {
    sim,
    runtime,
    from,
    async close() {
      await runtime.close();
      await sim.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
  open.push(bot);
  return bot;
}

/** Every decision journaled, in order: when, whose, what, the guard and the reason. */
function journaled(runtime: Runtime): string[] {
  return runtime.journal
    .recentDecisions(100_000)
    .reverse()
    .map(
      (d) =>
        `${new Date(d.at).toISOString()} ${d.strategy} ${d.kind} ${d.guard} ${d.guardReason ?? d.reason}`,
    );
}

async function underDaemon(config: LoadedConfig, days: number): Promise<string[]> {
  const bot = await demoBot(config);
  clock = sinon.useFakeTimers({
    now: bot.sim.now(),
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
  });
  const daemon = new Daemon({
    runtime: bot.runtime,
    strategies: scheduledStrategies(config.strategies),
    logger: silentLogger(),
  });
  daemon.start();
  await daemon.idle();
  for (let t = STEP; t < days * DAY; t += STEP) {
    bot.sim.advance(STEP);
    await clock.tickAsync(STEP);
    await daemon.idle();
  }
  const stopping = daemon.stop(0);
  await clock.tickAsync(10_000);
  await stopping;
  clock.restore();
  clock = undefined;
  return journaled(bot.runtime);
}

describe("run, once and simulate decide alike", () => {
  it("the daemon (virtual time) and simulate journal the same decisions over a day", {
    timeout: 300_000,
  }, async () => {
    const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    const daemon = await underDaemon(config, 1);
    const { record } = await runSimulation({ config, days: 1 });
    const simulated = record.cycles.flatMap((c) =>
      c.decisions.map(
        (d) => `${new Date(c.at).toISOString()} ${d.strategy} ${d.kind} ${d.guard} ${d.reason}`,
      ),
    );
    expect(daemon.length).toBeGreaterThan(10);
    expect(simulated).toEqual(daemon);
  });

  it("once every 15 minutes for 3 days makes exactly the decisions run makes", {
    timeout: 600_000,
  }, async () => {
    const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    const daemon = await underDaemon(config, 3);
    const bot = await demoBot(config);
    const strategies = scheduledStrategies(config.strategies);
    const deps = bot.runtime.cycleDeps(await bot.runtime.facts());
    for (let t = 0; t < 3 * DAY; t += STEP) {
      if (t > 0) bot.sim.advance(STEP);
      await oncePass(deps, strategies);
    }
    const once = journaled(bot.runtime);
    expect(once.length).toBeGreaterThan(30);
    expect(once).toEqual(daemon);
  });
});
