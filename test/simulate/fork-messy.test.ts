// `hlbot simulate --fork` of a messy account. A simulator on 127.0.0.1 stands in for the network, holding
// an account with a running TWAP, pending withdrawals started by signed cWithdraw actions (so
// delegatorHistory dates them), a delegation, a staking link and an API wallet. Each test states what a
// user forking that account expects: the fork starts from exactly that state, or says what it left out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/engine/config/loader.js";
import { adoptDemoAccount } from "../../src/simulate/demoAccount.js";
import { forkAccount } from "../../src/simulate/fork.js";
import { runSimulation } from "../../src/simulate/runner.js";
import {
  createSimulator,
  parseScenarioObject,
  type Simulator,
  startSimulator,
} from "../../src/simulator/index.js";
import { InfoClient } from "../../src/venue/info/client.js";
import { resolveEndpoints } from "../../src/venue/networks.js";
import { HttpTransport } from "../../src/venue/transport/http.js";
import { REPO_ROOT } from "../helpers/dist.js";
import { captureLogger } from "../helpers/logs.js";
import { ADDR, KEYS, START, testScenario, VALIDATORS } from "../simulator/fixtures.js";
import { l1Body, userBody, userHeader } from "../simulator/helpers.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let venue: Simulator & { url: string };
let transport: HttpTransport;
let info: InfoClient;

async function send(body: unknown): Promise<{ status: string; response: unknown }> {
  const res = await fetch(`${venue.url}/exchange`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { status: string; response: unknown };
}

const withdrawalStarts: number[] = [];

beforeAll(async () => {
  venue = (await startSimulator({
    scenario: testScenario({
      settings: {
        startTime: START,
        fees: { spotCross: "0.001", stakingDiscount: false, referralDiscount: "0" },
        twapHolds: false, // the simulator's and the bot's default belief: a spot TWAP holds nothing
      },
      staking: { [ADDR.trader]: { undelegated: "50" } },
      delegations: [{ user: ADDR.trader, validator: VALIDATORS.a, amount: "100" }],
      agents: [{ user: ADDR.trader, address: ADDR.agent, name: "bot" }],
      accounts: [{ address: ADDR.trader, stakingLink: { stakingUser: ADDR.staker, status: "linked" } }],
    }),
    rateLimit: false,
  })) as Simulator & { url: string };
  // A running TWAP (sell 100 HYPE over 10 hours), two withdrawals started 2 h and 1 h before the fork.
  let nonce = START;
  const twap = await send(
    await l1Body(
      KEYS.trader,
      { type: "twapOrder", twap: { a: 10107, b: false, s: "100", r: false, m: 600, t: false } },
      nonce++,
    ),
  );
  expect(twap.status).toBe("ok");
  for (const amount of [5, 7]) {
    withdrawalStarts.push(venue.now());
    const r = await send(
      await userBody(KEYS.trader, {
        type: "cWithdraw",
        ...userHeader(venue.now() + 10),
        wei: amount * 100_000_000,
      }),
    );
    expect(r.status, JSON.stringify(r)).toBe("ok");
    venue.advance(HOUR);
  }
  transport = new HttpTransport({ endpoints: resolveEndpoints("testnet", venue.url), budget: null });
  info = new InfoClient(transport);
});
afterAll(async () => {
  await transport?.close();
  await venue.stop();
});

/** The simulator a fork run builds (the demo account moved to a stand-in address, as runSimulation does). */
function forkedVenue(fork: Awaited<ReturnType<typeof forkAccount>>) {
  const scenario = parseScenarioObject(structuredClone(fork.scenario));
  const me = "0x00000000000000000000000000000000000000aa";
  adoptDemoAccount(scenario, me);
  return { sim: createSimulator({ scenario, seed: 1, clock: "virtual", startTime: fork.at }), me };
}

/** An info client reading a simulator in-process (the same client code as over HTTP). */
function infoOf(sim: Simulator): InfoClient {
  const at = "http://venue.invalid";
  return new InfoClient(
    new HttpTransport({
      endpoints: { info: `${at}/info`, exchange: `${at}/exchange`, explorer: `${at}/explorer` },
      wire: sim.wire,
      budget: null,
    }),
  );
}

describe("a fork of a messy account", () => {
  it("carries the running TWAP: same id, pair, side and size, its progress, and it ends when the real one does", async () => {
    const [real] = await info.twapHistory({ user: ADDR.trader });
    expect(real).toBeDefined();
    const fork = await forkAccount(info, ADDR.trader, { network: "testnet", now: Date.now });
    const { sim, me } = forkedVenue(fork);
    const forked = (await infoOf(sim).twapHistory({ user: me }))[0];
    expect(forked).toMatchObject({
      twapId: real!.twapId,
      status: { status: "activated" },
      state: { coin: "@107", side: "A", sz: "100.0", minutes: 600, timestamp: real!.state.timestamp },
    });
    // What ran before the fork (two hours of ten) counts as executed, so the bot sizes around what is left.
    const filled = await info.userTwapSliceFills({ user: ADDR.trader });
    const before = filled.reduce((sum, f) => sum + Number(f.fill.sz), 0);
    expect(before).toBeGreaterThan(0);
    const forkedFills = sim.info({ type: "userTwapSliceFills", user: me }) as Array<{ fill: { sz: string } }>;
    expect(forkedFills.reduce((sum, f) => sum + Number(f.fill.sz), 0)).toBeCloseTo(before, 8);
    // It continues and finishes at its own end, having sold what was left.
    const hypeBefore = Number(sim.balance(me, "HYPE").total);
    sim.advance(real!.state.timestamp + 600 * 60_000 - fork.at + 60_000);
    const last = (
      sim.info({ type: "twapHistory", user: me }) as Array<{ status: { status: string }; time: number }>
    ).at(-1)!;
    expect(last.status.status).toBe("finished");
    expect(last.time * 1000).toBe(real!.state.timestamp + 600 * 60_000);
    expect(hypeBefore - Number(sim.balance(me, "HYPE").total)).toBeCloseTo(100 - before, 8);
    expect(fork.notes.some((n) => /TWAP #1000 .* is carried/.test(n))).toBe(true);
  });

  it("keeps the number of pending withdrawals (the venue queues at most 5)", async () => {
    const fork = await forkAccount(info, ADDR.trader, { network: "testnet", now: Date.now });
    const { sim, me } = forkedVenue(fork);
    const real = (await info.delegatorSummary({ user: ADDR.trader })).nPendingWithdrawals;
    const forked = (sim.info({ type: "delegatorSummary", user: me }) as { nPendingWithdrawals: number })
      .nPendingWithdrawals;
    expect(real).toBe(2);
    expect(forked).toBe(real);
  });

  it("lands each pending withdrawal when the venue lands it (delegatorHistory dates its start)", async () => {
    const fork = await forkAccount(info, ADDR.trader, { network: "testnet", now: Date.now });
    const { sim, me } = forkedVenue(fork);
    const realEnds = venue
      .staking(ADDR.trader)
      .pendingWithdrawals.map((w) => w.finalizesAt)
      .sort();
    const forkEnds = sim
      .staking(me)
      .pendingWithdrawals.map((w) => w.finalizesAt)
      .sort();
    expect(realEnds).toEqual(withdrawalStarts.map((t) => t + 7 * DAY));
    expect(forkEnds.map((t) => Math.round(t / 1000))).toEqual(realEnds.map((t) => Math.round(t / 1000)));
    expect(
      sim
        .staking(me)
        .pendingWithdrawals.map((w) => w.amount.toString())
        .sort(),
    ).toEqual(["5", "7"]);
  });

  it("does not count the account's own delegation twice in its validator's stake", async () => {
    const fork = await forkAccount(info, ADDR.trader, { network: "testnet", now: Date.now });
    const { sim } = forkedVenue(fork);
    const stakeOf = (list: unknown) =>
      (list as Array<{ validator: string; stake: bigint | number }>).find(
        (v) => v.validator === VALIDATORS.a,
      )!.stake;
    const real = BigInt(stakeOf(await info.validatorSummaries({})));
    const forked = BigInt(stakeOf(sim.info({ type: "validatorSummaries" })));
    expect(forked).toBe(real);
  });

  it("forks the master's account when given an API wallet's address, and says so", async () => {
    const role = await info.userRole({ user: ADDR.agent });
    expect(role).toMatchObject({ role: "agent" });
    const fork = await forkAccount(info, ADDR.agent, { network: "testnet", now: Date.now });
    expect(fork.account).toBe(ADDR.trader);
    expect(fork.holdings.delegated).toBe("100.0");
    expect(fork.notes[0]).toMatch(
      new RegExp(`${ADDR.agent} is an API wallet of ${ADDR.trader}: forked ${ADDR.trader}`),
    );
  });

  it("keeps the staking history a strategy reads (respectManualDays), and says whose moves it shows", async () => {
    const fork = await forkAccount(info, ADDR.trader, { network: "testnet", now: Date.now });
    const { sim, me } = forkedVenue(fork);
    const real = await info.delegatorHistory({ user: ADDR.trader });
    expect(real.length).toBeGreaterThan(0);
    const forked = await infoOf(sim).delegatorHistory({ user: me });
    expect(forked).toEqual(real);
    expect(fork.notes.some((n) => /staking history .* carried/.test(n))).toBe(true);
    // What reading hlbot's own moves as the owner's can do (a staker's trial: the fork delegated stake
    // the owner had undelegated by hand, which the live bot left alone, and the note read as caution).
    expect(fork.notes.find((n) => /staking history .* carried/.test(n))).toMatch(
      /may differ from a live bot's, .*can make the fork delegate stake you undelegated by hand/,
    );
    // A run of it is not told its new journal lacks that history, nor to run a rebuild it cannot run (a
    // fork trial: the warning named the stand-in account).
    const { logger, lines } = captureLogger();
    const config = await loadConfig(`${REPO_ROOT}/config/demo.yaml`, {});
    await runSimulation({
      config: { ...config, strategies: config.strategies.filter((x) => x.kind === "validator-staking") },
      scenario: fork.scenario,
      scenarioFile: "fork",
      days: 0.2,
      logger,
      forkOf: fork.account,
    });
    expect(lines.filter((l) => /journal was empty/.test(String(l.msg)))).toEqual([]);
  });

  it("names what it leaves out: a negative balance (a borrow) and each pair without a mid", async () => {
    venue.fund(ADDR.stranger, "USDC", "100");
    venue.fund(ADDR.stranger, "HYPE", "-5");
    // A venue whose mids lack HYPE's pair (one nobody quotes).
    const noPurrMid = Object.create(info) as InfoClient;
    noPurrMid.allMids = async (p, signal) => {
      const { "@107": _gone, ...rest } = await info.allMids(p, signal);
      return rest;
    };
    const fork = await forkAccount(noPurrMid, ADDR.stranger, { network: "testnet", now: Date.now });
    expect(fork.holdings.spot).toEqual({ USDC: "100.0" });
    expect(fork.notes).toContainEqual(
      expect.stringMatching(/^-5(\.0)? HYPE \(a negative balance: a borrow\) is left out/),
    );
    expect(fork.notes).toContainEqual(
      expect.stringMatching(/^1 pair\(s\) without a mid at the fork are left out .*: @107 \(HYPE\/USDC\)$/),
    );
  });

  it("keeps the account's staking link", async () => {
    const fork = await forkAccount(info, ADDR.trader, { network: "testnet", now: Date.now });
    const { sim, me } = forkedVenue(fork);
    const real = (await info.userFees({ user: ADDR.trader })).stakingLink;
    expect(real).toMatchObject({ stakingUser: ADDR.staker });
    const forked = (sim.info({ type: "userFees", user: me }) as { stakingLink: unknown }).stakingLink;
    expect(forked).toEqual(real);
    // Forked from the staking side, the link names the trading account.
    const staking = await forkAccount(info, ADDR.staker, { network: "testnet", now: Date.now });
    const other = forkedVenue(staking);
    const realOther = (await info.userFees({ user: ADDR.staker })).stakingLink;
    expect(realOther).toMatchObject({ type: "stakingUser" });
    expect(
      (other.sim.info({ type: "userFees", user: other.me }) as { stakingLink: unknown }).stakingLink,
    ).toEqual(realOther);
  });
});
