import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, stringifyJson } from "../../src/lib/json.js";
import { SIMULATED_INFO_TYPES } from "../../src/simulator/info.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { INFO_METHODS, INFO_TYPES, type InfoType } from "../../src/venue/info/methods/index.js";
import { type InfoMethodSpec, runInfoQuery } from "../../src/venue/info/query.js";
import type { HttpTransport } from "../../src/venue/transport/http.js";
import { ADDR, KEYS } from "./fixtures.js";
import {
  type HttpSim,
  l1Body,
  post,
  send,
  startTestSim,
  transportFor,
  userBody,
  userHeader,
} from "./helpers.js";

const DEMO_START = Date.UTC(2025, 0, 1);
const UNKNOWN = "0x00000000000000000000000000000000000000aa";
const MULTISIG = ADDR.stranger; // the demo's multi-sig account (outcome balances, evm escrows)

let sim: HttpSim;
let transport: HttpTransport;
let client: InfoClient;
const txHashes: string[] = [];

beforeAll(async () => {
  // The bundled demo scenario carries the query variants (referral stages, multi-sig, sub-accounts…).
  sim = await startTestSim({ scenario: undefined });
  transport = transportFor(sim);
  client = new InfoClient(transport);
  let nonce = DEMO_START;
  const twap = { type: "twapOrder", twap: { a: 10107, b: false, s: "100", r: false, m: 10, t: true } };
  await send(sim, await l1Body(KEYS.trader, twap, nonce++));
  // Staking link: the demo account (trading) proposes, the staker finalizes later.
  await send(
    sim,
    await userBody(KEYS.trader, {
      type: "linkStakingUser",
      ...userHeader(nonce++),
      user: ADDR.staker,
      isFinalize: false,
    }),
  );
  await send(
    sim,
    await userBody(KEYS.trader, { type: "cWithdraw", ...userHeader(nonce++), wei: 1_000_000_000 }),
  );
  sim.advance(2 * 86_400_000);
  txHashes.push(...sim.ledger({ kind: "action" }).map((e) => e.hash!));
});

afterAll(async () => {
  await transport.close();
  await sim.stop();
});

const USERS = [
  ADDR.trader,
  ADDR.staker,
  ADDR.agent,
  ADDR.sub,
  MULTISIG,
  UNKNOWN,
  "0x5ac99df645f3414876c816caa18b2d234024b487",
];

function paramsFor(type: InfoType): Record<string, unknown>[] {
  const shape = INFO_METHODS[type].request.shape as Record<string, unknown>;
  if ("user" in shape) return USERS.map((user) => ({ user }));
  if ("tokenId" in shape) return sim.core.markets.tokens.map((t) => ({ tokenId: t.tokenId }));
  if ("hash" in shape) return txHashes.map((hash) => ({ hash }));
  if ("dex" in shape) return [{}, { dex: "" }];
  if ("req" in shape)
    return [
      { req: { coin: "@107", interval: "1h", startTime: 0 } },
      { req: { coin: "@107", interval: "1M", startTime: 0, endTime: sim.now() } },
      { req: { coin: "NOPE/USDC", interval: "1m", startTime: 0 } },
    ];
  return [{}];
}

/** Places a 5-minute sell of 10 HYPE for the trader straight on the venue's TWAP engine. */
function placeHypeSell() {
  const placed = sim.core.twaps.place(
    ADDR.trader,
    {
      asset: 10107,
      isBuy: false,
      size: "10",
      reduceOnly: false,
      minutes: 5,
      randomize: false,
      hasDetails: false,
    },
    "0x0",
  );
  if (!placed.ok) throw new Error(`TWAP refused: ${placed.error}`);
  return placed;
}

describe("info queries", () => {
  it("answers every query type of the client's registry", () => {
    expect([...SIMULATED_INFO_TYPES].sort()).toEqual([...INFO_TYPES].sort());
  });

  it("answers every query for every kind of account with shapes that pass the client's schemas", async () => {
    let n = 0;
    for (const type of INFO_TYPES) {
      for (const params of paramsFor(type)) {
        const spec = INFO_METHODS[type] as InfoMethodSpec;
        await expect(
          runInfoQuery(transport, spec, params as never),
          `${type} ${JSON.stringify(params)}`,
        ).resolves.toBeDefined();
        n++;
      }
    }
    expect(n).toBeGreaterThan(80);
  });

  it("covers the variants: referral stages, null answers, outcome balances, genesis null, big stakes", async () => {
    const stages = await Promise.all(
      [ADDR.trader, ADDR.staker, UNKNOWN].map(
        async (user) => (await client.referral({ user })).referrerState.stage,
      ),
    );
    expect(stages).toEqual(["needToTrade", "ready", "needToCreateCode"]);
    expect((await client.referral({ user: ADDR.trader })).referredBy?.code).toBe("HYPURR");
    expect(await client.subAccounts2({ user: UNKNOWN })).toBeNull();
    expect((await client.subAccounts2({ user: ADDR.trader }))?.[0]?.subAccountUser).toBe(ADDR.sub);
    expect(await client.userToMultiSigSigners({ user: ADDR.trader })).toBeNull();
    expect((await client.userToMultiSigSigners({ user: MULTISIG }))?.threshold).toBe(2);
    expect(await client.isVip({ user: ADDR.staker })).toBe(true);
    expect(await client.isVip({ user: ADDR.trader })).toBe(false);
    const ms = await client.spotClearinghouseState({ user: MULTISIG });
    expect(ms.balances.filter((b) => b.token === undefined).map((b) => b.coin)).toEqual(["+12", "o7"]);
    expect(ms.evmEscrows).toEqual([{ coin: "HYPE", token: 150, total: "1.0" }]);
    const meta = await client.spotMeta();
    const usdc = meta.tokens.find((t) => t.name === "USDC")!;
    const hype = meta.tokens.find((t) => t.name === "HYPE")!;
    expect((await client.tokenDetails({ tokenId: usdc.tokenId })).genesis).toBeNull();
    expect((await client.tokenDetails({ tokenId: hype.tokenId })).genesis?.userBalances).toHaveLength(1);
    const validators = await client.validatorSummaries();
    expect(validators.length).toBe(6);
    expect(validators.some((v) => v.stake > BigInt(Number.MAX_SAFE_INTEGER))).toBe(true);
    expect(validators.filter((v) => v.isJailed).map((v) => v.unjailableAfter)).toEqual([
      DEMO_START + 6 * 3_600_000,
    ]);
    expect(validators.filter((v) => !v.isActive)).toHaveLength(1);
    expect(await client.userRole({ user: ADDR.sub })).toEqual({
      role: "subAccount",
      data: { master: ADDR.trader },
    });
    expect(await client.userRole({ user: UNKNOWN })).toEqual({ role: "missing" });
    expect(await client.userRole({ user: ADDR.trader })).toEqual({ role: "user" });
    // An agent's address answers empty data.
    expect((await client.spotClearinghouseState({ user: ADDR.agent })).balances).toEqual([]);
  });

  it("reports the three delegator-history deltas newest first, and rewards", async () => {
    const history = await client.delegatorHistory({ user: ADDR.trader });
    expect(history[0]?.delta.withdrawal).toEqual({ amount: "10.0", phase: "initiated" });
    const times = history.map((h) => h.time);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const rewards = await client.delegatorRewards({ user: ADDR.trader });
    expect(rewards.map((r) => r.time)).toEqual([DEMO_START + 2 * 86_400_000, DEMO_START + 86_400_000]);
    sim.advance(6 * 86_400_000);
    const later = await client.delegatorHistory({ user: ADDR.trader });
    expect(later[0]?.delta.withdrawal).toEqual({ amount: "10.0", phase: "finalized" });
    // The scenario's seeded delegations have no history; a deposit gives the cDeposit delta.
    await send(
      sim,
      await userBody(KEYS.trader, { type: "cDeposit", ...userHeader(sim.now()), wei: 100_000_000 }),
    );
    await send(
      sim,
      await userBody(KEYS.trader, {
        type: "tokenDelegate",
        ...userHeader(sim.now() + 1),
        validator: "0x5ac99df645f3414876c816caa18b2d234024b487",
        wei: 100_000_000,
        isUndelegate: false,
      }),
    );
    const deltas = (await client.delegatorHistory({ user: ADDR.trader })).map((h) => Object.keys(h.delta)[0]);
    expect(deltas.slice(0, 2)).toEqual(["delegate", "cDeposit"]);
    expect(new Set(deltas)).toEqual(new Set(["delegate", "cDeposit", "withdrawal"]));
  });

  it("shows TWAPs in twapHistory (time in seconds) and their fills with a zero hash and unique tids", async () => {
    const history = await client.twapHistory({ user: ADDR.trader });
    expect(history.map((h) => h.status.status)).toEqual(["activated", "finished"]);
    expect(history[0]!.timeMs).toBe(DEMO_START);
    expect(history[1]!.state.executedSz).toBe("100.0");
    const fills = await client.userTwapSliceFills({ user: ADDR.trader });
    expect(fills.length).toBeGreaterThan(5);
    expect(new Set(fills.map((f) => f.fill.tid)).size).toBe(fills.length);
    expect(fills.every((f) => /^0x0{64}$/.test(f.fill.hash ?? "") && f.fill.twapId === f.twapId)).toBe(true);
    expect(fills[0]!.fill.time).toBeGreaterThan(fills[fills.length - 1]!.fill.time);
  });

  it("serves spotMeta and spotMetaAndAssetCtxs as plain JSON, the contexts following the prices", async () => {
    const read = async (type: string) => {
      const answer = await post(sim, "/info", { type });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(JSON.stringify(answer.json));
      return answer.json as unknown[];
    };
    const meta = await read("spotMeta");
    const [metaPart, ctxs] = (await read("spotMetaAndAssetCtxs")) as [
      unknown,
      Array<{ coin: string; markPx: string }>,
    ];
    expect(metaPart).toEqual(meta);
    const hype = ctxs.find((c) => c.coin === "@107")!;
    sim.core.setPrice("@107", Number(hype.markPx) * 2);
    const [metaAfter, ctxsAfter] = (await read("spotMetaAndAssetCtxs")) as [unknown, typeof ctxs];
    expect(metaAfter).toEqual(meta);
    expect(Number(ctxsAfter.find((c) => c.coin === "@107")!.markPx)).toBeCloseTo(Number(hype.markPx) * 2, 1);
    expect(ctxsAfter.map((c) => c.coin)).toEqual(ctxs.map((c) => c.coin));
  });

  it("serves twapHistory as plain JSON that follows each new entry (its text is kept between changes)", async () => {
    const read = async () => {
      const answer = await post(sim, "/info", { type: "twapHistory", user: ADDR.trader });
      expect(answer.status).toBe(200);
      // The kept text is what JSON.stringify of the answer gives: no spacing, keys in the venue's order.
      expect(answer.text).toBe(JSON.stringify(answer.json));
      return answer.json as Array<{ status: { status: string }; twapId: number; state: { coin: string } }>;
    };
    const before = await read();
    expect(await read()).toEqual(before);
    const placed = placeHypeSell();
    const running = await read();
    expect(running.slice(0, before.length)).toEqual(before);
    expect(running.slice(before.length).map((h) => [h.twapId, h.status.status])).toEqual([
      [placed.twap.id, "activated"],
    ]);
    sim.advance(6 * 60_000);
    const ended = await read();
    expect(ended.slice(0, running.length)).toEqual(running);
    expect(ended.slice(running.length).map((h) => [h.twapId, h.status.status])).toEqual([
      [placed.twap.id, "finished"],
    ]);
    // Another user's history is its own.
    expect(await (await post(sim, "/info", { type: "twapHistory", user: UNKNOWN })).json).toEqual([]);
  });

  it("serves spotClearinghouseState that follows every transfer, fill and hold (its text is kept between changes)", async () => {
    const read = async () => {
      const answer = await post(sim, "/info", { type: "spotClearinghouseState", user: ADDR.trader });
      expect(answer.text).toBe(JSON.stringify(answer.json));
      const balances = (answer.json as { balances: Array<{ coin: string; total: string; hold: string }> })
        .balances;
      return Object.fromEntries(balances.map((b) => [b.coin, `${b.total}/${b.hold}`]));
    };
    const before = await read();
    expect(await read()).toEqual(before);
    sim.fund(ADDR.trader, "USDC", "12.5");
    const funded = await read();
    expect(Number(funded.USDC!.split("/")[0]) - Number(before.USDC!.split("/")[0])).toBeCloseTo(12.5, 8);
    // Each slice of a running sell moves HYPE and USDC. The demo venue holds nothing for a TWAP
    // (settings.twapHolds, default false); a venue that holds is test/simulator/twap.test.ts's.
    placeHypeSell();
    const running = await read();
    expect(running.HYPE!.split("/")[1]).toBe("0.0");
    sim.advance(60_000);
    const sliced = await read();
    expect(sliced.HYPE).not.toBe(running.HYPE);
    expect(sliced.USDC).not.toBe(running.USDC);
    sim.advance(5 * 60_000);
    const ended = await read();
    expect(ended.HYPE!.split("/")[1]).toBe("0.0");
    expect(await read()).toEqual(ended);
  });

  it("writes validator stakes beyond 2^53 as exact bare digits in plain JSON", async () => {
    const answer = await post(sim, "/info", { type: "validatorSummaries" });
    const parsed = parseJson(answer.text) as Array<{ stake: number | bigint; name: string }>;
    expect(answer.text).toBe(stringifyJson(parsed));
    const big = parsed.filter((v) => typeof v.stake === "bigint");
    expect(big.length).toBeGreaterThan(0);
    for (const v of parsed) expect(answer.text).toContain(`"stake":${v.stake.toString()},`);
    expect(answer.text).not.toContain("\\u0000");
  });

  it("serves validatorSummaries that follow every change of a validator and of its stake", async () => {
    const read = async () => {
      const text = (await post(sim, "/info", { type: "validatorSummaries" })).text;
      return parseJson(text) as Array<{
        validator: string;
        commission: string;
        stake: number | bigint;
        isJailed: boolean;
      }>;
    };
    const before = await read();
    expect(await read()).toEqual(before);
    const target = before[before.length - 1]!;
    sim.setValidator(target.validator, { commission: "0.0777" });
    const changed = await read();
    expect(changed.find((v) => v.validator === target.validator)?.commission).toBe("0.0777");
    sim.setValidator(target.validator, { isJailed: true, unjailableAfter: DEMO_START + 99 });
    expect((await read()).find((v) => v.validator === target.validator)?.isJailed).toBe(true);
    sim.setValidator(target.validator, { isJailed: false });
    // A day of rewards compounds into the stakes.
    const stakes = (list: Awaited<ReturnType<typeof read>>) => list.map((v) => BigInt(v.stake)).join(",");
    const beforeRewards = await read();
    sim.advance(86_400_000);
    expect(stakes(await read())).not.toBe(stakes(beforeRewards));
  });

  it("answers txDetails on /explorer and on /info, with the explorer's error envelope for unknown hashes", async () => {
    const tx = await client.txDetails({ hash: txHashes[0] as `0x${string}` });
    expect(tx.tx.action.type).toBe("twapOrder");
    expect(tx.tx.error).toBeNull();
    const onExplorer = await post(sim, "/explorer", { type: "txDetails", hash: txHashes[0] });
    expect((onExplorer.json as { tx: { hash: string } }).tx.hash).toBe(txHashes[0]);
    const unknown = await post(sim, "/explorer", { type: "txDetails", hash: `0x${"ab".repeat(32)}` });
    expect(unknown.json).toMatchObject({ type: "error", message: expect.any(String) });
    // Info queries are not explorer queries.
    expect((await post(sim, "/explorer", { type: "spotMeta" })).status).toBe(422);
  });

  it("shows the staking link from both perspectives once finalized", async () => {
    expect((await client.userFees({ user: ADDR.trader })).stakingLink).toEqual({
      type: "requested",
      stakingUser: ADDR.staker,
    });
    expect((await client.userFees({ user: ADDR.staker })).stakingLink).toBeNull();
    const fin = await userBody(KEYS.staker, {
      type: "linkStakingUser",
      ...userHeader(sim.now()),
      user: ADDR.trader,
      isFinalize: true,
    });
    expect(await send(sim, fin)).toEqual({ status: "ok", response: { type: "default" } });
    expect((await client.userFees({ user: ADDR.trader })).stakingLink).toEqual({
      type: "tradingUser",
      stakingUser: ADDR.staker,
    });
    expect((await client.userFees({ user: ADDR.staker })).stakingLink).toEqual({
      type: "stakingUser",
      tradingUser: ADDR.trader,
    });
    // Permanent: neither side can link again.
    const again = await userBody(KEYS.trader, {
      type: "linkStakingUser",
      ...userHeader(sim.now() + 10),
      user: ADDR.stranger,
      isFinalize: false,
    });
    expect(await send(sim, again)).toEqual({ status: "err", response: "Staking link error" });
  });
});

describe("HTTP rules", () => {
  const unprocessable = "Failed to deserialize the JSON body into the target type";
  const cases: Array<[string, string, unknown]> = [
    ["not JSON", "/info", "{type: spotMeta"],
    ["unknown type", "/info", { type: "spotMetas" }],
    ["wrong case", "/info", { type: "spotclearinghousestate", user: ADDR.trader }],
    ["missing field", "/info", { type: "delegations" }],
    ["mistyped field", "/info", { type: "delegations", user: 12 }],
    ["short address", "/info", { type: "delegations", user: "0x1234" }],
    ["long address", "/info", { type: "delegations", user: `${ADDR.trader}00` }],
    ["array body", "/info", [1, 2]],
    [
      "wei as a string",
      "/exchange",
      {
        action: {
          type: "cDeposit",
          signatureChainId: "0x66eee",
          hyperliquidChain: "Testnet",
          wei: "100",
          nonce: 1,
        },
        nonce: 1,
        signature: { r: "0x1", s: "0x1", v: 27 },
      },
    ],
    ["no signature", "/exchange", { action: { type: "noop" }, nonce: 1 }],
    [
      "unknown action",
      "/exchange",
      { action: { type: "fly" }, nonce: 1, signature: { r: "0x1", s: "0x1", v: 27 } },
    ],
    [
      "twap size as number",
      "/exchange",
      {
        action: { type: "twapOrder", twap: { a: 10107, b: true, s: 1, r: false, m: 5, t: false } },
        nonce: 1,
        signature: { r: "0x1", s: "0x1", v: 27 },
      },
    ],
  ];
  for (const [name, path, body] of cases) {
    it(`answers 422 text/plain to an undeserializable body: ${name}`, async () => {
      // Twice: the venue keeps what it parsed and checked of a repeated info body, the verdict included.
      for (let i = 0; i < 2; i++) {
        const r = await post(sim, path, body);
        expect(r.status).toBe(422);
        expect(r.contentType).toMatch(/^text\/plain/);
        expect(r.text).toBe(unprocessable);
      }
    });
  }

  it("answers JSON with a Date header (the venue's clock), 404 off the API and 405 for GET", async () => {
    const r = await post(sim, "/info", { type: "allMids" });
    expect(r.status).toBe(200);
    expect(r.contentType).toMatch(/^application\/json/);
    expect(Date.parse(r.date!)).toBe(Math.floor(sim.now() / 1000) * 1000);
    expect((await post(sim, "/nowhere", {})).status).toBe(404);
    expect((await fetch(`${sim.url}/info`)).status).toBe(405);
    expect((await post(sim, "/info/", { type: "allMids" })).status).toBe(200);
  });
});

describe("in-process answers", () => {
  it("serves the same pipeline without a socket, including staking links seeded by the scenario", async () => {
    const { createSimulator } = await import("../../src/simulator/index.js");
    const { testScenario } = await import("./fixtures.js");
    const local = createSimulator({
      scenario: testScenario({
        accounts: [{ address: ADDR.trader, stakingLink: { stakingUser: ADDR.staker } }],
      }),
      rateLimit: false,
    });
    expect(local.url).toBeUndefined();
    const fees = local.info({ type: "userFees", user: ADDR.staker }) as { stakingLink: unknown };
    expect(fees.stakingLink).toEqual({ type: "stakingUser", tradingUser: ADDR.trader });
    const r = local.request("info", "not json");
    expect([r.status, r.text]).toEqual([422, "Failed to deserialize the JSON body into the target type"]);
    await local.stop();
  });
});
