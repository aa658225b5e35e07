// A cron user's rig (`hlbot once` every N minutes): the real CLI `once` in-process, Date faked to the
// simulator's virtual clock, the venue over HTTP on 127.0.0.1, a webhook receiver on 127.0.0.1, the
// shipped strategies in a temp folder, mode live.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Wallet } from "ethers";
import { vi } from "vitest";
import { stringify } from "yaml";
import { type Simulator, startSimulator, type VenueOptions } from "../../src/simulator/index.js";
import { runCli } from "./cli.js";
import { startHttpServer, type TestHttpServer } from "./httpServer.js";

export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

export interface Rig {
  sim: Simulator & { url: string };
  receiver: TestHttpServer;
  dir: string;
  config: string;
  address: string;
  env: Record<string, string>;
  start: number;
  once(at: number, extra?: string[]): Promise<OnceResult>;
  cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  subs(): Array<Record<string, unknown>>;
  twapsPlaced(): Array<{ time: number; data: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** A notification as the webhook received it. */
export interface Hook {
  type: string;
  title: string;
  text: string;
  [key: string]: unknown;
}

export interface OnceResult {
  code: number;
  /** The --json action lines. */
  actions: Array<Record<string, unknown>>;
  /** The --json summary line. */
  summary: { summary: { watch: { checked: number; cancelled: number }; [key: string]: unknown } };
  stderr: string;
  hooks: Hook[];
}

export async function rig(o: {
  strategies?: Record<string, Record<string, unknown>>; // file name -> content (replaces shipped)
  fund?: Record<string, string>;
  configExtra?: Record<string, unknown>;
  sim?: VenueOptions;
  keepShipped?: boolean;
  /** The bot's key (default: a random one, the account itself). */
  privateKey?: string;
}): Promise<Rig> {
  const wallet = o.privateKey === undefined ? Wallet.createRandom() : new Wallet(o.privateKey);
  const address = wallet.address.toLowerCase();
  const sim = (await startSimulator({ rateLimit: false, ...o.sim })) as Simulator & { url: string };
  const receiver = await startHttpServer(() => ({ json: { ok: true } }));
  for (const [c, a] of Object.entries(o.fund ?? { USDC: "20000", HYPE: "1000" })) sim.fund(address, c, a);
  const dir = mkdtempSync(join(tmpdir(), "cron4-"));
  if (o.keepShipped !== false) cpSync("strategies", join(dir, "strategies"), { recursive: true });
  else mkdirSync(join(dir, "strategies"));
  for (const [f, s] of Object.entries(o.strategies ?? {}))
    writeFileSync(join(dir, "strategies", f), stringify(s));
  const config = join(dir, "bot.yaml");
  writeFileSync(
    config,
    stringify({
      network: "testnet",
      baseUrl: sim.url,
      mode: "live",
      wallet: { privateKeyEnv: "HLBOT_PRIVATE_KEY" },
      strategies: "./strategies",
      state: "./state",
      limits: { maxOrderUsd: 5000, maxDailyNotionalUsd: 20000, maxStakeMovePerDay: 10000 },
      venue: { timeoutMs: 2000 },
      log: { level: "warn", format: "json" },
      notify: { minIntervalMs: 0, webhook: { url: `${receiver.url}/hook` } },
      ...o.configExtra,
    }),
  );
  const env = { HLBOT_PRIVATE_KEY: wallet.privateKey };
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(sim.now());
  const start = sim.now();
  const cli = (argv: string[]) => runCli([...argv, "--config", config], { env });
  return {
    sim,
    receiver,
    dir,
    config,
    address,
    env,
    start,
    cli,
    async once(at: number, extra: string[] = []) {
      sim.advanceTo(at);
      vi.setSystemTime(at);
      const before = receiver.requests.length;
      const r = await cli(["once", "--json", ...extra]);
      const hooks = receiver.requests.slice(before).map((q) => q.json as Hook);
      const lines = r.stdout.trim().split("\n").filter(Boolean);
      return {
        code: r.code,
        actions: lines.slice(0, -1).map((l) => JSON.parse(l) as Record<string, unknown>),
        summary: JSON.parse(lines.at(-1) ?? "null") as OnceResult["summary"],
        stderr: r.stderr,
        hooks,
      };
    },
    subs() {
      const db = new Database(join(dir, "state", "hlbot.db"), { readonly: true });
      try {
        return db.prepare("select * from submissions order by id").all() as Array<Record<string, unknown>>;
      } finally {
        db.close();
      }
    },
    twapsPlaced() {
      return sim.ledger().filter((e) => e.user === address && e.kind === "twapPlaced") as never;
    },
    async close() {
      vi.useRealTimers();
      await receiver.close();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
