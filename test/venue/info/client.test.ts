import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError, UnprocessableError, ValidationError } from "../../../src/lib/errors.js";
import { stringifyJson } from "../../../src/lib/json.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import {
  INFO_METHODS,
  INFO_TYPES,
  infoParameters,
  isOutcomeCoin,
  latestTwapEntries,
} from "../../../src/venue/info/methods/index.js";
import { type Endpoints, resolveEndpoints } from "../../../src/venue/networks.js";
import { WeightBudget } from "../../../src/venue/transport/budget.js";
import { HttpTransport, type HttpTransportOptions } from "../../../src/venue/transport/http.js";
import { type Reply, startHttpServer, type TestHttpServer } from "../../helpers/httpServer.js";
import * as fx from "./fixtures.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Venue {
  server: TestHttpServer;
  client: InfoClient;
  budget: WeightBudget;
}

async function venue(
  replies: Reply | Reply[],
  options: Omit<Partial<HttpTransportOptions>, "endpoints"> & { endpoints?: (url: string) => Endpoints } = {},
): Promise<Venue> {
  const server = await startHttpServer(Array.isArray(replies) ? replies : [replies]);
  const budget = new WeightBudget();
  const transport = new HttpTransport({
    budget,
    retry: { attempts: 1 },
    ...options,
    endpoints: options.endpoints ? options.endpoints(server.url) : resolveEndpoints("testnet", server.url),
  });
  cleanups.push(async () => {
    await transport.close();
    await server.close();
  });
  return { server, client: new InfoClient(transport), budget };
}

/** Answers `json` once and returns the validated result and the one request the venue saw. */
async function ask<T>(
  json: unknown,
  call: (c: InfoClient) => Promise<T>,
): Promise<{ result: T; body: unknown; path: string }> {
  const { server, client } = await venue({ json });
  const result = await call(client);
  expect(server.requests).toHaveLength(1);
  return { result, body: server.requests[0]!.json, path: server.requests[0]!.path };
}

async function askError(json: unknown, call: (c: InfoClient) => Promise<unknown>): Promise<BadResponseError> {
  const { client } = await venue({ json });
  const err = await call(client).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(BadResponseError);
  return err as BadResponseError;
}

function paths(err: BadResponseError | ValidationError): string[] {
  return err.issues.map((i) => i.path);
}

describe("registry", () => {
  it("lists the nine seed queries and the twelve extras, each under its own wire type", () => {
    expect(INFO_TYPES.sort()).toEqual(
      [
        "tokenDetails",
        "referral",
        "spotClearinghouseState",
        "delegatorHistory",
        "validatorSummaries",
        "subAccounts2",
        "userToMultiSigSigners",
        "txDetails",
        "isVip",
        "spotMeta",
        "allMids",
        "spotMetaAndAssetCtxs",
        "delegations",
        "delegatorSummary",
        "delegatorRewards",
        "twapHistory",
        "userTwapSliceFills",
        "openOrders",
        "userFees",
        "userRole",
        "candleSnapshot",
      ].sort(),
    );
    for (const type of INFO_TYPES) expect(INFO_METHODS[type].type).toBe(type);
  });

  it("carries the reference weights", () => {
    const weights = Object.fromEntries(INFO_TYPES.map((t) => [t, INFO_METHODS[t].weight]));
    expect(weights.spotClearinghouseState).toBe(2);
    expect(weights.allMids).toBe(2);
    expect(weights.userRole).toBe(60);
    expect(weights.txDetails).toBe(40);
    expect(INFO_METHODS.txDetails.endpoint).toBe("explorer");
    const twenty = INFO_TYPES.filter(
      (t) => !["spotClearinghouseState", "allMids", "userRole", "txDetails"].includes(t),
    );
    for (const t of twenty) expect(weights[t], t).toBe(20);
    const history = INFO_TYPES.filter((t) => INFO_METHODS[t].perItemWeight !== undefined).sort();
    expect(history).toEqual([
      "candleSnapshot",
      "delegatorHistory",
      "delegatorRewards",
      "twapHistory",
      "userTwapSliceFills",
    ]);
    expect(INFO_METHODS.candleSnapshot.perItemWeight).toBeCloseTo(1 / 60);
  });

  it("describes each query's parameters", () => {
    expect(infoParameters("tokenDetails")).toEqual([{ name: "tokenId", required: true }]);
    expect(infoParameters("spotClearinghouseState")).toEqual([
      { name: "user", required: true },
      { name: "dex", required: false },
    ]);
    expect(infoParameters("validatorSummaries")).toEqual([]);
    expect(infoParameters("txDetails")).toEqual([{ name: "hash", required: true }]);
  });

  it("request schemas are strict wire bodies (what the simulator answers 422 for)", () => {
    const req = INFO_METHODS.delegations.request;
    expect(req.safeParse({ type: "delegations", user: fx.USER }).success).toBe(true);
    expect(req.safeParse({ type: "Delegations", user: fx.USER }).success).toBe(false);
    expect(req.safeParse({ type: "delegations" }).success).toBe(false);
    expect(req.safeParse({ type: "delegations", user: fx.USER, extra: 1 }).success).toBe(false);
    expect(req.safeParse({ type: "delegations", user: 5 }).success).toBe(false);
  });
});

describe("tokenDetails", () => {
  it("sends the tokenId and returns the validated details", async () => {
    const { result, body } = await ask(fx.tokenDetails(), (c) => c.tokenDetails({ tokenId: fx.TOKEN_ID }));
    expect(body).toEqual({ type: "tokenDetails", tokenId: fx.TOKEN_ID });
    expect(result).toEqual(fx.tokenDetails());
  });

  it("accepts genesis without blacklistUsers, genesis null, and null deployer fields", async () => {
    const noBlacklist = fx.tokenDetails();
    delete noBlacklist.genesis!.blacklistUsers;
    expect((await ask(noBlacklist, (c) => c.tokenDetails({ tokenId: fx.TOKEN_ID }))).result.genesis).toEqual({
      userBalances: [["0x0000000000000000000000000000000000000001", "1000000000.0"]],
      existingTokenBalances: [[1, "0.0"]],
    });
    const old = { ...fx.tokenDetails(), genesis: null, deployer: null, deployGas: null, deployTime: null };
    const { result } = await ask(old, (c) => c.tokenDetails({ tokenId: fx.TOKEN_ID }));
    expect(result.genesis).toBeNull();
    expect(result.deployer).toBeNull();
  });

  it("rejects balance lists written as objects", async () => {
    const bad = fx.tokenDetails();
    (bad as Record<string, unknown>).nonCirculatingUserBalances = [{ user: fx.USER, amount: "1.0" }];
    const err = await askError(bad, (c) => c.tokenDetails({ tokenId: fx.TOKEN_ID }));
    expect(paths(err)).toEqual(["nonCirculatingUserBalances.0"]);
  });
});

describe("referral", () => {
  it("handles referredBy as object or null", async () => {
    const a = await ask(fx.referral(), (c) => c.referral({ user: fx.USER }));
    expect(a.body).toEqual({ type: "referral", user: fx.USER });
    expect(a.result).toEqual(fx.referral());
    const b = await ask({ ...fx.referral(), referredBy: null }, (c) => c.referral({ user: fx.USER }));
    expect(b.result.referredBy).toBeNull();
  });

  it("handles the three referrerState stages", async () => {
    const ready = await ask(fx.referral(), (c) => c.referral({ user: fx.USER }));
    expect(ready.result.referrerState.stage).toBe("ready");
    const create = await ask({ ...fx.referral(), referrerState: { stage: "needToCreateCode" } }, (c) =>
      c.referral({ user: fx.USER }),
    );
    expect(create.result.referrerState).toEqual({ stage: "needToCreateCode" });
    const trade = await ask(
      { ...fx.referral(), referrerState: { stage: "needToTrade", data: { required: "10000.0" } } },
      (c) => c.referral({ user: fx.USER }),
    );
    expect(trade.result.referrerState).toEqual({ stage: "needToTrade", data: { required: "10000.0" } });
  });

  it("names the path of a broken stage payload; keeps an unknown stage", async () => {
    const broken = fx.referral();
    (broken.referrerState.data as { nReferrals: unknown }).nReferrals = "1";
    expect(paths(await askError(broken, (c) => c.referral({ user: fx.USER })))).toEqual([
      "referrerState.data.nReferrals",
    ]);
    // A stage hlbot does not know is kept as sent (issue #11: only shown, never acted on).
    const unknown = { ...fx.referral(), referrerState: { stage: "banned", data: { until: 1 } } };
    const { result } = await ask(unknown, (c) => c.referral({ user: fx.USER }));
    expect(result.referrerState).toEqual({ stage: "banned", data: { until: 1 } });
    const notAString = { ...fx.referral(), referrerState: { stage: 2 } };
    expect(paths(await askError(notAString, (c) => c.referral({ user: fx.USER })))).toEqual([
      "referrerState.stage",
    ]);
  });
});

describe("spotClearinghouseState", () => {
  it("returns token and outcome balances (outcome ones without token) and portfolio fields", async () => {
    const { result, body } = await ask(fx.spotClearinghouseState(), (c) =>
      c.spotClearinghouseState({ user: fx.USER }),
    );
    expect(body).toEqual({ type: "spotClearinghouseState", user: fx.USER });
    expect(result).toEqual(fx.spotClearinghouseState());
    expect(result.balances.filter((b) => isOutcomeCoin(b.coin)).map((b) => b.token)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("accepts the minimal answer and sends dex when given", async () => {
    const { result, body } = await ask({ balances: [] }, (c) =>
      c.spotClearinghouseState({ user: fx.USER, dex: "" }),
    );
    expect(result).toEqual({ balances: [] });
    expect(body).toEqual({ type: "spotClearinghouseState", user: fx.USER, dex: "" });
  });

  it("requires token on a non-outcome balance", async () => {
    const bad = fx.spotClearinghouseState();
    delete bad.balances[0]!.token;
    expect(paths(await askError(bad, (c) => c.spotClearinghouseState({ user: fx.USER })))).toEqual([
      "balances.0.token",
    ]);
  });
});

describe("delegatorHistory", () => {
  it("returns delegate (both directions), cDeposit and both withdrawal phases", async () => {
    const { result } = await ask(fx.delegatorHistory(), (c) => c.delegatorHistory({ user: fx.USER }));
    expect(result).toEqual(fx.delegatorHistory());
    expect(result.map((e) => Object.keys(e.delta)[0])).toEqual([
      "withdrawal",
      "withdrawal",
      "delegate",
      "delegate",
      "cDeposit",
    ]);
  });

  it("keeps entries with unknown delta keys instead of failing", async () => {
    const history = [
      ...fx.delegatorHistory(),
      { time: 1751382200000, hash: fx.TX_HASH, delta: { rewardClaim: { amount: "1.0" } } },
    ];
    const { result } = await ask(history, (c) => c.delegatorHistory({ user: fx.USER }));
    expect(result).toHaveLength(6);
    expect(result[5]!.delta).toEqual({ rewardClaim: { amount: "1.0" } });
  });

  it("rejects a known delta with a wrong field; an unknown withdrawal phase is kept", async () => {
    const bad = fx.delegatorHistory();
    (bad[0]!.delta.withdrawal as { phase: unknown }).phase = 3;
    (bad[2]!.delta.delegate as { amount: unknown }).amount = 89968;
    expect(paths(await askError(bad, (c) => c.delegatorHistory({ user: fx.USER })))).toEqual([
      "0.delta.withdrawal.phase",
      "2.delta.delegate.amount",
    ]);
    // A phase word hlbot does not know is a variant, not a wrong type: kept as sent (issue #11).
    const later = fx.delegatorHistory();
    (later[0]!.delta.withdrawal as { phase: string }).phase = "pending";
    const { result } = await ask(later, (c) => c.delegatorHistory({ user: fx.USER }));
    expect(result[0]!.delta.withdrawal?.phase).toBe("pending");
  });
});

describe("validatorSummaries", () => {
  it("sends no parameters and returns stake as bigint, exact beyond 2^53", async () => {
    const big = { ...fx.validatorSummary(), stake: 123456789012345678901n, unjailableAfter: 1752000000000 };
    const { result, body } = await ask([fx.validatorSummary(), big], (c) => c.validatorSummaries());
    expect(body).toEqual({ type: "validatorSummaries" });
    expect(result[0]!.stake).toBe(508149744592386n);
    expect(result[1]!.stake).toBe(123456789012345678901n);
    expect(result[1]!.unjailableAfter).toBe(1752000000000);
    expect(stringifyJson(result[1]!.stake)).toBe("123456789012345678901");
    expect(stringifyJson(result)).toContain('"stake":123456789012345678901,');
  });

  it("requires the stats of day, week and month, in any order, beside any other period (validatorStats.test.ts)", async () => {
    const two = { ...fx.validatorSummary(), stats: fx.validatorSummary().stats.slice(0, 2) };
    expect(paths(await askError([two], (c) => c.validatorSummaries()))).toEqual(["0.stats"]);
    const four = { ...fx.validatorSummary(), stats: [...fx.validatorSummary().stats, ["year", {}]] };
    expect((await ask([four], (c) => c.validatorSummaries())).result[0]!.stats).toHaveLength(4);
    const swapped = fx.validatorSummary();
    swapped.stats = [swapped.stats[1], swapped.stats[0], swapped.stats[2]];
    expect((await ask([swapped], (c) => c.validatorSummaries())).result[0]!.stats[0]![0]).toBe("week");
  });

  it("names the path of a wrongly typed stat and a fractional stake", async () => {
    const bad = fx.validatorSummary();
    (bad.stats[0] as [string, { uptimeFraction: unknown }])[1].uptimeFraction = 1;
    const fractional = { ...fx.validatorSummary(), stake: 1.5 };
    const err = await askError([bad, fractional], (c) => c.validatorSummaries());
    expect(paths(err)).toEqual(["0.stats.0.1.uptimeFraction", "1.stake"]);
    expect(err.message).toContain("0.stats.0.1.uptimeFraction");
  });
});

describe("subAccounts2", () => {
  it("returns null when there are none", async () => {
    expect((await ask(null, (c) => c.subAccounts2({ user: fx.USER }))).result).toBeNull();
  });

  it("handles portfolioMargin, unifiedAccount (no dex states) and the default (no abstraction)", async () => {
    const unified = { ...fx.subAccount(), abstraction: "unifiedAccount", dexToClearinghouseState: [] };
    const plain = fx.subAccount();
    delete plain.abstraction;
    const { result } = await ask([fx.subAccount(), unified, plain], (c) => c.subAccounts2({ user: fx.USER }));
    expect(result).toEqual([fx.subAccount(), unified, plain]);
    expect(result?.map((s) => s.abstraction)).toEqual(["portfolioMargin", "unifiedAccount", undefined]);
  });

  it("validates the nested spot state", async () => {
    const bad = fx.subAccount();
    (bad.spotState.balances[0] as { total: unknown }).total = 0.22;
    expect(paths(await askError([bad], (c) => c.subAccounts2({ user: fx.USER })))).toEqual([
      "0.spotState.balances.0.total",
    ]);
  });
});

describe("userToMultiSigSigners", () => {
  it("returns the signers, or null for a normal user", async () => {
    const signers = { authorizedUsers: [fx.USER, fx.OTHER], threshold: 2 };
    expect((await ask(signers, (c) => c.userToMultiSigSigners({ user: fx.USER }))).result).toEqual(signers);
    expect((await ask(null, (c) => c.userToMultiSigSigners({ user: fx.USER }))).result).toBeNull();
  });
});

describe("txDetails", () => {
  it("posts to {base}/info with a custom base URL", async () => {
    const { result, body, path } = await ask(fx.txDetails(), (c) => c.txDetails({ hash: fx.TX_HASH }));
    expect(path).toBe("/info");
    expect(body).toEqual({ type: "txDetails", hash: fx.TX_HASH });
    expect(result).toEqual(fx.txDetails());
  });

  it("posts to the explorer endpoint when the profile has one, with weight 40", async () => {
    const { server, client, budget } = await venue(
      { json: { ...fx.txDetails(), tx: { ...fx.txDetails().tx, error: "Insufficient balance" } } },
      {
        endpoints: (url) => ({
          info: `${url}/info`,
          exchange: `${url}/exchange`,
          explorer: `${url}/explorer`,
        }),
      },
    );
    const result = await client.txDetails({ hash: fx.TX_HASH });
    expect(result.tx.error).toBe("Insufficient balance");
    expect(server.requests[0]!.path).toBe("/explorer");
    expect(budget.used()).toBe(40);
  });

  it("turns the explorer's error envelope into a BadResponseError with its message", async () => {
    const err = await askError({ type: "error", message: "invalid block height: 0" }, (c) =>
      c.txDetails({ hash: fx.TX_HASH }),
    );
    expect(err.message).toContain("invalid block height: 0");
  });
});

describe("isVip", () => {
  it.each([true, false, null])("returns %s", async (value) => {
    expect((await ask(value, (c) => c.isVip({ user: fx.USER }))).result).toBe(value);
  });

  it("rejects a string", async () => {
    await askError("yes", (c) => c.isVip({ user: fx.USER }));
  });
});

describe("spotMeta, allMids, spotMetaAndAssetCtxs", () => {
  it("spotMeta returns tokens and pairs", async () => {
    const { result, body } = await ask(fx.spotMeta(), (c) => c.spotMeta());
    expect(body).toEqual({ type: "spotMeta" });
    expect(result).toEqual(fx.spotMeta());
  });

  it("spotMeta rejects a malformed tokenId", async () => {
    const bad = fx.spotMeta();
    bad.tokens[1]!.tokenId = "0x1234";
    expect(paths(await askError(bad, (c) => c.spotMeta()))).toEqual(["tokens.1.tokenId"]);
  });

  it("allMids returns the coin → mid map, with and without dex", async () => {
    const mids = { BTC: "30135.0", "PURR/USDC": "0.2", "@107": "38.1" };
    const a = await ask(mids, (c) => c.allMids());
    expect(a.body).toEqual({ type: "allMids" });
    expect(a.result).toEqual(mids);
    const b = await ask({ BTC: "30135.0" }, (c) => c.allMids({ dex: "" }));
    expect(b.body).toEqual({ type: "allMids", dex: "" });
    expect(paths(await askError({ BTC: 30135 }, (c) => c.allMids()))).toEqual(["BTC"]);
  });

  it("spotMetaAndAssetCtxs returns the 2-tuple, midPx possibly null", async () => {
    const ctxs = [fx.spotAssetCtx(), { ...fx.spotAssetCtx(), coin: "PURR/USDC", midPx: null }];
    const { result } = await ask([fx.spotMeta(), ctxs], (c) => c.spotMetaAndAssetCtxs());
    expect(result).toEqual([fx.spotMeta(), ctxs]);
    expect(result[1][1]!.midPx).toBeNull();
    expect(paths(await askError([fx.spotMeta()], (c) => c.spotMetaAndAssetCtxs()))).toEqual([""]);
  });
});

describe("staking queries", () => {
  it("delegations", async () => {
    const list = [{ validator: fx.VALIDATOR, amount: "12060.16529862", lockedUntilTimestamp: 1735466781353 }];
    const { result, body } = await ask(list, (c) => c.delegations({ user: fx.USER }));
    expect(body).toEqual({ type: "delegations", user: fx.USER });
    expect(result).toEqual(list);
  });

  it("delegatorSummary", async () => {
    const summary = {
      delegated: "12060.16529862",
      undelegated: "0.0",
      totalPendingWithdrawal: "0.0",
      nPendingWithdrawals: 0,
    };
    expect((await ask(summary, (c) => c.delegatorSummary({ user: fx.USER }))).result).toEqual(summary);
    expect(
      paths(
        await askError({ ...summary, nPendingWithdrawals: "0" }, (c) =>
          c.delegatorSummary({ user: fx.USER }),
        ),
      ),
    ).toEqual(["nPendingWithdrawals"]);
  });

  it("delegatorRewards with both sources", async () => {
    const rewards = [
      { time: 1736726400073, source: "delegation", totalAmount: "0.73117184" },
      { time: 1736726400074, source: "commission", totalAmount: "0.01" },
    ];
    expect((await ask(rewards, (c) => c.delegatorRewards({ user: fx.USER }))).result).toEqual(rewards);
  });
});

describe("twapHistory", () => {
  it("converts time from seconds to timeMs once and keeps state.timestamp in ms", async () => {
    const { result, body } = await ask([fx.twapEntry()], (c) => c.twapHistory({ user: fx.USER }));
    expect(body).toEqual({ type: "twapHistory", user: fx.USER });
    const { time: _seconds, ...rest } = fx.twapEntry();
    expect(result).toEqual([{ ...rest, timeMs: 1754000000000 }]);
    expect(result[0]).not.toHaveProperty("time");
    expect(result[0]!.state.timestamp).toBe(1753999000000);
  });

  it("accepts every status, including error with description and a status added later", async () => {
    const statuses = [
      { status: "activated" },
      { status: "finished" },
      { status: "terminated" },
      { status: "waitingForTrigger" },
      { status: "stopped" },
      { status: "error", description: "Insufficient margin" },
      { status: "paused" },
    ];
    const entries = statuses.map((status) => ({ ...fx.twapEntry(), status }));
    const { result } = await ask(entries, (c) => c.twapHistory({ user: fx.USER }));
    expect(result.map((e) => e.status)).toEqual(statuses);
  });

  it("accepts an error status without its description (only shown), but not a status that is no string", async () => {
    const entry = { ...fx.twapEntry(), status: { status: "error" } };
    const { result } = await ask([entry], (c) => c.twapHistory({ user: fx.USER }));
    expect(result[0]!.status).toEqual({ status: "error" });
    const broken = { ...fx.twapEntry(), status: { status: 7 } };
    expect(paths(await askError([broken], (c) => c.twapHistory({ user: fx.USER })))).toEqual([
      "0.status.status",
    ]);
  });

  it("handles trigger/stopPx null, set, or absent, and a missing twapId", async () => {
    const triggered = fx.twapEntry();
    triggered.state.trigger = { px: "190.0", above: true };
    triggered.state.stopPx = "150.0";
    const old = fx.twapEntry();
    delete old.state.trigger;
    delete old.state.stopPx;
    delete old.twapId;
    const { result } = await ask([fx.twapEntry(), triggered, old], (c) => c.twapHistory({ user: fx.USER }));
    expect(result.map((e) => e.state.trigger)).toEqual([null, { px: "190.0", above: true }, undefined]);
    expect(result.map((e) => e.state.stopPx)).toEqual([null, "150.0", undefined]);
    expect(result.map((e) => e.twapId)).toEqual([12345, 12345, undefined]);
  });

  it("the latest record of a TWAP cancelled in the second it started is the ended one, in either order", async () => {
    const started = { ...fx.twapEntry(), status: { status: "activated" } };
    const ended = { ...fx.twapEntry(), status: { status: "terminated" } };
    for (const order of [
      [ended, started],
      [started, ended],
    ]) {
      const { result } = await ask(order, (c) => c.twapHistory({ user: fx.USER }));
      expect(latestTwapEntries(result).map((e) => e.status.status)).toEqual(["terminated"]);
    }
    // Triggered in the second it was placed: running, not waiting, in either order.
    const waiting = { ...fx.twapEntry(), status: { status: "waitingForTrigger" } };
    for (const order of [
      [started, waiting],
      [waiting, started],
    ]) {
      const { result } = await ask(order, (c) => c.twapHistory({ user: fx.USER }));
      expect(latestTwapEntries(result).map((e) => e.status.status)).toEqual(["activated"]);
    }
  });

  it("charges +1 weight per 20 entries returned", async () => {
    const entries = Array.from({ length: 45 }, () => fx.twapEntry());
    const { client, budget } = await venue({ json: entries });
    await client.twapHistory({ user: fx.USER });
    expect(budget.used()).toBe(20 + 2);
  });

  it("uses the transport's per-item weight override", async () => {
    const entries = Array.from({ length: 45 }, () => fx.twapEntry());
    const { client, budget } = await venue({ json: entries }, { perItemWeight: 1 / 10 });
    await client.twapHistory({ user: fx.USER });
    expect(budget.used()).toBe(20 + 4);
  });
});

describe("userTwapSliceFills", () => {
  it("returns fills with numeric or null twapId and optional fee keys", async () => {
    const a = fx.twapSliceFill();
    const b = fx.twapSliceFill();
    b.fill.twapId = null;
    b.fill.builderFee = "0.001";
    b.fill.feeTrialEscrow = "0.0";
    const { result } = await ask([a, b], (c) => c.userTwapSliceFills({ user: fx.USER }));
    expect(result).toEqual([a, b]);
    expect((await ask([], (c) => c.userTwapSliceFills({ user: fx.USER }))).result).toEqual([]);
  });
});

describe("userFees", () => {
  it.each([
    ["no link", null],
    ["requested", { type: "requested", stakingUser: fx.OTHER }],
    ["tradingUser", { type: "tradingUser", stakingUser: fx.OTHER }],
    ["stakingUser", { type: "stakingUser", tradingUser: fx.OTHER }],
  ])("handles stakingLink: %s", async (_name, link) => {
    const fees = { ...fx.userFees(), stakingLink: link };
    const { result } = await ask(fees, (c) => c.userFees({ user: fx.USER }));
    expect(result).toEqual(fees);
    expect(result.userAddRate).toBe("-0.000105");
  });

  it("accepts the other account under either field name, and an unknown link type (issue #11)", async () => {
    // nktkas/hyperliquid types the stakingUser variant with a `stakingUser` field holding the trading
    // account; the reference names it `tradingUser`. Either is accepted.
    for (const link of [
      { type: "stakingUser", stakingUser: fx.OTHER },
      { type: "pendingFinalization", stakingUser: fx.OTHER },
      { type: "requested" },
    ]) {
      const fees = { ...fx.userFees(), stakingLink: link };
      expect((await ask(fees, (c) => c.userFees({ user: fx.USER }))).result.stakingLink).toEqual(link);
    }
  });

  it("still refuses a stakingLink address that is no address, with its path", async () => {
    const fees = { ...fx.userFees(), stakingLink: { type: "requested", stakingUser: "0x12" } };
    expect(paths(await askError(fees, (c) => c.userFees({ user: fx.USER })))).toEqual([
      "stakingLink.stakingUser",
    ]);
  });
});

describe("userRole", () => {
  it.each([
    { role: "missing" },
    { role: "user" },
    { role: "vault" },
    { role: "agent", data: { user: fx.USER } },
    { role: "subAccount", data: { master: fx.USER } },
  ])("returns %o", async (role) => {
    const { result, body } = await ask(role, (c) => c.userRole({ user: fx.OTHER }));
    expect(body).toEqual({ type: "userRole", user: fx.OTHER });
    expect(result).toEqual(role);
  });

  it("charges weight 60", async () => {
    const { client, budget } = await venue({ json: { role: "user" } });
    await client.userRole({ user: fx.USER });
    expect(budget.used()).toBe(60);
  });

  it("rejects an agent without its master", async () => {
    expect(paths(await askError({ role: "agent" }, (c) => c.userRole({ user: fx.USER })))).toEqual(["data"]);
  });
});

describe("response validation", () => {
  it("keeps unknown fields at every level", async () => {
    const summary = {
      ...fx.validatorSummary(),
      newTopLevel: { nested: [1, 2] },
      stats: fx.validatorSummary().stats.map((s) => {
        const [period, st] = s as [string, Record<string, unknown>];
        return [period, { ...st, extra: "x" }];
      }),
    };
    const { result } = await ask([summary], (c) => c.validatorSummaries());
    expect(result[0]).toMatchObject({ newTopLevel: { nested: [1, 2] } });
    expect(result[0]!.stats[0]![1]).toMatchObject({ extra: "x" });
    const fees = {
      ...fx.userFees(),
      brandNew: true,
      feeSchedule: { ...fx.userFees().feeSchedule, alsoNew: 1 },
    };
    const r = await ask(fees, (c) => c.userFees({ user: fx.USER }));
    expect(r.result).toMatchObject({ brandNew: true, feeSchedule: { alsoNew: 1 } });
  });

  it("rejects decimal strings that are not plain decimals, and unsafe integers where a number is expected", async () => {
    const summary = {
      delegated: "1e5",
      undelegated: "abc",
      totalPendingWithdrawal: "",
      nPendingWithdrawals: 2n ** 60n,
    };
    const err = await askError(summary, (c) => c.delegatorSummary({ user: fx.USER }));
    expect(paths(err)).toEqual(["delegated", "undelegated", "totalPendingWithdrawal", "nPendingWithdrawals"]);
  });

  it("reports the whole answer being of the wrong kind", async () => {
    expect(paths(await askError({ not: "an array" }, (c) => c.delegations({ user: fx.USER })))).toEqual([""]);
  });

  it("passes transport errors through (422 from the venue)", async () => {
    const { client } = await venue({
      status: 422,
      text: "Failed to deserialize the JSON body into the target type",
    });
    await expect(client.spotMeta()).rejects.toBeInstanceOf(UnprocessableError);
  });
});

describe("request validation (before any I/O)", () => {
  const badUsers: Array<[string, unknown]> = [
    ["too short", "0x1234"],
    ["43 characters", `${fx.USER}0`],
    ["no 0x prefix", `00${fx.USER.slice(2)}`],
    ["non-hex digit", `0x${"g".repeat(40)}`],
    ["a number", 12345],
    ["missing", undefined],
  ];

  it.each(badUsers)("rejects a user that is %s and sends nothing", async (_name, user) => {
    const { server, client } = await venue({ json: [] });
    const err = await client.delegations({ user } as { user: string }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe("user");
    expect((err as ValidationError).message).toMatch(
      user === undefined ? /user: required/ : /user: expected an address/,
    );
    expect((err as ValidationError).exitCode).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it("rejects a tokenId or hash of the wrong length, and unknown parameters, sending nothing", async () => {
    const { server, client } = await venue({ json: {} });
    const e1 = await client.tokenDetails({ tokenId: fx.TOKEN_ID.slice(0, 33) }).catch((e: unknown) => e);
    expect((e1 as ValidationError).field).toBe("tokenId");
    const e2 = await client.txDetails({ hash: fx.TX_HASH.slice(0, 65) }).catch((e: unknown) => e);
    expect((e2 as ValidationError).field).toBe("hash");
    const e3 = await client
      .userFees({ user: fx.USER, extra: true } as unknown as { user: string })
      .catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(ValidationError);
    expect((e3 as ValidationError).issues).toEqual([{ path: "extra", message: "unknown field" }]);
    const e4 = await client.allMids({ dex: 5 } as unknown as { dex: string }).catch((e: unknown) => e);
    expect((e4 as ValidationError).field).toBe("dex");
    expect(server.requests).toHaveLength(0);
  });

  it("accepts a 0X prefix and mixed case, and sends the address lower-case", async () => {
    const mixed = `0X${fx.USER.slice(2).toUpperCase()}`;
    const { body } = await ask({ role: "user" }, (c) => c.userRole({ user: mixed }));
    expect(body).toEqual({ type: "userRole", user: fx.USER });
  });

  it("checks an address-shaped string of exactly 42 characters", async () => {
    const { body } = await ask([], (c) => c.delegations({ user: `0x${"A".repeat(40)}` }));
    expect(body).toEqual({ type: "delegations", user: `0x${"a".repeat(40)}` });
  });
});
