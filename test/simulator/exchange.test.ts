import { afterEach, describe, expect, it } from "vitest";
import {
  ApproveAgentResponse,
  buildTwapCancel,
  buildTwapOrder,
  CDepositResponse,
  TwapCancelResponse,
  TwapOrderResponse,
} from "../../src/venue/exchange/actions/index.js";
import { ADDR, HYPE_ASSET, KEYS, START, VALIDATORS } from "./fixtures.js";
import { type HttpSim, l1Body, post, send, startTestSim, userBody, userHeader } from "./helpers.js";

let sim: HttpSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

const twap = (size = "10", minutes = 5) =>
  buildTwapOrder({ asset: HYPE_ASSET, isBuy: true, size, szDecimals: 2, minutes }) as unknown as Record<
    string,
    unknown
  >;
const running = (r: unknown) =>
  (r as { response: { data: { status: { running?: { twapId: number } } } } }).response.data.status.running
    ?.twapId;

describe("authentication", () => {
  it("accepts a correctly signed L1 action and refuses a stranger's key with the venue's text", async () => {
    sim = await startTestSim();
    const ok = await send(sim, await l1Body(KEYS.trader, twap(), START));
    expect(TwapOrderResponse.parse(ok)).toMatchObject({ status: "ok" });
    expect(running(ok)).toBeTypeOf("number");
    const stranger = await send(sim, await l1Body(KEYS.stranger, twap(), START + 1));
    expect(stranger).toEqual({
      status: "err",
      response: `User or API Wallet ${ADDR.stranger} does not exist.`,
    });
    expect(TwapOrderResponse.safeParse(stranger).success).toBe(true);
    // A user-signed action from an unknown user.
    const dep = { type: "cDeposit", ...userHeader(START + 2), wei: 100 };
    expect(await send(sim, await userBody(KEYS.stranger, dep))).toEqual({
      status: "err",
      response: `Must deposit before performing actions. User: ${ADDR.stranger}`,
    });
  });

  it("recovers the signer for the configured network only", async () => {
    sim = await startTestSim({ network: "mainnet" });
    const testnetSigned = await send(sim, await l1Body(KEYS.trader, twap(), START));
    expect((testnetSigned as { status: string }).status).toBe("err");
    expect((testnetSigned as { response: string }).response).toMatch(
      /^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/,
    );
    expect((testnetSigned as { response: string }).response).not.toContain(ADDR.trader);
    const mainnetSigned = await send(
      sim,
      await l1Body(KEYS.trader, twap(), START + 1, { network: "mainnet" }),
    );
    expect(running(mainnetSigned)).toBeTypeOf("number");
    const wrongChain = { type: "cDeposit", ...userHeader(START + 2), wei: 100 };
    expect(await send(sim, await userBody(KEYS.trader, wrongChain))).toMatchObject({ status: "err" });
  });

  it("hashes the canonical action: extra keys, key order or a trailing zero recover someone else", async () => {
    sim = await startTestSim();
    const variants: Record<string, unknown>[] = [
      { type: "twapOrder", twap: { a: HYPE_ASSET, b: true, s: "10.0", r: false, m: 5, t: false } },
      { type: "twapOrder", twap: { b: true, a: HYPE_ASSET, s: "10", r: false, m: 5, t: false } },
      { type: "twapOrder", twap: { a: HYPE_ASSET, b: true, s: "10", r: false, m: 5, t: false, extra: 1 } },
    ];
    let nonce = START;
    for (const action of variants) {
      const r = (await send(sim, await l1Body(KEYS.trader, action, nonce++))) as {
        status: string;
        response: string;
      };
      expect(r.status).toBe("err");
      expect(r.response).toMatch(/does not exist\./);
    }
    expect(sim.twaps()).toHaveLength(0);
  });

  it("lets an approved agent sign L1 actions for its master and sub-accounts, never user-signed ones", async () => {
    sim = await startTestSim();
    const approve = {
      type: "approveAgent",
      ...userHeader(START),
      agentAddress: ADDR.agent,
      agentName: "bot",
    };
    expect(ApproveAgentResponse.parse(await send(sim, await userBody(KEYS.trader, approve)))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    const forMaster = await send(sim, await l1Body(KEYS.agent, twap(), START + 1));
    expect(running(forMaster)).toBeTypeOf("number");
    expect(sim.twaps(ADDR.trader)).toHaveLength(1);
    // For the sub-account through vaultAddress (its own balance: 500 USDC, none in the test fixture → fund).
    sim.fund(ADDR.sub, "USDC", "1000");
    const forSub = await send(sim, await l1Body(KEYS.agent, twap(), START + 2, { vaultAddress: ADDR.sub }));
    expect(running(forSub)).toBeTypeOf("number");
    expect(sim.twaps(ADDR.sub)).toHaveLength(1);
    // A vault that is not the master's.
    const foreign = await send(
      sim,
      await l1Body(KEYS.agent, twap(), START + 3, { vaultAddress: ADDR.staker }),
    );
    expect(foreign).toEqual({ status: "err", response: `Vault not registered: ${ADDR.staker}` });
    // User-signed by the agent: recovered as the agent itself.
    const dep = { type: "cDeposit", ...userHeader(START + 4), wei: 100 };
    expect(await send(sim, await userBody(KEYS.agent, dep))).toEqual({
      status: "err",
      response: `Must deposit before performing actions. User: ${ADDR.agent}`,
    });
    // userRole reports the agent's master.
    expect((await post(sim, "/info", { type: "userRole", user: ADDR.agent })).json).toEqual({
      role: "agent",
      data: { user: ADDR.trader },
    });
  });

  it("accepts vaultAddress and expiresAfter as absent or null, also on user-signed actions", async () => {
    sim = await startTestSim();
    const body = await l1Body(KEYS.trader, twap(), START, { vaultAddress: null, expiresAfter: null });
    expect(body).toHaveProperty("vaultAddress", null);
    expect(running(await send(sim, body))).toBeTypeOf("number");
    const dep = { type: "cDeposit", ...userHeader(START + 1), wei: 100_000_000 };
    const u = { ...(await userBody(KEYS.trader, dep)), vaultAddress: null, expiresAfter: null };
    expect(CDepositResponse.parse(await send(sim, u))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
  });

  it("requires the inner nonce of a user-signed action to equal the request nonce", async () => {
    sim = await startTestSim();
    const dep = { type: "cDeposit", ...userHeader(START), wei: 100 };
    const body = { ...(await userBody(KEYS.trader, dep)), nonce: START + 1 };
    expect(await send(sim, body)).toMatchObject({ status: "err", response: expect.stringMatching(/nonce/) });
  });
});

describe("nonces and expiry", () => {
  it("refuses a duplicate nonce per signer, and nonces outside the ±1 day window", async () => {
    sim = await startTestSim();
    const first = await send(sim, await l1Body(KEYS.trader, twap(), START));
    expect(running(first)).toBeTypeOf("number");
    expect(await send(sim, await l1Body(KEYS.trader, twap("11"), START))).toEqual({
      status: "err",
      response: `Invalid nonce: duplicate nonce ${START}`,
    });
    const old = START - 86_400_000;
    const tooOld = (await send(sim, await l1Body(KEYS.trader, twap(), old))) as { response: string };
    expect(tooOld.response).toMatch(/^Invalid nonce/);
    const future = (await send(sim, await l1Body(KEYS.trader, twap(), START + 86_400_000))) as {
      response: string;
    };
    expect(future.response).toMatch(/^Invalid nonce/);
    // The nonce window follows the virtual clock.
    sim.advance(2 * 86_400_000);
    const stale = (await send(sim, await l1Body(KEYS.trader, twap(), START + 10))) as { response: string };
    expect(stale.response).toMatch(/^Invalid nonce/);
    expect(sim.twaps()).toHaveLength(1);
  });

  it("keeps the N highest nonces: below the smallest of a full set is too low", async () => {
    sim = await startTestSim({ nonceSetSize: 3 });
    for (const n of [START + 10, START + 30, START + 20]) {
      expect(running(await send(sim, await l1Body(KEYS.trader, twap(), n)))).toBeTypeOf("number");
    }
    expect(await send(sim, await l1Body(KEYS.trader, twap(), START + 5))).toEqual({
      status: "err",
      response: `Invalid nonce: nonce too low ${START + 5} < ${START + 10}`,
    });
    expect(running(await send(sim, await l1Body(KEYS.trader, twap(), START + 15)))).toBeTypeOf("number");
  });

  it("refuses an action whose expiresAfter has passed, without consuming its nonce", async () => {
    sim = await startTestSim();
    sim.advance(60_000);
    const expired = await l1Body(KEYS.trader, twap(), START + 60_000, { expiresAfter: START + 59_999 });
    expect(await send(sim, expired)).toEqual({ status: "err", response: "Action already expired" });
    const valid = await l1Body(KEYS.trader, twap(), START + 60_000, { expiresAfter: START + 120_000 });
    expect(running(await send(sim, valid))).toBeTypeOf("number");
    sim.setMessages({ actionExpired: "Expired: {x}" });
    const again = await l1Body(KEYS.trader, twap(), START + 60_001, { expiresAfter: START });
    expect(await send(sim, again)).toEqual({ status: "err", response: "Expired: {x}" });
  });
});

describe("twapOrder and twapCancel answers", () => {
  it("answers running, error and cancel statuses in the venue's envelopes", async () => {
    sim = await startTestSim();
    const bad = await send(
      sim,
      await l1Body(
        KEYS.trader,
        { type: "twapOrder", twap: { a: HYPE_ASSET, b: true, s: "10", r: false, m: 1, t: false } },
        START,
      ),
    );
    expect(bad).toEqual({
      status: "ok",
      response: { type: "twapOrder", data: { status: { error: "Invalid TWAP duration: 1 min(s)" } } },
    });
    const id = running(await send(sim, await l1Body(KEYS.trader, twap(), START + 1)))!;
    const cancel = buildTwapCancel({ asset: HYPE_ASSET, twapId: id }) as unknown as Record<string, unknown>;
    const c1 = await send(sim, await l1Body(KEYS.trader, cancel, START + 2));
    expect(TwapCancelResponse.parse(c1)).toEqual({
      status: "ok",
      response: { type: "twapCancel", data: { status: "success" } },
    });
    const c2 = await send(sim, await l1Body(KEYS.trader, cancel, START + 3));
    expect(c2).toEqual({
      status: "ok",
      response: {
        type: "twapCancel",
        data: { status: { error: "TWAP was never placed, already canceled, or filled." } },
      },
    });
    const noop = await send(sim, await l1Body(KEYS.trader, { type: "noop" }, START + 4));
    expect(noop).toEqual({ status: "ok", response: { type: "default" } });
    // Real actions the simulator does not implement get a clear error, not a 422.
    const order = await send(
      sim,
      await l1Body(KEYS.trader, { type: "scheduleCancel", time: START + 60_000 }, START + 5),
    );
    expect(order).toMatchObject({ status: "err", response: expect.stringMatching(/not supported/) });
  });

  it("records every executed action as a transaction, with its error, for txDetails", async () => {
    sim = await startTestSim();
    await send(sim, await l1Body(KEYS.trader, twap(), START));
    await send(
      sim,
      await userBody(KEYS.trader, {
        type: "tokenDelegate",
        ...userHeader(START + 1),
        validator: VALIDATORS.a,
        wei: 1,
        isUndelegate: false,
      }),
    );
    const actions = sim.ledger({ kind: "action" });
    expect(actions.map((a) => [a.data.type, a.data.status])).toEqual([
      ["twapOrder", "ok"],
      ["tokenDelegate", "error"],
    ]);
    const tx = await post(sim, "/explorer", { type: "txDetails", hash: actions[1]!.hash });
    expect(tx.json).toMatchObject({
      type: "txDetails",
      tx: {
        action: { type: "tokenDelegate" },
        error: "Insufficient undelegated staking balance",
        user: ADDR.trader,
        time: START,
      },
    });
  });
});

describe("agents and staking links", () => {
  const addrOf = (i: number) => `0x${(0xa0 + i).toString(16).padStart(40, "0")}`;

  it("limits named agents, replaces one by name, and expires agents with valid_until", async () => {
    sim = await startTestSim();
    let nonce = START;
    const approve = async (agentAddress: string, agentName: string) =>
      send(
        sim!,
        await userBody(KEYS.trader, {
          type: "approveAgent",
          ...userHeader(nonce++),
          agentAddress,
          agentName,
        }),
      );
    for (let i = 0; i < 3; i++) expect(await approve(addrOf(i), `bot${i}`)).toMatchObject({ status: "ok" });
    expect(await approve(addrOf(3), "")).toMatchObject({ status: "ok" });
    expect(await approve(addrOf(4), "bot4")).toEqual({ status: "err", response: "Too many API wallets" });
    // Same name: the new address replaces the old one, which stops existing.
    expect(await approve(ADDR.agent, `bot0 valid_until ${START + 3_600_000}`)).toMatchObject({
      status: "ok",
    });
    expect((await post(sim, "/info", { type: "userRole", user: addrOf(0) })).json).toEqual({
      role: "missing",
    });
    expect(running(await send(sim, await l1Body(KEYS.agent, twap(), nonce++)))).toBeTypeOf("number");
    sim.advance(3_600_000);
    expect(await send(sim, await l1Body(KEYS.agent, twap(), sim.now()))).toEqual({
      status: "err",
      response: `User or API Wallet ${ADDR.agent} does not exist.`,
    });
    // An existing user cannot become an agent.
    expect(await approve(ADDR.staker, "x")).toEqual({
      status: "err",
      response: "Agent address is already a user",
    });
  });

  it("refuses to finalize a staking link nobody requested", async () => {
    sim = await startTestSim();
    const fin = { type: "linkStakingUser", ...userHeader(START), user: ADDR.trader, isFinalize: true };
    expect(await send(sim, await userBody(KEYS.staker, fin))).toEqual({
      status: "err",
      response: "Staking link error",
    });
    const self = { type: "linkStakingUser", ...userHeader(START + 1), user: ADDR.trader, isFinalize: false };
    expect(await send(sim, await userBody(KEYS.trader, self))).toEqual({
      status: "err",
      response: "Staking link error",
    });
    const req = { type: "linkStakingUser", ...userHeader(START + 2), user: ADDR.staker, isFinalize: false };
    expect(await send(sim, await userBody(KEYS.trader, req))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    // Only the named staking user may finalize.
    sim.fund(ADDR.stranger, "HYPE", "1");
    const wrong = { type: "linkStakingUser", ...userHeader(START + 3), user: ADDR.trader, isFinalize: true };
    expect(await send(sim, await userBody(KEYS.stranger, wrong))).toEqual({
      status: "err",
      response: "Staking link error",
    });
    expect(sim.ledger({ kind: "stakingLinkRequested" })).toHaveLength(1);
    expect(sim.ledger({ kind: "stakingLinkFinalized" })).toHaveLength(0);
  });
});
