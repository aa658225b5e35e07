// The tolerance rule of issue #11 at the schema level: unknown variants of shown/ignored fields are kept
// and reported once per process per (query, field, value); strict fields still refuse a wrong type;
// an unknown TWAP status is neither "running" nor "finished" blindly.
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../src/lib/errors.js";
import { InfoClient } from "../../../src/venue/info/client.js";
import {
  knownUserRole,
  stakingLinkPeer,
  TWAP_END_MARGIN_MS,
  twapHasEnded,
  twapMayBeRunning,
} from "../../../src/venue/info/methods/index.js";
import { resetUnknownReports, type UnknownValue } from "../../../src/venue/info/tolerant.js";
import { resolveEndpoints } from "../../../src/venue/networks.js";
import { HttpTransport } from "../../../src/venue/transport/http.js";
import { startHttpServer } from "../../helpers/httpServer.js";
import * as fx from "./fixtures.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  resetUnknownReports();
});

async function clientAnswering(json: unknown) {
  const server = await startHttpServer([{ json }]);
  const transport = new HttpTransport({
    endpoints: resolveEndpoints("testnet", server.url),
    retry: { attempts: 1 },
  });
  cleanups.push(async () => {
    await transport.close();
    await server.close();
  });
  const seen: Array<{ message: string; unknown: UnknownValue }> = [];
  const client = new InfoClient(transport, {
    onUnknown: (message, unknown) => seen.push({ message, unknown }),
  });
  return { client, seen };
}

describe("unknown values of tolerant fields", () => {
  it("are kept as sent and reported once per (query, field, value)", async () => {
    const sub = { ...fx.subAccount(), abstraction: "someFutureMode" };
    const answer = [sub, { ...sub, name: "second" }, { ...sub, abstraction: "dexAbstraction" }];
    const { client, seen } = await clientAnswering(answer);
    for (let i = 0; i < 3; i++) {
      const result = await client.subAccounts2({ user: fx.USER });
      expect(result?.map((s) => s.abstraction)).toEqual([
        "someFutureMode",
        "someFutureMode",
        "dexAbstraction",
      ]);
    }
    expect(seen.map((s) => s.unknown)).toEqual([
      { query: "subAccounts2", field: "[].abstraction", value: "someFutureMode" },
    ]);
    expect(seen[0]!.message).toMatch(/unknown \[\]\.abstraction value "someFutureMode".*carries on/);
  });

  it("are not reported when the answer is refused for a strict field", async () => {
    const sub = { ...fx.subAccount(), abstraction: "someFutureMode", subAccountUser: 12 };
    const { client, seen } = await clientAnswering([sub]);
    const err = await client.subAccounts2({ user: fx.USER }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadResponseError);
    expect((err as BadResponseError).issues.map((i) => i.path)).toEqual(["0.subAccountUser"]);
    expect(seen).toEqual([]);
  });

  it("cover a new role, referrer stage, delta kind, reward source and link type", async () => {
    const cases: Array<[unknown, (c: InfoClient) => Promise<unknown>, string, string]> = [
      [{ role: "validator", data: { x: 1 } }, (c) => c.userRole({ user: fx.USER }), "role", "validator"],
      [
        { ...fx.referral(), referrerState: { stage: "suspended" } },
        (c) => c.referral({ user: fx.USER }),
        "referrerState.stage",
        "suspended",
      ],
      [
        [{ time: 1, hash: fx.TX_HASH, delta: { rewardClaim: { amount: "1.0" } } }],
        (c) => c.delegatorHistory({ user: fx.USER }),
        "[].delta kind",
        "rewardClaim",
      ],
      [
        [{ time: 1, source: "airdrop", totalAmount: "1.0" }],
        (c) => c.delegatorRewards({ user: fx.USER }),
        "[].source",
        "airdrop",
      ],
      [
        { ...fx.userFees(), stakingLink: { type: "pending", stakingUser: fx.OTHER } },
        (c) => c.userFees({ user: fx.USER }),
        "stakingLink.type",
        "pending",
      ],
    ];
    for (const [answer, call, field, value] of cases) {
      const { client, seen } = await clientAnswering(answer);
      await call(client);
      expect(seen.map((s) => [s.unknown.field, s.unknown.value])).toEqual([[field, value]]);
    }
  });
});

describe("knownUserRole", () => {
  it("narrows a known role and gives undefined for a role hlbot does not know", () => {
    const agent = knownUserRole({ role: "agent", data: { user: fx.USER } });
    expect(agent?.role === "agent" ? agent.data.user : undefined).toBe(fx.USER);
    expect(knownUserRole({ role: "multiSig" })).toBeUndefined();
  });
});

describe("stakingLinkPeer", () => {
  it("reads the other account from whichever field carries it", () => {
    expect(stakingLinkPeer({ type: "requested", stakingUser: "0xAB" })).toBe("0xab");
    expect(stakingLinkPeer({ type: "stakingUser", tradingUser: "0xCD" })).toBe("0xcd");
    expect(stakingLinkPeer({ type: "stakingUser", stakingUser: "0xEF" })).toBe("0xef");
    expect(stakingLinkPeer({ type: "requested" })).toBeUndefined();
  });
});

describe("twapMayBeRunning", () => {
  const start = 1_753_999_000_000;
  const entry = (status: string) => ({ status: { status }, state: { timestamp: start, minutes: 30 } });

  it("takes activated as running and the ended or waiting statuses as not running", () => {
    expect(twapMayBeRunning(entry("activated"), start + 10 * 60_000)).toBe(true);
    for (const s of ["finished", "terminated", "stopped", "error", "waitingForTrigger"])
      expect(twapMayBeRunning(entry(s), start + 60_000)).toBe(false);
  });

  it("takes an unknown status as running until the TWAP's own end and the margin, then not", () => {
    expect(twapMayBeRunning(entry("paused"), start + 30 * 60_000 + TWAP_END_MARGIN_MS - 1)).toBe(true);
    expect(twapMayBeRunning(entry("paused"), start + 30 * 60_000 + TWAP_END_MARGIN_MS)).toBe(false);
  });

  it("takes activated as running no longer than its scheduled end and the margin: a lost final record does not block the pair for ever", () => {
    // A review: an answer without the final record kept a week-old 30-minute TWAP running.
    expect(twapMayBeRunning(entry("activated"), start + 30 * 60_000 + TWAP_END_MARGIN_MS - 1)).toBe(true);
    expect(twapMayBeRunning(entry("activated"), start + 30 * 60_000 + TWAP_END_MARGIN_MS)).toBe(false);
    expect(twapMayBeRunning(entry("activated"), start + 7 * 24 * 3_600_000)).toBe(false);
    // Activated later than created (a trigger): its run starts at the record's time.
    const later = { ...entry("activated"), timeMs: start + 60 * 60_000 };
    expect(twapMayBeRunning(later, start + 80 * 60_000)).toBe(true);
    expect(twapMayBeRunning(later, start + 90 * 60_000 + TWAP_END_MARGIN_MS)).toBe(false);
  });

  it("says a TWAP has ended only for the ended statuses: the rest of any other may still execute", () => {
    // Limits and budgets count an ended TWAP at what it executed: an unknown status ("paused") or one
    // waiting for its trigger counted as ended would leave its whole size out of the daily limit.
    for (const s of ["finished", "terminated", "stopped", "error"]) expect(twapHasEnded(entry(s))).toBe(true);
    for (const s of ["activated", "waitingForTrigger", "paused"]) expect(twapHasEnded(entry(s))).toBe(false);
  });
});
