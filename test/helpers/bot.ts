// A bot wired to an embedded simulator for engine tests: writes a real bot config and strategy files
// to a temp folder, loads them through the real loader, and opens a runtime on the simulator's
// virtual clock. Everything goes over HTTP on 127.0.0.1, like production.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Wallet } from "ethers";
import { stringify } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { openRuntime, type Runtime } from "../../src/engine/runtime.js";
import { silentLogger } from "../../src/lib/log.js";
import { type Simulator, startSimulator, type VenueOptions } from "../../src/simulator/index.js";

export interface TestBot {
  sim: Simulator & { url: string };
  runtime: Runtime;
  dir: string;
  address: string;
  key: string;
  /** How far the bot's clock is ahead of the venue's (negative: behind); may be changed at any time. */
  clockOffsetMs: number;
  reopen(mode?: "live" | "dry-run" | "unsigned"): Promise<Runtime>;
  close(): Promise<void>;
}

export interface TestBotOptions {
  strategies: Array<Record<string, unknown>>;
  limits?: Record<string, unknown>;
  mode?: "live" | "dry-run" | "unsigned";
  sim?: VenueOptions;
  /** Funds the fresh account before the runtime opens: coin → amount. */
  fund?: Record<string, string>;
  configExtra?: Record<string, unknown>;
  /** Prepares the venue (e.g. approves the bot's key as an API wallet) before the runtime opens. */
  beforeOpen?: (sim: Simulator, address: string) => void;
  /** The bot's clock runs this far ahead of the simulator's (default 0). */
  clockOffsetMs?: number;
  /** The runtime's logger (default: silent). */
  logger?: import("pino").Logger;
}

export async function startTestBot(o: TestBotOptions): Promise<TestBot> {
  const wallet = Wallet.createRandom();
  const key = wallet.privateKey;
  const address = wallet.address.toLowerCase();
  const sim = await startSimulator({ rateLimit: false, ...o.sim });
  for (const [coin, amount] of Object.entries(o.fund ?? {})) sim.fund(address, coin, amount);
  o.beforeOpen?.(sim, address);
  const dir = mkdtempSync(join(tmpdir(), "hlbot-bot-"));
  const strategyFiles = o.strategies.map((s, i) => {
    const file = join(dir, `strategy-${i}.yaml`);
    writeFileSync(file, stringify({ schedule: "*/5 * * * *", enabled: true, ...s }));
    return file;
  });
  const configFile = join(dir, "bot.yaml");
  writeFileSync(
    configFile,
    stringify({
      network: "testnet",
      baseUrl: sim.url,
      mode: o.mode === "live" ? "live" : "dry-run",
      ...(o.mode === "unsigned" ? { account: address } : {}),
      wallet: { privateKeyEnv: "TEST_BOT_KEY" },
      strategies: strategyFiles,
      state: "./state",
      limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 100000, ...o.limits },
      log: { level: "silent" },
      ...o.configExtra,
    }),
  );
  const env = { TEST_BOT_KEY: key };
  let clockOffsetMs = o.clockOffsetMs ?? 0;
  const config = await loadConfig(configFile, env);
  const open = (mode: "live" | "dry-run" | "unsigned") =>
    openRuntime({
      config,
      env,
      mode,
      logger: o.logger ?? silentLogger(),
      clock: () => sim.now() + clockOffsetMs,
      budget: null,
      resend: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, rateLimitDelayMs: 1 },
    });
  let runtime = await open(o.mode ?? "dry-run");
  const bot: TestBot = {
    sim,
    get runtime() {
      return runtime;
    },
    dir,
    address,
    key,
    get clockOffsetMs() {
      return clockOffsetMs;
    },
    set clockOffsetMs(ms: number) {
      clockOffsetMs = ms;
    },
    async reopen(mode = o.mode ?? "dry-run") {
      await runtime.close();
      runtime = await open(mode);
      return runtime;
    },
    async close() {
      await runtime.close();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bot;
}

/** A 50/50 HYPE/USDC rebalance with plain (not randomized) 60-minute TWAPs: the engine tests' workhorse. */
export const REBALANCE = {
  name: "rebalance",
  kind: "twap-rebalance",
  params: {
    targets: { HYPE: 0.5, USDC: 0.5 },
    quote: "USDC",
    band: 0.05,
    twap: { minutes: 60, randomize: false },
    minOrderUsd: 10,
  },
};

/** Low Fee Node in the demo scenario: the validator the staking tests jail. */
export const JAILED_VALIDATOR = "0x000000000056f99d36b6f2e0c51fd41496bbacb8";

/**
 * Stakes `amount` of the bot's spot HYPE with JAILED_VALIDATOR (deposit, delegate; both must be
 * accepted), jails it, and moves the venue past the 1-day delegation lock.
 */
export async function stakeWithJailedValidator(bot: TestBot, amount = "1000"): Promise<void> {
  const ex = bot.runtime.exchange!;
  const deposited = await ex.cDeposit({ amount });
  const delegated = await ex.tokenDelegate({ validator: JAILED_VALIDATOR, amount, isUndelegate: false });
  if (deposited.status !== "accepted" || delegated.status !== "accepted")
    throw new Error(`staking with the validator was not accepted: ${deposited.status}, ${delegated.status}`);
  bot.sim.setValidator(JAILED_VALIDATOR, { isJailed: true });
  bot.sim.advance(25 * 60 * 60_000);
}
