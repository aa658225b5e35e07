// End-to-end rules through the HTTP interface, signed with hlbot's own signing and read with its
// InfoClient (so every answer also passes the client's schemas).
import { afterEach, describe, expect, it } from "vitest";
import { parseDecimal } from "../../src/lib/decimal.js";
import { buildCDeposit, buildCWithdraw, buildTokenDelegate } from "../../src/venue/exchange/actions/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import type { HttpTransport } from "../../src/venue/transport/http.js";
import { ADDR, HYPE_ASSET, KEYS, START, VALIDATORS } from "./fixtures.js";
import { type HttpSim, l1Body, send, startTestSim, transportFor, userBody } from "./helpers.js";

const DAY = 86_400_000;
let sim: HttpSim | undefined;
let transport: HttpTransport | undefined;
afterEach(async () => {
  await transport?.close();
  await sim?.stop();
  sim = undefined;
  transport = undefined;
});

async function setup() {
  sim = await startTestSim();
  transport = transportFor(sim);
  return { sim, info: new InfoClient(transport) };
}

const bal = async (info: InfoClient, user: string, coin: string) => {
  const b = (await info.spotClearinghouseState({ user })).balances.find((x) => x.coin === coin);
  return { total: b?.total, hold: b?.hold };
};

describe("TWAP over HTTP", () => {
  it("runs to completion over virtual time with one slice per 30 s and the expected balances", async () => {
    const { sim, info } = await setup();
    const order = {
      type: "twapOrder",
      twap: { a: HYPE_ASSET, b: false, s: "40", r: false, m: 10, t: false },
    };
    const placed = (await send(sim, await l1Body(KEYS.trader, order, START))) as {
      response: { data: { status: { running: { twapId: number } } } };
    };
    const twapId = placed.response.data.status.running.twapId;
    expect(await bal(info, ADDR.trader, "HYPE")).toEqual({ total: "1000.0", hold: "40.0" });
    sim.advance(5 * 60_000);
    expect(await bal(info, ADDR.trader, "HYPE")).toEqual({ total: "980.0", hold: "20.0" });
    expect((await info.userTwapSliceFills({ user: ADDR.trader })).length).toBe(10);
    sim.advance(5 * 60_000);
    const fills = await info.userTwapSliceFills({ user: ADDR.trader });
    expect(fills).toHaveLength(20);
    expect(
      fills.every(
        (f) => f.fill.sz === "2.0" && f.fill.px === "25.0" && f.fill.side === "A" && f.twapId === twapId,
      ),
    ).toBe(true);
    // 40 HYPE sold at 25 = 1000 USDC, minus 0.1 % taker fee paid in USDC.
    const fees = fills.reduce((s, f) => s.plus(parseDecimal(f.fill.fee)), parseDecimal("0"));
    expect(fees.toString()).toBe("1");
    expect(await bal(info, ADDR.trader, "HYPE")).toEqual({ total: "960.0", hold: "0.0" });
    expect(await bal(info, ADDR.trader, "USDC")).toEqual({ total: "10999.0", hold: "0.0" });
    const history = await info.twapHistory({ user: ADDR.trader });
    expect(history.map((h) => [h.status.status, h.timeMs - START, h.state.executedSz])).toEqual([
      ["activated", 0, "0.0"],
      ["finished", 600_000, "40.0"],
    ]);
    expect((await info.userFees({ user: ADDR.trader })).userSpotCrossRate).toBe("0.001");
  });

  it("a cancelled TWAP shows as terminated and stops filling", async () => {
    const { sim, info } = await setup();
    const order = { type: "twapOrder", twap: { a: HYPE_ASSET, b: true, s: "20", r: false, m: 10, t: false } };
    await send(sim, await l1Body(KEYS.trader, order, START));
    sim.advance(90_000);
    const id = sim.twaps(ADDR.trader)[0]!.id;
    await send(sim, await l1Body(KEYS.trader, { type: "twapCancel", a: HYPE_ASSET, t: id }, START + 90_000));
    sim.advance(20 * 60_000);
    const history = await info.twapHistory({ user: ADDR.trader });
    expect(history.map((h) => [h.status.status, h.state.executedSz])).toEqual([
      ["activated", "0.0"],
      ["terminated", "3.0"],
    ]);
    expect(await info.userTwapSliceFills({ user: ADDR.trader })).toHaveLength(3);
    expect((await bal(info, ADDR.trader, "USDC")).hold).toBe("0.0");
  });
});

describe("staking over HTTP", () => {
  const n = { v: START };
  const nonce = () => ++n.v;

  it("deposits, delegates with a 1-day lock, undelegates after it, queues a withdrawal, compounds rewards", async () => {
    const { sim, info } = await setup();
    n.v = START;
    const act = async (action: object) =>
      send(sim, await userBody(KEYS.staker, action as Record<string, unknown>));
    expect(await act(buildCDeposit({ network: "testnet", amount: "300", nonce: nonce() }))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(await info.delegatorSummary({ user: ADDR.staker })).toEqual({
      delegated: "0.0",
      undelegated: "300.0",
      totalPendingWithdrawal: "0.0",
      nPendingWithdrawals: 0,
    });
    expect((await bal(info, ADDR.staker, "HYPE")).total).toBe("200.0");
    const delegate = (amount: string, isUndelegate: boolean) =>
      act(
        buildTokenDelegate({
          network: "testnet",
          validator: VALIDATORS.b,
          amount,
          isUndelegate,
          nonce: nonce(),
        }),
      );
    expect(await delegate("200", false)).toEqual({ status: "ok", response: { type: "default" } });
    const [d] = await info.delegations({ user: ADDR.staker });
    expect(d).toEqual({ validator: VALIDATORS.b, amount: "200.0", lockedUntilTimestamp: START + DAY });
    expect(await delegate("50", true)).toEqual({
      status: "err",
      response: `Delegation is locked until ${START + DAY}`,
    });
    expect(await delegate("101", false)).toEqual({
      status: "err",
      response: "Insufficient undelegated staking balance",
    });
    sim.advance(DAY);
    expect(await delegate("50", true)).toEqual({ status: "ok", response: { type: "default" } });
    expect((await info.delegatorSummary({ user: ADDR.staker })).undelegated).toBe("150.0");
    expect(await act(buildCWithdraw({ network: "testnet", amount: "150", nonce: nonce() }))).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(await info.delegatorSummary({ user: ADDR.staker })).toMatchObject({
      undelegated: "0.0",
      totalPendingWithdrawal: "150.0",
      nPendingWithdrawals: 1,
    });
    // The first full day after the delegation paid 150 × 0.01 % (validator B keeps no commission)...
    const rewards1 = await info.delegatorRewards({ user: ADDR.staker });
    expect(rewards1.map((r) => r.totalAmount)).toEqual([]);
    sim.advance(DAY);
    const rewards2 = await info.delegatorRewards({ user: ADDR.staker });
    expect(rewards2.map((r) => r.totalAmount)).toEqual(["0.015"]);
    sim.advance(DAY);
    // ...compounded: the next day's reward is on 150.015.
    const rewards3 = await info.delegatorRewards({ user: ADDR.staker });
    expect(rewards3.map((r) => r.totalAmount)).toEqual(["0.0150015", "0.015"]);
    expect((await info.delegations({ user: ADDR.staker }))[0]?.amount).toBe("150.0300015");
    // The withdrawal pays back to spot 7 days after it was initiated.
    sim.advance(5 * DAY - 1000);
    expect((await bal(info, ADDR.staker, "HYPE")).total).toBe("200.0");
    sim.advance(1000);
    expect((await bal(info, ADDR.staker, "HYPE")).total).toBe("350.0");
    expect(await info.delegatorSummary({ user: ADDR.staker })).toMatchObject({ nPendingWithdrawals: 0 });
    const kinds = (await info.delegatorHistory({ user: ADDR.staker })).map((h) => {
      const [k, v] = Object.entries(h.delta)[0]!;
      return k === "withdrawal" ? `withdrawal:${(v as { phase: string }).phase}` : k;
    });
    expect(kinds).toEqual([
      "withdrawal:finalized",
      "withdrawal:initiated",
      "delegate",
      "delegate",
      "cDeposit",
    ]);
  });

  it("allows at most 5 pending withdrawals", async () => {
    const { sim } = await setup();
    n.v = START;
    const act = async (action: object) =>
      send(sim, await userBody(KEYS.staker, action as Record<string, unknown>));
    await act(buildCDeposit({ network: "testnet", amount: "10", nonce: nonce() }));
    for (let i = 0; i < 5; i++)
      expect(await act(buildCWithdraw({ network: "testnet", amount: "1", nonce: nonce() }))).toMatchObject({
        status: "ok",
      });
    expect(await act(buildCWithdraw({ network: "testnet", amount: "1", nonce: nonce() }))).toEqual({
      status: "err",
      response: "Too many pending withdrawals (maximum 5)",
    });
  });
});

describe("real time", () => {
  it("runs scheduled events from the wall clock (a 200 ms withdrawal queue) and refuses advance()", async () => {
    sim = await startTestSim({ clock: "real", settings: { withdrawalDelay: 200 } });
    transport = transportFor(sim);
    const info = new InfoClient(transport);
    const now = Date.now();
    await send(
      sim,
      await userBody(KEYS.staker, buildCDeposit({ network: "testnet", amount: "5", nonce: now })),
    );
    await send(
      sim,
      await userBody(KEYS.staker, buildCWithdraw({ network: "testnet", amount: "5", nonce: now + 1 })),
    );
    expect((await bal(info, ADDR.staker, "HYPE")).total).toBe("495.0");
    await new Promise((r) => setTimeout(r, 400));
    // Read without a request (no catch-up): the clock's own timer paid it.
    expect(sim.balance(ADDR.staker, "HYPE").total.toString()).toBe("500");
    expect((await bal(info, ADDR.staker, "HYPE")).total).toBe("500.0");
    expect(() => sim!.advance(1)).toThrow(/virtual clock/);
  });
});
