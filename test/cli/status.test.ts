// `hlbot status` and `hlbot tx` in-process (main(argv, io)) against the embedded simulator on 127.0.0.1.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { parseJson } from "../../src/lib/json.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";

function io(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void err.push(t),
      env,
      isTTY: false,
    },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

describe("status and tx", () => {
  let bot: TestBot;
  let config: string;
  let dir: string;

  beforeAll(async () => {
    bot = await startTestBot({
      mode: "live",
      strategies: [
        {
          name: "idle",
          kind: "link-staking",
          enabled: false,
          params: { counterparty: "0x3333333333333333333333333333333333333333", finalize: false },
        },
      ],
      fund: { HYPE: "1000", USDC: "5000" },
    });
    bot.sim.setPrice("@107", "40");
    const ex = bot.runtime.exchange!;
    expect((await ex.cDeposit({ amount: "100" })).status).toBe("accepted");
    expect(
      (
        await ex.tokenDelegate({
          validator: "0xb8f45222a3246a2b0104696a1df26842007c5bc5",
          amount: "60",
          isUndelegate: false,
        })
      ).status,
    ).toBe("accepted");
    expect(
      (
        await ex.twapOrder({
          asset: 10107,
          isBuy: false,
          size: "10",
          szDecimals: 2,
          minutes: 5,
          randomize: false,
        })
      ).status,
    ).toBe("accepted");
    bot.sim.advance(2 * 60_000);
    dir = mkdtempSync(join(tmpdir(), "hlbot-status-"));
    config = join(dir, "bot.yaml");
    writeFileSync(
      config,
      stringify({
        network: "testnet",
        baseUrl: bot.sim.url,
        account: bot.address,
        strategies: [join(bot.dir, "strategy-0.yaml")],
        limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      }),
    );
  });

  afterAll(async () => {
    await bot.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows balances with USD values, staking, delegations with names and locks, and the running TWAP", async () => {
    const human = io();
    expect(await main(["status", "--config", config], human.io)).toBe(0);
    const text = human.stdout();
    expect(text).toContain(`Account ${bot.address} on testnet`);
    expect(text).toMatch(/HYPE\s+\d+(\.\d+)? \(on hold [\d.]+\)/);
    expect(text).toContain("ValiDAO (0xb8f45222a3246a2b0104696a1df26842007c5bc5): 60");
    expect(text).toMatch(/Running TWAPs:\s*\n\s+#\d+ sell 10/);

    const json = io();
    expect(await main(["status", "--config", config, "--json"], json.io)).toBe(0);
    const status = parseJson(json.stdout()) as {
      staking: { delegated: string; undelegated: string };
      twaps: Array<{ side: string; size: string; executed: string; progress: string }>;
      delegations: Array<{ name: string; lockedUntil: number }>;
      balances: Array<{ coin: string; usd: string | null }>;
    };
    expect(Number(status.staking.delegated)).toBe(60);
    expect(Number(status.staking.undelegated)).toBe(40);
    expect(status.twaps.map((t) => [t.side, Number(t.size)])).toEqual([["sell", 10]]);
    // Two minutes into a 5-minute TWAP some slices have filled: progress comes from the slice fills.
    const sold = bot.sim.ledger().filter((e) => e.kind === "twapSlice").length;
    expect(sold).toBeGreaterThan(0);
    expect(Number(status.twaps[0]?.executed)).toBeGreaterThan(0);
    expect(Number(status.twaps[0]?.progress)).toBeGreaterThan(0);
    expect(status.delegations[0]?.name).toBe("ValiDAO");
    expect(status.delegations[0]?.lockedUntil).toBe(bot.sim.now() - 2 * 60_000 + 86_400_000);
    expect(status.balances.find((b) => b.coin === "USDC")?.usd).not.toBeNull();
  });

  it("looks up a transaction the venue processed, and rejects a malformed hash before any request", async () => {
    const hash = bot.sim.ledger().find((e) => e.kind === "cDeposit" && e.hash)?.hash;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    const ok = io();
    expect(await main(["tx", hash!, "--base-url", bot.sim.url], ok.io)).toBe(0);
    expect(ok.stdout()).toContain('"type": "cDeposit"');

    const bad = io();
    expect(await main(["tx", "0x1234", "--base-url", "http://127.0.0.1:9"], bad.io)).toBe(2);
    expect(bad.stderr()).toMatch(/hash: expected 0x followed by 64 hex digits/);
  });
});
