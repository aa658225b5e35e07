// Manual commands for a sub-account (a multi-account trial): the venue executes an L1 action without
// vaultAddress on the signer's account (or an API wallet's master). A manual TWAP "for" a sub-account
// named by `account:` or --account was sent without it and landed on the master, its cancel was refused,
// and a lost answer of a TWAP sent with --vault was looked for on the master, judged absent, and could
// be sent again. Manual commands now ask the venue who the key may act for, as a bot does.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type LoadedConfig, loadConfig } from "../../src/engine/config/loader.js";
import { executeManualAction, manualVenue } from "../../src/engine/manual.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { privateKeySigner } from "../../src/venue/signing/signer.js";
import { ADDR, HYPE_ASSET, KEYS, testScenario } from "../simulator/fixtures.js";

let sim: Simulator & { url: string };
const dirs: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({
    clock: "virtual",
    rateLimit: false,
    scenario: testScenario({
      agents: [{ user: ADDR.trader, address: ADDR.agent, name: "bot" }],
      balances: { [ADDR.trader]: { USDC: "100" }, [ADDR.sub]: { USDC: "10000", HYPE: "100" } },
    }),
  });
});
afterAll(async () => {
  await sim?.stop();
});
afterEach(() => {
  sim.setFaults({});
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function manual(
  key: string,
  account: string,
  call: Record<string, unknown>,
  o: { live?: boolean; stateDir?: string; notes?: string[]; config?: LoadedConfig } = {},
) {
  const stateDir = o.stateDir ?? mkdtempSync(join(tmpdir(), "hlbot-manual-sub-"));
  if (o.stateDir === undefined) dirs.push(stateDir);
  const venue = manualVenue(undefined, { network: "testnet", baseUrl: sim.url });
  try {
    return await executeManualAction({
      venue,
      config: o.config,
      call: call as never,
      signer: privateKeySigner(key),
      account,
      live: o.live ?? false,
      stateDir,
      reason: "hlbot twap (test)",
      note: (m) => o.notes?.push(m),
      warn: () => {},
      clock: () => sim.now(),
    });
  } finally {
    await venue.close();
  }
}

const order = (vaultAddress?: string) => ({
  type: "twapOrder",
  params: {
    asset: HYPE_ASSET,
    isBuy: true,
    size: "20",
    szDecimals: 2,
    minutes: 30,
    randomize: false,
    reduceOnly: false,
  },
  ...(vaultAddress === undefined ? {} : { vaultAddress }),
});

it("a TWAP for a sub-account named as the account carries vaultAddress and runs on the sub-account, by the master's key or its API wallet", async () => {
  const dry = await manual(KEYS.trader, ADDR.sub, order());
  expect(dry.status === "done" && dry.outcome.request.vaultAddress).toBe(ADDR.sub);
  // One state folder, as a user's (its nonce store keeps each signer's nonces unique).
  const stateDir = mkdtempSync(join(tmpdir(), "hlbot-manual-sub-"));
  dirs.push(stateDir);
  for (const key of [KEYS.trader, KEYS.agent]) {
    const live = await manual(key, ADDR.sub, order(), { live: true, stateDir });
    expect(live.status === "done" && live.outcome.status).toBe("accepted");
  }
  expect(sim.twaps(ADDR.sub).filter((t) => t.status === "activated")).toHaveLength(2);
  expect(sim.twaps(ADDR.trader)).toHaveLength(0);
  // The emergency cancel of one of them, by the API wallet with the sub-account as the account.
  const twap = sim.twaps(ADDR.sub).find((t) => t.status === "activated")!;
  const cancel = await manual(
    KEYS.agent,
    ADDR.sub,
    { type: "twapCancel", params: { asset: HYPE_ASSET, twapId: twap.id } },
    { live: true, stateDir },
  );
  expect(cancel.status === "done" && cancel.outcome.status).toBe("accepted");
  expect(sim.twaps(ADDR.sub).filter((t) => t.status === "activated")).toHaveLength(1);
});

it("a staking action for a sub-account is refused before signing (it would act on the master)", async () => {
  const r = manual(KEYS.trader, ADDR.sub, {
    type: "tokenDelegate",
    params: { validator: "0x5ac99df645f3414876c816caa18b2d234024b487", amount: "1", isUndelegate: false },
  });
  await expect(r).rejects.toThrow(/sub-account|vault|own key/);
});

it("a key that may not act for the named account is refused before anything is signed", async () => {
  await expect(manual(KEYS.stranger, ADDR.sub, order())).rejects.toThrow(/cannot act for/);
  await expect(manual(KEYS.agent, ADDR.staker, order())).rejects.toThrow(/cannot act for/);
});

it("a --vault TWAP whose answer was lost is reconciled on the sub-account (landed), not judged absent", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "hlbot-manual-sub-"));
  dirs.push(stateDir);
  sim.advance(60_000); // a fresh state folder: its nonces must not meet the earlier tests' on the venue
  const before = sim.twaps(ADDR.sub).length;
  sim.setFaults({ exchange: { dropRate: 1 } });
  const lost = await manual(KEYS.agent, ADDR.trader, order(ADDR.sub), { live: true, stateDir });
  sim.setFaults({});
  expect(lost.status === "done" && lost.outcome.status).toBe("unknown");
  expect(sim.twaps(ADDR.sub)).toHaveLength(before + 1);
  sim.advance(5 * 60_000); // past its expiresAfter
  const notes: string[] = [];
  const again = await manual(
    KEYS.agent,
    ADDR.trader,
    { type: "twapCancel", params: { asset: HYPE_ASSET, twapId: 999_999 }, vaultAddress: ADDR.sub },
    { live: true, stateDir, notes },
  );
  expect(notes.filter((n) => n.startsWith("reconciled"))).toEqual([
    expect.stringMatching(/^reconciled submission #1 \(manual, twapOrder\): landed/),
  ]);
  expect(again.status).toBe("done");
});

// A review of the above: an API-wallet key as its own account, and lookups the venue does not answer.
it("an API-wallet key used as its own account (no account named) is refused before anything is sent", async () => {
  const before = sim.twaps(ADDR.trader).length;
  // The CLI passes the signer's own address as the account when neither --account nor `account:` is set.
  await expect(manual(KEYS.agent, ADDR.agent, order(), { live: true })).rejects.toThrow(
    `the key is an API wallet of ${ADDR.trader}`,
  );
  // It landed on the master, was looked for on the API wallet's address, judged absent, and sent again.
  expect(sim.twaps(ADDR.trader)).toHaveLength(before);
});

it("a dry run of an API wallet's TWAP for its master needs no network (README: a dry run signs offline)", async () => {
  const venue = manualVenue(undefined, { network: "testnet", baseUrl: "http://127.0.0.1:9" });
  const stateDir = mkdtempSync(join(tmpdir(), "hlbot-manual-sub-"));
  dirs.push(stateDir);
  const notes: string[] = [];
  try {
    const r = await executeManualAction({
      venue,
      config: undefined,
      call: order() as never,
      signer: privateKeySigner(KEYS.agent),
      account: ADDR.trader,
      live: false,
      stateDir,
      reason: "hlbot twap (test)",
      note: (m) => notes.push(m),
      warn: () => {},
      clock: () => sim.now(),
    });
    expect(r.status === "done" && r.outcome.status).toBe("dry-run");
    expect(notes[0]).toMatch(
      /^could not ask the venue who 0x[0-9a-f]{40} is \(.*\): signed without vaultAddress/,
    );
  } finally {
    await venue.close();
  }
});

it("an emergency cancel by an API wallet for its master is sent while /info fails; an order is not", async () => {
  sim.advance(60_000);
  sim.setFaults({ info: { serverErrorRate: 1 } });
  const notes: string[] = [];
  const cancel = await manual(
    KEYS.agent,
    ADDR.trader,
    { type: "twapCancel", params: { asset: HYPE_ASSET, twapId: 999_999 } },
    { live: true, notes },
  );
  // It reached /exchange: the venue refused the unknown id.
  expect(cancel.status === "done" && cancel.outcome.status).toBe("rejected");
  expect(notes.some((n) => /could not ask the venue who .*: sent without vaultAddress/.test(n))).toBe(true);
  await expect(manual(KEYS.agent, ADDR.trader, order(), { live: true })).rejects.toThrow(/userRole/);
});

it("says when it acts for another account than the bot file's: that account's own bot's kill switch and limits are not checked", async () => {
  // An operator of several bots stopped the sub-account's bot, then placed a TWAP for it with --vault and
  // the master's bot file: accepted, nothing said.
  const dir = mkdtempSync(join(tmpdir(), "hlbot-manual-sub-"));
  dirs.push(dir);
  const file = join(dir, "master.yaml");
  writeFileSync(
    file,
    [
      "network: testnet",
      `baseUrl: ${sim.url}`,
      `account: "${ADDR.trader}"`,
      `strategies: ${join(process.cwd(), "strategies/twap-accumulate.yaml")}`,
      `state: ${join(dir, "state")}`,
      "limits: { maxOrderUsd: 100000, maxDailyNotionalUsd: 1000000, maxStakeMovePerDay: 100 }",
      "",
    ].join("\n"),
  );
  const config = await loadConfig(file, {});
  const notes: string[] = [];
  await manual(KEYS.trader, ADDR.trader, order(ADDR.sub), { config, notes, stateDir: join(dir, "state") });
  expect(notes).toEqual([
    expect.stringMatching(
      new RegExp(
        `^acting for ${ADDR.sub.toLowerCase()}, with the limits and the kill switch \\(.*STOP\\) of .*master\\.yaml, whose account is ${ADDR.trader.toLowerCase()}: that account's own bot's are not checked`,
      ),
    ),
  ]);
  // For the bot file's own account: nothing to say.
  const own: string[] = [];
  await manual(KEYS.trader, ADDR.trader, order(), { config, notes: own, stateDir: join(dir, "state") });
  expect(own).toEqual([]);
});
