// A bot configured for the benchmarks: a real bot YAML and strategy files in a temp folder, loaded
// through the real config loader, and a runtime opened on a simulator's clock with the client-side
// weight budget off (time is virtual there). The key travels in the environment map, never in a file.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { openRuntime, type Runtime } from "../../src/engine/runtime.js";
import { silentLogger } from "../../src/lib/log.js";

const KEY_ENV = "HLBOT_BENCH_KEY";

export interface BenchBot {
  dir: string;
  config: LoadedConfig;
  env: Record<string, string>;
  open(mode: "live" | "dry-run" | "unsigned", clock: () => number): Promise<Runtime>;
  cleanup(): void;
}

export interface BenchBotOptions {
  baseUrl: string;
  key: string;
  account?: string;
  strategies: Array<Record<string, unknown>>;
  limits?: Record<string, unknown>;
  /** Where the state folder goes (default: inside the temp folder). */
  stateDir?: string;
}

export async function createBenchBot(o: BenchBotOptions): Promise<BenchBot> {
  const dir = mkdtempSync(join(tmpdir(), "hlbot-bench-bot-"));
  const files = o.strategies.map((s, i) => {
    const file = join(dir, `strategy-${i}.yaml`);
    writeFileSync(file, stringify({ schedule: "*/5 * * * *", enabled: true, ...s }));
    return file;
  });
  const configFile = join(dir, "bot.yaml");
  writeFileSync(
    configFile,
    stringify({
      network: "testnet",
      baseUrl: o.baseUrl,
      mode: "dry-run",
      ...(o.account ? { account: o.account } : {}),
      wallet: { privateKeyEnv: KEY_ENV },
      strategies: files,
      state: o.stateDir ?? "./state",
      limits: {
        maxOrderUsd: 5000,
        maxDailyNotionalUsd: 1_000_000,
        maxStakeMovePerDay: 1_000_000,
        ...o.limits,
      },
      log: { level: "silent" },
    }),
  );
  const env = { [KEY_ENV]: o.key };
  const config = await loadConfig(configFile, env);
  return {
    dir,
    config,
    env,
    open: (mode, clock) => openRuntime({ config, env, mode, logger: silentLogger(), clock, budget: null }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The four strategy kinds, configured to act on the large scenario every cycle. */
export function largeStrategies(counterparty: string): Array<Record<string, unknown>> {
  return [
    {
      name: "rebalance",
      kind: "twap-rebalance",
      params: {
        targets: { USDC: 0.4, HYPE: 0.3, TK012: 0.1, TK013: 0.1, TK014: 0.1 },
        quote: "USDC",
        band: 0.05,
        twap: { minutes: 60, randomize: false },
        minOrderUsd: 100,
      },
    },
    {
      name: "accumulate",
      kind: "twap-accumulate",
      params: { coin: "TK020", quote: "USDC", side: "buy", amountUsd: 500, twap: { minutes: 30 } },
    },
    {
      name: "staking",
      kind: "validator-staking",
      params: {
        validators: 20,
        rankBy: "predictedApr",
        statsPeriod: "week",
        maxCommission: 0.05,
        minUptime: { period: "week", fraction: 0.96 },
        allocation: "equal",
        rebalanceThreshold: 0.1,
        maxMovePerRun: 5000,
      },
    },
    { name: "link", kind: "link-staking", params: { counterparty, finalize: false } },
  ];
}
