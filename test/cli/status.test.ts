// `hlbot status` and `hlbot tx` in-process (main(argv, io)) against the embedded simulator on 127.0.0.1.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/cli/main.js";
import { parseJson } from "../../src/lib/json.js";
import { startTestBot, type TestBot } from "../helpers/bot.js";
import { startVenueProxy, type VenueProxy } from "../helpers/venueProxy.js";
import { subAccount } from "../venue/info/fixtures.js";

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
  let proxied: string;
  let proxy: VenueProxy;
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
      // A venue that holds what a running TWAP may still take: status shows the venue's hold.
      sim: { settings: { twapHolds: true } },
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
    // The same account behind a proxy that makes the venue answer what the real one sends.
    proxy = await startVenueProxy(bot.sim.url);
    proxied = join(dir, "proxied.yaml");
    writeFileSync(
      proxied,
      stringify({
        network: "testnet",
        baseUrl: proxy.url,
        account: bot.address,
        strategies: [join(bot.dir, "strategy-0.yaml")],
        limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
      }),
    );
  });

  afterAll(async () => {
    await proxy?.close();
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
    // The pair by its tokens, the venue's name beside it (a user's trial saw only "@107").
    expect(text).toMatch(/Running TWAPs:\s*\n\s+#\d+ sell 10(\.0)? HYPE\/USDC \(@107\) over 5 min/);

    const json = io();
    expect(await main(["status", "--config", config, "--json"], json.io)).toBe(0);
    const status = parseJson(json.stdout()) as {
      staking: { delegated: string; undelegated: string; usd: string };
      twaps: Array<{
        side: string;
        size: string;
        executed: string;
        progress: string;
        coin: string;
        pair: string;
      }>;
      delegations: Array<{ name: string; lockedUntil: number }>;
      balances: Array<{ coin: string; total: string; usd: string | null }>;
      totalUsd: string;
      valueUsd: string;
    };
    expect(Number(status.staking.delegated)).toBe(60);
    expect(Number(status.staking.undelegated)).toBe(40);
    expect(status.twaps.map((t) => [t.side, Number(t.size), t.coin, t.pair])).toEqual([
      ["sell", 10, "@107", "HYPE/USDC"],
    ]);
    // Two minutes into a 5-minute TWAP some slices have filled: progress comes from the slice fills.
    const sold = bot.sim.ledger().filter((e) => e.kind === "twapSlice").length;
    expect(sold).toBeGreaterThan(0);
    expect(Number(status.twaps[0]?.executed)).toBeGreaterThan(0);
    expect(Number(status.twaps[0]?.progress)).toBeGreaterThan(0);
    expect(status.delegations[0]?.name).toBe("ValiDAO");
    expect(status.delegations[0]?.lockedUntil).toBe(bot.sim.now() - 2 * 60_000 + 86_400_000);
    expect(status.balances.find((b) => b.coin === "USDC")?.usd).not.toBeNull();
    // One valuation (src/engine/valuation.ts): the account's value is the spot plus the 100 HYPE in
    // staking at the HYPE price its spot balance is valued at, as the metrics value it.
    const hype = status.balances.find((b) => b.coin === "HYPE")!;
    const hypeUsd = Number(hype.usd) / Number(hype.total);
    expect(Number(status.staking.usd)).toBeCloseTo(100 * hypeUsd, 0);
    expect(Number(status.valueUsd)).toBeCloseTo(Number(status.totalUsd) + Number(status.staking.usd), 2);
    expect(text).toMatch(/Account value: [\d.]+ USD \(spot [\d.]+ USD, staking 100 HYPE [\d.]+ USD\)/);
    // The delegations under their own heading, not read as a breakdown of the account's value.
    expect(text).toMatch(/Account value: [^\n]+\nDelegations:\n {2}ValiDAO \(0xb8f4/);
  });

  it("says the staking link the way round a person reads it", async () => {
    const staking = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    const linked = await startTestBot({
      mode: "live",
      strategies: [{ name: "idle", kind: "link-staking", enabled: false, params: { counterparty: staking } }],
      fund: { USDC: "10" },
    });
    try {
      const ex = linked.runtime.exchange!;
      expect((await ex.linkStakingUser({ user: staking, isFinalize: false })).status).toBe("accepted");
      const file = join(dir, "linked.yaml");
      writeFileSync(
        file,
        stringify({
          network: "testnet",
          baseUrl: linked.sim.url,
          account: linked.address,
          strategies: [join(linked.dir, "strategy-0.yaml")],
          limits: { maxOrderUsd: 1, maxDailyNotionalUsd: 1, maxStakeMovePerDay: 1 },
        }),
      );
      const human = io();
      expect(await main(["status", "--config", file], human.io), human.stderr()).toBe(0);
      expect(human.stdout()).toContain(
        `Staking link: requested to staking account ${staking}, not finalized yet`,
      );
    } finally {
      await linked.close();
    }
  });

  it("takes a TWAP's latest record as the engine does, whatever order the venue lists records of one second in", async () => {
    // A consistency trial: with the newest listed first, a TWAP cancelled in the second it started showed
    // as running for its whole length (status kept the later-listed record of equal time).
    proxy.setRewrites({
      twapHistory: (answer) => {
        const running = (answer as Array<{ status: { status: string }; twapId?: number }>).filter(
          (e) => e.status.status === "activated",
        );
        return running.flatMap((e) => [{ ...e, status: { status: "terminated" } }, e]);
      },
    });
    const human = io();
    expect(await main(["status", "--config", proxied, "--json"], human.io), human.stderr()).toBe(0);
    expect((JSON.parse(human.stdout()) as { twaps: unknown[] }).twaps).toEqual([]);
  });

  it("says a running TWAP's progress is not available when its slice fills cannot be read, not 0 done", async () => {
    // An operator of several bots (rate-limited): "0 done (0.0%)" for a TWAP 3.2% done, beside a warning
    // that progress was not shown.
    const placed = await bot.runtime.exchange!.twapOrder({
      asset: 10107,
      isBuy: false,
      size: "5",
      szDecimals: 2,
      minutes: 30,
      randomize: false,
    });
    expect(placed.status).toBe("accepted");
    const id = placed.status === "accepted" ? (placed.data as { twapId: number }).twapId : -1;
    proxy.setRewrites({ userTwapSliceFills: () => ({ broken: true }) });
    const json = io();
    expect(await main(["status", "--config", proxied, "--json"], json.io)).toBe(0);
    const twap = (
      JSON.parse(json.stdout()) as { twaps: Array<{ twapId: number; executed: unknown; progress: unknown }> }
    ).twaps.find((t) => t.twapId === id);
    expect(twap).toMatchObject({ executed: null, progress: null });
    const human = io();
    expect(await main(["status", "--config", proxied], human.io)).toBe(0);
    expect(human.stdout()).toMatch(
      new RegExp(
        `#${id} sell 5\\.0 .* over 30 min: progress not available \\(userTwapSliceFills could not be read\\)`,
      ),
    );
    proxy.setRewrites({});
    // Gone again: the other cases see the account as it was.
    expect((await bot.runtime.exchange!.twapCancel({ asset: 10107, twapId: id })).status).toBe("accepted");
  });

  it("names the trading account of a finalized link in either field the venue may carry it in", async () => {
    // nktkas/hyperliquid's naming (`stakingUser` holds the trading account when queried as the staking
    // account) and the recorded sample's (`tradingUser`): an audit read "linked to trading account ?".
    const trading = "0x11af0000000000000000000000000000000a5728";
    for (const link of [
      { type: "stakingUser", stakingUser: trading },
      { type: "stakingUser", tradingUser: trading },
    ]) {
      proxy.setRewrites({ userFees: (a) => ({ ...(a as object), stakingLink: link }) });
      const human = io();
      expect(await main(["status", "--config", proxied], human.io), human.stderr()).toBe(0);
      expect(human.stdout()).toContain(
        `Staking link: this staking account is linked to trading account ${trading}`,
      );
    }
  });

  it("shows a sub-account in dexAbstraction mode and unknown variants as sent, warning once each (issue #11)", async () => {
    const dex = { ...subAccount(), name: "legacy", master: bot.address, abstraction: "dexAbstraction" };
    const future = { ...subAccount(), name: "future", master: bot.address, abstraction: "someFutureMode" };
    proxy.setRewrites({
      subAccounts2: () => [dex, future],
      referral: (a) => ({ ...(a as object), referrerState: { stage: "suspended", data: { until: 1 } } }),
      userFees: (a) => ({
        ...(a as object),
        stakingLink: { type: "pendingLink", stakingUser: dex.subAccountUser },
      }),
    });
    const human = io();
    expect(await main(["status", "--config", proxied], human.io)).toBe(0);
    expect(human.stdout()).toContain(`legacy (${dex.subAccountUser}, dexAbstraction)`);
    expect(human.stdout()).toContain(`future (${future.subAccountUser}, someFutureMode)`);
    expect(human.stdout()).toContain("referrer stage suspended");
    expect(human.stdout()).toContain(`Staking link: pendingLink ${dex.subAccountUser}`);
    expect(human.stdout()).not.toContain("not available");
    // One warning per unknown value; "dexAbstraction" is a known mode, not a warning.
    const warnings = human
      .stderr()
      .split("\n")
      .filter((l) => l.includes("unknown"));
    expect(warnings).toHaveLength(3);
    expect(human.stderr()).toMatch(/subAccounts2 with an unknown \[\]\.abstraction value "someFutureMode"/);
    expect(human.stderr()).toMatch(/referral with an unknown referrerState\.stage value "suspended"/);
    expect(human.stderr()).toMatch(/userFees with an unknown stakingLink\.type value "pendingLink"/);
  });

  it("shows every section it could read and names the one it could not, in text and JSON (exit 0)", async () => {
    proxy.setRewrites({ isVip: () => "yes", referral: (a) => ({ ...(a as object), unclaimedRewards: 11 }) });
    const human = io();
    expect(await main(["status", "--config", proxied], human.io)).toBe(0);
    const text = human.stdout();
    expect(text).toMatch(/Running TWAPs:\s*\n\s+#\d+ sell 10/);
    expect(text).toContain("ValiDAO (0xb8f45222a3246a2b0104696a1df26842007c5bc5): 60");
    expect(text).toContain("VIP: not available (isVip failed)");
    // Rates in percent, not a bare fraction on a line an accountant read as fees paid.
    expect(text).toMatch(/Fee rates: spot taker \d+(\.\d+)?%, maker \d+(\.\d+)?% of the notional; VIP/);
    expect(text).toContain("Referral: not available (referral failed)");
    expect(human.stderr()).toMatch(
      /warning: referral not shown: unexpected referral response: unclaimedRewards: .*expected string/,
    );
    expect(human.stderr()).toMatch(/warning: vip not shown: unexpected isVip response/);

    const json = io();
    expect(await main(["status", "--config", proxied, "--json"], json.io)).toBe(0);
    const status = parseJson(json.stdout()) as {
      referral: unknown;
      isVip: unknown;
      balances: unknown[];
      unavailable: Array<{ section: string; query: string; error: string }>;
      coreUnavailable: boolean;
    };
    expect(status.referral).toBeNull();
    expect(status.isVip).toBeNull();
    expect(status.balances.length).toBeGreaterThan(0);
    expect(status.coreUnavailable).toBe(false);
    expect(status.unavailable.map((u) => [u.section, u.query]).sort()).toEqual([
      ["referral", "referral"],
      ["vip", "isVip"],
    ]);
  });

  it("does not show '0 locked' when the delegations could not be read", async () => {
    proxy.setRewrites({ delegations: () => "yes" });
    const human = io();
    expect(await main(["status", "--config", proxied], human.io)).toBe(0);
    expect(human.stdout()).toMatch(
      /Staking: delegated \S+ HYPE \(locked: unknown, the delegations could not be read\)/,
    );
    const json = io();
    expect(await main(["status", "--config", proxied, "--json"], json.io)).toBe(0);
    expect((parseJson(json.stdout()) as { staking: { locked: unknown } }).staking.locked).toBeNull();
  });

  it("exits 1 when the balances cannot be read, still showing the other sections", async () => {
    proxy.setRewrites({
      spotClearinghouseState: (a) => ({
        balances: [{ ...(a as { balances: object[] }).balances[0], total: 5 }],
      }),
    });
    const human = io();
    expect(await main(["status", "--config", proxied], human.io)).toBe(1);
    expect(human.stdout()).toContain("Spot: not available (spotClearinghouseState failed)");
    expect(human.stdout()).toContain("ValiDAO (0xb8f45222a3246a2b0104696a1df26842007c5bc5): 60");
    expect(human.stderr()).toMatch(
      /balances not shown: unexpected spotClearinghouseState response: balances\.0\.total: .*expected string/,
    );
    proxy.setRewrites({});
  });

  it("without an account or a key, says how to name the account (--user) instead of only asking for a key", async () => {
    const anonymous = join(dir, "anonymous.yaml");
    writeFileSync(
      anonymous,
      stringify({
        network: "testnet",
        baseUrl: bot.sim.url,
        strategies: [join(bot.dir, "strategy-0.yaml")],
        limits: { maxOrderUsd: 100, maxDailyNotionalUsd: 100, maxStakeMovePerDay: 1 },
      }),
    );
    const run = io();
    expect(await main(["status", "--config", anonymous], run.io)).toBe(2);
    expect(run.stderr()).toMatch(/HLBOT_PRIVATE_KEY is not set.*--user 0x…/);
    const named = io();
    expect(await main(["status", "--config", anonymous, "--user", bot.address], named.io)).toBe(0);
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
